// SPDX-License-Identifier: MIT
/*
 * views.c - what the buffers show: the live_view of a directory,
 * trace, trace_pipe, snapshot and per_cpu/cpuN/stats.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

/* the snapshot's contents go; allocated or not, it stays so */
void tfs_snap_empty(struct tfs_inst *in)
{
	if (in->snap_taken)
		live_snapshot_free(in->snapdir);
	in->snap_taken = 0;
}

static int cpu_of_mask(struct tfs_session *s)
{
	int cpu = -1;

	for (int i = 0; i < s->ncpu; i++) {
		if (s->cpumask[i / 32] & (1u << (i % 32))) {
			if (cpu >= 0)
				return -1;
			cpu = i;
		}
	}
	return cpu;
}

/* the live_view of an instance.  Context: s->lock held. */
void tfs_view_make(struct tfs_session *s, struct tfs_inst *in, int cpu, struct tfs_view_buf *vb)
{
	uint32_t *tw;
	int k = 0;

	/* the programs' traceon/traceoff since: the times the top's views hide */
	if (in == &s->top)
		tfs_top_sync(s);
	vb->inst = in;
	vb->v.consumed = NULL;
	vb->v.lat = NULL;
	vb->v.cpu_pages = NULL;
	vb->v.nr_cpu_pages = 0;
	if (!tfs_cpu_pages_same(s, in, NULL)) {
		memcpy(vb->cpu_pages, in->cpu_pages, sizeof(*vb->cpu_pages) * (size_t)s->ncpu);
		vb->v.cpu_pages = vb->cpu_pages;
		vb->v.nr_cpu_pages = s->ncpu;
	}
	vb->v.cpu_since = NULL;
	vb->v.nr_cpu_since = 0;
	if (in->cpu_cleared) {
		memcpy(vb->cpu_since, in->cpu_since, sizeof(*vb->cpu_since) * (size_t)s->ncpu);
		vb->v.cpu_since = vb->cpu_since;
		vb->v.nr_cpu_since = s->ncpu;
	}
	snprintf(vb->tracer, sizeof(vb->tracer), "%s", tfs_inst_tracer(s, in));
	/* the global options, then the tracer's own (live.c refuses another's) */
	for (int i = 0; i < TRACE_NR_OPTS; i++) {
		/* as the kernel's, the option refuses new markers; it hides none */
		if (i == TRACE_ITER_MARKERS_POS)
			continue;
		snprintf(vb->words[k], sizeof(vb->words[k]), "%s%s",
			 in->tr.trace_flags & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
		vb->ptrs[k] = vb->words[k];
		k++;
	}
	tw = trace_array_tracer_flags(&in->tr, in->tr.current_trace);
	for (const struct trace_opt_info *o = in->tr.current_trace->opts;
	     o && o->name && k < TRACE_NR_OPTS + TRACER_MAX_OPTS; o++) {
		snprintf(vb->words[k], sizeof(vb->words[k]), "%s%s", tw && *tw & o->bit ? "" : "no",
			 o->name);
		vb->ptrs[k] = vb->words[k];
		k++;
	}
	vb->ptrs[k] = NULL;
	vb->v.tracer = vb->tracer;
	vb->v.options = vb->ptrs;
	vb->v.cpu = cpu >= 0 ? cpu : cpu_of_mask(s);
	vb->v.since = in->since;
	/* an instance's pid lists chose what its buffers took */
	vb->pids[0] = vb->evpids[0] = '\0';
	if (in == &s->top) {
		/* the top's calls by set_ftrace_pid and set_ftrace_notrace_pid, its events by the others */
		tfs_pids_follow(s);
		tfs_pids_view(in, 0, vb->pids, sizeof(vb->pids));
		tfs_pids_view(in, 1, vb->evpids, sizeof(vb->evpids));
	}
	vb->v.pids = vb->pids;
	vb->v.evpids = vb->evpids;
	vb->v.pids_calls = 1;
	/* the top shows its stacktrace triggers' stacks; an instance's pump took its own */
	vb->v.trace_dir = in == &s->top ? 1 : 0;
	vb->v.clock = in->tr.clock_id;
	vb->v.bufdir = in->pump ? in->bufdir : NULL;
	/* a copy: the view is read after s->lock is dropped */
	memcpy(vb->hide, in->hide, sizeof(vb->hide));
	vb->v.hide = in->nr_hide ? vb->hide : NULL;
	vb->v.nr_hide = in->nr_hide;
	/* the programs recorded more than the top's lists choose: show its choice */
	vb->v.ffilter = vb->v.fnotrace = NULL;
	if (in == &s->top && s->top_lists_wide) {
		memcpy(vb->ffilter, in->filter, sizeof(vb->ffilter));
		memcpy(vb->fnotrace, in->notrace, sizeof(vb->fnotrace));
		vb->v.ffilter = vb->ffilter;
		vb->v.fnotrace = vb->fnotrace;
	}
	/*
	 * the programs recorded events the top did not enable: show its
	 * choice.  An instance's pump took only its own.
	 */
	vb->v.ev_on = NULL;
	if (in == &s->top && s->top_ev_wide) {
		tfs_ev_dir(in, vb->ev_on);
		/*
		 * and the events in soft mode: their triggers chose what was
		 * recorded.  Unless an instance had the programs record them
		 * all the same (OTHERS): then the top's switch as it is now.
		 */
		for (uint32_t i = 0; i < s->nr_evd && i < UT_EVREG_SLOTS; i++) {
			uint32_t st = __atomic_load_n(&s->evreg->slots[i].state, __ATOMIC_ACQUIRE);

			if (s->top.ev_soft[i] &&
			    (!(st & (UT_EVS_OTHERS | UT_EVS_INST_SOFT)) || !(st & UT_EVS_SOFT_DISABLED)))
				vb->ev_on[i / 64] |= 1ull << (i % 64);
		}
		vb->v.ev_on = vb->ev_on;
	}
	/*
	 * the top's event filters: the programs ran them unless another
	 * directory enabling the event has another.  An instance's pump
	 * filtered what it took.
	 */
	vb->nr_evf = s->nr_evd;
	vb->evf = in == &s->top ? tfs_evfilt_copy(in, s->nr_evd) : NULL;
	vb->v.ev_filter = (const struct ut_evfilter *const *)vb->evf;
}

void tfs_view_release(struct tfs_view_buf *vb)
{
	tfs_evfilt_copy_free(vb->evf, vb->nr_evf);
	vb->evf = NULL;
	vb->v.ev_filter = NULL;
}

/*
 * The max-latency buffers instead of the threads' (a tracer with
 * use_max_tr, runtime/max.c): SESSION/max/, of the thread that set the
 * maximum only, as the kernel's max buffer holds the trace of the last
 * maximum.  No maximum kept yet: nothing.
 */
void tfs_view_max(struct tfs_session *s, struct tfs_view_buf *vb)
{
	struct ut_max_rec r;

	ut_max_lock(s->ctl, (int32_t)gettid());
	r = s->ctl->max_rec;
	ut_max_unlock(s->ctl);
	if (!r.latency || !r.swapped)
		r.tid = 0;
	vb->v.bufdir = s->maxdir;
	/* tid 0 is no thread: the view is empty */
	snprintf(vb->pids, sizeof(vb->pids), "%d", r.tid);
	vb->v.pids = vb->pids;
	vb->v.pids_calls = 0;		/* that thread's buffer, whole */
	/* the latency header's (latency-format): the times from the trace's first event */
	memset(&vb->lat, 0, sizeof(vb->lat));
	vb->lat.latency_ns = tfs_ticks_to_ns(s, r.latency);
	vb->lat.pid = r.pid;
	vb->lat.tid = r.tid;
	vb->lat.cpu = (int)r.cpu;
	memcpy(vb->lat.comm, r.comm, sizeof(vb->lat.comm));
	vb->lat.comm[sizeof(vb->lat.comm) - 1] = 0;
	vb->lat.task = r.task;
	vb->lat.image = r.image;
	vb->lat.start_ip = r.start_ip;
	vb->lat.end_ip = r.end_ip;
	vb->v.lat = &vb->lat;
	/*
	 * As the kernel's max buffer, read from its time_start (the
	 * section's start, tracing_iter_reset()): the thread's earlier
	 * records in the buffer are not shown
	 */
	if (r.tid && r.ts >= r.latency) {
		uint64_t start = live_ns(s->dir, r.ts - r.latency);

		if (start && start - 1 > vb->v.since)
			vb->v.since = start - 1;
	}
}

/* print_snapshot_help(): an empty snapshot, allocated or not */
static const char snapshot_help[] =
	"# Snapshot commands:\n"
	"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer.\n"
	"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";

static void show_stats(struct tfs_session *s, struct tfs_inst *in, int cpu, struct tfs_sbuf *b)
{
	struct live_stats st = { 0 };
	struct tfs_view_buf *vb = malloc(sizeof(*vb));

	if (vb) {
		tfs_view_make(s, in, cpu, vb);
		vb->v.cpu = cpu;
		live_stats_view(s->dir, &vb->v, &st);
		tfs_view_release(vb);
		free(vb);
	}
	tfs_sb_printf(b, "entries: %llu\n", (unsigned long long)st.entries);
	tfs_sb_printf(b, "overrun: %llu\n", (unsigned long long)st.overrun);
	tfs_sb_puts(b, "commit overrun: 0\n");
	tfs_sb_printf(b, "bytes: %llu\n", (unsigned long long)st.bytes);
	tfs_sb_printf(b, "oldest event ts: %5llu.%06llu\n", (unsigned long long)st.oldest_event_ts,
		      (unsigned long long)((st.oldest_event_ts - (double)(unsigned long long)st.oldest_event_ts) * 1e6));
	tfs_sb_printf(b, "now ts: %5llu.%06llu\n", (unsigned long long)st.now_ts,
		      (unsigned long long)((st.now_ts - (double)(unsigned long long)st.now_ts) * 1e6));
	tfs_sb_puts(b, "dropped events: 0\n");
	tfs_sb_puts(b, "read events: 0\n");
}

/*
 * The text of the view @vb into @b.  Context: s->lock held; dropped while
 * the buffers are read, so that the programs' handshakes and other files
 * are not held up.
 */
int tfs_view_print(struct tfs_session *s, const struct tfs_view_buf *vb, struct tfs_sbuf *b)
{
	char *out = NULL;
	size_t len = 0;
	int ret;

	pthread_mutex_unlock(&s->lock);
	/* a trace_pipe reader of the view changes only under the directory's pipe_lock */
	if (vb->v.consumed)
		pthread_mutex_lock(&vb->inst->pipe_lock);
	ret = live_trace(s->dir, &vb->v, &out, &len);
	if (vb->v.consumed)
		pthread_mutex_unlock(&vb->inst->pipe_lock);
	pthread_mutex_lock(&s->lock);
	if (!ret && out)
		tfs_sb_add(b, out, len);
	free(out);
	return ret;
}

/* does a trace text hold an event?  Its header lines all start with '#' */
static int has_event_line(const char *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(p + i, '\n', len - i);

		if (p[i] != '#')
			return 1;
		i = nl ? (size_t)(nl - p) + 1 : len;
	}
	return 0;
}

