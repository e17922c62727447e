// SPDX-License-Identifier: MIT
/*
 * sysprof.c - the runtime part of the sysprof tracer: every
 * sysprof_sample_period microseconds of a thread's CPU time (1000 by
 * default, 100 at least, as the kernel's trace_sysprof.c), the thread's
 * user stack, one record per sample (a TRACE_DIR record of dir
 * UT_TRACE_DIR_SAMPLE, innermost first, at most UT_STACK_MAX ips).
 * The kernel fires CPU-time timers at its ticks, when the thread is the
 * one running: a period shorter than a tick, or a thread that runs in
 * slices between ticks, makes the timer overrun while its signal waits.
 * A sample then stands for the periods passed (1 + si_overrun: its
 * weight, record.h's ut_sample_dir()), so that the folded counts stay
 * each stack's share of the CPU time.
 *
 * Timers: one POSIX timer per thread on that thread's CPU-time clock
 * (the clock id of a thread by tid is the kernel's
 * MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), what pthread_getcpuclockid
 * returns), with SIGEV_THREAD_ID so that the signal goes to the thread
 * that spent the time.  Made for every thread of the process when the
 * tracer starts (/proc/self/task; threads that block the signal, such as
 * the runtime's control thread, get none), by each new thread before it
 * runs the program's function (interpose.c), in a forked child for the
 * thread that forked, and at the start of an exec'd image (the tracer is
 * active there from start-up).  Deleted when the thread ends and when
 * the tracer leaves.
 *
 * The signal: UT_SAMPLE_SIG (SIGRTMAX - 3), which programs seldom use.
 * The program does not see it taken: sigaction() on it keeps and returns
 * the program's action (signal.c asks ut_sysprof_sigaction()), and the
 * handler passes every signal that is not one of our timers' to it.
 * SIGPROF and setitimer() stay the program's.  The handler stays
 * installed after the tracer leaves (a sample still queued then is
 * ignored: the default action of a real-time signal would end the
 * program).  SA_RESTART: an interrupted system call is restarted where
 * the kernel can; as with any sampling profiler, sleeps and waits that
 * the kernel does not restart (nanosleep, poll...) may return EINTR when
 * a sample lands just as the thread blocks.
 *
 * The stack: from the unwind tables (CFI), by libgcc's
 * _Unwind_Backtrace() from the handler, through the signal frame, then
 * the interrupted function and its callers: every build, -O level and
 * library (also those without frame pointers, as -pg -mfentry -O2 code
 * and Debian's libc).  It is safe in a signal handler here: libgcc 12
 * finds the unwind tables with glibc's _dl_find_object() (2.35), which
 * takes no lock and does not allocate.  libunwind (unw_backtrace) would
 * do the same work with a second library; it was not needed.  Where the
 * interrupted code has no unwind table (generated code), the stack is
 * walked by frame pointers from the interrupted registers instead,
 * reading only inside the thread's stack (its bounds: runtime.c,
 * interpose.c), each frame above the last, 8-aligned; where the bounds
 * are unknown or the code ran on another stack (an alternate signal
 * stack), with process_vm_readv(), which fails instead of faulting on a
 * bad frame.  The addresses are the interrupted instruction, then return
 * addresses, as the kernel's user stack traces.  With function_graph
 * active at the same time, a traced call's return address is the
 * runtime's return trampoline.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unwind.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"

#define UT_SAMPLE_SIG		(SIGRTMAX - 3)
#define UT_SAMPLE_DEFAULT_US	1000
#define UT_SAMPLE_MIN_US	100
#define UT_SAMPLE_TIMERS	1024
#define UT_SAMPLE_UNBOUNDED	(8ul << 20)	/* the walk's reach without known bounds */

static int ut_sample_magic;	/* si_value of our timers */
static volatile int ut_sampling;	/* the tracer runs: samples are taken */
static int ut_handler_installed;
static int ut_atfork_done;
static uint32_t ut_period_us;	/* the period the timers run at */

