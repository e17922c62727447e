// SPDX-License-Identifier: MIT
/*
 * runtime.c - start-up of libusertrace.so and per-thread state.
 *
 * The recorder starts the program with LD_PRELOAD=libusertrace.so and
 * USERTRACE_SESSION=<dir>.  The constructor maps the session's control
 * page and snapshots /proc/self/maps; each thread gets its ring buffer the
 * first time it writes a record.  Without USERTRACE_SESSION the runtime
 * stays inert: every hook returns at its first test.
 *
 * The slow paths here (thread set-up, fork) use system calls only: no
 * malloc, no stdio, so that a program whose own traced malloc calls into
 * us, or a signal handler that is a thread's first traced code, is safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/events/sched.h"
#include "usertrace/events/task.h"
#include "usertrace/tracers.h"


/* set by ut_runtime_init() before main; read-only afterwards */
struct ut_session_ctl *ut_ctl;
int ut_rec_mode;
int ut_use_tsc = 1;
/* function_graph with the TSC: the assembly hooks may take their fast path */
int ut_fast;
int ut_rec_filter;
int ut_ev_filter;
int ut_have_rseq;
intptr_t ut_cpu_off;
static char ut_session[512];
static uint64_t ut_image;
static unsigned int ut_maps_seq;
static pthread_key_t ut_key;
extern void *__libc_stack_end;

uint64_t ut_clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* async-signal-safe message on stderr; the runtime keeps going */
void ut_log(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	memcpy(buf, "usertrace: ", 11);
	va_start(ap, fmt);
	n = vsnprintf(buf + 11, sizeof(buf) - 12, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 11;
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	buf[n++] = '\n';
	if (write(2, buf, (size_t)n) < 0)
		return;
}

void ut_fatal_lost_return(uintptr_t slot)
{
	ut_log("return address for slot %#lx lost; aborting", (unsigned long)slot);
	abort();
}

static size_t ut_fmt_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* "<session>/<prefix><a>.<b>.<c>" without stdio */
static void ut_path(char *out, size_t size, const char *prefix, uint64_t a, uint64_t b, uint64_t c)
{
	size_t n = strlen(ut_session), pl = strlen(prefix);

	if (n + pl + 80 > size) {
		out[0] = 0;
		return;
	}
	memcpy(out, ut_session, n);
	out[n++] = '/';
	memcpy(out + n, prefix, pl);
	n += pl;
	n += ut_fmt_u64(out + n, a);
	out[n++] = '.';
	n += ut_fmt_u64(out + n, b);
	out[n++] = '.';
	n += ut_fmt_u64(out + n, c);
	out[n] = 0;
}

/* a line in the session's "errors" file, which the recorder prints */
void ut_session_error(const char *fmt, ...)
{
	char path[600], buf[512];
	va_list ap;
	int fd, n;

	if (!ut_session[0])
		return;
	snprintf(path, sizeof(path), "%s/errors", ut_session);
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)n) < 0)
		n = 0;
	close(fd);
}

static void ut_wake(struct rb_writer *w)
{
	(void)w;
	__atomic_add_fetch(&ut_ctl->wake, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&ut_ctl->sleeping, __ATOMIC_ACQUIRE))
		ut_sys_futex(&ut_ctl->wake, FUTEX_WAKE, 1, NULL);
}

/**
 * ut_write_maps - snapshot /proc/self/maps into the session
 * @since: the clock time from which what is new in it is mapped (the start
 *	of the dlopen that mapped it); 0 at start-up and in a forked child
 *
 * Called at start-up, after fork in the child, and after every dlopen, so
 * that replay can name addresses of every library that was ever mapped,
 * by what was mapped at the time of each event: a library can be unloaded
 * and another mapped at its place.  The time is the first line,
 * "# time <clock units>".
 */
void ut_write_maps(uint64_t since)
{
	char path[600], buf[4096];
	unsigned int seq = __atomic_fetch_add(&ut_maps_seq, 1, __ATOMIC_RELAXED);
	int in, out;
	ssize_t n;

	if (!ut_ctl)
		return;
	ut_path(path, sizeof(path), "maps.", (uint64_t)getpid(), ut_image, seq);
	in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out >= 0) {
		n = 0;
		if (since) {
			memcpy(buf, "# time ", 7);
			n = 7 + (ssize_t)ut_fmt_u64(buf + 7, since);
			buf[n++] = '\n';
		}
		if (write(out, buf, (size_t)n) == n)
			while ((n = read(in, buf, sizeof(buf))) > 0)
				if (write(out, buf, (size_t)n) != n)
					break;
		close(out);
	}
	close(in);
}

