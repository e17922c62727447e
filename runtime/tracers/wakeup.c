// SPDX-License-Identifier: MIT
/*
 * wakeup.c - the runtime parts of the wakeup and wakeup_rt tracers: the
 * wake-ups they measure (runtime/wakeup.c does the measuring).
 */
#include "runtime/runtime.h"
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_wakeup = {
	.name = "wakeup",
	.wake = UT_WAKE_ALL,
};

const struct ut_rt_tracer ut_rt_tracer_wakeup_rt = {
	.name = "wakeup_rt",
	.wake = UT_WAKE_RT,
};
