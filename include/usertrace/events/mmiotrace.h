/* SPDX-License-Identifier: MIT */
/*
 * mmiotrace.h - the built-in `mmiotrace` events: accesses to device
 * memory mapped into the program, and its mappings (runtime/mmio.c).
 * The kernel writes these as entries of its ftrace system
 * (events/ftrace/mmiotrace_rw, mmiotrace_map); here they are a system of
 * their own, with the kernel's fields, layout and print fmt, written
 * while the mmiotrace tracer runs.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmiotrace

#if !defined(USERTRACE_EVENTS_MMIOTRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_MMIOTRACE_H

#include <stdint.h>
#include "usertrace/tracepoint.h"

#ifndef UT_MMIO_OPCODES
#define UT_MMIO_OPCODES
/* the kernel's enum mm_io_opcode */
enum {
	UT_MMIO_READ = 1,
	UT_MMIO_WRITE = 2,
	UT_MMIO_PROBE = 3,
	UT_MMIO_UNPROBE = 4,
	UT_MMIO_UNKNOWN_OP = 5,
};
/* the kernel's type of a physical address, as its format names it */
typedef uint64_t resource_size_t;
#endif

/* a read or write of @width bytes at @phys, of @value, by the code at @pc */
TRACE_EVENT(mmiotrace_rw,
	TP_PROTO(uint64_t phys, unsigned long value, unsigned long pc, int map_id,
		 unsigned char opcode, unsigned char width),
	TP_ARGS(phys, value, pc, map_id, opcode, width),
	TP_STRUCT__entry(
		__field(resource_size_t, phys)
		__field(unsigned long, value)
		__field(unsigned long, pc)
		__field(int, map_id)
		__field(unsigned char, opcode)
		__field(unsigned char, width)
	),
	TP_fast_assign(
		__entry->phys = phys;
		__entry->value = value;
		__entry->pc = pc;
		__entry->map_id = map_id;
		__entry->opcode = opcode;
		__entry->width = width;
	),
	TP_printk("%lx %lx %lx %d %x %x", (unsigned long)__entry->phys, __entry->value, __entry->pc, __entry->map_id, __entry->opcode, __entry->width)
);

/* region @map_id mapped (UT_MMIO_PROBE) at @virt, @len bytes of @phys, or unmapped */
TRACE_EVENT(mmiotrace_map,
	TP_PROTO(uint64_t phys, unsigned long virt, unsigned long len, int map_id,
		 unsigned char opcode),
	TP_ARGS(phys, virt, len, map_id, opcode),
	TP_STRUCT__entry(
		__field(resource_size_t, phys)
		__field(unsigned long, virt)
		__field(unsigned long, len)
		__field(int, map_id)
		__field(unsigned char, opcode)
	),
	TP_fast_assign(
		__entry->phys = phys;
		__entry->virt = virt;
		__entry->len = len;
		__entry->map_id = map_id;
		__entry->opcode = opcode;
	),
	TP_printk("%lx %lx %lx %d %x", (unsigned long)__entry->phys, __entry->virt, __entry->len, __entry->map_id, __entry->opcode)
);

#endif /* USERTRACE_EVENTS_MMIOTRACE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE mmiotrace
#include "usertrace/define_trace.h"
