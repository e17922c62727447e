// SPDX-License-Identifier: MIT
/*
 * live.c - the text of `trace`, `trace_pipe` and the per-CPU stats of a
 * live session, made by the same pipeline as `usertrace replay`.
 *
 * Each buffer buf.<pid>.<tid>.<image> of the directory is read with
 * rb_copy_page() (never written) as a page source of reader/data.c's
 * decoder; the view's stages (live_stage.c) hide what the view does not
 * show, and the merge of the buffers by time is printed by output/
 * (trace_iter_init(), tracer_set_option(), trace_print_all()) into an
 * open_memstream(): exactly what replay prints.
 *
 * `trace` takes a copy of each buffer's pages first, counts what the view
 * shows of it (the header's entries-in-buffer), then prints it; trace_pipe
 * reads each buffer from where the reader stopped, the decoder's state
 * (depth, open calls, cpu) kept with the buffer between reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/evtab.h"
#include "output/tracer.h"
#include "tracefs/live_int.h"
#include "usertrace/tracers.h"
#include "utils/utils.h"

/*
 * Print the merge @m of @d's threads with the view's tracer and options
 * into a malloc'ed text (@m is freed).  @header 0: without the header
 * lines (trace_pipe).
 */
static int print_merge(struct live_cache *c, const struct live_view *v, struct ut_data *d,
		       struct ut_merge *m, int header, uint64_t *counter, char **out, size_t *len)
{
	const struct tracer *t = tracer_find(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
	struct trace_iter iter;
	FILE *f;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (!t || !(f = open_memstream(out, len))) {
		ut_merge_free(m);
		return t ? -ENOMEM : -EINVAL;
	}
	snprintf(d->dir, sizeof(d->dir), "%s", c->session);
	snprintf(d->tracer, sizeof(d->tracer), "%s", t->name);
	trace_iter_init(&iter, d, t, f);
	iter.lat = v->lat;
	/* the programs' events, as the registry describes them (trace_print_all frees them) */
	iter.events = live_cache_events(c);
	iter.events_loaded = iter.events != NULL;
	for (const char *const *o = v->options; o && *o; o++)
		if (tracer_set_option(&iter, *o) < 0)
			ret = -EINVAL;
	if (trace_iter_set_clock(&iter, v->clock) < 0)
		ret = -EINVAL;
	iter.counter = counter ? *counter : 0;
	iter.merge = m;
	if (!ret && trace_print_all(&iter) < 0)
		ret = -EIO;
	if (iter.merge) {
		/* not printed: the streams are read all the same (trace_pipe consumes) */
		struct ut_event ev;

		while (ut_merge_next(iter.merge, &ev) > 0)
			;
		ut_merge_free(iter.merge);
		ut_evtab_free(iter.events);
	}
	if (counter)
		*counter = iter.counter;
	if (fclose(f))
		ret = ret ? ret : -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
		*len = 0;
		return ret;
	}
	if (!header) {
		/* the header lines all start with '#'; no event line does */
		size_t skip = 0;

		while (skip < *len && (*out)[skip] == '#') {
			char *nl = memchr(*out + skip, '\n', *len - skip);

			skip = nl ? (size_t)(nl - *out) + 1 : *len;
		}
		memmove(*out, *out + skip, *len - skip + 1);
		*len -= skip;
	}
	return 0;
}

static const struct live_buf *sort_bufs;

static int buf_cmp(const void *a, const void *b)
{
	const struct ut_thread_info *x = &sort_bufs[*(const int *)a].ti;
	const struct ut_thread_info *y = &sort_bufs[*(const int *)b].ti;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->image < y->image ? -1 : x->image > y->image;
}

/* the buffers in thread order (pid, tid, image: ties print in this order).  live_lock held. */
static int *buf_order(const struct live_buf *bufs, int nr)
{
	int *o = xcalloc((size_t)nr + 1, sizeof(*o));

	for (int i = 0; i < nr; i++)
		o[i] = i;
	sort_bufs = bufs;
	qsort(o, (size_t)nr, sizeof(*o), buf_cmp);
	return o;
}

struct live_reader;
static uint64_t reader_consumed(const struct live_reader *r, const char *name);

/* the view's clear point for buffer @name: later if trace_pipe consumed more */
static uint64_t since_consumed(const struct live_stage *f, const struct live_view *v,
			       const char *name)
{
	uint64_t raw = v->consumed ? reader_consumed(v->consumed, name) : 0, ns;

	if (!raw)
		return v->since;
	ns = ut_data_ns(f->cal, raw);
	return ns > v->since ? ns : v->since;
}

