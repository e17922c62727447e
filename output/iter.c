// SPDX-License-Identifier: MIT
/*
 * iter.c - an output run (struct trace_iter): its clock and options, the
 * per-thread state the tracers keep, and the driver that prints every
 * event of a merge through the tracer (trace_print_all(), the kernel's
 * trace.c read loop).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/event/evtab.h"
#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/tracers.h"
#include "reader/data.h"
#include "utils/progress.h"
#include "utils/utils.h"

void trace_iter_init(struct trace_iter *iter, struct ut_data *d,
		     const struct tracer *t, FILE *out)
{
	memset(iter, 0, sizeof(*iter));
	iter->out = out;
	iter->data = d;
	iter->tracer = t;
	iter->iter_flags = trace_opt_defaults(trace_opts, TRACE_NR_OPTS);
	iter->tracer_flags = t ? trace_opt_defaults(t->opts, TRACER_MAX_OPTS) : 0;
	ut_seq_init(&iter->seq, out);
	if (t && t->open)
		t->open(iter);
}

/* @id minus CLOCK_MONOTONIC now, in ns (the smaller of three tries' gaps) */
static int64_t clock_offset(clockid_t id)
{
	int64_t best = 0, gap = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		struct timespec a, x, b;
		int64_t g;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (clock_gettime(id, &x) < 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &b);
		g = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
		if (g < gap) {
			int64_t mid = a.tv_sec * 1000000000ll + a.tv_nsec + g / 2;

			gap = g;
			best = x.tv_sec * 1000000000ll + x.tv_nsec - mid;
		}
	}
	return best;
}

int trace_iter_set_clock(struct trace_iter *iter, int clock)
{
	if (clock < 0 || clock >= TRACE_NR_CLOCKS)
		return -EINVAL;
	iter->clock = clock;
	iter->clock_off = 0;
	if (clock == TRACE_CLOCK_MONO_RAW)
		iter->clock_off = clock_offset(CLOCK_MONOTONIC_RAW);
	else if (clock == TRACE_CLOCK_BOOT)
		iter->clock_off = clock_offset(CLOCK_BOOTTIME);
	else if (clock == TRACE_CLOCK_TAI)
		iter->clock_off = clock_offset(CLOCK_TAI);
	return 0;
}

uint64_t trace_clock_value(const struct trace_iter *iter, const struct ut_event *ev)
{
	switch (iter->clock) {
	case TRACE_CLOCK_COUNTER:
		return iter->counter;
	case TRACE_CLOCK_X86_TSC:
		return iter->data ? ut_data_raw(iter->data, ev->ts) : ev->ts;
	default:
		return ev->ts + (uint64_t)iter->clock_off;
	}
}

int tracer_set_option(struct trace_iter *iter, const char *opt)
{
	const struct trace_opt_info *o;
	const struct tracer *own;
	const char *name = opt;
	uint32_t *flags;
	int neg = 0;

	if (!opt || !*opt)
		return -EINVAL;
	if (!strncmp(name, "no", 2)) {
		neg = 1;
		name += 2;
	}
	/* like trace_options: the global ones and the current tracer's own */
	o = trace_opt_find(iter->tracer, name, strlen(name), &own);
	if (!o)
		return -EINVAL;
	flags = own ? &iter->tracer_flags : &iter->iter_flags;
	if (neg)
		*flags &= ~o->bit;
	else
		*flags |= o->bit;
	return 0;
}

/* ---- per-thread state ---- */

struct trace_threads {
	struct trace_thread *slots;
	size_t cap, used;
	struct trace_thread *last;	/* the last one returned: events come in runs */
};

