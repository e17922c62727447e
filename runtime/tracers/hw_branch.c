// SPDX-License-Identifier: MIT
/*
 * hw_branch.c - the runtime part of the hw-branch tracer: nothing.  The
 * branches are the CPU's records, read through perf_event_open outside
 * the traced threads by the recorder (recorder/hwbranch_source.c, decoded by
 * output/hwbranch.h); the tracer exists only
 * where the machine gives them (struct tracer's available).
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_hw_branch = {
	.name = "hw-branch",
};