/* the events overwritten before the copy @s: the view would show them if its first page is shown */
static uint64_t pages_overrun(const struct live_pages *s, const struct live_stage *f)
{
	const struct rb_page *p = (const void *)s->pages;

	if (!s->nr || !live_stage_time(f, ut_data_ns(f->cal, p->ts)) || !live_stage_cut(f, p->cpu, p->ts) ||
	    (f->cpu >= 0 && (uint32_t)f->cpu != p->cpu))
		return 0;
	return s->overrun;
}

/* what the view @f shows of the copy @s: counted in @f */
static void pages_count(struct live_cache *c, struct live_pages *s, struct live_buf *b,
		       struct live_stage *f)
{
	struct ut_page_src src;
	struct ut_cursor *cur;
	struct ut_event ev;

	live_pages_src(s, &src);
	cur = ut_cursor_new(&c->cal, &b->ti, &src, live_stages, f, NULL);
	while (ut_cursor_next(cur, &ev) > 0)
		;
	ut_cursor_free(cur);
	if (f->fsel)
		f->fsel->known = 0;	/* the print pass starts anew */
}

int live_trace(const char *session_dir, const struct live_view *v, char **out, size_t *len)
{
	struct live_buf *bufs = NULL;
	struct live_stage f, *st = NULL;
	struct live_pages *snaps = NULL;
	struct live_cache *c;
	struct ut_merge *m;
	struct ut_data d;
	const char *dir = v->bufdir ? v->bufdir : session_dir;
	int nr = 0, ret = 0, *order = NULL;

	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &ret);
	if (!c)
		goto out;
	live_stage_init(&f, c, v);
	nr = live_scan_bufs(dir, &bufs, 0, 1);
	live_cuts_set(&f, bufs, nr, v);
	order = buf_order(bufs, nr);
	st = xcalloc((size_t)nr + 1, sizeof(*st));
	snaps = xcalloc((size_t)nr + 1, sizeof(*snaps));
	d = c->cal;
	d.threads = xcalloc((size_t)nr + 1, sizeof(*d.threads));
	d.nr_threads = 0;
	for (int k = 0; k < nr; k++) {
		int i = order[k];
		struct live_buf *b = &bufs[i];
		struct ut_thread_info *ti;

		if (!live_buf_shown(v, b))
			continue;
		st[i] = f;
		live_stage_buffer(&st[i], b);
		st[i].since = since_consumed(&f, v, b->name);
		live_pages_copy(&snaps[i], b);
		pages_count(c, &snaps[i], b, &st[i]);
		ti = &d.threads[d.nr_threads++];
		*ti = b->ti;
		ti->entries = st[i].entries;
		ti->overrun = pages_overrun(&snaps[i], &st[i]);
		ti->written = ti->entries + ti->overrun;
	}
	m = ut_merge_new_src(&d, d.nr_threads);
	for (int k = 0, t = 0; k < nr; k++) {
		int i = order[k];
		struct ut_page_src src;

		if (!live_buf_shown(v, &bufs[i]))
			continue;
		live_pages_src(&snaps[i], &src);
		ut_merge_add(m, &d.threads[t++], &src, live_stages, &st[i], NULL);
	}
	ret = print_merge(c, v, &d, m, 1, NULL, out, len);
	free(d.threads);
	live_cuts_free(&f);
out:
	pthread_mutex_unlock(&live_lock);
	for (int i = 0; i < nr; i++) {
		if (snaps)
			live_pages_free(&snaps[i]);
		live_buf_free(&bufs[i]);
	}
	free(snaps);
	free(st);
	free(order);
	free(bufs);
	return ret;
}

int live_stats(const char *session_dir, const char *bufdir, int cpu, struct live_stats *st)
{
	struct live_view v = { .cpu = cpu, .bufdir = bufdir };

	return live_stats_view(session_dir, &v, st);
}

int live_stats_view(const char *session_dir, const struct live_view *v, struct live_stats *st)
{
	const char *bufdir = v->bufdir;
	struct live_buf *bufs = NULL;
	struct live_cache *c;
	struct live_stage f;
	uint64_t oldest = UINT64_MAX;
	int nr, ret = 0;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &ret);
	if (!c)
		goto out;
	live_stage_init(&f, c, NULL);
	f.cpu = v->cpu;
	f.since = v->since;
	nr = live_scan_bufs(bufdir ? bufdir : session_dir, &bufs, 0, 1);
	live_cuts_set(&f, bufs, nr, v);
	for (int i = 0; i < nr; i++) {
		struct live_stage s = f;
		struct live_pages snap;

		live_stage_buffer(&s, &bufs[i]);
		live_pages_copy(&snap, &bufs[i]);
		pages_count(c, &snap, &bufs[i], &s);
		st->entries += s.entries;
		st->bytes += s.bytes;
		st->overrun += pages_overrun(&snap, &s);
		if (s.have_first && s.first_ts < oldest)
			oldest = s.first_ts;
		live_pages_free(&snap);
		live_buf_free(&bufs[i]);
	}
	live_cuts_free(&f);
	free(bufs);
	st->written = st->entries + st->overrun;
	st->now_ts = (double)live_cache_now(c) / 1e9;
	/* as the kernel: 0 with no event */
	st->oldest_event_ts = oldest == UINT64_MAX ? 0 : (double)oldest / 1e9;
