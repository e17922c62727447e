// SPDX-License-Identifier: MIT
/*
 * irqsoff.c - the sections of the irqsoff, preemptoff and preemptirqsoff
 * tracers, as the kernel's trace_irqsoff.c: where a thread has "interrupts"
 * or "preemption" off, how long, and the trace of the longest.
 *
 * In user space (doc/design/latency.md):
 *
 *   irqs off    the thread's signal mask blocks a signal it did not block
 *               when it started (sigprocmask, pthread_sigmask; the
 *               temporary masks of sigsuspend, ppoll, pselect and
 *               epoll_pwait while they wait), a signal handler runs (the
 *               kernel blocks its sa_mask and the signal meanwhile; "hard
 *               irq" context), or local_irq_disable() (irqflags.h)
 *   preempt off preempt_disable() (preempt.h) is nested at least once,
 *               or a pthread spin lock is held
 *
 * A section opens when the tracer's condition becomes true on a thread
 * and closes when it becomes false.  At the open a FUNC record marks
 * where (the disabling call and its caller: "started at"); while open,
 * the thread's calls are recorded if function tracing is on (the gate,
 * below); at the close a FUNC record marks where it ended and, if the
 * section is reported, a TRACE record the stack.  Reported: longer than
 * tracing_max_latency (a new maximum: the max buffer swap, max.c), or
 * with tracing_thresh set, at least that long (each one, the kernel's
 * threshold mode).  A CTX record states the thread's context (the flag
 * columns) when it changes.
 *
 * The gate: while a latency tracer runs and no other tracer records
 * calls, the hooks record a thread's calls only inside its section, as
 * the kernel's irqsoff_tracer_call() traces only with interrupts off
 * (ut_rec_filter, filter.c).
 *
 * The wrappers cost one load and a branch not taken while no latency
 * tracer runs.  The mask is the shadow our wrappers keep: a raw
 * rt_sigprocmask system call, or a mask changed in a handler's ucontext,
 * is seen only at the next wrapper call that reads it (sigsuspend and the
 * handlers' exits take it again).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/tracing.h"

int ut_lat_mode;	/* UT_LAT_*: the sections the running tracers measure */
int ut_lat_gate;	/* 1: calls are recorded only inside sections; 2: none (function-trace off) */

/* signals that cannot be blocked (the kernel drops them from any mask) */
#define UNBLOCKABLE	((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)))

static inline uint64_t set64(const sigset_t *s)
{
	uint64_t v;

	memcpy(&v, s, sizeof(v));
	return v & ~UNBLOCKABLE;
}

/* the thread's mask from the kernel (the raw call: sigprocmask may be the program's) */
static uint64_t mask_now(void)
{
	uint64_t m = 0;

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, sizeof(m));
	return m & ~UNBLOCKABLE;
}

/* the thread's shadow of its mask, taken the first time a tracer needs it */
static struct ut_lat *lat_self(void)
{
	struct ut_lat *l = &ut_self.tr.lat;

	if (unlikely(!l->known)) {
		l->mask = l->base = mask_now();
		l->known = 1;
	}
	return l;
}

/* 1 if the thread may write (its buffer, set up now if it has none) */
static int lat_ready(struct ut_thread *t)
{
	if (likely(t->state == UT_TS_READY))
		return 1;
	return t->state == UT_TS_NEW && ut_thread_setup(t) == 0;
}

/* the context columns of @l: UT_CTX_* */
static uint8_t lat_ctx(const struct ut_lat *l)
{
	uint8_t c = 0;

	if ((l->mask & ~l->base) || l->api_irq || l->hardirq)
		c |= UT_CTX_IRQS_OFF;
	if (l->hardirq)
		c |= UT_CTX_HARDIRQ;
	if (l->resched)
		c |= UT_CTX_NEED_RESCHED;
	return c;
}

static int lat_open_now(const struct ut_lat *l, uint8_t ctx)
{
	int mode = __atomic_load_n(&ut_lat_mode, __ATOMIC_RELAXED);

	return ((mode & UT_LAT_IRQ) && (ctx & UT_CTX_IRQS_OFF)) ||
	       ((mode & UT_LAT_PREEMPT) && l->preempt);
}

