// SPDX-License-Identifier: MIT
/*
 * live_stub.c - tracefs/live.c for the tracefs fuzzer: no buffers,
 * but every view, pump and snapshot request the tracing directory makes
 * is checked for what live.h promises (known tracer, option words,
 * strings that are strings, ordered hide ranges), so that a handler that
 * hands the view layer garbage is found as a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/tracer.h"
#include "tracefs/live.h"
#include "usertrace/tracers.h"

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "live_stub: bad request: %s\n", what);
		abort();
	}
}

/* a string of at most @max bytes (the buffers tracefs/ keeps them in) */
static void check_str(const char *s, size_t max, const char *what)
{
	if (s)
		check(strnlen(s, max) < max, what);
}

static void check_tracer(const char *t)
{
	check(t && ut_tracer_index(t) >= 0, "tracer");
}

static void check_view(const struct live_view *v)
{
	check_tracer(v->tracer);
	check(v->options != NULL, "options");
	for (int i = 0; v->options[i]; i++) {
		check(i < 64, "too many options");
		check_str(v->options[i], 40, "option word");
	}
	check(v->cpu >= -1 && v->cpu < 1024, "cpu");
	check(v->clock >= 0 && v->clock < TRACE_NR_CLOCKS, "clock");
	check_str(v->pids, LIVE_PIDS_MAX, "pids");
	check_str(v->evpids, LIVE_PIDS_MAX, "evpids");
	check_str(v->bufdir, 4096, "bufdir");
	check_str(v->ffilter, 4096, "ffilter");
	check_str(v->fnotrace, 4096, "fnotrace");
	check(v->nr_hide >= 0 && v->nr_hide <= 32 && (!v->nr_hide || v->hide), "hide");
	for (int i = 0; i < v->nr_hide; i++)
		check(v->hide[2 * i] <= v->hide[2 * i + 1], "hide range");
}

uint64_t live_now(const char *session_dir)
{
	static uint64_t now = 1000;

	check_str(session_dir, 4096, "session dir");
	return __atomic_add_fetch(&now, 1, __ATOMIC_RELAXED);
}

uint64_t live_pump_now(struct live_pump *p)
{
	check(p != NULL, "pump now");
	return 1000;
}

uint64_t live_ns(const char *session_dir, uint64_t raw)
{
	check_str(session_dir, 4096, "session dir");
	return raw;
}

int live_trace(const char *session_dir, const struct live_view *v, char **out, size_t *len)
{
	check_str(session_dir, 4096, "session dir");
	check_view(v);
	if (asprintf(out, "# tracer: %s\n#\n", v->tracer) < 0)
		return -ENOMEM;
	*len = strlen(*out);
	return 0;
}

struct live_reader {
	int reads;
};

struct live_reader *live_pipe_open(const char *session_dir, const struct live_view *v)
{
	check_str(session_dir, 4096, "session dir");
	check_view(v);
	return calloc(1, sizeof(struct live_reader));
}

int live_pipe_read(struct live_reader *r, char **out, size_t *len)
{
	/* one line at the first read, then nothing */
	*out = r->reads++ ? NULL : strdup("line\n");
	*len = *out ? 5 : 0;
	return 0;
}

void live_pipe_close(struct live_reader *r)
{
	free(r);
}

void live_pipe_set_clock(struct live_reader *r, int clock)
{
	check(r && clock >= 0 && clock < TRACE_NR_CLOCKS, "pipe clock");
}

void live_pipe_set_hide(struct live_reader *r, const uint64_t *hide, int nr)
{
	check(r && nr >= 0 && nr <= 32 && (!nr || hide), "pipe hide");
}

void live_pipe_set_funcs(struct live_reader *r, const char *ffilter, const char *fnotrace)
{
	check(r != NULL, "pipe");
	check_str(ffilter, 4096, "pipe ffilter");
	check_str(fnotrace, 4096, "pipe fnotrace");
}

int live_stats(const char *session_dir, const char *bufdir, int cpu, struct live_stats *st)
{
	check_str(session_dir, 4096, "session dir");
	check_str(bufdir, 4096, "stats bufdir");
	check(cpu >= -1 && cpu < 1024, "stats cpu");
	memset(st, 0, sizeof(*st));
	st->entries = 7;
	return 0;
}

void live_pipe_set_view(struct live_reader *r, const struct live_view *v)
{
	check(r != NULL, "pipe");
	check_view(v);
}

