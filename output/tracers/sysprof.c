// SPDX-License-Identifier: MIT
/*
 * sysprof.c - the sysprof tracer's output: one sample per line, the user
 * stack where the thread's CPU-time timer fired, as the kernel prints a
 * user stack trace (the userstacktrace option's entry):
 *
 *              app-4055    [001] .....   240.132371: <user stack trace>
 *  => burn
 *  => main
 *
 * The option sysprof-raw prints a sample as the seed's kernel sysprof
 * tracer (2.6.28's trace_sysprof.c) did, its "special" entries
 * "# ID ADDR FP/PID" one per line: "# 0 0 PID" starts a sample, "# 2 IP
 * 0" is a user frame (the frame pointer is not kept: 0), "# 3 PID N"
 * ends it after N frames (with "# -1 -1 -1" before it when the walk was
 * cut at the depth limit).
 *
 * Samples are made by runtime/tracers/sysprof.c; `usertrace report
 * --folded` adds them up as folded stacks for flame graphs.
 */
#include <inttypes.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/record.h"

enum { SYSPROF_RAW = 1u << 0 };

static const struct trace_opt_info sysprof_opts[] = {
	TRACER_OPT("sysprof-raw", SYSPROF_RAW, 0),
	TRACER_OPTS_END
};

static void special(struct trace_iter *iter, const struct ut_event *ev, long a, long b, long c)
{
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	ut_seq_printf(&iter->seq, "# %ld %ld %ld\n", a, b, c);
}

static enum print_line_t sysprof_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	uint64_t i, n;

	if (ev->type != UT_EV_SAMPLE)
		return TRACE_TYPE_UNHANDLED;
	n = ut_event_trace_len(ev);
	if (iter->tracer_flags & SYSPROF_RAW) {
		special(iter, ev, 0, 0, ev->tid);
		for (i = 0; i < n; i++)
			special(iter, ev, 2, (long)ut_event_trace_ip(ev, i), 0);
		if (n >= UT_STACK_MAX)
			special(iter, ev, -1, -1, -1);
		special(iter, ev, 3, ev->tid, n ? (long)n - 1 : 0);
		return TRACE_TYPE_HANDLED;
	}
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	ut_seq_puts(&iter->seq, "<user stack trace>");
	for (i = 0; i < n; i++) {
		ut_seq_puts(&iter->seq, "\n => ");
		trace_print_sym(iter, ev, ut_event_trace_ip(ev, i));
	}
	ut_seq_putc(&iter->seq, '\n');
	return TRACE_TYPE_HANDLED;
}

const struct tracer sysprof_tracer = {
	.name		= "sysprof",
	.opts		= sysprof_opts,
	.print_header	= trace_default_header,
	.print_line	= sysprof_print_line,
};
