// SPDX-License-Identifier: MIT
/*
 * irqsoff.c - the output parts of the irqsoff, preemptoff and
 * preemptirqsoff tracers, as the kernel's trace_irqsoff.c: the latency
 * format (output/latency.c) over the trace of the longest section,
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
#include "output/output.h"
#include "output/tracer.h"

/* the sections: 1 signals blocked, 2 preemption off (runtime/tracers/latency.h's UT_LAT_*) */
LATENCY_TRACER(irqsoff, 1);
LATENCY_TRACER(preemptoff, 2);
LATENCY_TRACER(preemptirqsoff, 3);
