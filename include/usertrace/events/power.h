/* SPDX-License-Identifier: MIT */
/*
 * power.h - the built-in `power` events: the frequency and idle states
 * of the CPUs the traced threads ran on.  Not written by the programs:
 * the recorder collects them (recorder/power_source.c) from the kernel's own
 * events (tracefs) or by sampling /sys/devices/system/cpu.  As the
 * kernel's events/power/NAME/format.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM power

#if !defined(USERTRACE_EVENTS_POWER_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_POWER_H

#include <stdint.h>
#include "usertrace/tracepoint.h"

#ifndef UT_POWER_TYPES
#define UT_POWER_TYPES
/* the kernel's type name, as its format shows it */
typedef uint32_t u32;
/* cpu_idle's state when the CPU leaves idle (the kernel's PWR_EVENT_EXIT, -1) */
#define UT_PWR_EVENT_EXIT	4294967295u
#endif

/* a state of CPU @cpu_id: the two events below, as the kernel's class `cpu` */
DECLARE_EVENT_CLASS(cpu,
	TP_PROTO(uint32_t state, uint32_t cpu_id),
	TP_ARGS(state, cpu_id),
	TP_STRUCT__entry(
		__field(u32, state)
		__field(u32, cpu_id)
	),
	TP_fast_assign(
		__entry->state = state;
		__entry->cpu_id = cpu_id;
	),
	TP_printk("state=%lu cpu_id=%lu", (unsigned long)__entry->state, (unsigned long)__entry->cpu_id)
);

/* CPU @cpu_id runs at @state kHz */
DEFINE_EVENT(cpu, cpu_frequency,
	TP_PROTO(uint32_t state, uint32_t cpu_id),
	TP_ARGS(state, cpu_id)
);

/* CPU @cpu_id enters idle state @state (UT_PWR_EVENT_EXIT: leaves idle) */
DEFINE_EVENT(cpu, cpu_idle,
	TP_PROTO(uint32_t state, uint32_t cpu_id),
	TP_ARGS(state, cpu_id)
);

#endif /* USERTRACE_EVENTS_POWER_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE power
#include "usertrace/define_trace.h"