static void ut_stack_bounds(struct ut_thread *t)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	struct rlimit rl;

	if (getpid() == (pid_t)syscall(SYS_gettid) && __libc_stack_end) {
		uintptr_t top = ((uintptr_t)__libc_stack_end + 0xfffff) & ~(uintptr_t)0xfffff;
		uintptr_t size = 64ul << 20;

		if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < size)
			size = rl.rlim_cur;
		if (sp < top && top - sp < size) {
			t->stack_hi = top;
			t->stack_lo = top - size;
			return;
		}
	}
	/* other threads: set by the pthread_create wrapper (interpose.c), or unknown */
}

/*
 * Go on in a new buffer buf.<pid>.<tid>.<image>.<n> of @n pages; the old
 * one is closed and stays readable (older events of the same thread),
 * the recorder saves it before the new one.  Context: inside a write
 * (t->busy set), so a signal handler parks its records meanwhile; only
 * async-signal-safe calls.  Returns 0, or -1 with the writer where it was.
 */
static int __ut_move(struct ut_thread *t, uint32_t n, uint32_t flags, uint64_t ts)
{
	struct rb_writer *w = &t->w;
	struct rb_header *old = w->hdr, *h, *prev;
	char path[600];
	size_t len;

	ut_path(path, sizeof(path), "buf.", (uint64_t)old->pid, (uint64_t)old->tid, old->image);
	len = strlen(path);
	if (!len || len + 24 > sizeof(path) || n < 2)
		return -1;
	path[len++] = '.';
	path[len + ut_fmt_u64(path + len, (uint64_t)t->bufgen + 1)] = 0;
	/* no stdio here: a signal handler's write may have come to this page */
	if ((flags & RB_HDR_GROWN ? rb_create_reserved : rb_create)(path, n, (enum rb_mode)old->mode, &h))
		return -1;
	t->bufgen++;
	h->pid = old->pid;
	h->tid = old->tid;
	h->image = old->image;
	h->flags = flags;
	memcpy(h->comm, old->comm, sizeof(h->comm));
	rb_writer_move(w, h, ts);
	/* the reader knows the open calls by name from here on */
	ut_renew_stack(t, ts);
	old->flags |= RB_HDR_MOVED;
	__atomic_store_n(&old->state, RB_STATE_CLOSED, __ATOMIC_RELEASE);
	/*
	 * Code interrupted by this write may still hold the old header (to
	 * count a lost record): it stays mapped until the next move.
	 */
	prev = t->old_hdr;
	t->old_hdr = old;
	if (prev)
		munmap(prev, rb_file_size(prev->nr_pages));
	ut_wake(w);
	return 0;
}

/*
 * A move is a handful of system calls and stores that must all happen or
 * none: a signal handler that leaves by siglongjmp() in the middle would
 * leave the writer between two buffers (and old_hdr naming a buffer that
 * is gone, whose address the next mmap may hand out again).  So signals
 * wait until it is done: two more system calls, once per buffer.  The raw
 * system call, not sigprocmask(): that one may be the program's own.
 */
static int ut_move(struct ut_thread *t, uint32_t n, uint32_t flags, uint64_t ts)
{
	uint64_t all = ~0ull, saved;
	int ret;

	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, sizeof(all)) < 0)
		return -1;
	ret = __ut_move(t, n, flags, ts);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, NULL, sizeof(saved));
	return ret;
}

/*
 * buffer_size_kb was written while the thread runs (tracing-directory
 * sessions): at its next page switch the writer moves to a buffer of the
 * new size.
 */
static int ut_renew(struct rb_writer *w, uint64_t ts)
{
	if (ut_move(&ut_self, *w->want_pages, 0, ts) == 0)
		return 0;
	w->want_pages = NULL;	/* do not try again at every page */
	return -1;
}

/*
 * The buffer is full because the recorder is behind (a disk that stalls,
 * a CPU shared with many threads): rather than dropping, go on in another
 * buffer of the same size, within the session's growth budget.  The
 * recorder saves the full one, then this one, and gives the budget back
 * once it has removed a saved buffer (doc/design/lossless.md).
 */
#define UT_GROW_MIN_PAGES	256

static int ut_grow(struct rb_writer *w, uint64_t ts)
{
	/* at least 1 MiB: a tiny -b must not make a file every few pages */
	uint32_t n = w->hdr->nr_pages < UT_GROW_MIN_PAGES ? UT_GROW_MIN_PAGES : w->hdr->nr_pages;
	uint64_t size = rb_file_size(n);
	uint64_t used;

	if (!ut_ctl->grow_limit)
		return -1;
	used = __atomic_add_fetch(&ut_ctl->grow_used, size, __ATOMIC_RELAXED);
	if (used > ut_ctl->grow_limit || ut_move(&ut_self, n, RB_HDR_GROWN, ts)) {
		__atomic_sub_fetch(&ut_ctl->grow_used, size, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ut_ctl->grow_fails, 1, __ATOMIC_RELAXED);
		return -1;
	}
	__atomic_add_fetch(&ut_ctl->grow_count, 1, __ATOMIC_RELAXED);
	return 0;
}

