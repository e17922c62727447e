/* SPDX-License-Identifier: MIT */
/*
 * event.h - events and tracepoints: what a program, the runtime and the
 * tools share about an event (installed; C and C++).
 *
 * An event is laid out as the kernel's `format` files describe one: the
 * common fields of struct ut_trace_entry, then its own fields.  A
 * descriptor (struct ut_event_desc) says where each field is and how the
 * event prints (`print fmt`, evaluated by libtraceevent).  The
 * tracepoint macros (tracepoint.h, define_trace.h) make one descriptor
 * and one struct ut_tracepoint per TRACE_EVENT; the ftrace entries and
 * usertrace's built-in systems have descriptors with fixed ids.
 *
 * struct ut_tracepoint and struct ut_event_desc are an ABI between the
 * programs and every later usertrace: they carry `abi`, and the runtime
 * ignores a tracepoint whose abi it does not know.
 *
 * In the ring buffers an event is one EVENT record (entries.h): the
 * 32-bit record header, a u16 length, then the entry (unaligned).
 */
#ifndef USERTRACE_EVENT_H
#define USERTRACE_EVENT_H

#include <stdint.h>

#define UT_TP_ABI		1

/*
 * Functions the headers give programs are not traced themselves (the
 * kernel's notrace): no -pg/-finstrument-functions hooks, no patchable
 * entry.
 */
#if defined(__has_attribute)
#if __has_attribute(patchable_function_entry)
#define UT_NOTRACE	__attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#endif
#endif
#ifndef UT_NOTRACE
#define UT_NOTRACE	__attribute__((no_instrument_function))
#endif

/*
 * The largest entry, common fields included: what an EVENT record may
 * carry in one ring-buffer page (RB_DATA_SIZE - 6 bytes of record
 * header and length).  Dynamic fields are cut to fit.
 */
#define UT_EVENT_MAX		4048

/* ids: the kernel's `enum trace_type` numbers for the ftrace system */
#define UT_EVENT_ID_FUNCTION		1
#define UT_EVENT_ID_KERNEL_STACK	4
#define UT_EVENT_ID_PRINT		5
#define UT_EVENT_ID_BPRINT		6
#define UT_EVENT_ID_BRANCH		9
#define UT_EVENT_ID_FUNCGRAPH_EXIT	10
#define UT_EVENT_ID_FUNCGRAPH_ENTRY	11
#define UT_EVENT_ID_USER_STACK		13
#define UT_EVENT_ID_BPUTS		15
/* hw_branch: the kernel's (2.6.29-2.6.32) is gone; a number free in today's enum */
#define UT_EVENT_ID_HW_BRANCH		32
/* usertrace's built-in event systems, in builtin order */
#define UT_EVENT_ID_BUILTIN		100
/* the programs' events, given out per session in order of registration */
#define UT_EVENT_ID_DYNAMIC		1000
#define UT_EVENT_ID_MAX			65535

/* common_flags bits, the kernel's (trace_flag_type) */
#define UT_TRACE_FLAG_IRQS_OFF		0x01	/* signals blocked */
#define UT_TRACE_FLAG_HARDIRQ		0x08	/* in a signal handler */
#define UT_TRACE_FLAG_SOFTIRQ		0x10

/* the common fields, first in every entry (8 bytes, as the kernel's) */
struct ut_trace_entry {
	uint16_t type;			/* common_type: the event id */
	uint8_t flags;			/* common_flags */
	uint8_t preempt_count;		/* common_preempt_count */
	int32_t pid;			/* common_pid: the thread id */
};

/* how a field is stored (decides the `field:` line of `format`) */
enum ut_field_kind {
	UT_FIELD_SCALAR = 0,		/* a number or a pointer */
	UT_FIELD_ARRAY = 1,		/* a fixed array: type "char[16]" */
	UT_FIELD_DATA_LOC = 2,		/* u32 (len << 16 | offset): type "__data_loc char[]" */
};

struct ut_event_field {
	const char *type;		/* C type as `format` prints it: "int", "char[16]", "__data_loc char[]" */
	const char *name;
	uint16_t offset;		/* from the start of the entry */
	uint16_t size;			/* bytes (an array: all of it; a data_loc: 4) */
	uint8_t is_signed;
	uint8_t kind;			/* enum ut_field_kind */
	uint16_t len;			/* an array's number of elements, else 0 */
};

struct ut_event_desc {
	uint32_t abi;			/* UT_TP_ABI */
	uint16_t id;			/* a fixed id, or 0: given at registration */
	uint16_t size;			/* the fixed part (the struct), common fields included */
	const char *system;
	const char *name;
	const char *print_fmt;		/* the `print fmt:` text, quotes included */
	const struct ut_event_field *fields;	/* the event's own fields */
	uint32_t nr_fields;
	uint32_t pad;
};

struct ut_tracepoint;

/* what the runtime gives a registered tracepoint */
struct ut_tracepoint_ops {
	uint32_t abi;
	/* record @ent (@size bytes, common fields to be filled) */
	void (*write)(struct ut_tracepoint *tp, struct ut_trace_entry *ent, uint32_t size);
};

#define UT_TP_PROBES		8

/* state bits */
#define UT_TP_STATE_PROBES	1u	/* register_trace_X() added a probe */
#define UT_TP_STATE_RECORD	2u	/* the runtime records the event */

struct ut_tp_probe {
	void *func;
	void *data;
};

/*
 * One per tracepoint, in the program's .data, with a pointer to it in the
 * section __ut_tracepoints_ptrs.  The call site tests `state` only.
 * `state` is shared by the program (PROBES) and the runtime (RECORD):
 * each changes its bit with an atomic or/and, never a plain store.
 * `probes` belong to tracepoint.h: a sequence lock (`probes_seq`)
 * orders the writers and lets a caller read a consistent copy.
 */
struct ut_tracepoint {
	uint32_t state;			/* UT_TP_STATE_*, read relaxed by the call site */
	uint16_t abi;			/* UT_TP_ABI */
	uint16_t id;			/* the event id, set by the runtime */
	const char *name;		/* "system:name", or the DECLARE_TRACE name */
	const struct ut_event_desc *desc;	/* NULL: probes only (DECLARE_TRACE) */
	const struct ut_tracepoint_ops *ops;	/* set by the runtime */
	void *priv;			/* the runtime's */
	struct ut_tp_probe probes[UT_TP_PROBES];	/* in order, the used ones first */
	uint32_t probes_seq;		/* odd while register/unregister_trace_X change probes[] */
	uint32_t pad;
};

#define UT_TP_SECTION		"__ut_tracepoints_ptrs"

#endif /* USERTRACE_EVENT_H */