static size_t thread_hash(int tid, uint64_t image, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull) ^ (image * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct trace_thread *thread_slot(struct trace_thread *slots, size_t cap,
					int tid, uint64_t image)
{
	size_t i = thread_hash(tid, image, cap);

	while (slots[i].used && (slots[i].tid != tid || slots[i].image != image))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

struct trace_thread *trace_thread_get(struct trace_iter *iter, const struct ut_event *ev)
{
	struct trace_threads *ts = iter->threads;
	struct trace_thread *t;
	size_t i;

	if (!ts) {
		ts = iter->threads = xcalloc(1, sizeof(*ts));
		ts->cap = 64;
		ts->slots = xcalloc(ts->cap, sizeof(*ts->slots));
	}
	t = ts->last;
	if (t && t->tid == ev->tid && t->image == ev->image)
		return t;
	t = thread_slot(ts->slots, ts->cap, ev->tid, ev->image);
	if (t->used)
		return ts->last = t;
	if ((ts->used + 1) * 2 > ts->cap) {
		struct trace_thread *old = ts->slots;
		size_t oldcap = ts->cap;

		ts->cap *= 2;
		ts->slots = xcalloc(ts->cap, sizeof(*ts->slots));
		for (i = 0; i < oldcap; i++)
			if (old[i].used)
				*thread_slot(ts->slots, ts->cap, old[i].tid, old[i].image) = old[i];
		free(old);
		t = thread_slot(ts->slots, ts->cap, ev->tid, ev->image);
	}
	t->used = 1;
	t->tid = ev->tid;
	t->image = ev->image;
	ut_callstack_init(&t->cs, TRACE_MAX_TRACKED_DEPTH, 0);
	ts->used++;
	return ts->last = t;
}

void trace_threads_free(struct trace_iter *iter)
{
	struct trace_threads *ts = iter->threads;
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->cap; i++)
		ut_callstack_free(&ts->slots[i].cs);
	free(ts->slots);
	free(ts);
	iter->threads = NULL;
}

/* ---- the whole output ---- */

static int thread_selected(const struct trace_iter *iter, int tid)
{
	int i;

	if (!iter->tids || iter->nr_tids <= 0)
		return 1;
	for (i = 0; i < iter->nr_tids; i++)
		if (iter->tids[i] == tid)
			return 1;
	return 0;
}

/* print_trace_line(): lost events are reported before the next line */
static void print_lost(struct trace_iter *iter, const struct ut_event *ev)
{
	if (ev->count && ev->count != UINT64_MAX)
		ut_seq_printf(&iter->seq, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->count);
	else
		ut_seq_printf(&iter->seq, "CPU:%u [LOST EVENTS]\n", ev->cpu);
}

/* the lines every tracer shows alike (the kernel's print_trace_fmt() fallback) */
void trace_print_generic(struct trace_iter *iter, struct ut_event *ev)
{
	switch (ev->type) {
	case UT_EV_MARKER:
		trace_print_marker_line(iter, ev);
		break;
	case UT_EV_TRACE:
		trace_print_stack_line(iter, ev);
		break;
	case UT_EV_EVENT:
		trace_print_event_line(iter, ev);
		break;
	default:
		break;
	}
}

/* the tracer's line for @ev, or the generic one when it has none */
static void print_line(struct trace_iter *iter, struct ut_event *ev)
{
	const struct tracer *t = iter->tracer;

	if (!t->print_line || t->print_line(iter, ev) == TRACE_TYPE_UNHANDLED)
		trace_print_generic(iter, ev);
}

int trace_print_all(struct trace_iter *iter)
{
	struct ut_data *d = iter->data;
	const struct tracer *t = iter->tracer;
	struct ut_event ev;
	int i, r, flat;

	if (!d || !t)
		return -1;
	/* calls shown alone (the function tracer): their returns are no entries */
	flat = !!(ut_tracer_needs(t->name) & UT_NEED_CALLS_FLAT);
	/* calls alone, no returns (the function tracer's): nothing for function_graph to pair */
	if (ut_tracer_mode(t->name) == UT_MODE_GRAPH && (ut_tracer_needs(d->tracer) & UT_NEED_CALLS_FLAT)) {
		pr_err("trace was recorded with the function tracer; use -t function");
		return -1;
	}

	/* trace_lat_select() counted the events of its sections */
	if (!iter->win) {
		iter->entries = iter->written = 0;
		for (i = 0; i < d->nr_threads; i++) {
			if (!thread_selected(iter, d->threads[i].tid))
				continue;
			iter->entries += d->threads[i].entries;
			iter->written += d->threads[i].written;
		}
	}

	/* a merge set up by the caller (live buffers: ut_merge_new_src()) is read as it is */
	if (!iter->merge)
		iter->merge = ut_merge_new(d, iter->tids, iter->tids ? iter->nr_tids : 0);
	if (!iter->merge) {
		pr_err("%s: cannot read the recorded events", d->dir);
		return -1;
	}

	/* s_show(): the tracer's name, then its header */
	ut_seq_init(&iter->seq, iter->out);
	ut_seq_printf(&iter->seq, "# tracer: %s\n#\n", t->name);
	if (t->print_header)
		t->print_header(iter);
	ut_seq_flush(&iter->seq);

	if (iter->progress && !iter->progress->where) {
		iter->progress->where = ut_merge_progress;
		iter->progress->arg = iter->merge;
	}
	/* each event's lines go out in one write */
	while ((r = ut_merge_next(iter->merge, &ev)) > 0) {
		if (iter->win && !trace_in_window(iter, &ev))
			continue;
		if (ev.type == UT_EV_LOST)
			print_lost(iter, &ev);
		/* not an event of the trace: the tracers only mend their state */
		else if (ev.type == UT_EV_DEPTH)
			print_line(iter, &ev);
		/* markers off: the kernel refuses the writes, so none are shown */
		else if (ev.type != UT_EV_MARKER || (iter->iter_flags & TRACE_ITER_MARKERS)) {
			/* the counter clock numbers what the kernel would record */
			if (!flat || ev.type != UT_EV_EXIT)
				iter->counter++;
			print_line(iter, &ev);
		}
		ut_seq_flush(&iter->seq);
		if (iter->progress)
			ut_progress_add(iter->progress, 1);
	}
	if (iter->progress)
		ut_progress_end(iter->progress);

	if (t->close)
		t->close(iter);
	ut_seq_flush(&iter->seq);
	trace_threads_free(iter);
	ut_evtab_free(iter->events);
	iter->events = NULL;
	iter->events_loaded = 0;
	ut_merge_free(iter->merge);
	iter->merge = NULL;
	fflush(iter->out);
	return r < 0 ? -1 : 0;
}
