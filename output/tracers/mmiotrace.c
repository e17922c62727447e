// SPDX-License-Identifier: MIT
/*
 * mmiotrace.c - the mmiotrace tracer: accesses to device memory mapped
 * into the traced program (runtime/tracers/mmiotrace.c), printed in the
 * text format of the kernel's mmiotrace (Documentation/trace/
 * mmiotrace.rst), which its tools parse:
 *
 *   VERSION 20070824
 *   MAP 0.000512 1 0xfebf0000 0x7f3c2a1ff000 0x1000 0x0 0
 *   W 4 0.000530 1 0xfebf0004 0x12345678 0x55d0c4e0a1c9 0
 *   R 2 0.000541 1 0xfebf0004 0x5678 0x55d0c4e0a1e2 0
 *   UNKNOWN 0.000550 1 0xfebf0010 f3,48,a5 0x55d0c4e0a1f0 0
 *   MARK 0.000560 text
 *   UNMAP 0.000580 1 0x0 0
 *
 * R/W: width, time (s.us), map id, physical address, value, pc, 0.
 * MAP: time, map id, physical address, virtual address, length, 0x0, 0.
 * An instruction the runtime could not decode is UNKNOWN with its first
 * three bytes.  A marker (trace_marker, trace_printk) is a MARK line.
 * Other events print as nop prints them.
 */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/event.h"
#include "reader/data.h"

/* both events' layouts (the kernel's): usertrace/events/mmiotrace.h's fields */
#define UT_TRACE_LAYOUTS
#include "usertrace/events/mmiotrace.h"

#define RW_OFF(f)	offsetof(struct ut_raw_mmiotrace_rw, f)
#define MAP_OFF(f)	offsetof(struct ut_raw_mmiotrace_map, f)
/* the bytes up to the last field (the struct's size adds padding) */
#define RW_SIZE		(RW_OFF(width) + 1)
#define MAP_SIZE	(MAP_OFF(opcode) + 1)

/* the kernel's enum mm_io_opcode (usertrace/events/mmiotrace.h) */
enum { MMIO_READ = 1, MMIO_WRITE = 2, MMIO_PROBE = 3, MMIO_UNPROBE = 4, MMIO_UNKNOWN_OP = 5 };

static const char *const mmiotrace_events[] = {
	"mmiotrace:mmiotrace_rw", "mmiotrace:mmiotrace_map", NULL
};

static uint64_t u64_at(const struct ut_event *ev, unsigned off)
{
	uint64_t v;

	memcpy(&v, ev->data + off, sizeof(v));
	return v;
}

static int i32_at(const struct ut_event *ev, unsigned off)
{
	int32_t v;

	memcpy(&v, ev->data + off, sizeof(v));
	return v;
}

static void mmiotrace_header(struct trace_iter *iter)
{
	ut_seq_puts(&iter->seq, "VERSION 20070824\n");
}

static enum print_line_t mmiotrace_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	struct trace_seq *s = &iter->seq;
	uint64_t t = trace_clock_value(iter, ev), phys;
	unsigned secs, usec;
	int id;

	if (trace_clock_in_ns(iter->clock))
		t /= 1000;	/* ns2usecs() */
	secs = (unsigned)(t / 1000000);
	usec = (unsigned)(t % 1000000);
	if (ev->type == UT_EV_MARKER && ev->data) {
		size_t n = strnlen(ev->data, ev->data_len);

		ut_seq_printf(s, "MARK %u.%06u ", secs, usec);
		ut_seq_putmem(s, ev->data, n);
		if (!n || ev->data[n - 1] != '\n')
			ut_seq_putc(s, '\n');
		return TRACE_TYPE_HANDLED;
	}
	if (ev->type != UT_EV_EVENT || !ev->data)
		return TRACE_TYPE_UNHANDLED;
	if (trace_event_is(iter, ev, "ftrace", "print") || trace_event_is(iter, ev, "ftrace", "bprint")) {
		size_t len = s->len;

		ut_seq_printf(s, "MARK %u.%06u ", secs, usec);
		trace_print_event_text(iter, ev, 1);
		if (s->len == len || s->buf[s->len - 1] != '\n')
			ut_seq_putc(s, '\n');
		return TRACE_TYPE_HANDLED;
	}
	if (ev->data_len >= RW_SIZE && trace_event_is(iter, ev, "mmiotrace", "mmiotrace_rw")) {
		uint64_t val = u64_at(ev, RW_OFF(value)), pc = u64_at(ev, RW_OFF(pc));
		unsigned op = (unsigned char)ev->data[RW_OFF(opcode)];
		unsigned width = (unsigned char)ev->data[RW_OFF(width)];

		phys = u64_at(ev, RW_OFF(phys));
		id = i32_at(ev, RW_OFF(map_id));
		if (op == MMIO_READ || op == MMIO_WRITE)
			ut_seq_printf(s, "%c %u %u.%06u %d 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0\n",
				      op == MMIO_READ ? 'R' : 'W', width, secs, usec, id, phys, val, pc);
		else if (op == MMIO_UNKNOWN_OP)
			ut_seq_printf(s, "UNKNOWN %u.%06u %d 0x%" PRIx64 " %02x,%02x,%02x 0x%" PRIx64
				      " 0\n", secs, usec, id, phys, (unsigned)(val >> 16) & 0xff,
				      (unsigned)(val >> 8) & 0xff, (unsigned)val & 0xff, pc);
		else
			ut_seq_puts(s, "rw what?\n");
		return TRACE_TYPE_HANDLED;
	}
	if (ev->data_len >= MAP_SIZE && trace_event_is(iter, ev, "mmiotrace", "mmiotrace_map")) {
		unsigned op = (unsigned char)ev->data[MAP_OFF(opcode)];

		phys = u64_at(ev, MAP_OFF(phys));
		id = i32_at(ev, MAP_OFF(map_id));
		if (op == MMIO_PROBE)
			ut_seq_printf(s, "MAP %u.%06u %d 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
				      " 0x0 0\n", secs, usec, id, phys, u64_at(ev, MAP_OFF(virt)),
				      u64_at(ev, MAP_OFF(len)));
		else if (op == MMIO_UNPROBE)
			ut_seq_printf(s, "UNMAP %u.%06u %d 0x0 0\n", secs, usec, id);
		else
			ut_seq_puts(s, "map what?\n");
		return TRACE_TYPE_HANDLED;
	}
	return TRACE_TYPE_UNHANDLED;
}

const struct tracer mmiotrace_tracer = {
	.name		= "mmiotrace",
	.events		= mmiotrace_events,
	.print_header	= mmiotrace_header,
	.print_line	= mmiotrace_print_line,
};