out:
	pthread_mutex_unlock(&live_lock);
	return ret;
}

/* ---- trace_pipe ---- */

struct live_reader {
	char session[PATH_MAX];
	char bufdir[PATH_MAX];
	char *ffilter, *fnotrace;
	uint64_t *hide;
	char *tracer;
	char **options;
	uint32_t *cpu_pages;
	uint64_t *cpu_since;
	struct live_view v;
	struct live_buf *bufs;
	int nr;
	uint64_t counter;		/* the counter clock, across reads */
	uint64_t ev_on[LIVE_EV_WORDS];	/* v.ev_on's copy */
};

void live_pipe_set_hide(struct live_reader *r, const uint64_t *hide, int nr)
{
	free(r->hide);
	r->hide = NULL;
	r->v.nr_hide = hide ? nr : 0;
	if (r->v.nr_hide > 0) {
		r->hide = xcalloc((size_t)nr * 2, sizeof(*r->hide));
		memcpy(r->hide, hide, (size_t)nr * 2 * sizeof(*r->hide));
	}
	r->v.hide = r->hide;
}

void live_pipe_set_funcs(struct live_reader *r, const char *ffilter, const char *fnotrace)
{
	free(r->ffilter);
	free(r->fnotrace);
	r->ffilter = ffilter ? xstrdup(ffilter) : NULL;
	r->fnotrace = fnotrace ? xstrdup(fnotrace) : NULL;
	r->v.ffilter = r->ffilter;
	r->v.fnotrace = r->fnotrace;
}

/* the programs' events shown (live_view.ev_on), from the next read on */
static void pipe_set_events(struct live_reader *r, const uint64_t *ev_on)
{
	if (ev_on)
		memcpy(r->ev_on, ev_on, sizeof(r->ev_on));
	r->v.ev_on = ev_on ? r->ev_on : NULL;
}

void live_pipe_set_clock(struct live_reader *r, int clock)
{
	if (r->v.clock != clock)
		r->counter = 0;
	r->v.clock = clock;
}

struct live_reader *live_pipe_open(const char *session_dir, const struct live_view *v)
{
	struct live_reader *r;
	struct live_cache *c;
	int n = 0, err;

	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &err);
	pthread_mutex_unlock(&live_lock);
	if (!c || !tracer_find(v->tracer ? v->tracer : UT_TRACER_DEFAULT)) {
		errno = c ? EINVAL : -err;
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	snprintf(r->session, sizeof(r->session), "%s", session_dir);
	r->v = *v;
	snprintf(r->bufdir, sizeof(r->bufdir), "%s", v->bufdir ? v->bufdir : session_dir);
	r->v.bufdir = r->bufdir;
	r->v.hide = NULL;
	r->v.nr_hide = 0;
	live_pipe_set_hide(r, v->hide, v->nr_hide);
	r->v.ffilter = r->v.fnotrace = NULL;
	live_pipe_set_funcs(r, v->ffilter, v->fnotrace);
	pipe_set_events(r, v->ev_on);
	r->v.pids = v->pids ? xstrdup(v->pids) : NULL;
	r->v.evpids = v->evpids ? xstrdup(v->evpids) : NULL;
	r->v.consumed = NULL;
	r->v.ev_filter = NULL;		/* given by live_pipe_set_view() for the next read */
	r->v.cpu_pages = NULL;
	r->v.nr_cpu_pages = 0;
	r->v.cpu_since = NULL;
	r->v.nr_cpu_since = 0;
	r->tracer = xstrdup(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
	r->v.tracer = r->tracer;
	while (v->options && v->options[n])
		n++;
	r->options = xcalloc((size_t)n + 1, sizeof(*r->options));
	for (int i = 0; i < n; i++)
		r->options[i] = xstrdup(v->options[i]);
	r->v.options = (const char *const *)r->options;
	return r;
}

void live_pipe_close(struct live_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr; i++)
		live_buf_free(&r->bufs[i]);
	free(r->bufs);
	for (char **o = r->options; *o; o++)
		free(*o);
	free(r->options);
	free(r->tracer);
	free((char *)r->v.pids);
	free((char *)r->v.evpids);
	free(r->hide);
	free(r->ffilter);
	free(r->fnotrace);
	free(r->cpu_pages);
	free(r->cpu_since);
	free(r);
}

/* the raw time of the last record @r consumed in buffer @name, 0: none.  live_lock held. */
static uint64_t reader_consumed(const struct live_reader *r, const char *name)
{
	for (int i = 0; i < r->nr; i++)
		if (r->bufs[i].started && r->bufs[i].st && !strcmp(r->bufs[i].name, name))
			return r->bufs[i].st->raw;
	return 0;
}

