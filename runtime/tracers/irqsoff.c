// SPDX-License-Identifier: MIT
/*
 * irqsoff.c - the runtime parts of the irqsoff, preemptoff and
 * preemptirqsoff tracers: the sections they measure (runtime/latency.c
 * does the measuring; their needs, UT_NEED_FUNC, the calls inside).
 */
#include "runtime/runtime.h"
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_irqsoff = {
	.name = "irqsoff",
	.lat = UT_LAT_IRQ,
};

const struct ut_rt_tracer ut_rt_tracer_preemptoff = {
	.name = "preemptoff",
	.lat = UT_LAT_PREEMPT,
};

const struct ut_rt_tracer ut_rt_tracer_preemptirqsoff = {
	.name = "preemptirqsoff",
	.lat = UT_LAT_IRQ | UT_LAT_PREEMPT,
};
