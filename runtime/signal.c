// SPDX-License-Identifier: MIT
/*
 * signal.c - the program's signals: its handlers run through ours, and
 * the built-in signal events (usertrace/events/signal.h).
 *
 *   sigaction, signal
 *       the runtime's SIGTRAP handler (dynamic ftrace) stays first; the
 *       program's is kept and called for every other trap (dynamic.c).
 *       In a traced process every other handler the program installs is
 *       installed as sig_handler(), which calls it: the kernel holds ours,
 *       the program sees its own (sigaction's old action is translated
 *       back).  SA_RESETHAND, SA_NODEFER, SA_ONSTACK, masks and SA_RESTART
 *       go to the kernel unchanged; SA_SIGINFO is added, and the
 *       program's handler is called with the arguments it asked for.
 *   kill, raise, tgkill, pthread_kill, sigqueue
 *       signal_generate when the event is on: all signals are blocked
 *       around the call (raw system calls), so that the event is written
 *       after the send succeeded and before the signal, sent to this
 *       thread or process, reaches a handler.  SIGKILL and SIGSTOP cannot
 *       be blocked: their event comes before the send.  A signal to a
 *       process group (kill with pid <= 0) records none.
 *
 * signal_deliver is written by sig_handler() before it calls the
 * program's handler; a handler on an alternate stack with less than
 * UT_SIG_ROOM bytes left records none (the event is built on the stack).
 * Signals whose handler the program installed before the runtime started
 * (another library's constructor), or with the raw system call, are not
 * seen.  Off, the events cost one load and a branch not taken: per call
 * of the senders, and per delivery in sig_handler(), which adds a call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "usertrace/events/signal.h"

#define UT_SA_RESTORER	0x04000000ul	/* glibc sets it; the kernel's sa_flags show it */
#define UT_SIG_ROOM	(16u << 10)
#define UT_NSIG		65

static __typeof__(sigaction) *real_sigaction;
static __typeof__(kill) *real_kill;
static __typeof__(raise) *real_raise;
static __typeof__(tgkill) *real_tgkill;
static __typeof__(pthread_kill) *real_pthread_kill;
static __typeof__(sigqueue) *real_sigqueue;

#define RESOLVE(name) \
	(real_##name ?: (real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)))

/* at start-up: no dlsym later in a signal handler */
void ut_signal_resolve(void)
{
	RESOLVE(sigaction);
	RESOLVE(kill);
	RESOLVE(raise);
	RESOLVE(tgkill);
	RESOLVE(pthread_kill);
	RESOLVE(sigqueue);
}

/*
 * The program's handler of each signal that the kernel has as
 * sig_handler(), and the flags it asked for.  Written before the kernel
 * gets sig_handler() (a signal between the two finds the new handler).
 */
static struct {
	void *handler;
	unsigned long flags;
} prog[UT_NSIG];

/* is there room for an event on the alternate stack this handler runs on? */
static int stack_room(void)
{
	stack_t ss;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	if (sigaltstack(NULL, &ss) < 0 || !(ss.ss_flags & SS_ONSTACK))
		return 1;
	return sp > (uintptr_t)ss.ss_sp && sp - (uintptr_t)ss.ss_sp >= UT_SIG_ROOM;
}

static __attribute__((noinline)) void deliver_event(int sig, const siginfo_t *si, void *h,
						    unsigned long flags)
{
	int err = errno;

	if (!(flags & SA_ONSTACK) || stack_room())
		trace_signal_deliver(sig, si ? si->si_errno : 0, si ? si->si_code : 0,
				     (unsigned long)h, flags | UT_SA_RESTORER);
	errno = err;
}

static void sig_handler(int sig, siginfo_t *si, void *uc)
{
	void *h = NULL;
	unsigned long flags = 0;

	if (sig > 0 && sig < UT_NSIG) {
		h = __atomic_load_n(&prog[sig].handler, __ATOMIC_ACQUIRE);
		flags = __atomic_load_n(&prog[sig].flags, __ATOMIC_RELAXED);
	}
	if (unlikely(trace_signal_deliver_enabled()))
		deliver_event(sig, si, h, flags);
	if (h == (void *)SIG_IGN || h == (void *)SIG_DFL)
		return;		/* a change under way: the kernel has it next */
	if (flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))h)(sig, si, uc);
	else
		((void (*)(int))h)(sig);
}

