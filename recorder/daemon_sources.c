// SPDX-License-Identifier: MIT
/*
 * daemon_sources.c - the recorder's sources in a tracing directory's session
 * (recorder/source.h: the kernel's sched events, the power events, the
 * hw-branch tracer's branches): the session daemon (cli/mount.c) runs
 * each of ut_sources[] for the session's processes while it is wanted
 * (one of its events recorded: the registry's UT_EVS_RECORD bit, which
 * the tracing directory sets, tracefs/events.c, as the sched_switch
 * tracer's events do; or the tracer of the directory or of an instance
 * naming it: the control page's active_tracers, their needs), and stops
 * it when it is not.
 *
 * A pass (sched_live_sync()) runs every PASS_MS in a thread of its own
 * and, through tfs_session_set_collector(), before each request of the
 * tracing directory is served and after each change: a `cat trace`
 * sees what happened until then, and the events before a change are
 * written with the settings of before.  For each source a pass starts
 * or stops it, follows each process of the control page's procs[] not
 * followed yet (every thread of it; the kernel's event-fork or perf's
 * inherit follow the threads and children made later), drops the
 * events of the runtime's control threads (they are the runtime's,
 * never traced), and writes what the source has into the buffers.  The
 * traced threads do nothing for it.
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

#include "recorder/daemon_sources.h"
#include "recorder/source.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "utils/utils.h"

#define PASS_MS		20	/* while a source runs */
#define IDLE_MS		200	/* while none does (a change starts one at once) */

/* a source of ut_sources[] in the session */
struct live_src {
	void *s;		/* made when first wanted, kept: its buffers stay */
	int failed;		/* none could be made (said) */
	pid_t known[UT_CTL_PROCS];	/* the processes followed since the start */
	int nr_known;
};

struct sched_live {
	struct session *sess;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thr;
	int have_thr;
	int closing, ended;
	struct live_src srcs[SRC_MAX];	/* ut_sources[]'s, in its order */
};

/* what the tracers of the directory and of the instances need (their sources) */
static uint32_t tracers_needs(const struct sched_live *l)
{
	return ut_tracers_needs(__atomic_load_n(&l->sess->ctl->active_tracers, __ATOMIC_ACQUIRE));
}

static int followed(const struct live_src *ls, pid_t pid)
{
	for (int i = 0; i < ls->nr_known; i++)
		if (ls->known[i] == pid)
			return 1;
	return 0;
}

/*
 * source @o: started for the programs' processes while it is wanted
 * (an event of it recorded, a tracer naming it), stopped (what it has
 * until then written) when it is not; each new process followed, the
 * runtime's own threads skipped, what it has written
 */
static void src_pass(struct sched_live *l, const struct src_ops *o, struct live_src *ls)
{
	struct ut_session_ctl *c = l->sess->ctl;

	if (l->closing || ls->failed)
		return;
	if (l->ended || !src_wanted(o, l->sess->events, tracers_needs(l))) {
		if (ls->s && o->stop)
			o->stop(ls->s);
		ls->nr_known = 0;
		return;
	}
	if (!ls->s) {
		struct src_env env = {
			.session = l->sess->dir, .events = l->sess->events, .clock = (int)c->clock,
			.nr_pages = c->nr_pages, .on = &c->tracing_on,
		};

		ls->s = o->open(&env, 0);
		if (!ls->s) {
			ls->failed = 1;
			return;
		}
	}
	/* the processes that left: their pid may come back as another one */
	for (int i = 0; i < ls->nr_known; i++)
		if (kill(ls->known[i], 0) < 0 && errno == ESRCH)
			ls->known[i--] = ls->known[--ls->nr_known];
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		pid_t pid = __atomic_load_n(&c->procs[i].pid, __ATOMIC_ACQUIRE);
		pid_t tid = __atomic_load_n(&c->procs[i].tid, __ATOMIC_ACQUIRE);

		if (pid <= 0)
			continue;
		if (tid > 0 && o->skip)
			o->skip(ls->s, tid);
		if (followed(ls, pid))
			continue;
		/* -1: said; tried again at the next pass (a source that is off stays off) */
		if (o->follow(ls->s, pid) >= 0)
			ls->known[ls->nr_known++] = pid;
	}
	if (o->sync)
		o->sync(ls->s);
	o->poll(ls->s);
}

/* the pass; l->lock held */
static void sync_locked(struct sched_live *l)
{
	for (int i = 0; ut_sources[i]; i++)
		src_pass(l, ut_sources[i], &l->srcs[i]);
}

/* does a source run (then the passes come often)? */
static int srcs_running(const struct sched_live *l)
{
	for (int i = 0; ut_sources[i]; i++) {
		const struct src_ops *o = ut_sources[i];
		const struct live_src *ls = &l->srcs[i];

		if (ls->s && (o->running ? o->running(ls->s) :
			      src_wanted(o, l->sess->events, tracers_needs(l))))
			return 1;
	}
	return 0;
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
		ms = srcs_running(l) ? PASS_MS : IDLE_MS;
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
	for (int i = 0; ut_sources[i]; i++)
		if (l->srcs[i].s && ut_sources[i]->stop)
			ut_sources[i]->stop(l->srcs[i].s);
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
	for (int i = 0; ut_sources[i]; i++)
		if (l->srcs[i].s) {
			ut_sources[i]->close(l->srcs[i].s);
			l->srcs[i].s = NULL;
		}
	pthread_mutex_unlock(&l->lock);
}
