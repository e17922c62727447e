// SPDX-License-Identifier: MIT
/*
 * schedlive.c - the sched events in a tracing directory's session: the
 * session daemon (cmds/mount.c) runs the source of cmds/schedsrc.c for
 * the session's processes while some directory records a sched event
 * (the sched_switch tracer's, or one enabled: the registry's
 * UT_EVS_RECORD bit, which the tracing directory sets, lib/tracefs/
 * events.c), and stops it when none does.
 *
 * A pass (sched_live_sync()) runs every PASS_MS in a thread of its own
 * and, through tfs_session_set_collector(), before each request of the
 * tracing directory is served and after each change: a `cat trace`
 * sees what happened until then, and the events before a change are
 * written with the settings of before.  A pass starts or stops the
 * source as the registry says, follows each process of the control
 * page's procs[] not followed yet (every thread of it; the kernel's
 * event-fork or perf's inherit follow the threads and children made
 * later), drops the events of the runtime's control threads (they are
 * the runtime's, never traced), and writes what the source has into
 * the buffers.  The traced threads do nothing for it.
 *
 * The same passes run the power events' source (cmds/powersrc.c) while
 * a power event is recorded, and the hw-branch tracer's
 * (cmds/hwbsrc.c) while the tracer of the directory or of an instance
 * is hw-branch (the control page's active_tracers).
 *
 * Locking: one mutex, the pass's.  A pass never takes the tracing
 * directory's lock (it may be called with it held).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmds/hwbsrc.h"
#include "cmds/powersrc.h"
#include "cmds/schedlive.h"
#include "cmds/schedsrc.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "utils/utils.h"

#define PASS_MS		20	/* while the source runs */
#define IDLE_MS		200	/* while it does not (a change starts it at once) */

struct sched_live {
	struct session *sess;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thr;
	int have_thr;
	int closing, ended;
	struct sched_src *src;	/* made at the first start, kept: its buffers stay */
	int failed;		/* UT_SCHED_SOURCE_ENV names no source */
	pid_t known[UT_CTL_PROCS];	/* the processes followed since the start */
	int nr_known;
	/* the power events' source (cmds/powersrc.c), run by the same passes */
	struct power_src *power;	/* made when first wanted, kept: its buffer stays */
	int power_failed;
	/* the hw-branch tracer's source (cmds/hwbsrc.c), while a directory's tracer is it */
	struct hwb_src *hwb;		/* made when first wanted, kept: its buffers stay */
	int hwb_failed;
};

/* is hw-branch the tracer of the directory or of an instance? */
static int hwb_wanted(const struct sched_live *l)
{
	int i = ut_tracer_index("hw-branch");

	return i >= 0 && (__atomic_load_n(&l->sess->ctl->active_tracers, __ATOMIC_ACQUIRE) &
			  (1u << i));
}

/*
 * the hw-branch tracer: started for the programs' processes when it is
 * set, stopped (the branches until then written) when it is not
 */
static void hwb_pass(struct sched_live *l)
{
	struct ut_session_ctl *c = l->sess->ctl;

	if (l->closing || l->hwb_failed)
		return;
	if (l->ended || !hwb_wanted(l)) {
		hwb_src_stop(l->hwb);
		return;
	}
	if (!l->hwb) {
		l->hwb = hwb_src_live(l->sess->dir, (int)c->clock, c->nr_pages, &c->tracing_on);
		if (!l->hwb) {
			l->hwb_failed = 1;
			return;
		}
	}
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		pid_t pid = __atomic_load_n(&c->procs[i].pid, __ATOMIC_ACQUIRE);

		if (pid > 0)
			hwb_src_follow(l->hwb, pid);
	}
	hwb_src_poll(l->hwb);
}

