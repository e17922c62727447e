// SPDX-License-Identifier: MIT
/*
 * wakeup.c - the wake-ups of the wakeup and wakeup_rt tracers, as the
 * kernel's trace_sched_wakeup.c: how long a woken thread waits from its
 * wake to running again, and the trace of the longest.
 *
 * In user space (doc/design/latency.md, "wakeup, wakeup_rt"):
 *
 *   the wake   pthread_cond_signal/broadcast, sem_post, pthread_mutex_unlock
 *              of a mutex with waiters, syscall(SYS_futex) FUTEX_WAKE,
 *              _WAKE_BITSET, _WAKE_OP, _REQUEUE, _CMP_REQUEUE (programs and
 *              libraries with futexes of their own): the waker notes the
 *              time, its caller and the call in a small table keyed by the
 *              object (the futex word)
 *   the run    pthread_cond_wait/timedwait, sem_wait/timedwait (that did
 *              not succeed at once), pthread_mutex_lock (that found the
 *              mutex taken) and FUTEX_WAIT/_WAIT_BITSET (that returned 0:
 *              woken) return: the woken thread looks its object up; a
 *              wake noted after the thread began to wait is its wake-up,
 *              and now - then its latency
 *
 * wakeup_rt counts only threads whose policy is SCHED_FIFO or SCHED_RR
 * (read once per thread, again after a policy change through the
 * wrappers below); wakeup counts every thread.  Each wake-up is measured
 * on its own (the kernel follows one task at a time, the highest-priority
 * one woken, because its probes are global; here each thread measures
 * itself): the longest is the maximum.
 *
 * The records, in the woken thread's buffer: a CTX record stating
 * UT_CTX_WAKING at the wake's time, a FUNC record of the wake (the waking
 * call, "<-" the waker's caller) at that time, a FUNC record of the run
 * (the waiting call, "<-" its caller), then when reported its stack, and
 * a CTX record ending the waiting state.  A reader finds the wake-ups from
 * the contexts as it finds irqsoff's sections (output/latency.c).
 *
 * Off (no wakeup tracer running): each wrapper costs one load and a
 * branch not taken.  The table has WAKE_SLOTS slots: two objects that
 * hash alike, or two wakes of one object racing, keep the last wake only.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <semaphore.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/record.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

int ut_wake_mode;	/* UT_WAKE_ALL, UT_WAKE_RT; 0: no wakeup tracer runs */

#define WAKE_SLOTS	256

struct wake_slot {
	uint32_t seq;		/* odd while written */
	uintptr_t obj;		/* the object woken on */
	uint64_t ts;		/* when */
	uintptr_t ip;		/* the waking call */
	uintptr_t parent;	/* its caller */
	int32_t tid;		/* the waker */
};

static struct wake_slot wake_table[WAKE_SLOTS];

static inline struct wake_slot *wake_slot(const void *obj)
{
	uintptr_t a = (uintptr_t)obj;

	return &wake_table[((a >> 3) ^ (a >> 11)) % WAKE_SLOTS];
}

static inline int wake_on(void)
{
	return unlikely(__atomic_load_n(&ut_wake_mode, __ATOMIC_RELAXED) != 0) &&
	       ut_self.state != UT_TS_INTERNAL;
}

/* a thread that is to write, its buffer made at its first use */
static int wake_ready(struct ut_thread *t)
{
	if (likely(t->state == UT_TS_READY))
		return 1;
	return t->state == UT_TS_NEW && ut_thread_setup(t) == 0;
}