/* clear @in's trace (echo > trace).  Context: s->lock held. */
void tfs_trace_clear(struct tfs_session *s, struct tfs_inst *in)
{
	in->since = live_now(s->dir);
	in->cpu_cleared = 0;
	memset(in->cpu_since, 0, sizeof(in->cpu_since));
	/* nothing older is shown: the lists recorded from now on are enough */
	if (in == &s->top && !strcmp(s->ctl->filter, in->filter) &&
	    !strcmp(s->ctl->notrace, in->notrace))
		s->top_lists_wide = 0;
	if (in == &s->top && s->top_ev_wide) {
		uint64_t all[TFS_EV_WORDS];
		int wide = 0;

		tfs_ev_union(s, all);
		for (int i = 0; i < TFS_EV_WORDS; i++)
			wide |= (all[i] & ~(in->ev_on[i] | in->tr_ev[i])) != 0;
		s->top_ev_wide = wide;
	}
}

/* one print event in the directory's ring (live_marker) */
/* O_TRUNC on trace (@cpu -1) or per_cpu/cpuN/trace: as the kernel, that CPU's only */
static void trace_clear_cpu(struct tfs_session *s, struct tfs_inst *in, int cpu)
{
	if (cpu < 0) {
		tfs_trace_clear(s, in);
		return;
	}
	in->cpu_since[cpu] = live_now(s->dir);
	in->cpu_cleared = 1;
}

