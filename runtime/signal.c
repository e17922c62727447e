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
 *   kill, killpg, raise, tgkill, pthread_kill, sigqueue
 *       signal_generate when the event is on: all signals are blocked
 *       around the call (raw system calls), so that the event is written
 *       after the send succeeded and before the signal, sent to this
 *       thread or process, reaches a handler.  SIGKILL and SIGSTOP cannot
 *       be blocked: their event comes before the send.  A signal to a
 *       process group (kill with pid 0 or < -1, killpg) records one event
 *       per process of the group the caller may signal, newest first
 *       (/proc read with getdents64: kill is async-signal-safe); kill(-1)
 *       records none.  The result of each is the kernel's, from the
 *       target's masks in /proc read before the send.  On an alternate
 *       stack with less than UT_SIG_ROOM left, the send records none.
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
#include <stdlib.h>
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
	uint64_t mask;		/* its sa_mask (the first 64 signals) */
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
	int lat;

	if (sig > 0 && sig < UT_NSIG) {
		h = __atomic_load_n(&prog[sig].handler, __ATOMIC_ACQUIRE);
		flags = __atomic_load_n(&prog[sig].flags, __ATOMIC_RELAXED);
	}
	if (unlikely(trace_signal_deliver_enabled()))
		deliver_event(sig, si, h, flags);
	if (h == (void *)SIG_IGN || h == (void *)SIG_DFL)
		return;		/* a change under way: the kernel has it next */
	/* the latency tracers: a handler is hard-irq context, its mask a section */
	lat = unlikely(ut_lat_mode) && ut_lat_handler_enter(sig, prog[sig].mask, flags, h, uc);
	if (flags & SA_SIGINFO)
		((void (*)(int, siginfo_t *, void *))h)(sig, si, uc);
	else
		((void (*)(int))h)(sig);
	if (unlikely(lat))
		ut_lat_handler_exit(h, uc);
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
		memcpy(&prog[sig].mask, &act->sa_mask, sizeof(prog[sig].mask));
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
	if (ut_dyn_sigaction(sig, act, old) || ut_sysprof_sigaction(sig, act, old) ||
	    ut_mmio_sigaction(sig, act, old))
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

/*
 * What the kernel's __send_signal_locked() finds for one target, read
 * from /proc before the send: the target thread's blocked signals, the
 * process's ignored and caught ones, and what is pending where the
 * signal goes (the thread's queue, or with @group the process's).
 */
struct target {
	pid_t pid, tid;		/* tid 0: the process (its leader's mask) */
	char comm[16];
	int result;
};

/* the hex set after "@key:\t" in @buf (a status file) */
static uint64_t status_set(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (p += strlen(key); *p == ':' || *p == '\t' || *p == ' '; p++)
		;
	for (; *p; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	return v;
}

/* a small /proc file into @buf (NUL-terminated); its length, -1 if unreadable */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* the name in @path (/proc/.../comm) into @comm[16] */
static void read_comm(const char *path, char *comm)
{
	char buf[32];
	ssize_t n = read_small(path, buf, sizeof(buf));

	memset(comm, 0, 16);
	if (n <= 0)
		return;
	if (buf[n - 1] == '\n')
		buf[--n] = 0;
	memcpy(comm, buf, n > 15 ? 15 : (size_t)n);
}

#define BIT(set, sig)	((set) >> ((sig) - 1) & 1)

/*
 * The kernel's result for @sig to @t: IGNORED if not blocked by the
 * target thread and its action ignores it (SIG_IGN, or the default of
 * SIGCHLD, SIGCONT, SIGURG, SIGWINCH); ALREADY_PENDING for a standard
 * signal pending where it goes; else DELIVERED.  @mask: the caller's
 * own blocked set, when the target thread is the caller (its mask is
 * all-blocked during the send).
 */
static void target_fill(struct target *t, int sig, int group, const uint64_t *mask)
{
	char path[64], buf[2048];
	pid_t self = (pid_t)syscall(SYS_gettid);
	uint64_t blk, ign, cgt, pnd;
	int caller = (t->tid ? t->tid : t->pid) == self;

	t->result = UT_SIGNAL_DELIVERED;
	if (caller) {
		memset(t->comm, 0, sizeof(t->comm));
		syscall(SYS_prctl, PR_GET_NAME, t->comm, 0, 0, 0);
	} else {
		if (t->tid)
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)t->pid, (int)t->tid);
		else
			snprintf(path, sizeof(path), "/proc/%d/comm", (int)t->pid);
		read_comm(path, t->comm);
	}
	if (sig < 1 || sig >= UT_NSIG || sig == SIGKILL || sig == SIGSTOP)
		return;
	if (t->tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)t->pid, (int)t->tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/status", (int)t->pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return;
	blk = caller ? *mask : status_set(buf, "\nSigBlk");
	ign = status_set(buf, "\nSigIgn");
	cgt = status_set(buf, "\nSigCgt");
	pnd = status_set(buf, group ? "\nShdPnd" : "\nSigPnd");
	if (!BIT(blk, sig) &&
	    (BIT(ign, sig) || (!BIT(cgt, sig) && (sig == SIGCHLD || sig == SIGCONT ||
						   sig == SIGURG || sig == SIGWINCH)))) {
		t->result = UT_SIGNAL_IGNORED;
		return;
	}
	if (sig < 32 && BIT(pnd, sig))
		t->result = UT_SIGNAL_ALREADY_PENDING;
}