void live_pipe_set_view(struct live_reader *r, const struct live_view *v)
{
	int n = 0;

	if (strcmp(r->tracer, v->tracer ? v->tracer : UT_TRACER_DEFAULT)) {
		free(r->tracer);
		r->tracer = xstrdup(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
		r->v.tracer = r->tracer;
	}
	for (char **o = r->options; *o; o++)
		free(*o);
	free(r->options);
	while (v->options && v->options[n])
		n++;
	r->options = xcalloc((size_t)n + 1, sizeof(*r->options));
	for (int i = 0; i < n; i++)
		r->options[i] = xstrdup(v->options[i]);
	r->v.options = (const char *const *)r->options;
	free((char *)r->v.pids);
	free((char *)r->v.evpids);
	r->v.pids = v->pids ? xstrdup(v->pids) : NULL;
	r->v.evpids = v->evpids ? xstrdup(v->evpids) : NULL;
	r->v.pids_calls = v->pids_calls;
	r->v.since = v->since;
	free(r->cpu_pages);
	r->cpu_pages = NULL;
	r->v.nr_cpu_pages = 0;
	if (v->cpu_pages && v->nr_cpu_pages > 0) {
		r->cpu_pages = xcalloc((size_t)v->nr_cpu_pages, sizeof(*r->cpu_pages));
		memcpy(r->cpu_pages, v->cpu_pages, (size_t)v->nr_cpu_pages * sizeof(*r->cpu_pages));
		r->v.nr_cpu_pages = v->nr_cpu_pages;
	}
	r->v.cpu_pages = r->cpu_pages;
	free(r->cpu_since);
	r->cpu_since = NULL;
	r->v.nr_cpu_since = 0;
	if (v->cpu_since && v->nr_cpu_since > 0) {
		r->cpu_since = xcalloc((size_t)v->nr_cpu_since, sizeof(*r->cpu_since));
		memcpy(r->cpu_since, v->cpu_since, (size_t)v->nr_cpu_since * sizeof(*r->cpu_since));
		r->v.nr_cpu_since = v->nr_cpu_since;
	}
	r->v.cpu_since = r->cpu_since;
	live_pipe_set_clock(r, v->clock);
	live_pipe_set_hide(r, v->hide, v->nr_hide);
	live_pipe_set_funcs(r, v->ffilter, v->fnotrace);
	pipe_set_events(r, v->ev_on);
	/* the caller's, for the next read only */
	r->v.ev_filter = v->ev_filter;
}

/* what @b holds past the reader's position, into @e; the position moves on */
int live_pipe_read(struct live_reader *r, char **out, size_t *len)
{
	struct live_pipe_src *ps = NULL;
	struct live_stage f, *st = NULL;
	struct live_cache *c;
	struct ut_merge *m;
	struct ut_data d;
	int ret = 0, *order = NULL;

	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&live_lock);
	c = live_cache_get(r->session, &ret);
	if (!c)
		goto out;
	live_stage_init(&f, c, &r->v);
	r->nr = live_scan_bufs(r->bufdir, &r->bufs, r->nr, 1);
	live_cuts_set(&f, r->bufs, r->nr, &r->v);
	order = buf_order(r->bufs, r->nr);
	st = xcalloc((size_t)r->nr + 1, sizeof(*st));
	ps = xcalloc((size_t)r->nr + 1, sizeof(*ps));
	d = c->cal;
	d.threads = xcalloc((size_t)r->nr + 1, sizeof(*d.threads));
	d.nr_threads = 0;
	m = ut_merge_new_src(&d, r->nr);
	for (int k = 0; k < r->nr; k++) {
		int i = order[k];
		struct live_buf *b = &r->bufs[i];
		struct ut_thread_info *ti = &b->ti;
		struct ut_page_src src;

		live_buf_thread(b);
		st[i] = f;
		live_stage_buffer(&st[i], b);
		/* consumed, not shown: as if the thread had not been traced */
		st[i].drop_all = !live_buf_shown(&r->v, b);
		if (!st[i].drop_all) {
			ti = &d.threads[d.nr_threads++];
			*ti = b->ti;
		}
		live_pipe_src(&ps[i], b, &src);
		ut_merge_add(m, ti, &src, live_stages, &st[i], live_stream_get(b));
	}
	ret = print_merge(c, &r->v, &d, m, 0, &r->counter, out, len);
	r->v.ev_filter = NULL;
	free(d.threads);
	live_cuts_free(&f);
out:
	pthread_mutex_unlock(&live_lock);
	free(ps);
	free(st);
	free(order);
	if (!ret && *out && !*len) {
		free(*out);
		*out = NULL;
	}
	return ret;
}
