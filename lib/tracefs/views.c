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

#include "lib/tracefs/tfs_int.h"

/* the snapshot's contents go; allocated or not, it stays so */
void snap_empty(struct tfs_inst *in)
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
void view_make(struct tfs_session *s, struct tfs_inst *in, int cpu, struct view_buf *vb)
{
	int k = 0;

	vb->inst = in;
	vb->v.consumed = NULL;
	vb->v.cpu_pages = NULL;
	vb->v.nr_cpu_pages = 0;
	if (!cpu_pages_same(s, in, NULL)) {
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
	snprintf(vb->tracer, sizeof(vb->tracer), "%s", inst_tracer(s, in));
	/* a tracer's own options go to that tracer only (live.c refuses others) */
	for (int i = 0; i < TRACE_NR_OPTS; i++) {
		if (trace_opt_hidden(i, vb->tracer))
			continue;
		/* as the kernel's, the option refuses new markers; it hides none */
		if (i == TRACE_ITER_MARKERS_POS)
			continue;
		snprintf(vb->words[k], sizeof(vb->words[k]), "%s%s",
			 in->opt_mask & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
		vb->ptrs[k] = vb->words[k];
		k++;
	}
	vb->ptrs[k] = NULL;
	vb->v.tracer = vb->tracer;
	vb->v.options = vb->ptrs;
	vb->v.cpu = cpu >= 0 ? cpu : cpu_of_mask(s);
	vb->v.since = in->since;
	/* an instance's set_ftrace_pid chose what its buffers took */
	snprintf(vb->pids, sizeof(vb->pids), "%s", in == &s->top ? in->pids : "");
	vb->v.pids = vb->pids;
	vb->v.clock = in->clock;
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
		memcpy(vb->ev_on, in->ev_on, sizeof(vb->ev_on));
		vb->v.ev_on = vb->ev_on;
	}
}

/* print_snapshot_help(): an empty snapshot, allocated or not */
const char snapshot_help[] =
	"# Snapshot commands:\n"
	"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer.\n"
	"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";

void show_stats(struct tfs_session *s, struct tfs_inst *in, int cpu, struct sbuf *b)
{
	struct live_stats st = { 0 };
	struct view_buf *vb = malloc(sizeof(*vb));

	if (vb) {
		view_make(s, in, cpu, vb);
		vb->v.cpu = cpu;
		live_stats_view(s->dir, &vb->v, &st);
		free(vb);
	}
	sb_printf(b, "entries: %llu\n", (unsigned long long)st.entries);
	sb_printf(b, "overrun: %llu\n", (unsigned long long)st.overrun);
	sb_puts(b, "commit overrun: 0\n");
	sb_printf(b, "bytes: %llu\n", (unsigned long long)st.bytes);
	sb_printf(b, "oldest event ts: %5llu.%06llu\n", (unsigned long long)st.oldest_event_ts,
		  (unsigned long long)((st.oldest_event_ts - (double)(unsigned long long)st.oldest_event_ts) * 1e6));
	sb_printf(b, "now ts: %5llu.%06llu\n", (unsigned long long)st.now_ts,
		  (unsigned long long)((st.now_ts - (double)(unsigned long long)st.now_ts) * 1e6));
	sb_puts(b, "dropped events: 0\n");
	sb_puts(b, "read events: 0\n");
}

/*
 * The text of the view @vb into @b.  Context: s->lock held; dropped while
 * the buffers are read, so that the programs' handshakes and other files
 * are not held up.
 */
int view_print(struct tfs_session *s, const struct view_buf *vb, struct sbuf *b)
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
		sb_add(b, out, len);
	free(out);
	return ret;
}

/* does a trace text hold an event?  Its header lines all start with '#' */
int has_event_line(const char *p, size_t len)
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
void trace_clear(struct tfs_session *s, struct tfs_inst *in)
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

		ev_union(s, all);
		for (int i = 0; i < TFS_EV_WORDS; i++)
			wide |= (all[i] & ~in->ev_on[i]) != 0;
		s->top_ev_wide = wide;
	}
}

/* one print event in the directory's ring (live_marker) */
/* O_TRUNC on trace (@cpu -1) or per_cpu/cpuN/trace: as the kernel, that CPU's only */
void trace_clear_cpu(struct tfs_session *s, struct tfs_inst *in, int cpu)
{
	if (cpu < 0) {
		trace_clear(s, in);
		return;
	}
	in->cpu_since[cpu] = live_now(s->dir);
	in->cpu_cleared = 1;
}

ssize_t pipe_read(struct tfs_handle *h, char *buf, size_t size)
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
		gone = s->ended || h->n.inst->tracer_gen != h->tracer_gen;
		on = h->n.inst == &s->top || h->n.inst->on;
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_lock(&s->lock);
		inst_pump(h->n.inst);
		{
			struct view_buf *vb = malloc(sizeof(*vb));

			if (!vb) {
				pthread_mutex_unlock(&s->lock);
				return -ENOMEM;
			}
			view_make(s, h->n.inst, h->n.cpu, vb);
			pthread_mutex_unlock(&s->lock);
			/* the directory's reader, with the view of now */
			pthread_mutex_lock(&h->n.inst->pipe_lock);
			live_pipe_set_view(h->rd, &vb->v);
			ret = live_pipe_read(h->rd, &out, &len);
			pthread_mutex_unlock(&h->n.inst->pipe_lock);
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
		if (!h->intr && !s->ended && h->n.inst->tracer_gen == h->tracer_gen)
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		pthread_mutex_unlock(&s->lock);
	}
}
