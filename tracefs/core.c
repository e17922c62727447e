// SPDX-License-Identifier: MIT
/*
 * core.c - a session of the tracing directory: open and close, the
 * control page and the event registry mapped, the instances' pump thread,
 * and the clock units of tracing_thresh.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "usertrace/tracers.h"
#include "tracefs/tfs_int.h"

static void tsc_rate(struct tfs_session *s)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t t0, m0, t1, m1;

	if (s->ticks_per_ns > 0)
		return;
	m0 = tfs_mono_ns();
	t0 = __rdtsc();
	nanosleep(&ts, NULL);
	m1 = tfs_mono_ns();
	t1 = __rdtsc();
	if (m1 > m0 && t1 > t0)
		s->ticks_per_ns = (double)(t1 - t0) / (double)(m1 - m0);
	else
		s->ticks_per_ns = 1;
#else
	s->ticks_per_ns = 1;
#endif
}

uint64_t tfs_us_to_ticks(struct tfs_session *s, unsigned long long us)
{
	uint64_t t;

	if (!us)
		return 0;
	if (s->ctl->clock != UT_CLOCK_TSC)
		return (uint64_t)us * 1000;
	tsc_rate(s);
	t = (uint64_t)((long double)us * 1000 * s->ticks_per_ns);
	return t ? t : 1;
}

uint64_t tfs_ticks_to_ns(struct tfs_session *s, uint64_t ticks)
{
	if (s->ctl->clock != UT_CLOCK_TSC)
		return ticks;
	tsc_rate(s);
	return (uint64_t)((long double)ticks / s->ticks_per_ns);
}

unsigned long long tfs_ticks_to_us(struct tfs_session *s, uint64_t ticks)
{
	return tfs_ticks_to_ns(s, ticks) / 1000;
}

/*
 * A snapshot trigger fired (the runtime counts the requests of the top
 * and of each instance in the registry): the directory's snapshot, taken
 * here within TFS_PUMP_MS of the event, shows what was recorded until
 * the trigger's time.  And an instance's traceon or
 * traceoff trigger fired (its pump, just run, took its new state): the
 * programs record while some directory needs it.  Context: s->lock held.
 */
/* the time of the last snapshot trigger of @d, in live_now() units */
static uint64_t trig_time(struct tfs_session *s, struct ut_evreg_dir *d)
{
	uint64_t ts = __atomic_load_n(&d->snapshot_ts, __ATOMIC_RELAXED);

	return ts ? live_ns(s->dir, ts) : 0;
}

static void trig_requests(struct tfs_session *s)
{
	uint64_t req;

	if (!s->evreg)
		return;
	req = __atomic_load_n(&s->evreg->snapshot_req, __ATOMIC_ACQUIRE);
	if (req != s->snap_req_seen) {
		s->snap_req_seen = req;
		if (tfs_snap_take(s, &s->top, trig_time(s, &s->evreg->dirs[0])))
			tfs_err(s, "Cannot take the snapshot", "snapshot");
	}
	for (struct tfs_inst *in = s->insts; in; in = in->next) {
		if (!in->rd)
			continue;
		req = __atomic_load_n(&in->rd->snapshot_req, __ATOMIC_ACQUIRE);
		if (req == in->snap_req_seen)
			continue;
		in->snap_req_seen = req;
		if (tfs_snap_take(s, in, trig_time(s, in->rd))) {
			struct tfs_inst *was = s->err_inst;

			s->err_inst = in;	/* the instance's error_log */
			tfs_err(s, "Cannot take the snapshot", "snapshot");
			s->err_inst = was;
		}
	}
	tfs_inst_trig_sync(s);
}

/*
 * The instances take what the programs record every TFS_PUMP_MS, so that
 * the programs' buffers (overwrite mode) do not run over it first.
 * Reading an instance's files pumps too.
 */
/* has an instance's log of trigger changes filled a quarter since its pump last read it? */
static int inst_log_filling(const struct tfs_inst *in)
{
	return in->rd && __atomic_load_n(&in->rd->head, __ATOMIC_ACQUIRE) - in->log_done >
			 UT_EVREG_DIRLOG / 4;
}

