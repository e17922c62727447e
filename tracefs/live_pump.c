// SPDX-License-Identifier: MIT
/*
 * live_pump.c - an instance's own buffers, and snapshots.
 *
 * A pump reads the session's buffers as trace_pipe does (consuming, from
 * where it stopped) through reader/data.c's decoder and the instance's
 * stages (live_stage.c: since, set_ftrace_pid, set_ftrace_filter, its
 * events), and the last stage, live_sink_put(), writes each event it keeps
 * into a ring of the instance's (one per thread, overwrite mode): the
 * wire record unchanged, but for the function tracer's calls under a
 * selection (FUNC records).  The ring's stream states its open calls
 * (STACK, DEPTH beyond UT_STACK_MAX) at the start of every page, and
 * before a record whenever the events hidden left it at another depth
 * than the record's, so its reader decodes it as the source's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefs/live_int.h"
#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "utils/utils.h"

struct live_pump_sink {
	char path[PATH_MAX];		/* the ring's file, made at its first record */
	const struct rb_header *src;	/* the session's buffer it copies */
	uint32_t nr_pages;
	struct rb_writer w;
	int open, failed;
	uint32_t wdepth;		/* the open calls of the stream written */
	int sync;			/* events were passed over: restate before the next */
	uint64_t pending_lost;
	uint8_t wctx, wpreempt;		/* the thread's context written (CTX records) */
	/* while an event is written (ring_page_start()) */
	const struct ut_stream *s;
	const struct live_stage *f;
};

/*
 * One record into the ring: the @len bytes of @rec (entries.h's layout)
 * under a header of @type at @ts (@rec's own header is not read); the
 * ring keeps time running forward
 */
static void ring_put(struct rb_writer *w, uint32_t type, uint64_t ts, const unsigned char *rec,
		     uint32_t len)
{
	unsigned char *p = rb_reserve(w, len, &ts);
	uint32_t h;

	if (!p)
		return;
	ut_rec_hdr(p, w, type, ts);
	memcpy(p + sizeof(h), rec + sizeof(h), len - sizeof(h));
	rb_commit(w, len, ts, ut_rec_counts(type));
}

/* the thread's context from @ts on (the latency tracers' flag columns) */
static void ring_ctx(struct rb_writer *w, uint64_t ts, uint8_t ctx, uint8_t preempt)
{
	unsigned char c[UT_REC_LEN(ctx)];

	ut_rec_put_n(c, UT_REC_LEN(ctx) - UT_REC_SIZED_BASE);
	c[UT_REC_OFF(ctx, flags)] = ctx;
	c[UT_REC_OFF(ctx, preempt)] = preempt;
	ring_put(w, UT_REC_CTX, ts, c, sizeof(c));
}

/* the first @d open calls shown, as a STACK (DEPTH beyond UT_STACK_MAX) */
static void ring_stack(struct live_pump_sink *k, uint32_t d, uint64_t ts)
{
	unsigned char buf[UT_REC_OFF(stack, ips) + UT_ADDR_BYTES * UT_STACK_MAX];
	unsigned char *ips = buf + UT_REC_OFF(stack, ips);
	const struct ut_stream *s = k->s;
	const struct live_fsel *sel = k->f ? k->f->fsel : NULL;
	uint16_t n = (uint16_t)d;
	uint32_t got = 0;

	if (d > UT_STACK_MAX || !s) {
		memcpy(buf + UT_REC_OFF(depth, depth), &d, sizeof(d));
		ring_put(&k->w, UT_REC_DEPTH, ts, buf, UT_REC_LEN(depth));
		return;
	}
	ut_rec_put_n(buf, n);
	/* with a selection, the calls it kept */
	for (uint32_t i = 0; got < d && i < UT_STREAM_MAX_OPEN; i++)
		if (!sel || (i < LIVE_KEPT_MAX && sel->kept[i]))
			ut_put48(ips + UT_ADDR_BYTES * got++, s->stack[i]);
	for (; got < d; got++)
		ut_put48(ips + UT_ADDR_BYTES * got, 0);
	ring_put(&k->w, UT_REC_STACK, ts, buf, UT_REC_OFF(stack, ips) + UT_ADDR_BYTES * n);
}

/* rb_writer's page_start: every page states the open calls first */
static void ring_page_start(struct rb_writer *w, uint64_t ts)
{
	struct live_pump_sink *k = (struct live_pump_sink *)((char *)w - offsetof(struct live_pump_sink, w));

	ring_stack(k, k->wdepth, ts);
	/* and the context, as the runtime restates it (a reader starts each page plain) */
	if (k->wctx || k->wpreempt)
		ring_ctx(w, ts, k->wctx, k->wpreempt);
}