/* a wake on @obj by @ip called from @parent, now */
static void wake_note(const void *obj, uintptr_t ip, uintptr_t parent)
{
	struct wake_slot *s = wake_slot(obj);
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	/* the waker's buffer names it (its comm) in the trace of the wake-up */
	wake_ready(&ut_self);

	/* another waker writes it: the table keeps that one */
	if ((seq & 1) || !__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE,
						      __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&s->obj, (uintptr_t)obj, __ATOMIC_RELAXED);
	__atomic_store_n(&s->ts, ut_clock(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->ip, ip, __ATOMIC_RELAXED);
	__atomic_store_n(&s->parent, parent, __ATOMIC_RELAXED);
	__atomic_store_n(&s->tid, ut_self.tid, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

/* the last wake on @obj: 1 and its copy in @out, or 0 */
static int wake_find(const void *obj, struct wake_slot *out)
{
	struct wake_slot *s = wake_slot(obj);

	for (int i = 0; i < 4; i++) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		if (seq & 1)
			continue;
		out->obj = __atomic_load_n(&s->obj, __ATOMIC_RELAXED);
		out->ts = __atomic_load_n(&s->ts, __ATOMIC_RELAXED);
		out->ip = __atomic_load_n(&s->ip, __ATOMIC_RELAXED);
		out->parent = __atomic_load_n(&s->parent, __ATOMIC_RELAXED);
		out->tid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return out->obj == (uintptr_t)obj;
	}
	return 0;
}

/* ---- the thread's policy (wakeup_rt) ---- */

static uint32_t policy_gen = 1;	/* bumped by every policy change */
static __thread uint32_t my_gen __attribute__((tls_model("initial-exec")));
static __thread int my_rt __attribute__((tls_model("initial-exec")));
static __thread uint32_t prio_gen __attribute__((tls_model("initial-exec")));
static __thread int my_prio __attribute__((tls_model("initial-exec")));

static inline void policy_changed(void)
{
	__atomic_add_fetch(&policy_gen, 1, __ATOMIC_RELAXED);
}

/* does this thread's wake-up count? */
static int wake_counts(void)
{
	uint32_t g;

	if (__atomic_load_n(&ut_wake_mode, __ATOMIC_RELAXED) != UT_WAKE_RT)
		return 1;
	g = __atomic_load_n(&policy_gen, __ATOMIC_RELAXED);
	if (my_gen != g) {
		int p = sched_getscheduler(0);

		/* the kernel's rt_or_dl_task(): SCHED_DEADLINE too */
		my_rt = p == SCHED_FIFO || p == SCHED_RR || p == 6;
		my_gen = g;
	}
	return my_rt;
}

/*
 * the thread's priority as the kernel's sched events give it (read once,
 * again after a policy change through the wrappers): 99 - rt_priority
 * for SCHED_FIFO and SCHED_RR, -1 for SCHED_DEADLINE, 120 + nice else
 */
static int wake_prio(void)
{
	uint32_t g = __atomic_load_n(&policy_gen, __ATOMIC_RELAXED);

	if (prio_gen != g) {
		int p = sched_getscheduler(0);
		struct sched_param sp = { 0 };

		if (p == SCHED_FIFO || p == SCHED_RR)
			my_prio = sched_getparam(0, &sp) == 0 ? 99 - sp.sched_priority : 99;
		else if (p == SCHED_DEADLINE)
			my_prio = -1;
		else {
			errno = 0;
			my_prio = getpriority(PRIO_PROCESS, 0);
			my_prio = errno ? 120 : 120 + my_prio;
		}
		prio_gen = g;
	}
	return my_prio;
}

/* the kernel's sched_wakeup entry (usertrace/events/sched.h) */
struct wake_ent {
	struct ut_trace_entry ent;
	char comm[16];
	int32_t pid, prio, target_cpu;
};
_Static_assert(sizeof(struct wake_ent) == 36, "sched_wakeup layout");

extern struct ut_tracepoint __ut_tp_sched_sched_wakeup;

/*
 * The wake-up as the kernel's wakeup tracers write it (a TRACE_WAKE
 * entry: the waker's pid, the woken task's pid, prio, CPU and name): a
 * sched:sched_wakeup entry whose common_pid is the waker, written by the
 * woken thread @t at the wake's time @ts, so that the trace prints the
 * wake on the waker's line and the woken task in its data.
 */
static void wake_entry(struct ut_thread *t, const struct wake_slot *w, uint64_t ts)
{
	struct wake_ent e;
	uint16_t id = __atomic_load_n(&__ut_tp_sched_sched_wakeup.id, __ATOMIC_RELAXED);

	if (!id || !w->tid)
		return;
	memset(&e, 0, sizeof(e));
	e.ent.type = id;
	e.ent.pid = w->tid;
	memcpy(e.comm, t->w.hdr->comm, sizeof(e.comm));
	e.comm[15] = 0;
	e.pid = t->tid;
	e.prio = wake_prio();
	e.target_cpu = (int32_t)ut_cpu();
	ut_write_entry_at(t, &e.ent, sizeof(e), ts);
}

/* ---- the run: a woken thread measures its wake-up ---- */

/*
 * The thread waited on @obj from @since and runs again, at @ip called
 * from @parent: if a wake came meanwhile, its records and the report.
 */
static void wake_run(const void *obj, uint64_t since, uintptr_t ip, uintptr_t parent)
{
	struct ut_thread *t = &ut_self;
	struct ut_session_ctl *c = ut_ctl;
	struct wake_slot w;
	uint64_t now, delta, thresh, wts;
	uint8_t ctx;
	int report;

	if (!wake_find(obj, &w) || w.ts < since || !c || !c->tracing_on || !wake_counts())
		return;
	if (!wake_ready(t))
		return;
	now = ut_clock();
	if (now < w.ts)
		return;
	delta = now - w.ts;
	/* a record of this thread came after the wake (a handler's): the wake shows there */
	wts = w.ts >= t->w.last_ts ? w.ts : t->w.last_ts;
	ctx = t->tr.lat.wctx;
	t->tr.lat.wctx = ctx | UT_CTX_WAKING;	/* restated on a page start meanwhile */
	ut_write_ctx(t, wts, ctx | UT_CTX_WAKING, t->tr.lat.wpreempt);
	wake_entry(t, &w, wts);
	ut_write(t, UT_REC_FUNC, wts, w.ip, w.parent);
	thresh = __atomic_load_n(&c->tracing_thresh, __ATOMIC_RELAXED);
	report = thresh ? delta >= thresh : delta > __atomic_load_n(&c->max_latency, __ATOMIC_RELAXED);
	/* a report's identity rides on the run's record (the stack may be empty) */
	if (report)
		ut_write_task(t, now, t->tr.lat.wctx, t->tr.lat.wpreempt);
	ut_write(t, UT_REC_FUNC, now, ip, parent);
	if (report) {
		uintptr_t ips[UT_STACK_MAX];
		uint32_t n = ut_program_stack(t, ips, UT_STACK_MAX);

		if (n)
			ut_write_trace(t, ips, n, now);
	}
	t->tr.lat.wctx = ctx;
	ut_write_ctx(t, now, ctx, t->tr.lat.wpreempt);
	if (!report)
		return;
	if (thresh)
		ut_max_store(delta, now, w.parent, parent, 1);
	else
		ut_update_max_tr(delta, now, w.parent, parent);
}

/* ---- the wrappers ---- */

static __typeof__(pthread_cond_signal) *real_cond_signal;
static __typeof__(pthread_cond_broadcast) *real_cond_broadcast;
static __typeof__(pthread_cond_wait) *real_cond_wait;
static __typeof__(pthread_cond_timedwait) *real_cond_timedwait;
static __typeof__(sem_post) *real_sem_post;
static __typeof__(sem_wait) *real_sem_wait;
static __typeof__(sem_timedwait) *real_sem_timedwait;
static __typeof__(sem_trywait) *real_sem_trywait;
static __typeof__(pthread_mutex_unlock) *real_mutex_unlock;
static __typeof__(pthread_setschedparam) *real_setschedparam;
static __typeof__(pthread_setschedprio) *real_setschedprio;
static __typeof__(sched_setscheduler) *real_sched_setscheduler;
static __typeof__(sched_setparam) *real_sched_setparam;
static long (*real_syscall)(long, ...);

/*
 * The condition variables have two versions in glibc; dlsym() may give
 * the old one (GLIBC_2.2.5), whose objects differ: ask for the new.
 */
static void *find_cond(const char *name)
{
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");

	return f ? f : dlsym(RTLD_NEXT, name);
}

#define RESOLVE(var, name)	(var ?: (var = (__typeof__(var))dlsym(RTLD_NEXT, name)))
#define RESOLVE_COND(var, name)	(var ?: (var = (__typeof__(var))find_cond(name)))
#define HERE()			((uintptr_t)__builtin_return_address(0))

/* at start-up: the runtime's own threads use these too */
void ut_wake_resolve(void)
{
	RESOLVE_COND(real_cond_signal, "pthread_cond_signal");
	RESOLVE_COND(real_cond_broadcast, "pthread_cond_broadcast");
	RESOLVE_COND(real_cond_wait, "pthread_cond_wait");
	RESOLVE_COND(real_cond_timedwait, "pthread_cond_timedwait");
	RESOLVE(real_sem_post, "sem_post");
	RESOLVE(real_sem_wait, "sem_wait");
	RESOLVE(real_sem_timedwait, "sem_timedwait");
	RESOLVE(real_sem_trywait, "sem_trywait");
	RESOLVE(real_mutex_unlock, "pthread_mutex_unlock");
	RESOLVE(real_setschedparam, "pthread_setschedparam");
	RESOLVE(real_setschedprio, "pthread_setschedprio");
	RESOLVE(real_sched_setscheduler, "sched_setscheduler");
	RESOLVE(real_sched_setparam, "sched_setparam");
	RESOLVE(real_syscall, "syscall");
}

/* ---- the tracers' runtime parts ---- */

/* the running wakeup tracers: UT_WAKE_ALL (wakeup), UT_WAKE_RT (wakeup_rt) */
static int wake_users;

/*
 * @mode joins (@on) or leaves the wake-ups measured: wakeup counts every
 * thread, it wins over wakeup_rt.  Both gate calls as the latency
 * tracers do (ut_lat_join()).  Context: the start-up or the control
 * thread (ut_tracers_set()).
 */
static void wake_join(const struct ut_rt_tracer *t, int mode, int on)
{
	if (on)
		wake_users |= mode;
	else
		wake_users &= ~mode;
	__atomic_store_n(&ut_wake_mode, wake_users & UT_WAKE_ALL ? UT_WAKE_ALL : wake_users,
			 __ATOMIC_RELAXED);
	ut_lat_join(t, 0, on);
}

static int wakeup_init(void)
{
	wake_join(&ut_rt_tracer_wakeup, UT_WAKE_ALL, 1);
	return 0;
}

static void wakeup_reset(void)
{
	wake_join(&ut_rt_tracer_wakeup, UT_WAKE_ALL, 0);
}

static int wakeup_rt_init(void)
{
	wake_join(&ut_rt_tracer_wakeup_rt, UT_WAKE_RT, 1);
	return 0;
}

static void wakeup_rt_reset(void)
{
	wake_join(&ut_rt_tracer_wakeup_rt, UT_WAKE_RT, 0);
}

const struct ut_rt_tracer ut_rt_tracer_wakeup = {
	.name = "wakeup",
	.init = wakeup_init,
	.reset = wakeup_reset,
	.apply = ut_lat_apply,
};

const struct ut_rt_tracer ut_rt_tracer_wakeup_rt = {
	.name = "wakeup_rt",
	.init = wakeup_rt_init,
	.reset = wakeup_rt_reset,
	.apply = ut_lat_apply,
};

EXPORT int pthread_cond_signal(pthread_cond_t *cv)
{
	if (!RESOLVE_COND(real_cond_signal, "pthread_cond_signal"))
		return ENOSYS;
	if (wake_on())
		wake_note(cv, (uintptr_t)pthread_cond_signal, HERE());
	return real_cond_signal(cv);
}

EXPORT int pthread_cond_broadcast(pthread_cond_t *cv)
{
	if (!RESOLVE_COND(real_cond_broadcast, "pthread_cond_broadcast"))
		return ENOSYS;
	if (wake_on())
		wake_note(cv, (uintptr_t)pthread_cond_broadcast, HERE());
	return real_cond_broadcast(cv);
}

/* a wait on a condition variable (@abstime NULL: untimed) that measures its wake-up */
static int cond_wait_run(pthread_cond_t *cv, pthread_mutex_t *m, const struct timespec *abstime,
			 uintptr_t ip, uintptr_t parent)
{
	uint64_t since = ut_clock();
	int ret = abstime ? real_cond_timedwait(cv, m, abstime) : real_cond_wait(cv, m);
	int err = errno;

	if (ret == 0)
		wake_run(cv, since, ip, parent);
	errno = err;
	return ret;
}

EXPORT int pthread_cond_wait(pthread_cond_t *cv, pthread_mutex_t *m)
{
	if (!RESOLVE_COND(real_cond_wait, "pthread_cond_wait"))
		return ENOSYS;
	if (!wake_on())
		return real_cond_wait(cv, m);
	return cond_wait_run(cv, m, NULL, (uintptr_t)pthread_cond_wait, HERE());
}

EXPORT int pthread_cond_timedwait(pthread_cond_t *cv, pthread_mutex_t *m,
				  const struct timespec *abstime)
{
	if (!RESOLVE_COND(real_cond_timedwait, "pthread_cond_timedwait"))
		return ENOSYS;
	if (!wake_on())
		return real_cond_timedwait(cv, m, abstime);
	return cond_wait_run(cv, m, abstime, (uintptr_t)pthread_cond_timedwait, HERE());
}

EXPORT int sem_post(sem_t *s)
{
	if (!RESOLVE(real_sem_post, "sem_post"))
		return errno = ENOSYS, -1;
	if (wake_on())
		wake_note(s, (uintptr_t)sem_post, HERE());
	return real_sem_post(s);
}

/*
 * A semaphore wait (@abstime NULL: untimed): not a wake-up unless it
 * waits.  As libc's: a cancellation point first; a failed try leaves no
 * errno behind.
 */
static int sem_wait_run(sem_t *s, const struct timespec *abstime, uintptr_t ip, uintptr_t parent)
{
	uint64_t since;
	int ret, err;

	pthread_testcancel();
	err = errno;
	if (real_sem_trywait(s) == 0)
		return 0;
	errno = err;
	since = ut_clock();
	ret = abstime ? real_sem_timedwait(s, abstime) : real_sem_wait(s);
	err = errno;
	if (ret == 0)
		wake_run(s, since, ip, parent);
	errno = err;
	return ret;
}

EXPORT int sem_wait(sem_t *s)
{
	if (!RESOLVE(real_sem_wait, "sem_wait") || !RESOLVE(real_sem_trywait, "sem_trywait"))
		return errno = ENOSYS, -1;
	if (!wake_on())
		return real_sem_wait(s);
	return sem_wait_run(s, NULL, (uintptr_t)sem_wait, HERE());
}

EXPORT int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
	if (!RESOLVE(real_sem_timedwait, "sem_timedwait") || !RESOLVE(real_sem_trywait, "sem_trywait"))
		return errno = ENOSYS, -1;
	/* a bad time is libc's to refuse (EINVAL), before any try */
	if (!wake_on() || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
		return real_sem_timedwait(s, abstime);
	return sem_wait_run(s, abstime, (uintptr_t)sem_timedwait, HERE());
}

/*
 * pthread_mutex_unlock: a wake when the mutex has waiters (glibc's lock
 * word 2: "locked, maybe waiters").  The waiter is pthread_mutex_lock
 * (lock.c), which calls ut_wake_mutex_lock() while a tracer runs.
 */
EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	if (!RESOLVE(real_mutex_unlock, "pthread_mutex_unlock"))
		return ENOSYS;
	if (wake_on() && __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) > 1)
		wake_note(m, (uintptr_t)pthread_mutex_unlock, HERE());
	return real_mutex_unlock(m);
}