int live_stats_view(const char *session_dir, const struct live_view *v, struct live_stats *st)
{
	check_str(session_dir, 4096, "session dir");
	check_view(v);
	memset(st, 0, sizeof(*st));
	st->entries = 7;
	return 0;
}

/* the markers' ring: counted, not kept */
struct live_marker {
	uint32_t nr_pages;
	uint64_t written;
};

struct live_marker *live_marker_open(const char *session_dir, const char *dir, uint32_t nr_pages)
{
	struct live_marker *m;

	check_str(session_dir, 4096, "session dir");
	check_str(dir, 4096, "marker dir");
	check(nr_pages >= 2, "marker ring pages");
	m = calloc(1, sizeof(*m));
	if (m)
		m->nr_pages = nr_pages;
	return m;
}

int live_marker_write(struct live_marker *m, const void *text, size_t len)
{
	check(m != NULL, "marker ring");
	check(text != NULL || !len, "marker text");
	m->written += len > LIVE_MARKER_MAX ? LIVE_MARKER_MAX : len;
	return 0;
}

void live_marker_resize(struct live_marker *m, uint32_t nr_pages)
{
	check(m != NULL, "marker ring");
	check(nr_pages >= 2, "marker ring pages");
	m->nr_pages = nr_pages;
}

/* the time of the last marker (a snapshot trigger's end): any */
uint64_t live_marker_last_ts(const struct live_marker *m)
{
	check(m != NULL, "marker ring");
	return 1;
}

void live_marker_close(struct live_marker *m)
{
	free(m);
}

struct live_pump {
	uint32_t nr_pages;
};

struct live_pump *live_pump_open(const char *session_dir, const char *dir, uint32_t nr_pages,
				 uint64_t since)
{
	struct live_pump *p = calloc(1, sizeof(*p));

	(void)since;
	check_str(session_dir, 4096, "session dir");
	check_str(dir, 4096, "pump dir");
	check(dir && nr_pages > 0, "pump size");
	if (p)
		p->nr_pages = nr_pages;
	return p;
}

int live_pump_run(struct live_pump *p, const char *tracer, int on, const char *pids,
		  const char *evpids,
		  const char *ffilter, const char *fnotrace, const uint64_t *ev_on,
		  const struct ut_evfilter *const *ev_filter, const struct live_timeline *tl)
{
	(void)ev_on;
	(void)ev_filter;
	check(p != NULL, "pump");
	/* an instance's pump: its trigger changes, in time order */
	check(tl != NULL, "pump timeline");
	check(tl->nr >= 0 && tl->nr <= 2 * UT_EVREG_DIRLOG && (tl->nr == 0 || tl->fires), "pump fires");
	for (int i = 1; i < tl->nr; i++)
		check(tl->fires[i - 1].ts <= tl->fires[i].ts, "pump fires in time order");
	check_tracer(tracer);
	check(on == 0 || on == 1, "pump on");
	check_str(pids, LIVE_PIDS_MAX, "pump pids");
	check_str(evpids, LIVE_PIDS_MAX, "pump evpids");
	check_str(ffilter, 4096, "pump ffilter");
	check_str(fnotrace, 4096, "pump fnotrace");
	return 0;
}

void live_pump_resize(struct live_pump *p, uint32_t nr_pages)
{
	check(p && nr_pages > 0, "pump resize");
	p->nr_pages = nr_pages;
}

/* an instance's tracing_cpumask: LIVE_CPUMASK_WORDS words, or NULL (all) */
void live_pump_set_cpumask(struct live_pump *p, const uint32_t *mask)
{
	(void)mask;
	check(p != NULL, "pump");
}

int live_pump_buffers(struct live_pump *p)
{
	check(p != NULL, "pump");
	return 2;
}

void live_pump_close(struct live_pump *p, int remove)
{
	(void)remove;
	free(p);
}

int live_snapshot(const char *session_dir, const char *srcdir, const char *dst, uint64_t since)
{
	(void)since;
	check_str(session_dir, 4096, "session dir");
	check_str(srcdir, 4096, "snapshot src");
	check(dst && strnlen(dst, 4096) < 4096, "snapshot dst");
	return 0;
}

void live_snapshot_free(const char *dst)
{
	check(dst && strnlen(dst, 4096) < 4096, "snapshot free");
}