static int wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	void *ph = prog[sig].handler;
	unsigned long pflags = prog[sig].flags;
	int wrap = act && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
	struct sigaction k, o;
	int ret;

	if (wrap) {
		k = *act;
		k.sa_sigaction = sig_handler;
		k.sa_flags |= SA_SIGINFO;
		__atomic_store_n(&prog[sig].flags, (unsigned long)act->sa_flags, __ATOMIC_RELAXED);
		__atomic_store_n(&prog[sig].handler, (void *)act->sa_handler, __ATOMIC_RELEASE);
	}
	ret = real_sigaction(sig, wrap ? &k : act, &o);
	if (ret < 0 && wrap) {
		__atomic_store_n(&prog[sig].flags, pflags, __ATOMIC_RELAXED);
		__atomic_store_n(&prog[sig].handler, ph, __ATOMIC_RELEASE);
	}
	if (ret == 0 && old) {
		*old = o;
		if (o.sa_sigaction == sig_handler) {	/* the program's, as it gave it */
			old->sa_handler = (__sighandler_t)ph;
			old->sa_flags = (o.sa_flags & ~SA_SIGINFO) | ((int)pflags & SA_SIGINFO);
		}
	}
	return ret;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (ut_dyn_sigaction(sig, act, old))
		return 0;
	if (!RESOLVE(sigaction))
		return errno = ENOSYS, -1;
	if (!ut_ctl || sig <= 0 || sig >= UT_NSIG || sig == SIGTRAP)
		return real_sigaction(sig, act, old);
	return wrap_sigaction(sig, act, old);
}

/* signal(): glibc's BSD semantics, through our sigaction */
EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa = { 0 }, old;

	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < UT_NSIG && sigaddset(&sa.sa_mask, sig) < 0)
		return SIG_ERR;
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* ---- signal_generate ---- */

/* the name in @path (/proc/.../comm) into @comm[16] */
static void read_comm(const char *path, char *comm)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(comm, 0, 16);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
}

/*
 * The kernel's result for a signal to this process: IGNORED if not
 * blocked (in @mask, the caller's) and its action is to ignore it.
 */
static int result_of(int sig, const uint64_t *mask)
{
	struct sigaction o;

	if (sig < 1 || sig >= UT_NSIG || (*mask >> (sig - 1) & 1) || real_sigaction(sig, NULL, &o))
		return UT_SIGNAL_DELIVERED;
	if (o.sa_handler == SIG_IGN ||
	    (o.sa_handler == SIG_DFL &&
	     (sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH)))
		return UT_SIGNAL_IGNORED;
	return UT_SIGNAL_DELIVERED;
}

/* signals blocked around a send; the raw call, not the program's sigprocmask */
static void block_all(uint64_t *saved)
{
	uint64_t all = ~0ull;

	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, saved, sizeof(all));
}

static void unblock(const uint64_t *saved)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, sizeof(*saved));
}

/* a send to @pid (@tid: a thread of it, or 0 for the process) */
struct send {
	int sig, code, group;
	pid_t pid, tid;
	int ret;
};

static void generate_event(const struct send *s, const uint64_t *mask)
{
	char path[64], comm[16];
	pid_t self = getpid();

	if (s->tid && s->tid == (pid_t)syscall(SYS_gettid)) {
		memset(comm, 0, sizeof(comm));
		syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
	} else {
		if (s->tid)
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)s->pid, (int)s->tid);
		else
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->pid);
		read_comm(path, comm);
	}
	trace_signal_generate(s->sig, 0, s->code, comm, s->tid ? s->tid : s->pid, s->group,
			      s->pid == self ? result_of(s->sig, mask) : UT_SIGNAL_DELIVERED);
}

