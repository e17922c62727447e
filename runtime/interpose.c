// SPDX-License-Identifier: MIT
/*
 * interpose.c - library functions the runtime must see: they change the
 * stack behind the shadow stack's back, or change what is mapped.
 *
 *   _Unwind_RaiseException, _Unwind_Resume_or_Rethrow
 *                    the unwinder reads return addresses from the stack; it
 *                    must find the real ones, not ut_return_trampoline
 *   __cxa_begin_catch
 *                    the exception has landed: close the frames it unwound,
 *                    hook the survivors again
 *   pthread_exit     unwinds the thread's stack (forced unwinding)
 *   pthread_create   learns the new thread's stack bounds, and writes
 *                    sched_process_fork for it (below)
 *   dlopen           new code: snapshot the maps, find its call sites;
 *                    the dl:dlopen event
 *   dlclose          code gone: forget its call sites and functions;
 *                    the dl:dlclose event
 *   vfork            the child would share our thread state: use fork
 *   longjmp          frames below the target are over (also needed for
 *                    -finstrument-functions, where no slot tells)
 *
 * swapcontext and setcontext are in context.c, exec and posix_spawn in
 * exec.c, sigaction and signal in signal.c, fork and prctl in sched.c.
 *
 * Each wrapper finds the next definition with ut_next_sym() the first
 * time it is called.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "runtime/runtime.h"
#include "usertrace/events/dl.h"
#include "usertrace/events/sched.h"

/* is @f a definition of another object than this library? */
static int ut_other_object(void *f)
{
	Dl_info self, it;

	return f && dladdr(f, &it) && dladdr((void *)ut_other_object, &self) &&
	       it.dli_fbase != self.dli_fbase;
}

/* @name in the scope of the object named @path ("": the executable) */
static void *ut_sym_in(const char *path, const char *name)
{
	static void *(*real_dlopen)(const char *, int);
	static int (*real_dlclose)(void *);
	void *h, *f = NULL;

	/* the libc's, not our wrappers: the lock of ours may be held (a constructor) */
	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlopen || !real_dlclose || !*path)
		return NULL;
	if ((h = real_dlopen(path, RTLD_LAZY | RTLD_NOLOAD))) {
		f = dlsym(h, name);
		real_dlclose(h);
	}
	return ut_other_object(f) ? f : NULL;
}

/* dl_iterate_phdr: copy the name of the object numbered want */
struct ut_nth_obj {
	unsigned int want, at;
	char *name;
	size_t size;
};

static int ut_nth_obj(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ut_nth_obj *o = data;
	(void)size;

	if (o->at++ != o->want)
		return 0;
	snprintf(o->name, o->size, "%s", info->dlpi_name ? info->dlpi_name : "");
	return 1;
}

/*
 * The definition of @name that a call from @site would have reached
 * without this library: the next one after it in the global scope
 * (dlsym(RTLD_NEXT)), or else one in the scope of the caller's object:
 * a library dlopen'ed with RTLD_LOCAL brings dependencies that only it
 * sees (a C program dlopening a C++ library: libstdc++'s operator new
 * and __cxa_begin_catch), though its references to @name bound to this
 * library's, first in the global scope.  Last, any loaded object's.
 * NULL if none defines it.  Never called on a hot path: the wrappers
 * keep what it returns.
 */
void *ut_next_sym(const char *name, const void *site)
{
	struct link_map *lm = NULL;
	Dl_info di;
	void *f;

	ut_kmem_quiet++;	/* the dynamic linker's allocations are ours */
	if ((f = dlsym(RTLD_NEXT, name))) {
		ut_kmem_quiet--;
		return f;
	}
	if (site && dladdr1(site, &di, (void **)&lm, RTLD_DL_LINKMAP) && lm)
		f = ut_sym_in(lm->l_name, name);
	/*
	 * each object by its name, copied under the loader's lock: one that
	 * a dlclose of another thread unloads meanwhile is not found again
	 */
	if (!f) {
		struct ut_nth_obj o = { 0, 0, ut_malloc(PATH_MAX), PATH_MAX };

		for (; o.name && !f; o.want++, o.at = 0) {
			if (!dl_iterate_phdr(ut_nth_obj, &o))
				break;
			f = ut_sym_in(o.name, name);
		}
		ut_free(o.name);
	}
	dlerror();	/* the failed lookups leave the program no error to read */
	ut_kmem_quiet--;
	return f;
}

/* put the real return addresses back on the stack; the frames stay open */
void ut_shadow_restore_all(struct ut_thread *t)
{
	for (uint32_t i = 0; i < t->depth; i++) {
		struct ut_frame *f = &t->frames[i];

		if (f->orig && *(uintptr_t *)f->slot == (uintptr_t)ut_return_trampoline)
			*(uintptr_t *)f->slot = f->orig;
	}
}