/* the timers, one per thread; the lock is never taken in a handler */
static pthread_mutex_t ut_timers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int32_t tid;		/* 0: free */
	timer_t id;
} ut_timers[UT_SAMPLE_TIMERS];

/* the program's action for UT_SAMPLE_SIG, which the kernel does not have */
static struct sigaction ut_prog_act;
static volatile int ut_prog_set;

static uint32_t period_us(void)
{
	uint32_t us = ut_ctl ? ut_ctl->sysprof_period_us : 0;

	if (!us)
		us = UT_SAMPLE_DEFAULT_US;
	return us < UT_SAMPLE_MIN_US ? UT_SAMPLE_MIN_US : us;
}

/* copy @n bytes at @addr, which may be a bad address: 0 or -1 */
static int safe_read(uintptr_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	return syscall(SYS_process_vm_readv, (long)getpid(), &local, 1ul, &remote, 1ul, 0ul) ==
		       (long)n ? 0 : -1;
}

struct uw {
	uintptr_t *ips;
	uint32_t n, max;
	uintptr_t pc;		/* the interrupted instruction */
	int started;
};

static _Unwind_Reason_Code uw_one(struct _Unwind_Context *c, void *arg)
{
	struct uw *u = arg;
	int before = 0;
	uintptr_t ip = _Unwind_GetIPInfo(c, &before);

	if (!ip)
		return _URC_END_OF_STACK;
	if (!u->started) {
		/* the handler's frames, up to the signal frame's interrupted one */
		if (!before || ip != u->pc)
			return _URC_NO_REASON;
		u->started = 1;
	}
	u->ips[u->n++] = ip;
	return u->n < u->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

static uint32_t walk_fp(struct ut_thread *t, const ucontext_t *uc, uintptr_t *ips, uint32_t max)
{
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uintptr_t fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	uintptr_t lo = sp, hi;
	int direct = t->stack_hi && sp >= t->stack_lo && sp < t->stack_hi;
	uint32_t n = 0;

	hi = direct ? t->stack_hi : (sp + UT_SAMPLE_UNBOUNDED > sp ? sp + UT_SAMPLE_UNBOUNDED : ~0ul);
	ips[n++] = ip;
	while (n < max && fp >= lo && fp <= hi - 16 && !(fp & 7)) {
		uintptr_t fr[2];

		if (direct)
			memcpy(fr, (const void *)fp, sizeof(fr));
		else if (safe_read(fp, fr, sizeof(fr)))
			break;
		if (!fr[1])
			break;
		ips[n++] = fr[1];
		if (fr[0] <= fp)
			break;
		lo = fp + 16;
		fp = fr[0];
	}
	return n;
}

/* a sample of @weight periods (the timer's overruns and this one) */
static void take_sample(const ucontext_t *uc, uint32_t weight)
{
	struct ut_thread *t = &ut_self;
	uintptr_t ips[UT_STACK_MAX];
	struct uw u = { ips, 0, UT_STACK_MAX, (uintptr_t)uc->uc_mcontext.gregs[REG_RIP], 0 };
	uint32_t n;

	if (t->state == UT_TS_NEW && ut_thread_setup(t))
		return;
	if (t->state != UT_TS_READY || (ut_rec_filter && !ut_rec_allowed(t)))
		return;

	_Unwind_Backtrace(uw_one, &u);
	n = u.started ? u.n : walk_fp(t, uc, ips, UT_STACK_MAX);
	/* not the runtime's (ut_thread_start under every thread's stack) */
	n = ut_drop_runtime_frames(ips, n);
	ut_write_trace_dir(t, ips, n, ut_clock(), ut_sample_dir(weight));
}

static void sample_handler(int sig, siginfo_t *si, void *uc)
{
	int err = errno;

	if (si && si->si_code == SI_TIMER && si->si_value.sival_ptr == &ut_sample_magic) {
		if (ut_sampling && uc)
			take_sample(uc, 1u + (uint32_t)(si->si_overrun > 0 ? si->si_overrun : 0));
	} else if (ut_prog_set) {
		/* someone else's signal: the program's handler, as it asked */
		struct sigaction a = ut_prog_act;

		errno = err;
		if (a.sa_flags & SA_SIGINFO) {
			if (a.sa_sigaction)
				a.sa_sigaction(sig, si, uc);
		} else if (a.sa_handler != SIG_IGN && a.sa_handler != SIG_DFL) {
			a.sa_handler(sig);
		}
		return;
	}
	errno = err;
}

/**
 * ut_sysprof_sigaction - the program's sigaction() on UT_SAMPLE_SIG
 *
 * Returns 1 when it was answered here (our handler is installed: the
 * program's action is kept, and given back as its own), 0 when the real
 * sigaction should do it.
 */
int ut_sysprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!__atomic_load_n(&ut_handler_installed, __ATOMIC_ACQUIRE) || sig != UT_SAMPLE_SIG)
		return 0;
	if (old) {
		if (ut_prog_set) {
			*old = ut_prog_act;
		} else {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
	}
	if (act) {
		ut_prog_set = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ut_prog_act = *act;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ut_prog_set = 1;
	}
	return 1;
}