/**
 * ut_thread_setup - give the current thread its ring buffer
 *
 * Returns 0, or -1 if the thread cannot be traced (it then stays
 * untraced; the program is not affected).
 */
int ut_thread_setup(struct ut_thread *t)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	struct rb_header *h;
	char path[600];
	int err;

	if (!ut_ctl) {
		t->state = UT_TS_DISABLED;
		return -1;
	}
	t->state = UT_TS_INTERNAL;	/* recursion guard while we set up: its allocations are ours */
	if (!t->frames) {
		void *m = mmap(NULL, UT_SHADOW_BYTES,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED) {
			t->state = UT_TS_DISABLED;
			return -1;
		}
		t->frames = m;
		t->depth = 0;
	}
	ut_path(path, sizeof(path), "buf.", (uint64_t)pid, (uint64_t)tid, ut_image);
	err = rb_create(path, ut_ctl->nr_pages, ut_ctl->buf_mode, &h);
	if (err) {
		ut_log("cannot create %s: %s", path, strerror(-err));
		t->state = UT_TS_DISABLED;
		return -1;
	}
	h->pid = pid;
	h->tid = tid;
	h->image = ut_image;
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	if (!t->stack_hi)
		ut_stack_bounds(t);
	t->w.wake = ut_wake;
	t->w.page_start = ut_page_start;
	t->w.want_pages = ut_ctl->flags & UT_CTL_LIVE ? &ut_ctl->nr_pages : NULL;
	t->pid = pid;
	t->tid = tid;
	t->rf_gen = 1;		/* odd: never a generation seen complete */
	t->rf_ok = 0;
	t->old_hdr = NULL;	/* a forked child: the parent's, not ours to unmap */
	ut_max_release(t, 0);	/* a forked child: the parent's max buffer is not ours */
	t->w.renew = ut_renew;
	t->w.grow = ut_ctl->buf_mode == RB_MODE_CONSUMER && ut_ctl->grow_limit ? ut_grow : NULL;
	t->w.grow_failed = 0;
	t->bufgen = 0;
	t->w.cpu = ut_have_rseq ? ut_cpu() : (uint32_t)sched_getcpu();
	t->busy = 0;
	t->npending = 0;
	t->rec_depth = 0;
	rb_writer_init(&t->w, h, ut_clock());
	t->state = UT_TS_READY;
	/* a new buffer: tell the recorder */
	ut_wake(&t->w);
	if (ut_key)
		pthread_setspecific(ut_key, t);
	return 0;
}

/* the thread exits: its buffer is complete */
static void ut_thread_exit(void *arg)
{
	struct ut_thread *t = arg;

	ut_sysprof_thread_exit();
	if (t->state != UT_TS_READY)
		return;
	prctl(PR_GET_NAME, t->w.hdr->comm, 0, 0, 0);
	t->state = UT_TS_DISABLED;
	rb_writer_close(&t->w);
	ut_max_release(t, 1);
	ut_wake(&t->w);
	if (t->old_hdr) {
		munmap(t->old_hdr, rb_file_size(t->old_hdr->nr_pages));
		t->old_hdr = NULL;
	}
}

/*
 * In a forked child, the thread that called fork goes on with the parent's
 * shadow stack (its frames return through our trampoline) but must not
 * write into the parent's buffer.  It gets a new buffer, whose first record
 * lists the frames it inherited.
 */
/* the thread that forks: the child's parent, for the -fork options */
static __thread pid_t ut_fork_ptid;

static void ut_atfork_prepare(void)
{
	ut_fork_ptid = ut_follow_on() ? (pid_t)syscall(SYS_gettid) : 0;
}

static void ut_atfork_child(void)
{
	struct ut_thread *t = &ut_self;
	int was_ready = t->state == UT_TS_READY;

	if (!ut_ctl)
		return;
	/* function-fork, event-fork: from its first call, as its parent */
	ut_pid_follow(t, ut_fork_ptid, getppid(), getpid());
	ut_image = ut_clock() ^ ((uint64_t)getpid() << 40);
	ut_maps_seq = 0;
	ut_write_maps(0);
	ut_stat_atfork_child();
	ut_branch_atfork_child();
	ut_prof_atfork_child();
	t->state = UT_TS_NEW;
	t->w.hdr = NULL;
	if (was_ready || t->depth) {
		if (ut_thread_setup(t) == 0 && t->depth)
			ut_emit_stack(t);
	}
	/* the control thread did not come along */
	if (ut_ctl->flags & UT_CTL_LIVE)
		ut_control_start();
}