/*
 * The exception lands in the frame that called __cxa_begin_catch: frames
 * below its stack pointer were unwound.  Close them, hook the others again.
 */
static void ut_shadow_landed(struct ut_thread *t, uintptr_t sp)
{
	uint32_t old = t->depth, d = old;
	uint64_t ts = ut_clock();

	while (d > t->cbase && t->frames[d - 1].slot < sp)
		d--;
	t->depth = d;
	barrier();
	while (old-- > d)
		ut_frame_end(t, old, ts);
	/* the frames of suspended contexts stay unhooked (context.c) */
	for (uint32_t i = t->cbase; i < d; i++) {
		struct ut_frame *f = &t->frames[i];

		if (f->orig && *(uintptr_t *)f->slot == f->orig)
			*(uintptr_t *)f->slot = (uintptr_t)ut_return_trampoline;
	}
}

struct _Unwind_Exception;
int _Unwind_RaiseException(struct _Unwind_Exception *e);
int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e);
void *__cxa_begin_catch(void *e);

EXPORT int _Unwind_RaiseException(struct _Unwind_Exception *e)
{
	struct ut_thread *t = &ut_self;
	NEXT(_Unwind_RaiseException);

	if (t->state == UT_TS_READY && t->depth)
		ut_shadow_restore_all(t);
	return next__Unwind_RaiseException(e);
}

EXPORT int _Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	struct ut_thread *t = &ut_self;
	NEXT(_Unwind_Resume_or_Rethrow);

	if (t->state == UT_TS_READY && t->depth)
		ut_shadow_restore_all(t);
	return next__Unwind_Resume_or_Rethrow(e);
}

EXPORT void *__cxa_begin_catch(void *e)
{
	struct ut_thread *t = &ut_self;
	/* the catching frame's stack pointer: just above our return address */
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0) + 16;
	NEXT(__cxa_begin_catch);

	if (t->state == UT_TS_READY && t->depth)
		ut_shadow_landed(t, sp);
	return next___cxa_begin_catch(e);
}

EXPORT void pthread_exit(void *ret)
{
	struct ut_thread *t = &ut_self;
	NEXT(pthread_exit);

	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(0);
	if (t->state == UT_TS_READY && t->depth) {
		uint64_t ts = ut_clock();

		ut_shadow_restore_all(t);
		while (t->depth) {
			t->depth--;
			ut_frame_end(t, t->depth, ts);
		}
		ut_ctx_trim(t);
	}
	next_pthread_exit(ret);
	__builtin_unreachable();
}

/*
 * sched_process_fork for a new thread, as the kernel writes it for every
 * clone: in the creator, with the new thread's id, before the new thread
 * runs any of the program's code.  While the event is on, the new thread
 * tells its id (tid, a futex) and waits until the creator has written
 * the event (done); then it frees the start block, which the creator no
 * longer touches.  The creator waits at most UT_FORK_WAIT_S seconds (a
 * thread that has not started by then gets no event).
 */
#define UT_FORK_WAIT_S	10

struct ut_start {
	void *(*fn)(void *);
	void *arg;
	int handshake;		/* sched_process_fork was on: tid, then done */
	int32_t ptid;		/* the creator, when forks are followed (-fork options); else 0 */
	volatile uint32_t tid;
	volatile uint32_t done;
};

static void ut_futex_wait(volatile uint32_t *w, const struct timespec *to)
{
	ut_sys_futex(w, FUTEX_WAIT_PRIVATE, 0, to);
}