/* the context as the records state it, if it changed */
static void lat_put_ctx(struct ut_thread *t, struct ut_lat *l, uint64_t ts)
{
	uint8_t c = lat_ctx(l), p = l->preempt > 255 ? 255 : (uint8_t)l->preempt;

	if (c == l->wctx && p == l->wpreempt)
		return;
	if (ut_write_ctx(t, ts, c, p)) {
		l->wctx = c;
		l->wpreempt = p;
	}
}

/*
 * The section closed at @ts, at @ip called from @parent: the end's
 * record, and the report if it is one (kernel: check_critical_timing()).
 */
static void lat_close(struct ut_thread *t, struct ut_lat *l, uint64_t ts, uintptr_t ip,
		      uintptr_t parent)
{
	struct ut_session_ctl *c = ut_ctl;
	uint64_t delta = ts - l->start, thresh;
	int report, on = c->tracing_on;

	l->open = 0;
	if (!on || !l->start)
		return;
	thresh = __atomic_load_n(&c->tracing_thresh, __ATOMIC_RELAXED);
	report = thresh ? delta >= thresh : delta > __atomic_load_n(&c->max_latency, __ATOMIC_RELAXED);
	/* a report's identity rides on the end's record (the stack may be empty) */
	if (report)
		ut_write_task(t, ts, l->wctx, l->wpreempt);
	ut_write(t, UT_REC_FUNC, ts, ip, parent);
	if (!report)
		return;
	{
		uintptr_t ips[UT_STACK_MAX];
		uint32_t n = ut_program_stack(t, ips, UT_STACK_MAX);

		if (n)
			ut_write_trace(t, ips, n, ts);
	}
	if (thresh)
		ut_max_store(delta, ts, l->start_ip, parent, 1);
	else
		ut_update_max_tr(delta, ts, l->start_ip, parent);
}

/*
 * The state of @l changed at @ip (the call that changed it) called from
 * @parent: open or close the section, state the context.
 */
static void lat_update_ts(struct ut_thread *t, struct ut_lat *l, int open, uintptr_t ip,
			  uintptr_t parent);

/* (the program's errno is kept: a report's system calls, a first buffer's setup) */
static void lat_update(struct ut_lat *l, uintptr_t ip, uintptr_t parent)
{
	struct ut_thread *t = &ut_self;
	uint8_t ctx = lat_ctx(l);
	int open = lat_open_now(l, ctx), err;

	if (!open && !l->open && ctx == l->wctx && l->preempt == l->wpreempt)
		return;
	err = errno;
	if (lat_ready(t))
		lat_update_ts(t, l, open, ip, parent);
	errno = err;
}

static void lat_update_ts(struct ut_thread *t, struct ut_lat *l, int open, uintptr_t ip,
			  uintptr_t parent)
{
	uint64_t ts = ut_clock();

	if (open && !l->open) {
		l->open = 1;
		l->start = ts;
		l->start_ip = parent;
		lat_put_ctx(t, l, ts);
		if (ut_ctl->tracing_on)
			ut_write(t, UT_REC_FUNC, ts, ip, parent);
		else
			l->start = 0;	/* not measured: tracing was off at its start */
		return;
	}
	if (!open && l->open)
		lat_close(t, l, ts, ip, parent);
	lat_put_ctx(t, l, ts);
}

/* ---- the signal mask ---- */

/* the mask becomes @m at @ip, called from @parent */
static void lat_mask(uint64_t m, uintptr_t ip, uintptr_t parent)
{
	struct ut_lat *l = lat_self();

	l->mask = m;
	if (!(m & ~l->base))
		l->resched = 0;
	lat_update(l, ip, parent);
}

/*
 * The mask will lose blocked signals: note whether one of them is
 * pending (it waits for the section: the need-resched column), so the
 * end's record shows it.
 */
static void lat_unblocking(struct ut_lat *l, uint64_t m)
{
	uint64_t pend = 0;

	if (!(l->mask & ~m & ~l->base))
		return;
	if (syscall(SYS_rt_sigpending, &pend, sizeof(pend)) == 0 && (pend & l->mask & ~m)) {
		struct ut_thread *t = &ut_self;

		l->resched = 1;
		if (l->open && lat_ready(t))
			lat_put_ctx(t, l, ut_clock());
	}
}

static uint64_t mask_after(const struct ut_lat *l, int how, const sigset_t *set)
{
	uint64_t s = set64(set);

	switch (how) {
	case SIG_BLOCK:
		return l->mask | s;
	case SIG_UNBLOCK:
		return l->mask & ~s;
	default:
		return s;
	}
}