/* the program ends: record the final thread name */
static void ut_runtime_fini(void)
{
	struct ut_thread *t = &ut_self;

	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(1);
	if (t->state == UT_TS_READY)
		prctl(PR_GET_NAME, t->w.hdr->comm, 0, 0, 0);
	ut_stat_sync();
}

/*
 * A pattern that selects no function is an error, as the kernel refuses
 * it (EINVAL): in the first program of the session that has traced code
 * (record's program, or the one a wrapper script execs), which then stops
 * here, before its main, for record to say why.  Programs without traced
 * code are not checked, later ones only warn.
 */
static void ut_startup_check(void)
{
	int first;

	if (!ut_ftab_any())
		return;
	first = __atomic_fetch_add(&ut_ctl->traced_images, 1, __ATOMIC_ACQ_REL) == 0;
	if (ut_filter_check(ut_ftab_hits, first) && first && !(ut_ctl->flags & UT_CTL_LIVE)) {
		__atomic_store_n(&ut_ctl->startup_error, 1, __ATOMIC_RELEASE);
		_exit(2);
	}
}

__attribute__((constructor(101))) static void ut_runtime_init(void)
{
	const char *s = getenv(UT_SESSION_ENV);
	char path[600];
	void *m;
	int fd;

	ut_exec_resolve();
	ut_sched_resolve();
	ut_signal_resolve();
	ut_lat_resolve();
	ut_wake_resolve();
	ut_kmem_resolve();
	ut_lock_resolve();
	if (!s || !*s || strlen(s) >= sizeof(ut_session))
		return;
	strcpy(ut_session, s);
	snprintf(path, sizeof(path), "%s/control", ut_session);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ut_log("cannot open session %s: %s; not tracing", path, strerror(errno));
		return;
	}
	m = mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	if (memcmp(((struct ut_session_ctl *)m)->magic, UT_CTL_MAGIC, 8) ||
	    ((struct ut_session_ctl *)m)->version != UT_CTL_VERSION) {
		ut_log("%s is not a usertrace session; not tracing", path);
		munmap(m, UT_CTL_SIZE);
		return;
	}
	/* the recorder chose the clock (it converts the timestamps) */
	ut_use_tsc = ((struct ut_session_ctl *)m)->clock == UT_CLOCK_TSC;
	ut_have_rseq = &__rseq_size && __rseq_size >= 8 &&
		       (int32_t)*(volatile uint32_t *)((char *)__builtin_thread_pointer() + __rseq_offset + 4) >= 0;
	if (ut_have_rseq)
		ut_cpu_off = __rseq_offset + 4;
	else
		ut_cpu_off = (char *)&ut_self.w.cpu - (char *)__builtin_thread_pointer();
	ut_image = ut_clock() ^ ((uint64_t)getpid() << 40);
	pthread_key_create(&ut_key, ut_thread_exit);
	/* first: the patch lock is released in the child before ut_atfork_child runs */
	ut_dyn_atfork();
	pthread_atfork(ut_atfork_prepare, NULL, ut_atfork_child);
	atexit(ut_runtime_fini);
	ut_ctl = m;
	ut_self.state = UT_TS_INTERNAL;	/* its allocations are not traced */
	ut_kmem_quiet++;		/* nor counted by kmemtrace */
	ut_rec_mode = (int)ut_needs_mode(ut_tracers_needs(ut_tracers_set(ut_ctl->active_tracers)));
	ut_filter_load();
	ut_extra_apply();
	ut_filter_update(ut_rec_mode);
	ut_self.state = UT_TS_NEW;
	ut_exec_init();
	ut_runtime_range();
	ut_write_maps(0);
	ut_events_init(ut_session);
	ut_dyn_scan();
	ut_startup_check();
	ut_kmem_quiet--;
	/* as the kernel's exec: task_rename, then sched_process_exec */
	ut_sched_exec_rename();
	if (unlikely(trace_sched_process_exec_enabled()))
		ut_sched_exec();
	if (ut_ctl->flags & UT_CTL_LIVE)
		ut_control_start();
}

uint64_t ut_image_id(void)
{
	return ut_image;
}

const char *ut_session_dir(void)
{
	return ut_session;
}

/*
 * gcc -pg links gcrt1.o, which starts and stops gprof's profiler; the
 * profile (gmon.out) is not ours to write.
 */
EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc;
	(void)highpc;
}

EXPORT void _mcleanup(void)
{
}