/*
 * syscall(): the futex calls of programs and libraries that use futexes
 * directly (glibc's own locks do not come here: they are the wrappers
 * above).  Every other call, and every call while no wakeup tracer runs,
 * goes straight to libc's: one compare.  The six arguments are passed on
 * as libc's syscall() reads them.
 */
EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6], ret;
	uint64_t since;
	int cmd, err;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!RESOLVE(real_syscall, "syscall"))
		return errno = ENOSYS, -1;
	if (nr != SYS_futex || !wake_on())
		return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	cmd = (int)a[1] & FUTEX_CMD_MASK;
	switch (cmd) {
	case FUTEX_WAKE_OP:
		/*
		 * uaddr2's waiters too (val2, in the timeout's place), if the
		 * operation's condition holds: known only after the call, so
		 * noted before it as a possible wake
		 */
		if (a[3] > 0)
			wake_note((void *)a[4], (uintptr_t)syscall, HERE());
		/* fall through */
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
		/* val: how many to wake (the requeued ones are not woken: they wait on) */
		if (a[2] > 0)
			wake_note((void *)a[0], (uintptr_t)syscall, HERE());
		return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		since = ut_clock();
		ret = real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		err = errno;
		/* 0: woken (EAGAIN: the word had changed; ETIMEDOUT, EINTR: not woken) */
		if (ret == 0)
			wake_run((void *)a[0], since, (uintptr_t)syscall, HERE());
		errno = err;
		return ret;
	default:
		return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
}