/*
 * sigprocmask() and pthread_sigmask() while a tracer measures: a change
 * that unblocks ends the section before the signals it lets in are
 * handled; one that blocks starts it after the call.  @ret_errno: the
 * call returns an error number (pthread_sigmask) rather than -1.
 */
static int lat_sigmask(int (*real)(int, const sigset_t *, sigset_t *), int ret_errno, int how,
		       const sigset_t *set, sigset_t *old, uintptr_t ip, uintptr_t parent)
{
	struct ut_lat *l = lat_self();
	sigset_t o;
	uint64_t m;
	int ret;

	if (!set || (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK))
		return real(how, set, old);
	m = mask_after(l, how, set);
	if (m & ~l->mask) {
		ret = real(how, set, old ? old : &o);
		if (ret == 0)
			lat_mask(m, ip, parent);
		return ret;
	}
	lat_unblocking(l, m);
	lat_mask(m, ip, parent);
	ret = real(how, set, old ? old : &o);
	if (ret != 0) {
		int err = errno;

		/* refused: the mask is what it was */
		lat_mask(mask_now(), ip, parent);
		if (!ret_errno)
			errno = err;
	}
	return ret;
}

static __typeof__(sigprocmask) *real_sigprocmask;
static __typeof__(pthread_sigmask) *real_pthread_sigmask;
static __typeof__(sigsuspend) *real_sigsuspend;
static __typeof__(ppoll) *real_ppoll;
static __typeof__(pselect) *real_pselect;
static __typeof__(epoll_pwait) *real_epoll_pwait;
static __typeof__(pthread_spin_lock) *real_spin_lock;
static __typeof__(pthread_spin_trylock) *real_spin_trylock;
static __typeof__(pthread_spin_unlock) *real_spin_unlock;
static int (*real_sigsetmask)(int), (*real_sigblock)(int);
static int (*real_sighold)(int), (*real_sigrelse)(int);

#define RESOLVE(var, name)	(var ?: (var = (__typeof__(var))dlsym(RTLD_NEXT, name)))

/* at start-up: no dlsym in a signal handler later */
void ut_lat_resolve(void)
{
	RESOLVE(real_sigprocmask, "sigprocmask");
	RESOLVE(real_pthread_sigmask, "pthread_sigmask");
	RESOLVE(real_sigsuspend, "sigsuspend");
	RESOLVE(real_ppoll, "ppoll");
	RESOLVE(real_pselect, "pselect");
	RESOLVE(real_epoll_pwait, "epoll_pwait");
	RESOLVE(real_spin_lock, "pthread_spin_lock");
	RESOLVE(real_spin_trylock, "pthread_spin_trylock");
	RESOLVE(real_spin_unlock, "pthread_spin_unlock");
	RESOLVE(real_sigsetmask, "sigsetmask");
	RESOLVE(real_sigblock, "sigblock");
	RESOLVE(real_sighold, "sighold");
	RESOLVE(real_sigrelse, "sigrelse");
}

static inline int lat_on(void)
{
	return __atomic_load_n(&ut_lat_mode, __ATOMIC_RELAXED) != 0 && ut_self.state != UT_TS_INTERNAL;
}

#define HERE()		((uintptr_t)__builtin_return_address(0))

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!RESOLVE(real_sigprocmask, "sigprocmask"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sigprocmask(how, set, old);
	return lat_sigmask(real_sigprocmask, 0, how, set, old, (uintptr_t)sigprocmask, HERE());
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!RESOLVE(real_pthread_sigmask, "pthread_sigmask"))
		return ENOSYS;
	if (likely(!lat_on()))
		return real_pthread_sigmask(how, set, old);
	return lat_sigmask(real_pthread_sigmask, 1, how, set, old, (uintptr_t)pthread_sigmask,
			   HERE());
}

