// SPDX-License-Identifier: MIT
/*
 * clock.c - the names of trace_clock (see output/tracer.h), apart from
 * the printing code so that the tracing directory's table can use them.
 */
#include <string.h>

#include "output/tracer.h"

const char *const trace_clock_names[TRACE_NR_CLOCKS] = {
	[TRACE_CLOCK_LOCAL] = "local",
	[TRACE_CLOCK_GLOBAL] = "global",
	[TRACE_CLOCK_COUNTER] = "counter",
	[TRACE_CLOCK_PERF] = "perf",
	[TRACE_CLOCK_MONO] = "mono",
	[TRACE_CLOCK_MONO_RAW] = "mono_raw",
	[TRACE_CLOCK_BOOT] = "boot",
	[TRACE_CLOCK_TAI] = "tai",
	[TRACE_CLOCK_X86_TSC] = "x86-tsc",
};

int trace_clock_find(const char *name)
{
	for (int i = 0; name && i < TRACE_NR_CLOCKS; i++)
		if (!strcmp(name, trace_clock_names[i]))
			return i;
	return -1;
}
