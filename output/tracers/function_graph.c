// SPDX-License-Identifier: MIT
/*
 * function_graph.c - the function_graph tracer: calls and returns drawn
 * as C code, in the format of the kernel's trace_functions_graph.c:
 *
 *   # tracer: function_graph
 *   #
 *   # CPU  DURATION                  FUNCTION CALLS
 *   # |     |   |                     |   |   |   |
 *    0)               |  main() {
 *    0)   0.512 us    |    foo();
 *    0) + 12.345 us   |  }
 *
 * A call whose return is the next event of its thread is a leaf, printed
 * on one line.  A call recorded whole at its return (tracing_thresh) has
 * no entry in the trace: it prints as the kernel prints a return whose
 * entry it did not see, its duration and a closing brace that names the
 * function in a C comment; so does a return whose entry was lost (the call
 * began while records were dropped), with no duration.  A call whose
 * return was lost stays open, as in the kernel.  A stack trace prints as a
 * comment too, as every other event (graph_comment()).  The state the
 * kernel keeps per cpu (the depth comments are indented at, the function
 * open at each depth) is kept per thread; the context-switch banners are
 * per cpu, as in the kernel.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "output/tracer.h"
#include "output/tracers/function_graph.h"
#include "usertrace/record.h"
#include "utils/utils.h"

/* the tracer's own options, in the kernel's order (trace_functions_graph.c) */
static const struct trace_opt_info graph_opts[] = {
	TRACER_OPT("funcgraph-overrun",  GRAPH_OVERRUN,  0),
	TRACER_OPT("funcgraph-cpu",      GRAPH_CPU,      1),
	TRACER_OPT("funcgraph-overhead", GRAPH_OVERHEAD, 1),
	TRACER_OPT("funcgraph-proc",     GRAPH_PROC,     0),
	TRACER_OPT("funcgraph-duration", GRAPH_DURATION, 1),
	TRACER_OPT("funcgraph-abstime",  GRAPH_ABS_TIME, 0),
	TRACER_OPT("funcgraph-irqs",     GRAPH_IRQS,     1),
	TRACER_OPT("funcgraph-tail",     GRAPH_TAIL,     0),
	TRACER_OPT("graph-time",         GRAPH_GRAPH_TIME, 1),
	TRACER_OPTS_END
};

struct graph_cpu {
	int last_tid;		/* -1: nothing printed on this cpu yet */
	char comm[17];
};

struct graph_state {
	int cpu_width;		/* max_bytes_for_cpu */
	struct graph_cpu cpus[TRACE_MAX_CPUS];
};

enum dur_fill { DUR_TIME, DUR_FILL };

static struct graph_state *graph_state(struct trace_iter *iter)
{
	struct graph_state *g = iter->priv;
	int i, n;

	if (g)
		return g;
	g = iter->priv = xcalloc(1, sizeof(*g));
	n = iter->data && iter->data->nr_cpus > 0 ? iter->data->nr_cpus : 1;
	g->cpu_width = snprintf(NULL, 0, "%d", n - 1);
	for (i = 0; i < TRACE_MAX_CPUS; i++)
		g->cpus[i].last_tid = -1;
	return g;
}

/* several threads recorded: show who runs each line */
static void graph_open(struct trace_iter *iter)
{
	const struct ut_data *d = iter->data;
	int i;

	if (!d)
		return;
	for (i = 1; i < d->nr_threads; i++) {
		if (d->threads[i].tid != d->threads[0].tid) {
			iter->tracer_flags |= GRAPH_PROC;
			return;
		}
	}
}

