// SPDX-License-Identifier: MIT
/*
 * nop.c - the nop tracer: records no function calls.  Its output is the
 * default header and whatever else the buffer holds: trace_marker writes
 * and events.
 */
#include "lib/trace/output.h"
#include "lib/trace/tracer.h"
#include "usertrace/record.h"

static void nop_print_event(struct trace_iter *iter, struct ut_event *ev)
{
	/*
	 * function records of another tracer are not shown, as after a tracer
	 * switch; a stacktrace function command's events are, as in the kernel
	 */
	if (ev->type == UT_EV_MARKER)
		trace_print_marker_line(iter, ev);
	else if (ev->type == UT_EV_TRACE)
		trace_print_stack_line(iter, ev);
	else if (ev->type == UT_EV_EVENT)
		trace_print_event_line(iter, ev);
}

const struct tracer nop_tracer = {
	.name		= "nop",
	.print_header	= trace_default_header,
	.print_event	= nop_print_event,
	.finish		= NULL,
};
