// SPDX-License-Identifier: MIT
/*
 * function.c - the function tracer: one line per traced call,
 *
 *             bash-1977    [000] .....    17284.993652: sys_close <-system_call_fastpath
 *
 * Function records print as they are.  A function_graph recording prints
 * the same way: its entries become function lines, the caller being the
 * recorded parent or else the enclosing open entry of the thread, and its
 * exits print nothing.  A call recorded whole at its return (tracing_thresh)
 * prints as its entry would, at its entry time, in the place of its return
 * in the stream.  A stack trace prints as the kernel's stack event:
 *
 *             bash-1977    [000] .....    17284.993652: <stack trace>
 *   => sys_close
 *   => system_call_fastpath
 */
#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/record.h"

/* trace_fn_trace() */
static void print_fn_line(struct trace_iter *iter, struct ut_event *ev, uint64_t parent)
{
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	trace_print_sym(iter, ev, ev->ip);
	if ((iter->iter_flags & TRACE_ITER_PRINT_PARENT) && parent) {
		ut_seq_puts(&iter->seq, " <-");
		trace_print_sym(iter, ev, parent);
	}
	ut_seq_putc(&iter->seq, '\n');
}

enum print_line_t trace_fn_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_thread *t;
	struct ut_cs_frame *f;
	struct ut_cs_change c;
	uint64_t parent;

	switch (ev->type) {
	case UT_EV_FUNC:
		print_fn_line(iter, ev, ev->parent);
		break;
	case UT_EV_ENTRY:
		t = trace_thread_get(iter, ev);
		ut_callstack_entry(&t->cs, ev, &c);
		parent = ev->parent;
		/* no parent in the record: the enclosing open entry, if one was seen */
		if (!parent && ev->depth > 0 && (f = ut_callstack_at(&t->cs, ev->depth - 1)))
			parent = f->ip;
		print_fn_line(iter, ev, parent);
		break;
	case UT_EV_EXIT:
		t = trace_thread_get(iter, ev);
		ut_callstack_exit(&t->cs, ev->depth, ev->ts, &c);
		break;
	case UT_EV_RETURN: {
		struct ut_event call = *ev;

		call.ts = ev->ts > ev->duration ? ev->ts - ev->duration : 0;
		/* no parent in the record: the enclosing open entry, if one was seen */
		t = trace_thread_get(iter, ev);
		parent = ev->parent;
		if (!parent && ev->depth > 0 && (f = ut_callstack_at(&t->cs, ev->depth - 1)))
			parent = f->ip;
		print_fn_line(iter, &call, parent);
		break;
	}
	case UT_EV_DEPTH: {
		/* calls ended or began unseen: no known caller at those depths */
		t = trace_thread_get(iter, ev);
		ut_callstack_restate(&t->cs, ev->depth, ev->ts, &c);
		break;
	}
	default:
		/* markers, stack traces, events: the generic lines */
		return TRACE_TYPE_UNHANDLED;
	}
	return TRACE_TYPE_HANDLED;
}

const struct tracer function_tracer = {
	.name		= "function",
	.print_header	= trace_default_header,
	.print_line	= trace_fn_print_line,
};