long ut_sys_futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *to)
{
	if (!RESOLVE(real_syscall, "syscall"))
		return errno = ENOSYS, -1;
	return real_syscall(SYS_futex, uaddr, op, val, to, NULL, 0);
}

int ut_wake_on(void)
{
	return wake_on();
}

int ut_wake_mutex_lock(pthread_mutex_t *m, int (*trylock)(pthread_mutex_t *),
		       int (*lock)(pthread_mutex_t *), uintptr_t ip, uintptr_t parent)
{
	uint64_t since;
	int ret = trylock(m), err;

	if (ret != EBUSY)
		return ret;
	since = ut_clock();
	ret = lock(m);
	err = errno;
	if (ret == 0)
		wake_run(m, since, ip, parent);
	errno = err;
	return ret;
}

/* ---- policy changes: wakeup_rt reads the thread's policy again ---- */

EXPORT int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *p)
{
	int ret;

	if (!RESOLVE(real_setschedparam, "pthread_setschedparam"))
		return ENOSYS;
	ret = real_setschedparam(th, policy, p);
	if (ret == 0)
		policy_changed();
	return ret;
}

EXPORT int pthread_setschedprio(pthread_t th, int prio)
{
	int ret;

	if (!RESOLVE(real_setschedprio, "pthread_setschedprio"))
		return ENOSYS;
	ret = real_setschedprio(th, prio);
	if (ret == 0)
		policy_changed();
	return ret;
}

EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	int ret;

	if (!RESOLVE(real_sched_setscheduler, "sched_setscheduler"))
		return errno = ENOSYS, -1;
	ret = real_sched_setscheduler(pid, policy, p);
	if (ret == 0)
		policy_changed();
	return ret;
}

EXPORT int sched_setparam(pid_t pid, const struct sched_param *p)
{
	int ret;

	if (!RESOLVE(real_sched_setparam, "sched_setparam"))
		return errno = ENOSYS, -1;
	ret = real_sched_setparam(pid, p);
	if (ret == 0)
		policy_changed();
	return ret;
}