static __typeof__(sigaction) *real_sigaction;

static int install_handler(void)
{
	struct sigaction sa, old;

	if (ut_handler_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sample_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* libc's: our own sigaction() wrapper would take it for the program's */
	if (!real_sigaction)
		real_sigaction = (__typeof__(sigaction) *)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		return -1;
	if (real_sigaction(UT_SAMPLE_SIG, NULL, &old) == 0 && old.sa_handler != SIG_DFL) {
		/* a handler installed before (the program's, through signal.c): kept */
		ut_prog_act = old;
		ut_prog_set = 1;
	}
	if (real_sigaction(UT_SAMPLE_SIG, &sa, NULL))
		return -1;
	__atomic_store_n(&ut_handler_installed, 1, __ATOMIC_RELEASE);
	return 0;
}

static void arm_one(timer_t id, uint32_t us)
{
	struct itimerspec its;

	its.it_interval.tv_sec = us / 1000000;
	its.it_interval.tv_nsec = (long)(us % 1000000) * 1000;
	its.it_value = its.it_interval;
	timer_settime(id, 0, &its, NULL);
}

/* a timer for thread @tid (@self: the calling thread); under the lock */
static void add_timer(pid_t tid, int self)
{
	struct sigevent sev;
	clockid_t clk = self ? CLOCK_THREAD_CPUTIME_ID :
			       (clockid_t)(((unsigned int)~tid << 3) | 6); /* per thread, sched */
	timer_t id;
	int free_slot = -1;

	for (int i = 0; i < UT_SAMPLE_TIMERS; i++) {
		if (ut_timers[i].tid == tid)
			return;		/* it has one */
		if (!ut_timers[i].tid && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0) {
		/* full: the timers of threads gone */
		for (int i = 0; i < UT_SAMPLE_TIMERS; i++) {
			if (syscall(SYS_tgkill, getpid(), ut_timers[i].tid, 0) < 0 && errno == ESRCH) {
				timer_delete(ut_timers[i].id);
				ut_timers[i].tid = 0;
				if (free_slot < 0)
					free_slot = i;
			}
		}
		if (free_slot < 0)
			return;
	}
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = UT_SAMPLE_SIG;
	sev.sigev_value.sival_ptr = &ut_sample_magic;
	sev._sigev_un._tid = tid;
	if (timer_create(clk, &sev, &id))
		return;
	ut_timers[free_slot].id = id;
	ut_timers[free_slot].tid = tid;
	arm_one(id, ut_period_us);
}

static int blocks_sample_sig(pid_t tid)
{
	char path[64], buf[2048];
	unsigned long long blk;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strstr(buf, "\nSigBlk:");
	if (!p || sscanf(p + 8, "%llx", &blk) != 1)
		return 1;
	return (blk >> (UT_SAMPLE_SIG - 1)) & 1;
}

/* every thread of the process that takes the signal */
static void add_all(void)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	char buf[4096];
	long n;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(buf + off);
			pid_t tid = (pid_t)atoi(d->name);

			off += d->reclen;
			if (tid > 0 && !blocks_sample_sig(tid))
				add_timer(tid, tid == self);
		}
	}
	close(fd);
}