static ssize_t pipe_read(struct tfs_handle *h, char *buf, size_t size)
{
	struct tfs_session *s = h->s;

	for (;;) {
		struct timespec ts;
		char *out = NULL;
		size_t len = 0;
		int gone, on, ret;

		if (h->pend_off < h->pend_len) {
			size_t n = h->pend_len - h->pend_off;

			if (n > size)
				n = size;
			memcpy(buf, h->pend + h->pend_off, n);
			h->pend_off += n;
			return (ssize_t)n;
		}
		if (h->intr) {
			h->intr = 0;
			return -EINTR;
		}
		pthread_mutex_lock(&s->lock);
		gone = s->ended || h->n.inst->tr.tracer_gen != h->tracer_gen;
		on = h->n.inst == &s->top || h->n.inst->on;
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_lock(&s->lock);
		tfs_pids_follow(s);
		tfs_inst_pump(h->n.inst);
		{
			struct tfs_view_buf *vb = malloc(sizeof(*vb));

			if (!vb) {
				pthread_mutex_unlock(&s->lock);
				return -ENOMEM;
			}
			tfs_view_make(s, h->n.inst, h->n.cpu, vb);
			pthread_mutex_unlock(&s->lock);
			/* the directory's reader, with the view of now */
			pthread_mutex_lock(&h->n.inst->pipe_lock);
			live_pipe_set_view(h->rd, &vb->v);
			ret = live_pipe_read(h->rd, &out, &len);
			pthread_mutex_unlock(&h->n.inst->pipe_lock);
			tfs_view_release(vb);
			free(vb);
		}
		if (ret) {
			free(out);
			return ret;
		}
		if (len && on) {
			free(h->pend);
			h->pend = out;
			h->pend_len = len;
			h->pend_off = 0;
			continue;
		}
		free(out);
		if (gone)
			return 0;
		/* nothing new: the kernel's trace_pipe says so to a reader that will not wait */
		if (h->flags & O_NONBLOCK)
			return -EAGAIN;
		/* nothing new: sleep a little, or until woken */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TFS_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&s->lock);
		if (!h->intr && !s->ended && h->n.inst->tr.tracer_gen == h->tracer_gen)
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		pthread_mutex_unlock(&s->lock);
	}
}