/* ids of the calling process, and its right to signal process @pid (status @buf) */
static int may_signal(const char *buf, int sig, pid_t sid, pid_t my_sid)
{
	const char *p = strstr(buf, "\nUid:");
	uid_t uid = getuid(), euid = geteuid();
	unsigned long r, e, sv;

	if (euid == 0 || (sig == SIGCONT && sid == my_sid))
		return 1;
	if (!p || sscanf(p + 5, "%lu %lu %lu", &r, &e, &sv) != 3)
		return 0;
	return euid == sv || euid == r || uid == sv || uid == r;
}

#define UT_GROUP_MAX	64
#define DIRENT_BUF	1024

/*
 * The processes of group @pgrp that the caller may signal, newest
 * first (the kernel walks the group's list from its last member): into
 * @t (at most UT_GROUP_MAX).  /proc is read with getdents64 and a buffer
 * on the stack: kill() may be called from a signal handler.
 */
static int group_targets(pid_t pgrp, int sig, struct target *t)
{
	char dbuf[DIRENT_BUF], path[64], buf[2048];
	pid_t my_sid = getsid(0);
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0;
	long got;

	if (fd < 0)
		return 0;
	while ((got = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf))) > 0) {
		for (long off = 0; off < got;) {
			struct ut_dirent64 *de = (void *)(dbuf + off);
			char *end, *p;
			long pid = strtol(de->name, &end, 10), f5, f6;
			int field = 2;

			off += de->reclen;
			if (*end || pid <= 0 || n == UT_GROUP_MAX)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
			if (read_small(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
				continue;
			/* field 5 is the process group, 6 the session */
			while (*p && field < 5)
				field += *p++ == ' ';
			if (sscanf(p, "%ld %ld", &f5, &f6) != 2 || f5 != pgrp)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/status", pid);
			if (read_small(path, buf, sizeof(buf)) <= 0 ||
			    !may_signal(buf, sig, (pid_t)f6, my_sid))
				continue;
			t[n].pid = (pid_t)pid;
			t[n].tid = 0;
			n++;
		}
	}
	close(fd);
	/* newest first: the highest pid first */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && t[k - 1].pid < t[k].pid; k--) {
			struct target x = t[k];

			t[k] = t[k - 1];
			t[k - 1] = x;
		}
	return n;
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

/*
 * A send to @pid (@tid: a thread of it, or 0 for the process; @pid <= 0:
 * a process group, as kill() reads it), and its targets.
 */
struct send {
	int sig, code, group;
	pid_t pid, tid;
	int ret;
	int n;
	struct target *t;	/* UT_GROUP_MAX */
};

/* who the send reaches, and what it finds there: before it */
static void send_targets(struct send *s, const uint64_t *mask)
{
	s->n = 0;
	if (s->pid > 0) {
		s->t[0].pid = s->pid;
		s->t[0].tid = s->tid;
		s->n = 1;
	} else if (s->pid == 0 || s->pid < -1) {
		s->n = group_targets(s->pid ? -s->pid : getpgrp(), s->sig, s->t);
	}
	for (int i = 0; i < s->n; i++)
		target_fill(&s->t[i], s->sig, s->group, mask);
}

static void generate_events(const struct send *s)
{
	for (int i = 0; i < s->n; i++)
		trace_signal_generate(s->sig, 0, s->code, s->t[i].comm,
				      s->t[i].tid ? s->t[i].tid : s->t[i].pid, s->group,
				      s->t[i].result);
}

/* the send's call, made by send_traced() */
enum { SEND_KILL, SEND_RAISE, SEND_TGKILL, SEND_PTHREAD_KILL, SEND_SIGQUEUE };

static int send_call(struct send *s, int how, pthread_t th, union sigval val)
{
	switch (how) {
	case SEND_KILL:
		return real_kill(s->pid, s->sig);
	case SEND_RAISE:
		return real_raise(s->sig);
	case SEND_TGKILL:
		return real_tgkill(s->pid, s->tid, s->sig);
	case SEND_PTHREAD_KILL:
		return real_pthread_kill(th, s->sig);
	default:
		return real_sigqueue(s->pid, s->sig, val);
	}
}

static __attribute__((noinline)) int send_events(struct send *s, int how, pthread_t th,
						 union sigval val)
{
	struct target t[UT_GROUP_MAX];
	uint64_t mask = 0;
	int err, before = s->sig == SIGKILL || s->sig == SIGSTOP;

	s->t = t;
	block_all(&mask);
	send_targets(s, &mask);
	if (before)
		generate_events(s);
	s->ret = send_call(s, how, th, val);
	err = errno;
	/* pthread_kill returns the error, the others -1 */
	if (!before && s->ret == 0)
		generate_events(s);
	unblock(&mask);
	errno = err;
	return s->ret;
}

/* the events need a few KiB of stack: none on a small alternate stack */
static __attribute__((noinline)) int send_traced(struct send *s, int how, pthread_t th,
						 union sigval val)
{
	if (!stack_room())
		return s->ret = send_call(s, how, th, val);
	return send_events(s, how, th, val);
}

/* the kernel's si_code of each sender */
#define UT_SI_USER	0
#define UT_SI_QUEUE	-1
#define UT_SI_TKILL	-6

EXPORT int kill(pid_t pid, int sig)
{
	struct send s = { sig, UT_SI_USER, 1, pid, 0, 0, 0, NULL };

	if (!RESOLVE(kill))
		return (int)syscall(SYS_kill, pid, sig);
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_kill(pid, sig);
	return send_traced(&s, SEND_KILL, 0, (union sigval){ 0 });
}

/* glibc's killpg calls its own kill, not this one */
EXPORT int killpg(pid_t pgrp, int sig)
{
	if (pgrp < 0)
		return errno = EINVAL, -1;
	return kill(-pgrp, sig);
}

EXPORT int raise(int sig)
{
	struct send s = { sig, UT_SI_TKILL, 0, 0, 0, 0, 0, NULL };

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
	struct send s = { sig, UT_SI_TKILL, 0, tgid, tid, 0, 0, NULL };

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
	struct send s = { sig, UT_SI_TKILL, 0, 0, 0, 0, 0, NULL };

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
	struct send s = { sig, UT_SI_QUEUE, 1, pid, 0, 0, 0, NULL };

	if (!RESOLVE(sigqueue))
		return errno = ENOSYS, -1;
	if (likely(!trace_signal_generate_enabled()) || sig <= 0)
		return real_sigqueue(pid, sig, val);
	return send_traced(&s, SEND_SIGQUEUE, 0, val);
}