/* the ring's file, at its first record: pages start at @ts */
static int ring_open(struct live_pump_sink *k, uint64_t ts, uint32_t cpu)
{
	struct rb_header *h;

	if (k->failed || !k->src)
		return -1;
	if (rb_create(k->path, k->nr_pages, RB_MODE_OVERWRITE, &h) < 0) {
		k->failed = 1;
		return -1;
	}
	h->pid = k->src->pid;
	h->tid = k->src->tid;
	h->image = k->src->image;
	memcpy(h->comm, k->src->comm, sizeof(h->comm));
	k->w.page_start = ring_page_start;
	k->w.cpu = cpu;
	k->wdepth = 0;
	k->wctx = k->wpreempt = 0;
	k->sync = 1;
	rb_writer_init(&k->w, h, ts);
	k->open = 1;
	return 0;
}

/* the open calls the stream must state before @ev, -1: any */
static int64_t depth_before(const struct ut_event *ev)
{
	switch (ev->type) {
	case UT_EV_ENTRY:
		return ev->depth;
	case UT_EV_EXIT:
		return (int64_t)ev->depth + 1;
	case UT_EV_FUNC:
	case UT_EV_RETURN:
		return -1;
	default:
		return ev->depth;
	}
}

int live_sink_put(struct live_pump_sink *k, const struct live_stage *f, const struct ut_stream *s,
		  struct ut_event *ev)
{
	struct rb_writer *w = &k->w;
	uint64_t ts = s->raw;
	int64_t need;
	uint32_t h, type;

	if (ev->type == UT_EV_LOST) {
		k->pending_lost += ev->count;
		return 0;
	}
	if (ev->type == UT_EV_DEPTH || !s->rec) {
		k->sync = 1;
		return 0;
	}
	if (!k->open && ring_open(k, ts, ev->cpu) < 0)
		return 0;
	k->s = s;
	k->f = f;
	if (ts < w->last_ts)
		ts = w->last_ts;
	if (k->pending_lost) {
		/* a new page carries the mark and restates the open calls */
		w->hdr->lost += k->pending_lost;
		w->lost_pending += (uint32_t)k->pending_lost;
		k->pending_lost = 0;
		w->cpu = ev->cpu;
		rb_writer_next_page(w, ts);
	}
	need = depth_before(ev);
	if (need >= 0 && (k->sync || (uint32_t)need != k->wdepth)) {
		ring_stack(k, (uint32_t)need, ts);
		k->wdepth = (uint32_t)need;
		k->sync = 0;
	}
	ut_rec_write_cpu(w, ts, ev->cpu);
	/*
	 * The context the event was written in; a section that ended and
	 * began again between two events shows as a plain context between
	 */
	if (ev->ctx_gap && (k->wctx || k->wpreempt) && ev->ctx == k->wctx &&
	    ev->preempt == k->wpreempt) {
		ring_ctx(w, ts, 0, 0);
		k->wctx = k->wpreempt = 0;
	}
	if (ev->ctx != k->wctx || ev->preempt != k->wpreempt) {
		ring_ctx(w, ts, ev->ctx, ev->preempt);
		k->wctx = ev->ctx;
		k->wpreempt = ev->preempt;
	}
	memcpy(&h, s->rec, sizeof(h));
	type = RB_HDR_TYPE(h);
	if (ev->type == UT_EV_FUNC && type != UT_REC_FUNC) {
		/* a call of the function tracer under a selection */
		unsigned char fr[UT_REC_LEN(func)];

		ut_put48(fr + UT_REC_OFF(func, ip), ev->ip);
		ut_put48(fr + UT_REC_OFF(func, parent), ev->parent);
		ring_put(w, UT_REC_FUNC, ts, fr, sizeof(fr));
	} else if (type == UT_REC_TRACE_DIR && ev->type == UT_EV_TRACE) {
		/* the directory's own stacktrace trigger: a TRACE in its ring */
		unsigned char tr[UT_REC_OFF(trace, ips) + UT_ADDR_BYTES * UT_STACK_MAX];
		uint16_t n = (uint16_t)ev->count;

		ut_rec_put_n(tr, n);
		memcpy(tr + UT_REC_OFF(trace, ips), ev->data, UT_ADDR_BYTES * n);
		ring_put(w, UT_REC_TRACE, ts, tr, UT_REC_OFF(trace, ips) + UT_ADDR_BYTES * n);
	} else {
		ring_put(w, type, ts, s->rec, s->rec_len);
	}
	if (ev->type == UT_EV_ENTRY)
		k->wdepth++;
	else if (ev->type == UT_EV_EXIT && k->wdepth)
		k->wdepth--;
	k->s = NULL;
	k->f = NULL;
	return 0;
}