static void *pump_main(void *arg)
{
	struct tfs_session *s = arg;
	unsigned tick = 0;

	pthread_mutex_lock(&s->lock);
	while (!s->closing) {
		struct timespec ts;

		/*
		 * Every TFS_PUMP_MS, and in between (every tenth of it) for an
		 * instance whose triggers switch fast, before its log of
		 * changes runs over (evreg.h).  The -fork options first: an
		 * instance takes a new child's first events.
		 */
		if (tick % 10 == 0)
			tfs_pids_follow(s);
		for (struct tfs_inst *in = s->insts; in; in = in->next)
			if (tick % 10 == 0 || inst_log_filling(in))
				tfs_inst_pump(in);
		if (tick % 10 == 0)
			trig_requests(s);
		tick++;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TFS_PUMP_MS * 100000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->pump_cond, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/*
 * The session's event registry, SESSION/events, shared with the programs
 * (they register their events, tracefs sets the enable bits).  A session
 * without one (an older recorder) has no events: *@reg stays NULL.
 * 0, or -1 after a message.
 */
static int evreg_map(const char *session_dir, struct ut_evreg **reg)
{
	char path[PATH_MAX];
	struct stat st;
	void *m;
	int fd;

	*reg = NULL;
	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "usertrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct ut_evreg)) {
		fprintf(stderr, "usertrace: %s: not an event registry\n", path);
		close(fd);
		return -1;
	}
	m = mmap(NULL, sizeof(struct ut_evreg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "usertrace: %s: mmap: %s\n", path, strerror(errno));
		return -1;
	}
	if (memcmp(((struct ut_evreg *)m)->magic, UT_EVREG_MAGIC, 8) ||
	    ((struct ut_evreg *)m)->version != UT_EVREG_VERSION) {
		fprintf(stderr, "usertrace: %s: not an event registry\n", path);
		munmap(m, sizeof(struct ut_evreg));
		return -1;
	}
	*reg = m;
	return 0;
}

struct tfs_session *tfs_session_open(const char *session_dir)
{
	struct tfs_session *s = calloc(1, sizeof(*s));
	char path[PATH_MAX];
	long ncpu;
	void *m;
	int fd;

	if (!s) {
		fprintf(stderr, "usertrace: out of memory\n");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/control", session_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "usertrace: %s: %s\n", path, strerror(errno));
		free(s);
		return NULL;
	}
	m = mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "usertrace: %s: mmap: %s\n", path, strerror(errno));
		free(s);
		return NULL;
	}
	s->ctl = m;
	if (memcmp(s->ctl->magic, UT_CTL_MAGIC, sizeof(s->ctl->magic))) {
		fprintf(stderr, "usertrace: %s: not a usertrace control file\n", path);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	s->evd = calloc(UT_EVREG_SLOTS, sizeof(*s->evd));
	if (!s->evd || evreg_map(session_dir, &s->evreg) < 0) {
		if (!s->evd)
			fprintf(stderr, "usertrace: out of memory\n");
		free(s->evd);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	s->dir = strdup(session_dir);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->pump_cond, NULL);
	tfs_inst_init(&s->top);
	/* the recorder's tracer; one that refuses to start leaves nop */
	tracer_switch(&s->top.tr, tracer_find(ut_tracers_first(s->ctl->active_tracers)));
	s->top.on = s->ctl->tracing_on != 0;
	s->on_stored = s->ctl->tracing_on;
	memcpy(s->top.filter, s->ctl->filter, UT_LIST_MAX);
	memcpy(s->top.notrace, s->ctl->notrace, UT_LIST_MAX);
	s->top.filter[UT_LIST_MAX - 1] = s->top.notrace[UT_LIST_MAX - 1] = '\0';
	/* the events enabled before (by a former daemon of the session): the top's */
	tfs_ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		if (__atomic_load_n(&s->evreg->slots[i].state, __ATOMIC_ACQUIRE) & UT_EVS_RECORD)
			tfs_ev_bit_set(s->top.ev_on, i, 1);
	s->top.marker = live_marker_open(s->dir, s->dir, s->ctl->nr_pages);
	if (!s->top.marker) {
		fprintf(stderr, "usertrace: %s: trace_marker: %s\n", s->dir, strerror(errno));
		for (uint32_t i = 0; i < s->nr_evd; i++)
			free(s->evd[i]);
		free(s->evd);
		if (s->evreg)
			munmap(s->evreg, sizeof(*s->evreg));
		free(s->dir);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	snprintf(s->maxdir, sizeof(s->maxdir), "%s/" UT_MAX_DIR, s->dir);
	s->have_pump_thr = pthread_create(&s->pump_thr, NULL, pump_main, s) == 0;
	tfs_cpu_pages_init(&s->top, s->ctl->nr_pages);
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	s->ncpu = ncpu < 1 ? 1 : ncpu > TFS_MAX_CPUS ? TFS_MAX_CPUS : (int)ncpu;
	for (int i = 0; i < s->ncpu; i++)
		s->cpumask[i / 32] |= 1u << (i % 32);
	if (s->ctl->tracing_thresh) {
		if (s->ctl->clock == UT_CLOCK_TSC) {
			tsc_rate(s);
			s->thresh_us = (unsigned long long)((double)s->ctl->tracing_thresh /
							    s->ticks_per_ns / 1000 + 0.5);
		} else {
			s->thresh_us = s->ctl->tracing_thresh / 1000;
		}
	}
	return s;
}

void tfs_session_stop_pump(struct tfs_session *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = 1;
	pthread_cond_broadcast(&s->pump_cond);
	pthread_mutex_unlock(&s->lock);
	if (s->have_pump_thr)
		pthread_join(s->pump_thr, NULL);
	s->have_pump_thr = 0;
}

void tfs_session_close(struct tfs_session *s)
{
	if (!s)
		return;
	tfs_session_stop_pump(s);
	while (s->insts) {
		struct tfs_inst *in = s->insts;

		s->insts = in->next;
		tfs_inst_free(in, 1);
		free(in);
	}
	tfs_inst_free(&s->top, 0);
	pthread_cond_destroy(&s->pump_cond);
	tfs_evfilt_free_all(s);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		free(s->evd[i]);
	free(s->evd);
	if (s->evreg)
		munmap(s->evreg, sizeof(*s->evreg));
	munmap(s->ctl, UT_CTL_SIZE);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->dir);
	free(s);
}

void tfs_session_set_collector(struct tfs_session *s, void (*fn)(void *arg), void *arg)
{
	s->collect = fn;
	s->collect_arg = arg;
}

void tfs_session_ended(struct tfs_session *s)
{
	pthread_mutex_lock(&s->lock);
	s->ended = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}