/* the power events: the programs' processes followed, what the source has written */
static void power_pass(struct sched_live *l)
{
	struct ut_session_ctl *c = l->sess->ctl;

	if (l->closing || l->ended || l->power_failed || !power_src_wanted(l->sess->events))
		return;
	if (!l->power) {
		l->power = power_src_live(l->sess->dir, l->sess->events, (int)c->clock, c->nr_pages,
					  &c->tracing_on);
		if (!l->power) {
			l->power_failed = 1;
			return;
		}
	}
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		pid_t pid = __atomic_load_n(&c->procs[i].pid, __ATOMIC_ACQUIRE);

		if (pid > 0)
			power_src_follow(l->power, pid);
	}
	power_src_poll(l->power);
}

static int followed(const struct sched_live *l, pid_t pid)
{
	for (int i = 0; i < l->nr_known; i++)
		if (l->known[i] == pid)
			return 1;
	return 0;
}

/* the pass; l->lock held */
static void sync_locked(struct sched_live *l)
{
	struct ut_session_ctl *c = l->sess->ctl;
	int want;

	power_pass(l);
	hwb_pass(l);
	if (l->closing || l->failed)
		return;
	want = !l->ended && sched_src_wanted(l->sess->events);
	if (!want) {
		if (sched_src_running(l->src))
			sched_src_stop(l->src);
		l->nr_known = 0;
		return;
	}
	if (!l->src) {
		l->src = sched_src_live(l->sess->dir, l->sess->events, (int)c->clock, c->nr_pages,
					&c->tracing_on);
		if (!l->src) {
			l->failed = 1;
			return;
		}
	}
	/* the processes that left: their pid may come back as another one */
	for (int i = 0; i < l->nr_known; i++)
		if (kill(l->known[i], 0) < 0 && errno == ESRCH)
			l->known[i--] = l->known[--l->nr_known];
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		pid_t pid = __atomic_load_n(&c->procs[i].pid, __ATOMIC_ACQUIRE);
		pid_t tid = __atomic_load_n(&c->procs[i].tid, __ATOMIC_ACQUIRE);

		if (pid <= 0)
			continue;
		if (tid > 0)
			sched_src_skip(l->src, tid);
		if (followed(l, pid))
			continue;
		if (sched_src_follow(l->src, pid) < 0)
			return;		/* said; the source stays off */
		l->known[l->nr_known++] = pid;
	}
	sched_src_sync_events(l->src);
	sched_src_poll(l->src);
}

void sched_live_sync(void *arg)
{
	struct sched_live *l = arg;

	pthread_mutex_lock(&l->lock);
	sync_locked(l);
	pthread_mutex_unlock(&l->lock);
}

static void *pass_main(void *arg)
{
	struct sched_live *l = arg;

	pthread_mutex_lock(&l->lock);
	while (!l->closing) {
		struct timespec ts;
		long ms;

		sync_locked(l);
		ms = sched_src_running(l->src) || hwb_src_running(l->hwb) ||
		     (l->power && power_src_wanted(l->sess->events)) ? PASS_MS : IDLE_MS;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += ms * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&l->cond, &l->lock, &ts);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

struct sched_live *sched_live_start(struct session *sess)
{
	struct sched_live *l = xcalloc(1, sizeof(*l));

	l->sess = sess;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	l->have_thr = pthread_create(&l->thr, NULL, pass_main, l) == 0;
	return l;
}

void sched_live_ended(struct sched_live *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	/* the last events of the programs, then the kernel side goes */
	if (l->src && sched_src_running(l->src))
		sched_src_stop(l->src);
	hwb_src_stop(l->hwb);
	l->ended = 1;
	pthread_mutex_unlock(&l->lock);
}

void sched_live_stop(struct sched_live *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->closing = 1;
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
	if (l->have_thr)
		pthread_join(l->thr, NULL);
	/* a request still served finds closing set: no pass after this */
	pthread_mutex_lock(&l->lock);
	sched_src_close(l->src);
	l->src = NULL;
	power_src_close(l->power);
	l->power = NULL;
	hwb_src_close(l->hwb);
	l->hwb = NULL;
	pthread_mutex_unlock(&l->lock);
}