/* __print_graph_headers_flags() */
static void graph_print_header(struct trace_iter *iter)
{
	uint32_t fl = iter->tracer_flags;
	struct trace_seq *s = &iter->seq;

	graph_state(iter);
	if (!(iter->iter_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	ut_seq_putc(s, '#');
	if (fl & GRAPH_ABS_TIME)
		ut_seq_puts(s, "     TIME       ");
	if (fl & GRAPH_CPU)
		ut_seq_puts(s, " CPU");
	if (fl & GRAPH_PROC)
		ut_seq_puts(s, "  TASK/PID       ");
	if (fl & GRAPH_DURATION)
		ut_seq_puts(s, "  DURATION   ");
	ut_seq_puts(s, "               FUNCTION CALLS\n");

	ut_seq_putc(s, '#');
	if (fl & GRAPH_ABS_TIME)
		ut_seq_puts(s, "      |         ");
	if (fl & GRAPH_CPU)
		ut_seq_puts(s, " |  ");
	if (fl & GRAPH_PROC)
		ut_seq_puts(s, "   |    |        ");
	if (fl & GRAPH_DURATION)
		ut_seq_puts(s, "   |   |      ");
	ut_seq_puts(s, "               |   |   |   |\n");
}

/* verif_pid(): a banner when another thread runs on this cpu */
static void verif_tid(struct trace_iter *iter, const struct ut_event *ev)
{
	struct graph_state *g = graph_state(iter);
	struct graph_cpu *c;
	struct trace_seq *s = &iter->seq;

	if (ev->cpu >= TRACE_MAX_CPUS)
		return;
	c = &g->cpus[ev->cpu];
	if (c->last_tid == ev->tid)
		return;
	if (c->last_tid != -1) {
		ut_seq_puts(s, " ------------------------------------------\n");
		trace_print_graph_cpu(s, g->cpu_width, (int)ev->cpu);
		trace_print_graph_proc(s, c->comm, c->last_tid);
		ut_seq_puts(s, " => ");
		trace_print_graph_proc(s, trace_comm(ev), ev->tid);
		ut_seq_puts(s, "\n ------------------------------------------\n\n");
	}
	c->last_tid = ev->tid;
	snprintf(c->comm, sizeof(c->comm), "%s", trace_comm(ev));
}

/*
 * A recorded sched_switch (recorder/sched_source.c): the CPU goes to its next
 * task now, with the banner verif_pid() prints when it sees another
 * task's first entry; the next task's own records then need none.
 */
static void graph_sched_switch(struct trace_iter *iter, const struct ut_event *ev)
{
	struct trace_sched_switch sw;
	char next[17];
	struct ut_event nev = *ev;
	struct ut_thread_info ti;

	if (ev->cpu >= TRACE_MAX_CPUS || !trace_sched_switch_fields(ev, &sw))
		return;
	if (sw.next_pid == 0 && !strncmp(sw.next_comm, "swapper", 7))
		snprintf(next, sizeof(next), "<idle>");
	else
		snprintf(next, sizeof(next), "%.16s", sw.next_comm);
	memset(&ti, 0, sizeof(ti));
	snprintf(ti.comm, sizeof(ti.comm), "%s", next);
	nev.thread = &ti;
	nev.tid = sw.next_pid;
	/* the banner from the task now on the CPU (the switch's prev, by verif_tid()) */
	verif_tid(iter, ev);
	verif_tid(iter, &nev);
}

/* print_graph_prologue() */
static void graph_prologue(struct trace_iter *iter, const struct ut_event *ev)
{
	struct graph_state *g = graph_state(iter);
	uint32_t fl = iter->tracer_flags;
	struct trace_seq *s = &iter->seq;

	verif_tid(iter, ev);
	if (!(iter->iter_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	/* print_graph_abs_time(): "%5lu.%06lu |  ", truncated to the microsecond */
	if (fl & GRAPH_ABS_TIME) {
		uint64_t t = trace_clock_value(iter, ev);

		ut_seq_udec(s, t / 1000000000u, 5, ' ');
		ut_seq_putc(s, '.');
		ut_seq_udec(s, t % 1000000000u / 1000u, 6, '0');
		ut_seq_puts(s, " |  ");
	}
	if (fl & GRAPH_CPU)
		trace_print_graph_cpu(s, g->cpu_width, (int)ev->cpu);
	if (fl & GRAPH_PROC) {
		trace_print_graph_proc(s, trace_comm(ev), ev->tid);
		ut_seq_puts(s, " | ");
	}
}

/* print_graph_duration() */
static void graph_duration(struct trace_iter *iter, uint64_t ns, enum dur_fill fill)
{
	struct trace_seq *s = &iter->seq;

	if (!(iter->tracer_flags & GRAPH_DURATION) ||
	    !(iter->iter_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	if (fill == DUR_FILL) {
		ut_seq_puts(s, "              |  ");
		return;
	}
	ut_seq_putc(s, iter->tracer_flags & GRAPH_OVERHEAD ? trace_find_mark(ns) : ' ');
	ut_seq_putc(s, ' ');
	trace_print_graph_duration(s, ns);
	ut_seq_puts(s, "|  ");
}

static int clamp_depth(uint32_t depth)
{
	return depth > INT_MAX - 2 ? INT_MAX - 2 : (int)depth;
}

static void graph_print_func(struct trace_iter *iter, const struct ut_event *ev, uint64_t func)
{
	trace_print_sym_flags(iter, ev, func, TRACE_SYM_PS);
}

static void graph_entry(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_thread *t = trace_thread_get(iter, ev);
	struct ut_cs_change c;
	struct ut_event next;
	struct trace_seq *s = &iter->seq;
	int leaf;

	graph_prologue(iter, ev);

	/* get_return_for_leaf(): the thread's next event returns from this call */
	leaf = ut_merge_peek_same(iter->merge, &next) > 0 && next.type == UT_EV_EXIT &&
	       next.depth == ev->depth && (!next.ip || next.ip == ev->ip);
	if (leaf) {
		ut_merge_skip_same(iter->merge);
		/* comments display at depth + 1: keep them at this depth */
		t->comment_depth = clamp_depth(ev->depth) - 1;
		ut_callstack_entry(&t->cs, ev, &c);
		ut_callstack_exit(&t->cs, ev->depth, next.ts, &c);
		graph_duration(iter, next.ts > ev->ts ? next.ts - ev->ts : 0, DUR_TIME);
		ut_seq_spaces(s, (uint64_t)ev->depth * TRACE_GRAPH_INDENT);
		graph_print_func(iter, ev, ev->ip);
		ut_seq_puts(s, "();\n");
		return;
	}

	t->comment_depth = clamp_depth(ev->depth);
	ut_callstack_entry(&t->cs, ev, &c);
	graph_duration(iter, 0, DUR_FILL);
	ut_seq_spaces(s, (uint64_t)ev->depth * TRACE_GRAPH_INDENT);
	graph_print_func(iter, ev, ev->ip);
	ut_seq_puts(s, "() {\n");
}

/* print_graph_return(), of an EXIT or of a RETURN */
static void graph_return(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_thread *t = trace_thread_get(iter, ev);
	const struct ut_cs_frame *f = ut_callstack_at(&t->cs, ev->depth);
	struct ut_cs_change c;
	uint64_t func = ev->ip;
	struct trace_seq *s = &iter->seq;
	int match = 0, timed = 0, whole = ev->type == UT_EV_RETURN;
	uint64_t ns = 0;

	/* comments display at the level of the closing brace */
	t->comment_depth = clamp_depth(ev->depth) - 1;
	if (whole) {
		/* tracing_thresh: the return holds the duration; no entry was recorded to match */
		timed = 1;
		ns = ev->duration;
	} else if (f && f->ip) {
		if (!func)
			func = f->ip;
		match = f->ip == func;
		timed = match;
	}
	/* no call is open at its depth any more */
	ut_callstack_exit(&t->cs, ev->depth, ev->ts, &c);
	if (timed && !whole)
		ns = c.dur;

	graph_prologue(iter, ev);
	/* the entry is not in the trace (lost, or before a fork): no duration */
	graph_duration(iter, ns, timed ? DUR_TIME : DUR_FILL);
	ut_seq_spaces(s, (uint64_t)ev->depth * TRACE_GRAPH_INDENT);
	/* a closing brace without its entry names its function */
	if (!whole && (!func || (match && !(iter->tracer_flags & GRAPH_TAIL)))) {
		ut_seq_puts(s, "}\n");
	} else {
		ut_seq_puts(s, "} /* ");
		graph_print_func(iter, ev, func);
		ut_seq_puts(s, " */\n");
	}
}

/* print_graph_comment(): trace_marker text, and events of other tracers */
static void graph_comment(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_thread *t = trace_thread_get(iter, ev);
	int depth = t->comment_depth;
	struct trace_seq *s = &iter->seq;

	graph_prologue(iter, ev);
	graph_duration(iter, 0, DUR_FILL);
	if (depth > 0)
		ut_seq_spaces(s, ((uint64_t)depth + 1) * TRACE_GRAPH_INDENT);
	ut_seq_puts(s, "/* ");
	if (ev->type == UT_EV_MARKER) {
		trace_print_marker_text(s, ev);
	} else if (ev->type == UT_EV_TRACE) {
		/* the event's text, its last newline stripped */
		trace_print_stack_text(iter, ev);
	} else if (ev->type == UT_EV_EVENT) {
		trace_print_event_text(iter, ev, 1);
	} else {
		/* a function record, as trace_fn_trace() prints it */
		trace_print_sym(iter, ev, ev->ip);
		if ((iter->iter_flags & TRACE_ITER_PRINT_PARENT) && ev->parent) {
			ut_seq_puts(s, " <-");
			trace_print_sym(iter, ev, ev->parent);
		}
	}
	ut_seq_puts(s, " */\n");
}

/*
 * After lost records the stream restated its open calls (UT_EV_DEPTH): the
 * calls between the old and the new depth ended unseen (their returns were
 * lost: the kernel prints nothing for them either) or began unseen.  No
 * entry the trace shows is open there any more, so a return at those
 * depths has no duration and names its function, whatever entry of the
 * same function was last printed at that depth.
 */
static void graph_depth(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_thread *t = trace_thread_get(iter, ev);
	struct ut_cs_change c;

	ut_callstack_restate(&t->cs, ev->depth, ev->ts, &c);
	t->comment_depth = clamp_depth(ev->depth) - 1;
}

static enum print_line_t graph_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	switch (ev->type) {
	case UT_EV_DEPTH:
		graph_depth(iter, ev);
		break;
	case UT_EV_ENTRY:
		graph_entry(iter, ev);
		break;
	case UT_EV_EXIT:
	case UT_EV_RETURN:
		graph_return(iter, ev);
		break;
	case UT_EV_MARKER:
	case UT_EV_FUNC:
	case UT_EV_TRACE:
	case UT_EV_EVENT:
		graph_comment(iter, ev);
		if (trace_event_is(iter, ev, "sched", "sched_switch"))
			graph_sched_switch(iter, ev);
		break;
	default:
		return TRACE_TYPE_UNHANDLED;
	}
	return TRACE_TYPE_HANDLED;
}

static void graph_close(struct trace_iter *iter)
{
	free(iter->priv);
	iter->priv = NULL;
}

const struct tracer function_graph_tracer = {
	.name		= "function_graph",
	.opts		= graph_opts,
	.print_header	= graph_print_header,
	.open		= graph_open,
	.print_line	= graph_print_line,
	.close		= graph_close,
};