/* ---- an instance's own buffers ---- */

struct live_pump {
	char session[PATH_MAX];
	char src[PATH_MAX];		/* the buffers it copies: the session's */
	char dir[PATH_MAX];
	uint32_t nr_pages;
	unsigned gen;			/* resizes so far: the rings' names */
	uint64_t since;
	int markers;			/* copies the rings of trace_marker too (a snapshot) */
	struct live_buf *bufs;		/* the buffers it copies, read as trace_pipe does */
	struct live_pump_sink *sink;		/* sink[i] copies src[i] */
	int nr;
	char **old;			/* rings a resize replaced: "gen path" */
	int nr_old;
	uint32_t cpumask[LIVE_CPUMASK_WORDS];	/* tracing_cpumask */
	int has_cpumask;
};

void live_pump_set_cpumask(struct live_pump *p, const uint32_t *mask)
{
	p->has_cpumask = 0;
	for (int i = 0; mask && i < LIVE_CPUMASK_WORDS; i++)
		p->has_cpumask |= mask[i] != ~0u;
	if (p->has_cpumask)
		memcpy(p->cpumask, mask, sizeof(p->cpumask));
}

static void sink_close(struct live_pump_sink *k)
{
	if (k->open) {
		rb_writer_close(&k->w);
		munmap(k->w.hdr, rb_file_size(k->w.hdr->nr_pages));
	}
	k->open = 0;
	k->failed = 0;
}