/* ---- the files ---- */

static int trace_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_inst *in = h->n.inst;
	struct tfs_view_buf vb;
	int ret;

	tfs_pids_follow(h->s);
	tfs_inst_pump(in);
	tfs_view_make(h->s, in, h->n.cpu, &vb);
	/* as the kernel's: a latency tracer's trace is its max buffer's */
	if (in->tr.current_trace->print_max) {
		tfs_view_max(h->s, &vb);
		return tfs_view_print(h->s, &vb, b);
	}
	/* what trace_pipe consumed is gone from the buffers (pipe_lock: see tfs_view_print) */
	vb.v.consumed = in->pipes ? in->pipes[0] : NULL;
	ret = tfs_view_print(h->s, &vb, b);
	tfs_view_release(&vb);
	return ret;
}

/* O_TRUNC on trace or per_cpu/cpuN/trace clears it; a write does nothing, as the kernel's */
static int trace_open(struct tfs_handle *h, int flags)
{
	if (tfs_open_trunc(flags))
		trace_clear_cpu(h->s, h->n.inst, h->n.cpu);
	return 0;
}

static int trace_truncate(struct tfs_handle *h)
{
	trace_clear_cpu(h->s, h->n.inst, h->n.cpu);
	return 0;
}

static int trace_write(struct tfs_handle *h, const char *buf, size_t size)
{
	(void)h;
	(void)buf;
	(void)size;
	return 0;
}

/* trace_pipe: the directory's (or CPU's) reader, made at the first open */
static int trace_pipe_open(struct tfs_handle *h, int flags)
{
	struct tfs_inst *in = h->n.inst;
	struct tfs_view_buf vb;
	int k = h->n.cpu + 1;

	(void)flags;
	tfs_view_make(h->s, in, h->n.cpu, &vb);
	h->tracer_gen = in->tr.tracer_gen;
	pthread_mutex_lock(&in->pipe_lock);
	if (!in->pipes)
		in->pipes = calloc(TFS_MAX_CPUS + 1, sizeof(*in->pipes));
	if (in->pipes && !in->pipes[k])
		in->pipes[k] = live_pipe_open(h->s->dir, &vb.v);
	h->rd = in->pipes ? in->pipes[k] : NULL;
	pthread_mutex_unlock(&in->pipe_lock);
	tfs_view_release(&vb);
	return h->rd ? 0 : -EIO;
}

