// SPDX-License-Identifier: MIT
/*
 * irqsoff.c - the output parts of the irqsoff, preemptoff and
 * preemptirqsoff tracers, as the kernel's trace_irqsoff.c: the latency
 * format (lib/trace/latency.c) over the trace of the longest section,
 * kept in the max buffers (use_max_tr, print_max).
 *
 * The trace of a section: its start (the call that disabled, "<-" its
 * caller), the calls inside it, its end, and the stack where it ended:
 *
 *	# irqsoff latency trace v1.1.5 on 6.18.0
 *	# latency: 512 us, #4/4, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)
 *	...
 *	    app-1234      1d...    0us : sigprocmask <-work
 *	    app-1234      1d...    2us!: compute <-work
 *	    app-1234      1d...  512us : sigprocmask <-work
 *	    app-1234      1d...  513us : <stack trace>
 *	 => work
 *	 => main
 */
#include "lib/trace/output.h"
#include "lib/trace/tracer.h"

#define IRQSOFF_TRACER(tname, sections)					\
	const struct tracer tname##_tracer = {				\
		.name		= #tname,				\
		.lat_sections	= sections,				\
		.use_max_tr	= 1,					\
		.print_max	= 1,					\
		.init		= trace_lat_tracer_init,		\
		.reset		= trace_lat_tracer_reset,		\
		.open		= trace_lat_tracer_open,		\
		.print_header	= trace_default_header,			\
		.print_line	= trace_fn_print_line,			\
	}

/* the sections: 1 signals blocked, 2 preemption off (runtime/latency.c's UT_LAT_*) */
IRQSOFF_TRACER(irqsoff, 1);
IRQSOFF_TRACER(preemptoff, 2);
IRQSOFF_TRACER(preemptirqsoff, 3);