/*
 * The older interfaces, which libc implements without sigprocmask():
 * BSD's sigsetmask()/sigblock() (a mask of signals 1..32 in an int, as
 * glibc reads it: the first word of a sigset_t; dash clears its mask with
 * sigsetmask(0)) and System V's sighold()/sigrelse() (one signal).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int bsd_mask(int how, int mask, uintptr_t ip, uintptr_t parent)
{
	sigset_t s, o;

	sigemptyset(&s);
	memcpy(&s, &(unsigned int){ (unsigned int)mask }, sizeof(unsigned int));
	if (lat_sigmask(real_sigprocmask, 0, how, &s, &o, ip, parent) < 0)
		return -1;
	{
		unsigned int w;

		memcpy(&w, &o, sizeof(w));
		return (int)w;
	}
}

EXPORT int sigsetmask(int mask)
{
	if (!RESOLVE(real_sigsetmask, "sigsetmask") || !RESOLVE(real_sigprocmask, "sigprocmask"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sigsetmask(mask);
	return bsd_mask(SIG_SETMASK, mask, (uintptr_t)sigsetmask, HERE());
}

EXPORT int sigblock(int mask)
{
	if (!RESOLVE(real_sigblock, "sigblock") || !RESOLVE(real_sigprocmask, "sigprocmask"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sigblock(mask);
	return bsd_mask(SIG_BLOCK, mask, (uintptr_t)sigblock, HERE());
}

static int sysv_one(int how, int sig, uintptr_t ip, uintptr_t parent)
{
	sigset_t s;

	sigemptyset(&s);
	if (sigaddset(&s, sig) < 0)
		return -1;
	return lat_sigmask(real_sigprocmask, 0, how, &s, NULL, ip, parent);
}

EXPORT int sighold(int sig)
{
	if (!RESOLVE(real_sighold, "sighold") || !RESOLVE(real_sigprocmask, "sigprocmask"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sighold(sig);
	return sysv_one(SIG_BLOCK, sig, (uintptr_t)sighold, HERE());
}

EXPORT int sigrelse(int sig)
{
	if (!RESOLVE(real_sigrelse, "sigrelse") || !RESOLVE(real_sigprocmask, "sigprocmask"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sigrelse(sig);
	return sysv_one(SIG_UNBLOCK, sig, (uintptr_t)sigrelse, HERE());
}

#pragma GCC diagnostic pop

/*
 * A wait with a temporary mask: the section as that mask makes it while
 * waiting, then the thread's own mask again (read back: a handler that
 * ran meanwhile may have changed it, as sigsuspend's caller expects).
 */
#define TEMP_MASK_CALL(fn, mask, call)					\
	({								\
		struct ut_lat *__l = lat_self();			\
		uint64_t __m = set64(mask);				\
		__typeof__(call) __r;					\
		int __e;						\
									\
		lat_unblocking(__l, __m);				\
		lat_mask(__m, (uintptr_t)fn, HERE());			\
		__r = call;						\
		__e = errno;						\
		lat_mask(mask_now(), (uintptr_t)fn, HERE());		\
		errno = __e;						\
		__r;							\
	})

EXPORT int sigsuspend(const sigset_t *mask)
{
	if (!RESOLVE(real_sigsuspend, "sigsuspend"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()))
		return real_sigsuspend(mask);
	return TEMP_MASK_CALL(sigsuspend, mask, real_sigsuspend(mask));
}

EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
	if (!RESOLVE(real_ppoll, "ppoll"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()) || !mask)
		return real_ppoll(fds, n, tmo, mask);
	return TEMP_MASK_CALL(ppoll, mask, real_ppoll(fds, n, tmo, mask));
}

EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *tmo,
		   const sigset_t *mask)
{
	if (!RESOLVE(real_pselect, "pselect"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()) || !mask)
		return real_pselect(n, r, w, e, tmo, mask);
	return TEMP_MASK_CALL(pselect, mask, real_pselect(n, r, w, e, tmo, mask));
}

EXPORT int epoll_pwait(int fd, struct epoll_event *ev, int max, int tmo, const sigset_t *mask)
{
	if (!RESOLVE(real_epoll_pwait, "epoll_pwait"))
		return errno = ENOSYS, -1;
	if (likely(!lat_on()) || !mask)
		return real_epoll_pwait(fd, ev, max, tmo, mask);
	return TEMP_MASK_CALL(epoll_pwait, mask, real_epoll_pwait(fd, ev, max, tmo, mask));
}

/* ---- signal handlers: hard-irq context ---- */

/*
 * sig_handler() (signal.c) is about to run the program's handler @h for
 * @sig with @sa_mask added by the kernel; @uc: the interrupted context.
 * Returns what ut_lat_handler_exit() needs (0: nothing to do).
 */