/* the send's call, made by send_traced() */
enum { SEND_KILL, SEND_RAISE, SEND_TGKILL, SEND_PTHREAD_KILL, SEND_SIGQUEUE };

static __attribute__((noinline)) int send_traced(struct send *s, int how, pthread_t th,
						 union sigval val)
{
	uint64_t mask = 0;
	int err, before = s->sig == SIGKILL || s->sig == SIGSTOP;

	block_all(&mask);
	if (before && s->pid > 0)
		generate_event(s, &mask);
	switch (how) {
	case SEND_KILL:
		s->ret = real_kill(s->pid, s->sig);
		break;
	case SEND_RAISE:
		s->ret = real_raise(s->sig);
		break;
	case SEND_TGKILL:
		s->ret = real_tgkill(s->pid, s->tid, s->sig);
		break;
	case SEND_PTHREAD_KILL:
		s->ret = real_pthread_kill(th, s->sig);
		break;
	default:
		s->ret = real_sigqueue(s->pid, s->sig, val);
		break;
	}
	err = errno;
	/* pthread_kill returns the error, the others -1 */
	if (!before && s->ret == 0 && s->pid > 0)
		generate_event(s, &mask);
	unblock(&mask);
	errno = err;
	return s->ret;
}

/* the kernel's si_code of each sender */
#define UT_SI_USER	0
#define UT_SI_QUEUE	-1
#define UT_SI_TKILL	-6

EXPORT int kill(pid_t pid, int sig)
{
	struct send s = { sig, UT_SI_USER, 1, pid, 0, 0 };

	if (!RESOLVE(kill))
		return (int)syscall(SYS_kill, pid, sig);
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_kill(pid, sig);
	return send_traced(&s, SEND_KILL, 0, (union sigval){ 0 });
}

EXPORT int raise(int sig)
{
	struct send s = { sig, UT_SI_TKILL, 0, 0, 0, 0 };

	if (!RESOLVE(raise))
		return errno = ENOSYS, -1;
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_raise(sig);
	s.pid = getpid();
	s.tid = (pid_t)syscall(SYS_gettid);
	return send_traced(&s, SEND_RAISE, 0, (union sigval){ 0 });
}

EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	struct send s = { sig, UT_SI_TKILL, 0, tgid, tid, 0 };

	if (!RESOLVE(tgkill))
		return (int)syscall(SYS_tgkill, tgid, tid, sig);
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_tgkill(tgid, tid, sig);
	return send_traced(&s, SEND_TGKILL, 0, (union sigval){ 0 });
}

/*
 * A thread's id: glibc makes the thread's CPU clock id from it
 * (MAKE_THREAD_CPUCLOCK: ~tid << 3 | CPUCLOCK_PERTHREAD_MASK |
 * CPUCLOCK_SCHED), and has it from the moment pthread_create returns.
 * 0 if unknown.
 */
static pid_t thread_tid(pthread_t th)
{
	clockid_t clk;

	if (pthread_equal(th, pthread_self()))
		return (pid_t)syscall(SYS_gettid);
	if (pthread_getcpuclockid(th, &clk) || (clk & 7) != 6)
		return 0;
	return (pid_t)~(clk >> 3);
}

EXPORT int pthread_kill(pthread_t th, int sig)
{
	struct send s = { sig, UT_SI_TKILL, 0, 0, 0, 0 };

	if (!RESOLVE(pthread_kill))
		return ENOSYS;
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_pthread_kill(th, sig);
	s.pid = getpid();
	s.tid = thread_tid(th);
	if (!s.tid)
		s.tid = s.pid;
	return send_traced(&s, SEND_PTHREAD_KILL, th, (union sigval){ 0 });
}

EXPORT int sigqueue(pid_t pid, int sig, const union sigval val)
{
	struct send s = { sig, UT_SI_QUEUE, 1, pid, 0, 0 };

	if (!RESOLVE(sigqueue))
		return errno = ENOSYS, -1;
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_sigqueue(pid, sig, val);
	return send_traced(&s, SEND_SIGQUEUE, 0, val);
}