static void ut_futex_wake(volatile uint32_t *w)
{
	ut_sys_futex(w, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* the new thread's half: its id to the creator, then wait for the event */
static void fork_handshake_child(struct ut_start *p)
{
	struct timespec to = { 1, 0 };

	__atomic_store_n(&p->tid, (uint32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	ut_futex_wake(&p->tid);
	while (!__atomic_load_n(&p->done, __ATOMIC_ACQUIRE))
		ut_futex_wait(&p->done, &to);
}

/* the creator's half: the event with the new thread's id, then let it run */
static void fork_handshake_parent(struct ut_start *p)
{
	struct timespec to = { 1, 0 };
	uint32_t tid;

	for (int i = 0; !(tid = __atomic_load_n(&p->tid, __ATOMIC_ACQUIRE)) && i < UT_FORK_WAIT_S; i++)
		ut_futex_wait(&p->tid, &to);
	if (tid)
		ut_sched_fork((pid_t)tid);
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	ut_futex_wake(&p->done);
}

static void *ut_thread_start(void *p)
{
	struct ut_start s = *(struct ut_start *)p;
	struct ut_thread *t = &ut_self;
	pthread_attr_t a;
	void *ret;

	if (s.handshake)
		fork_handshake_child(p);
	ut_free(p);
	/* function-fork, event-fork: from its first call, as its creator */
	if (s.ptid)
		ut_pid_follow(t, s.ptid, (int32_t)getpid(), (int32_t)syscall(SYS_gettid));
	/* its allocations (the affinity mask) are the runtime's */
	ut_kmem_quiet++;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		void *addr;
		size_t size;

		if (pthread_attr_getstack(&a, &addr, &size) == 0) {
			t->stack_lo = (uintptr_t)addr;
			t->stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&a);
	}
	ut_kmem_quiet--;
	ut_sysprof_thread_start();
	ret = s.fn(s.arg);
	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(0);
	return ret;
}

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct ut_start *s;
	int ret;
	NEXT(pthread_create);

	if (!ut_ctl || !(s = ut_malloc(sizeof(*s))))
		return next_pthread_create(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	s->tid = s->done = 0;
	s->handshake = trace_sched_process_fork_enabled();
	s->ptid = ut_follow_on() ? (int32_t)syscall(SYS_gettid) : 0;
	ret = next_pthread_create(th, attr, ut_thread_start, s);
	if (ret)
		ut_free(s);
	else if (s->handshake)
		fork_handshake_parent(s);	/* the new thread frees s after */
	return ret;
}

/*
 * The maps a dlopen snapshots are in place from its start: the start of
 * the outermost one, when a constructor dlopens too.  Taken under the
 * lock, so after any dlclose that another thread has under way.
 */
static __thread uint32_t ut_dl_nest;
static __thread uint64_t ut_dl_since;

EXPORT void *dlopen(const char *file, int flags)
{
	void *h;
	NEXT(dlopen);

	if (!ut_ctl)
		return next_dlopen(file, flags);
	ut_dyn_lock();
	if (!ut_dl_nest++)
		ut_dl_since = ut_clock() ?: 1;
	h = next_dlopen(file, flags);
	if (h) {
		ut_kmem_quiet++;	/* the runtime's allocations */
		ut_write_maps(ut_dl_since);
		ut_dyn_scan();
		ut_kmem_quiet--;
	}
	ut_dl_nest--;
	ut_dyn_unlock();
	/* after the scan: a library's constructor dlopening comes first */
	if (unlikely(trace_dlopen_enabled())) {
		int err = errno;

		trace_dlopen(file, flags, h);
		errno = err;
	}
	return h;
}

EXPORT int dlclose(void *handle)
{
	int ret;
	NEXT(dlclose);

	if (!ut_ctl)
		return next_dlclose(handle);
	ut_dyn_lock();
	ut_branch_dlclose_begin();
	ret = next_dlclose(handle);
	ut_branch_dlclose_end();
	if (ret == 0)
		ut_dyn_forget();
	ut_dyn_unlock();
	if (unlikely(trace_dlclose_enabled())) {
		int err = errno;

		trace_dlclose(handle, ret);
		errno = err;
	}
	return ret;
}

EXPORT pid_t vfork(void)
{
	return fork();
}

/*
 * longjmp and friends: the frames below the target's stack pointer are
 * over.  glibc stores the stack pointer in the jmp_buf mangled with the
 * thread's pointer guard (PTR_MANGLE: xor with %fs:0x30, rotate left 17).
 */
#define JB_RSP	6

static uintptr_t ut_jmpbuf_sp(const void *env)
{
	uintptr_t v = ((const uintptr_t *)env)[JB_RSP], guard;

	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	v = (v >> 17) | (v << (64 - 17));
	return v ^ guard;
}

static void ut_longjmp_prepare(const struct __jmp_buf_tag *env, uintptr_t ip)
{
	struct ut_thread *t = &ut_self;

	if (t->state == UT_TS_READY && (t->depth || t->busy))
		ut_unwind_to(t, ut_jmpbuf_sp(env), ut_clock());
	/* the handlers it leaves, and the mask siglongjmp restores (tracers/irqsoff.c) */
	if (unlikely(ut_lat_mode))
		ut_lat_longjmp(ut_jmpbuf_sp(env), env->__mask_was_saved ?
			       (const sigset_t *)&env->__saved_mask : NULL, ip);
}

#define LONGJMP_WRAPPER(name)						\
	EXPORT void name(struct __jmp_buf_tag env[1], int val)		\
	{								\
		NEXT(name);						\
		ut_longjmp_prepare(env, (uintptr_t)name);		\
		next_##name(env, val);					\
		__builtin_unreachable();				\
	}

LONGJMP_WRAPPER(longjmp)
LONGJMP_WRAPPER(_longjmp)
LONGJMP_WRAPPER(siglongjmp)

void __longjmp_chk(struct __jmp_buf_tag env[1], int val);
LONGJMP_WRAPPER(__longjmp_chk)