int ut_lat_handler_enter(int sig, uint64_t sa_mask, unsigned long flags, void *h, void *uc)
{
	struct ut_lat *l;
	uintptr_t pc = 0;

	if (likely(!lat_on()))
		return 0;
	l = lat_self();
	if (uc)
		pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	if (l->hardirq < UT_LAT_HANDLERS)
		l->hsp[l->hardirq] = (uintptr_t)__builtin_frame_address(0);
	l->hardirq++;
	l->mask |= sa_mask & ~UNBLOCKABLE;
	if (!(flags & SA_NODEFER) && sig > 0 && sig <= 64)
		l->mask |= (1ull << (sig - 1)) & ~UNBLOCKABLE;
	lat_update(l, (uintptr_t)h, pc);
	return 1;
}

/* the handler @h returned: the mask sigreturn restores (@uc's), back where it interrupted */
void ut_lat_handler_exit(void *h, void *uc)
{
	struct ut_lat *l = &ut_self.tr.lat;
	uintptr_t pc = 0;

	if (l->hardirq)
		l->hardirq--;
	if (uc) {
		l->mask = set64(&((ucontext_t *)uc)->uc_sigmask);
		pc = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	}
	lat_update(l, (uintptr_t)h, pc);
}

/*
 * longjmp to stack pointer @sp: the handlers whose frames are below it
 * are left; siglongjmp with a saved mask restores @mask (NULL: none).
 */
void ut_lat_longjmp(uintptr_t sp, const sigset_t *mask, uintptr_t ip)
{
	struct ut_lat *l;
	int changed = 0;

	if (likely(!lat_on()))
		return;
	l = lat_self();
	while (l->hardirq && (l->hardirq > UT_LAT_HANDLERS || l->hsp[l->hardirq - 1] < sp)) {
		l->hardirq--;
		changed = 1;
	}
	if (mask) {
		l->mask = set64(mask);
		changed = 1;
	}
	if (changed)
		lat_update(l, ip, HERE());
}

/* ---- the explicit sections: irqflags.h, preempt.h ---- */

/*
 * local_irq_*(): the state is kept whether or not a tracer runs, as the
 * preempt depth is (irqs_disabled() is true); a tracer sees the change
 */
static void api_irq_set(uint32_t on, uintptr_t ip, uintptr_t parent)
{
	ut_self.tr.lat.api_irq = on;
	if (lat_on())
		lat_update(lat_self(), ip, parent);
}

void ut_api_irq_disable(uintptr_t parent)
{
	api_irq_set(1, HERE(), parent);
}

void ut_api_irq_enable(uintptr_t parent)
{
	api_irq_set(0, HERE(), parent);
}

unsigned long ut_api_irq_save(uintptr_t parent)
{
	unsigned long was = ut_self.tr.lat.api_irq;

	api_irq_set(1, HERE(), parent);
	return was;
}

void ut_api_irq_restore(uintptr_t parent, unsigned long flags)
{
	api_irq_set(flags != 0, HERE(), parent);
}

int ut_api_irqs_disabled(void)
{
	return (lat_ctx(lat_self()) & UT_CTX_IRQS_OFF) != 0;
}

/* the depth is kept whether or not a tracer runs: preempt_count() is true */
static void preempt_add(int d, uintptr_t ip, uintptr_t parent)
{
	struct ut_lat *l = &ut_self.tr.lat;

	if (d < 0 && !l->preempt)
		return;		/* unbalanced: as the kernel, warn-free */
	l->preempt += (uint32_t)d;
	if (lat_on())
		lat_update(lat_self(), ip, parent);
}

void ut_api_preempt_disable(uintptr_t parent)
{
	preempt_add(1, HERE(), parent);
}

void ut_api_preempt_enable(uintptr_t parent)
{
	preempt_add(-1, HERE(), parent);
}

int ut_api_preempt_count(void)
{
	return (int)ut_self.tr.lat.preempt;
}

/* ---- spin locks: a level of preempt depth while held ---- */

/* a spin lock @ret == 0 took, by @fn called from @parent: a level of depth */
static int spin_taken(int ret, uintptr_t fn, uintptr_t parent)
{
	if (ret == 0 && unlikely(lat_on()))
		preempt_add(1, fn, parent);
	return ret;
}

