// SPDX-License-Identifier: MIT
/*
 * power.c - the runtime part of the power tracer: nothing.  The CPUs'
 * frequency and idle states are collected outside the traced threads,
 * by the recorder (recorder/power_source.c).
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_power = {
	.name = "power",
};