/* @vb shows nothing recorded after @t (a snapshot trigger's time) */
static void hide_after(struct tfs_view_buf *vb, uint64_t t)
{
	int n = vb->v.nr_hide;

	if (n && vb->hide[2 * n - 1] == UINT64_MAX && vb->hide[2 * n - 2] <= t + 1)
		return;		/* hidden from before then on already */
	if (n == TFS_HIDE_MAX) {
		/* no room: what is older than the oldest range goes too, as top_state_at() does */
		if (vb->v.since < vb->hide[1])
			vb->v.since = vb->hide[1];
		memmove(vb->hide, vb->hide + 2, sizeof(vb->hide) - 2 * sizeof(vb->hide[0]));
		n--;
	}
	vb->hide[2 * n] = t + 1;
	vb->hide[2 * n + 1] = UINT64_MAX;
	vb->v.hide = vb->hide;
	vb->v.nr_hide = n + 1;
}

static int snapshot_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	/* a latency tracer's max buffer is the snapshot buffer, always allocated */
	int max = in->tr.current_trace->use_max_tr != 0;
	int ret;

	if (in->snap_taken || max) {
		struct tfs_view_buf vb;
		struct tfs_sbuf t = { 0 };

		/* the copy, in the format of now (tracer, options, clock) */
		tfs_view_make(s, in, -1, &vb);
		if (max) {
			/* the trace of the maximum */
			tfs_view_max(s, &vb);
		} else {
			vb.v.bufdir = in->snapdir;
			vb.v.since = in->snap_since;
			if (in->snap_until)
				hide_after(&vb, in->snap_until);
		}
		ret = tfs_view_print(s, &vb, &t);
		tfs_view_release(&vb);
		/* as the kernel: a snapshot that holds no event shows the help */
		if (!ret && !t.err && has_event_line(t.p, t.len)) {
			tfs_sb_add(b, t.p, t.len);
			free(t.p);
			return 0;
		}
		free(t.p);
		if (ret)
			return ret;
	}
	tfs_sb_printf(b, "# tracer: %s\n#\n", tfs_inst_tracer(s, in));
	tfs_sb_puts(b, in->snap_alloc || max ? "#\n# * Snapshot is allocated *\n#\n"
					 : "#\n# * Snapshot is freed *\n#\n");
	tfs_sb_puts(b, snapshot_help);
	return 0;
}

/*
 * tfs_snap_take - the snapshot of @in: a copy of its buffers as they are now
 * (the kernel swaps them).  Context: s->lock held.
 */
int tfs_snap_take(struct tfs_session *s, struct tfs_inst *in, uint64_t until)
{
	int ret;

	tfs_inst_pump(in);
	tfs_snap_empty(in);
	snprintf(in->snapdir, sizeof(in->snapdir), "%s/snap%s%s", s->dir,
		 in == &s->top ? "" : ".", in->name);
	ret = live_snapshot(s->dir, in->pump ? in->bufdir : NULL, in->snapdir, in->since);
	if (ret)
		return ret;
	in->snap_taken = 1;
	in->snap_since = in->since;
	in->snap_until = until;
	in->snap_alloc = 1;
	return 0;
}

static int snapshot_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	unsigned long long v;
	int ret;

	if ((ret = tfs_parse_ull(buf, size, &v))) {
		tfs_err(s, "Invalid argument", h->n.f->name);
		return ret;
	}
	/* as the kernel's: the tracer owns the max (snapshot) buffer */
	if (in->tr.current_trace->use_max_tr)
		return -EBUSY;
	if (v == 0) {
		tfs_snap_empty(in);
		in->snap_alloc = 0;
	} else if (v == 1) {
		ret = tfs_snap_take(s, in, 0);
		if (ret) {
			tfs_err(s, "Cannot take the snapshot", h->n.f->name);
			return ret;
		}
	} else {
		tfs_snap_empty(in);
	}
	return 0;
}

static int stats_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_pids_follow(h->s);
	tfs_inst_pump(h->n.inst);
	show_stats(h->s, h->n.inst, h->n.cpu, b);
	return 0;
}

const struct tfs_file tfs_views_files[] = {
	TFS_FILE("trace", 0640, W_TOP | W_INST | W_CPU, .show = trace_show, .write = trace_write,
		 .open = trace_open, .truncate = trace_truncate),
	TFS_FILE("trace_pipe", 0440, W_TOP | W_INST | W_CPU, .read = pipe_read, .open = trace_pipe_open),
	TFS_FILE("snapshot", 0640, W_TOP | W_INST, .show = snapshot_show, .write = snapshot_write),
	TFS_FILE("stats", 0440, W_CPU, .show = stats_show),
	TFS_FILES_END
};
