// SPDX-License-Identifier: MIT
/*
 * wakeup.c - the output parts of the wakeup and wakeup_rt tracers, as the
 * kernel's trace_sched_wakeup.c: the latency format (lib/trace/latency.c)
 * over the trace of the longest wake-up, kept in the max buffers.
 *
 * The trace of a wake-up, in the woken thread's context: the wake (the
 * waking call, "<-" the waker's caller), the run (the waiting call, "<-"
 * its caller), and the stack where it runs again:
 *
 *	# wakeup_rt latency trace v1.1.5 on 6.18.0
 *	# latency: 1052 us, #3/3, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)
 *	...
 *	    rt-1235       1.....    0us!: pthread_cond_signal <-waker
 *	    rt-1235       1..... 1052us : pthread_cond_wait <-rt_thread
 *	    rt-1235       1..... 1052us : <stack trace>
 *	 => rt_thread
 */
#include "lib/trace/output.h"
#include "lib/trace/tracer.h"

/* the section: a wake-up (lib/trace/latency.c lat_cond()) */
LATENCY_TRACER(wakeup_rt, 4);
LATENCY_TRACER(wakeup, 4);
