// SPDX-License-Identifier: MIT
/*
 * initcall.c - the initcall tracer's output: each constructor and
 * destructor of the program and its libraries (runtime/tracers/initcall.c)
 * as the kernel's initcall_debug prints each initcall (init/main.c,
 * do_one_initcall_debug and trace_initcall_finish_cb):
 *
 *           app-4055    [001] .....   240.132371: calling  setup_tables+0x0/0x5a @ 4055
 *           app-4055    [001] .....   240.142390: initcall setup_tables+0x0/0x5a returned 0 after 10019 usecs
 *
 * The function as %pS, the thread id, the return value (0: constructors
 * return nothing) and the call's duration in microseconds, measured by
 * the runtime around the call (the kernel's shifts nanoseconds by 10;
 * these are true microseconds).
 */
#include <inttypes.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/record.h"

static enum print_line_t initcall_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	uint64_t fn;

	if (ev->type != UT_EV_INITCALL)
		return TRACE_TYPE_UNHANDLED;
	fn = ut_event_trace_ip(ev, 0);
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	if (ev->dir == UT_TRACE_DIR_ICALL) {
		ut_seq_puts(&iter->seq, "calling  ");
		trace_print_sym_flags(iter, ev, fn, TRACE_ITER_SYM_OFFSET);
		ut_seq_printf(&iter->seq, " @ %d\n", ev->tid);
		return TRACE_TYPE_HANDLED;
	}
	ut_seq_puts(&iter->seq, "initcall ");
	trace_print_sym_flags(iter, ev, fn, TRACE_ITER_SYM_OFFSET);
	ut_seq_printf(&iter->seq, " returned %d after %" PRIu64 " usecs\n",
		      (int)(uint32_t)ut_event_trace_ip(ev, 1), ut_event_trace_ip(ev, 2) / 1000);
	return TRACE_TYPE_HANDLED;
}

const struct tracer initcall_tracer = {
	.name		= "initcall",
	.print_header	= trace_default_header,
	.print_line	= initcall_print_line,
};
