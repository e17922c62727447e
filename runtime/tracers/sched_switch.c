// SPDX-License-Identifier: MIT
/*
 * sched_switch.c - the runtime part of the sched_switch tracer: nothing.
 * A thread does not see itself switched out: its context switches and
 * wake-ups are collected outside the traced threads, by the recorder
 * (recorder/sched_source.c), from the kernel's sched events or from
 * perf_event_open context-switch records.
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_sched_switch = {
	.name = "sched_switch",
};