static void delete_all(void)
{
	for (int i = 0; i < UT_SAMPLE_TIMERS; i++) {
		if (ut_timers[i].tid) {
			timer_delete(ut_timers[i].id);
			ut_timers[i].tid = 0;
		}
	}
}

/* the thread that called fork goes on alone, without timers */
static void sysprof_atfork_child(void)
{
	pthread_mutex_init(&ut_timers_lock, NULL);
	memset(ut_timers, 0, sizeof(ut_timers));
	if (ut_sampling)
		ut_sysprof_thread_start();
}

/**
 * ut_sysprof_thread_start - a new thread (or a forked child) gets its timer
 *
 * Context: the thread itself, before the program's code runs in it.
 */
void ut_sysprof_thread_start(void)
{
	sigset_t cur;

	if (!__atomic_load_n(&ut_sampling, __ATOMIC_ACQUIRE))
		return;
	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, UT_SAMPLE_SIG))
		return;		/* a runtime thread, or one that wants no signals */
	pthread_mutex_lock(&ut_timers_lock);
	if (ut_sampling)
		add_timer((pid_t)syscall(SYS_gettid), 1);
	pthread_mutex_unlock(&ut_timers_lock);
}

/**
 * ut_sysprof_thread_exit - the thread ends: its timer goes
 *
 * Context: the thread itself (its key destructor).
 */
void ut_sysprof_thread_exit(void)
{
	pid_t tid;

	if (!__atomic_load_n(&ut_sampling, __ATOMIC_ACQUIRE))
		return;
	tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&ut_timers_lock);
	for (int i = 0; i < UT_SAMPLE_TIMERS; i++) {
		if (ut_timers[i].tid == tid) {
			timer_delete(ut_timers[i].id);
			ut_timers[i].tid = 0;
		}
	}
	pthread_mutex_unlock(&ut_timers_lock);
}

static int sysprof_init(void)
{
	if (install_handler())
		return -1;
	if (!ut_atfork_done) {
		ut_atfork_done = 1;
		pthread_atfork(NULL, NULL, sysprof_atfork_child);
	}
	pthread_mutex_lock(&ut_timers_lock);
	ut_period_us = period_us();
	__atomic_store_n(&ut_sampling, 1, __ATOMIC_RELEASE);
	add_all();
	pthread_mutex_unlock(&ut_timers_lock);
	return 0;
}

static void sysprof_reset(void)
{
	pthread_mutex_lock(&ut_timers_lock);
	__atomic_store_n(&ut_sampling, 0, __ATOMIC_RELEASE);
	delete_all();
	pthread_mutex_unlock(&ut_timers_lock);
}

/* sysprof_sample_period changed: every timer at the new period */
static void sysprof_apply(void)
{
	uint32_t us = period_us();

	pthread_mutex_lock(&ut_timers_lock);
	if (us != ut_period_us) {
		ut_period_us = us;
		for (int i = 0; i < UT_SAMPLE_TIMERS; i++)
			if (ut_timers[i].tid)
				arm_one(ut_timers[i].id, us);
	}
	pthread_mutex_unlock(&ut_timers_lock);
}

const struct ut_rt_tracer ut_rt_tracer_sysprof = {
	.name = "sysprof",
	.init = sysprof_init,
	.reset = sysprof_reset,
	.apply = sysprof_apply,
};