EXPORT int pthread_spin_lock(pthread_spinlock_t *lock)
{
	if (!RESOLVE(real_spin_lock, "pthread_spin_lock"))
		return ENOSYS;
	return spin_taken(real_spin_lock(lock), (uintptr_t)pthread_spin_lock, HERE());
}

EXPORT int pthread_spin_trylock(pthread_spinlock_t *lock)
{
	if (!RESOLVE(real_spin_trylock, "pthread_spin_trylock"))
		return ENOSYS;
	return spin_taken(real_spin_trylock(lock), (uintptr_t)pthread_spin_trylock, HERE());
}

EXPORT int pthread_spin_unlock(pthread_spinlock_t *lock)
{
	if (!RESOLVE(real_spin_unlock, "pthread_spin_unlock"))
		return ENOSYS;
	if (unlikely(lat_on()))
		preempt_add(-1, (uintptr_t)pthread_spin_unlock, HERE());
	return real_spin_unlock(lock);
}

/* ---- the tracers' runtime parts ---- */

/*
 * The running tracers that gate calls (their active_tracers bits: the
 * three below, and wakeup.c's two through ut_lat_join()), and the
 * sections each measures.
 */
static uint32_t lat_users;
static int lat_users_sections[32];

/*
 * Set the sections the running latency tracers measure, and the gate:
 * record calls only inside sections when a latency or wakeup tracer runs
 * and no other tracer records calls; 2: none at all (function-trace off).
 * Context: the start-up or the control thread (ut_tracers_set()).
 */
static void lat_configure(void)
{
	int mode = 0, gate = 0;

	for (unsigned i = 0; i < 32; i++)
		if (lat_users & (1u << i))
			mode |= lat_users_sections[i];
	if (lat_users && !ut_tracers_record_calls(~lat_users))
		gate = ut_ctl && (ut_ctl->flags & UT_CTL_NOFUNC) ? 2 : 1;
	__atomic_store_n(&ut_lat_mode, mode, __ATOMIC_RELAXED);
	__atomic_store_n(&ut_lat_gate, gate, __ATOMIC_RELAXED);
}

void ut_lat_join(const struct ut_rt_tracer *t, int sections, int on)
{
	int id = ut_tracer_id(t);

	if (id < 0)
		return;
	lat_users_sections[id] = on ? sections : 0;
	if (on)
		lat_users |= 1u << id;
	else
		lat_users &= ~(1u << id);
	lat_configure();
}

/* the set of running tracers or the settings changed (function-trace) */
void ut_lat_apply(void)
{
	lat_configure();
}

/*
 * The self-test, at registration: the wrappers stand on the real mask
 * calls and on reading the thread's mask back from the kernel.  Block a
 * signal with the real pthread_sigmask, see it in the mask read back,
 * restore.  Nonzero: they would measure nothing (the tracers are
 * refused).  Context: the start-up thread.
 */
static int lat_selftest(void)
{
	sigset_t one, old;
	uint64_t before, during, after;
	int sig = SIGRTMAX;

	if (!real_sigprocmask || !real_pthread_sigmask || !real_spin_lock || !real_spin_unlock)
		return -1;
	before = mask_now();
	sigemptyset(&one);
	sigaddset(&one, sig);
	if (real_pthread_sigmask(SIG_BLOCK, &one, &old))
		return -1;
	during = mask_now();
	real_pthread_sigmask(SIG_SETMASK, &old, NULL);
	after = mask_now();
	if (!(during & (1ull << (sig - 1))) || after != before || set64(&old) != before)
		return -1;
	return 0;
}

#define LAT_TRACER(tr, sections)						\
static int tr##_init(void)							\
{										\
	ut_lat_join(&ut_rt_tracer_##tr, sections, 1);				\
	return 0;								\
}										\
										\
static void tr##_reset(void)							\
{										\
	ut_lat_join(&ut_rt_tracer_##tr, 0, 0);				\
}										\
										\
const struct ut_rt_tracer ut_rt_tracer_##tr = {				\
	.name = #tr,								\
	.selftest = lat_selftest,						\
	.init = tr##_init,							\
	.reset = tr##_reset,							\
	.apply = ut_lat_apply,							\
}

LAT_TRACER(irqsoff, UT_LAT_IRQ);
LAT_TRACER(preemptoff, UT_LAT_PREEMPT);
LAT_TRACER(preemptirqsoff, UT_LAT_IRQ | UT_LAT_PREEMPT);
