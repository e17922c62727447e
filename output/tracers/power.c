// SPDX-License-Identifier: MIT
/*
 * power.c - the power tracer: the power:cpu_frequency and power:cpu_idle
 * events of the CPUs the traced threads ran on, which the recorder
 * writes (recorder/power_source.c), printed as the kernel prints them
 * ("cpu_idle: state=1 cpu_id=0").  The kernel's old power tracer is
 * gone; its events are what tools read today.
 */
#include "output/output.h"
#include "output/tracer.h"

static const char *const power_events[] = {
	"power:cpu_frequency", "power:cpu_idle", NULL
};

const struct tracer power_tracer = {
	.name		= "power",
	.events		= power_events,
	.print_header	= trace_default_header,
};