struct live_pump *live_pump_open(const char *session_dir, const char *dir, uint32_t nr_pages,
				 uint64_t since)
{
	struct live_pump *p;

	/* 0: each ring of the size of the buffer it copies (live_snapshot) */
	if ((nr_pages && nr_pages < 2) || (mkdir(dir, 0700) < 0 && errno != EEXIST)) {
		if (nr_pages && nr_pages < 2)
			errno = EINVAL;
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	snprintf(p->session, sizeof(p->session), "%s", session_dir);
	snprintf(p->src, sizeof(p->src), "%s", session_dir);
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	p->nr_pages = nr_pages;
	p->since = since;
	return p;
}

int live_pump_run(struct live_pump *p, const char *tracer, int on, const char *pids,
		  const char *evpids, const char *ffilter, const char *fnotrace, const uint64_t *ev_on,
		  const struct ut_evfilter *const *ev_filter, const struct live_timeline *tl)
{
	/* without a timeline, the top's buffers as they are: its stacktrace triggers' */
	struct live_view v = { .tracer = tracer, .cpu = -1, .since = p->since,
			       .ffilter = ffilter, .fnotrace = fnotrace, .ev_on = ev_on,
			       .ev_filter = ev_filter, .trace_dir = tl ? tl->trace_dir : 1 };
	struct live_cache *c;
	struct live_stage f;
	int ret = 0, n;

	pthread_mutex_lock(&live_lock);
	c = live_cache_get(p->session, &ret);
	if (!c)
		goto out;
	live_stage_init(&f, c, &v);
	f.tl = tl;
	f.cpumask = p->has_cpumask ? p->cpumask : NULL;
	/* the sched events that name a second task: chosen by either (stage_sched_pids()) */
	f.evpids = evpids && *evpids ? evpids : NULL;
	/* a tracer that records no calls takes the events only */
	f.events_only = tracer && ut_tracer_mode(tracer) == UT_MODE_NONE;
	n = live_scan_bufs(p->src, &p->bufs, p->nr, p->markers);
	if (n > p->nr) {
		p->sink = xrealloc(p->sink, sizeof(*p->sink) * (size_t)n);
		memset(p->sink + p->nr, 0, sizeof(*p->sink) * (size_t)(n - p->nr));
	}
	p->nr = n;
	for (int i = 0; i < p->nr; i++) {
		struct live_pump_sink *k = &p->sink[i];
		struct live_buf *b = &p->bufs[i];
		struct live_stage st;
		struct live_pipe_src ps;
		struct ut_page_src src;
		struct ut_cursor *cur;
		struct ut_event ev;
		int closed;

		if (b->gone)
			continue;
		closed = __atomic_load_n(&b->r.hdr->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;
		st = f;
		live_stage_buffer(&st, b);
		/* set_ftrace_pid: the buffer's calls; set_event_pid: its events */
		st.calls_off = !live_pid_selected(pids, b);
		st.events_off = !live_pid_selected(evpids, b);
		if (on && (!st.calls_off || !st.events_off || live_buf_other_tasks(evpids, b))) {
			if (!k->open) {
				size_t l = (size_t)snprintf(k->path, sizeof(k->path), "%s/%s",
							    p->dir, b->name);

				if (p->gen && l < sizeof(k->path))
					snprintf(k->path + l, sizeof(k->path) - l, ".g%u", p->gen);
				/*
				 * a copy: the source's size and room for the
				 * STACK that starts each page of it
				 */
				k->nr_pages = p->nr_pages ? p->nr_pages :
					      b->r.hdr->nr_pages + b->r.hdr->nr_pages / 8 + 2;
			}
			k->src = b->r.hdr;
			st.sink = k;
		} else {
			st.drop_all = 1;
		}
		live_pipe_src(&ps, b, &src);
		ps.limit = tl ? tl->until : 0;
		cur = ut_cursor_new(&c->cal, &b->ti, &src, live_stages, &st, live_stream_get(b));
		while (ut_cursor_next(cur, &ev) > 0)
			;
		ut_cursor_free(cur);
		/* what was passed over is missing from the ring: restate the calls */
		if (!st.sink)
			k->sync = 1;
		if (k->open)
			memcpy(k->w.hdr->comm, b->r.hdr->comm, sizeof(k->w.hdr->comm));
		if (closed) {
			/* its writer was gone before this run: nothing more will come */
			b->gone = 1;
			rb_close(&b->r);
			sink_close(k);
			k->src = NULL;
		}
	}
out:
	pthread_mutex_unlock(&live_lock);
	return ret;
}

uint64_t live_pump_now(struct live_pump *p)
{
	return live_raw_now(p->session);
}

void live_pump_resize(struct live_pump *p, uint32_t nr_pages)
{
	int k = 0;

	if (nr_pages < 2 || nr_pages == p->nr_pages)
		return;
	pthread_mutex_lock(&live_lock);
	/* the rings an earlier resize replaced go; the current ones stay readable */
	for (int i = 0; i < p->nr_old; i++) {
		unsigned g = (unsigned)strtoul(p->old[i], NULL, 10);

		if (g < p->gen) {
			unlink(strchr(p->old[i], ' ') + 1);
			free(p->old[i]);
		} else {
			p->old[k++] = p->old[i];
		}
	}
	p->nr_old = k;
	for (int i = 0; i < p->nr; i++) {
		struct live_pump_sink *s = &p->sink[i];
		char *line;

		if (!s->open)
			continue;
		if (asprintf(&line, "%u %s", p->gen, s->path) >= 0) {
			p->old = xrealloc(p->old, sizeof(*p->old) * ((size_t)p->nr_old + 1));
			p->old[p->nr_old++] = line;
		}
		sink_close(s);
	}
	p->gen++;
	p->nr_pages = nr_pages;
	pthread_mutex_unlock(&live_lock);
}

int live_pump_buffers(struct live_pump *p)
{
	int n = 0;

	pthread_mutex_lock(&live_lock);
	for (int i = 0; i < p->nr; i++)
		n += p->sink[i].open;
	pthread_mutex_unlock(&live_lock);
	return n;
}

void live_pump_close(struct live_pump *p, int remove)
{
	if (!p)
		return;
	pthread_mutex_lock(&live_lock);
	for (int i = 0; i < p->nr; i++) {
		sink_close(&p->sink[i]);
		live_buf_free(&p->bufs[i]);
	}
	pthread_mutex_unlock(&live_lock);
	for (int i = 0; i < p->nr_old; i++)
		free(p->old[i]);
	free(p->old);
	free(p->sink);
	free(p->bufs);
	if (remove)
		remove_tree(p->dir);
	free(p);
}

int live_snapshot(const char *session_dir, const char *srcdir, const char *dst, uint64_t since)
{
	struct live_pump *p;
	int ret;

	remove_tree(dst);
	p = live_pump_open(session_dir, dst, 0, since);
	if (!p)
		return -errno;
	if (srcdir)
		snprintf(p->src, sizeof(p->src), "%s", srcdir);
	p->markers = 1;
	ret = live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	live_pump_close(p, 0);
	if (ret)
		remove_tree(dst);
	return ret;
}

void live_snapshot_free(const char *dst)
{
	remove_tree(dst);
}
