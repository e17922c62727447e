/* SPDX-License-Identifier: MIT */
/*
 * record.h - the records usertrace stores in its ring buffers.
 *
 * Every record starts with the ring buffer's 32-bit header (type + 28-bit
 * time delta, see ringbuf.h).  Addresses are stored in 6 bytes: user-space
 * addresses on x86-64 fit in 47 bits.  A traced call costs one ENTRY (10
 * bytes) and one EXIT (4 bytes): 14 bytes.  The exit names no function:
 * it closes the innermost open entry of its thread, as the shadow stack
 * guarantees that every entry gets exactly one exit.
 *
 * The types, their lengths and payloads are listed once, in entries.h.
 */
#ifndef USERTRACE_RECORD_H
#define USERTRACE_RECORD_H

#include <stdint.h>
#include <string.h>
#include "event.h"
#include "ringbuf.h"

/* most addresses in a STACK or TRACE record */
#define UT_STACK_MAX	64

/*
 * The dir of a TRACE_DIR record that is a sysprof sample (the user stack
 * where a thread's CPU-time timer fired, innermost first), not a
 * stacktrace trigger's: no directory has this number.  A reader that
 * does not know it takes it for another directory's stack trace.
 *
 * A sample that stands for W > 1 periods of the thread's CPU time (the
 * timer fired again before its signal was taken: its overruns) is of dir
 * UT_TRACE_DIR_SAMPLE_W | (W - 1), W up to UT_SAMPLE_WEIGHT_MAX.  The
 * kernel checks the CPU-time timers at its ticks, while the thread runs:
 * a thread that runs in short slices between ticks gets fewer signals,
 * each of more periods.
 */
#define UT_TRACE_DIR_SAMPLE	0xffffu
#define UT_TRACE_DIR_SAMPLE_W	0xe000u		/* 0xe000-0xefff */
#define UT_SAMPLE_WEIGHT_MAX	4096u

/* the dir of a sample of @w periods */
static inline uint16_t ut_sample_dir(uint32_t w)
{
	if (w <= 1)
		return UT_TRACE_DIR_SAMPLE;
	return (uint16_t)(UT_TRACE_DIR_SAMPLE_W | ((w < UT_SAMPLE_WEIGHT_MAX ? w : UT_SAMPLE_WEIGHT_MAX) - 1));
}

/* the periods of a sample's @dir; 0: @dir is no sample's */
static inline uint32_t ut_sample_weight(uint32_t dir)
{
	if (dir == UT_TRACE_DIR_SAMPLE)
		return 1;
	return (dir & 0xf000u) == UT_TRACE_DIR_SAMPLE_W ? (dir & 0xfffu) + 1 : 0;
}
/*
 * The initcall tracer's (runtime/tracers/initcall.c): a constructor or
 * destructor is called (ips: the function) and returned (ips: the
 * function, its return value as a u32).
 */
#define UT_TRACE_DIR_ICALL	0xfffeu
#define UT_TRACE_DIR_ICRET	0xfffdu

enum ut_rec_type {
#define UT_RECORD(name, type, base, unit, max, counts)	UT_REC_##name = type,
#include "entries.h"
#undef UT_RECORD
};

/*
 * The context of a thread (a CTX record's flags), the kernel's latency
 * columns with their user-space meaning (doc/design/latency.md):
 *   IRQS_OFF      'd'  signals are blocked, or local_irq_disable()
 *   NEED_RESCHED  'N'  a blocked signal is pending: it waits for the
 *                      section to end, as a task waits for preemption
 *   HARDIRQ       'h'  a signal handler runs
 *   SOFTIRQ       's'  (no user-space meaning; never set)
 *   WAKING        (none) between a wake and the woken thread's run
 */
enum ut_ctx_flags {
	UT_CTX_IRQS_OFF = 0x01,
	UT_CTX_NEED_RESCHED = 0x02,
	UT_CTX_HARDIRQ = 0x04,
	UT_CTX_SOFTIRQ = 0x08,
	/* (no column) woken, not yet running: a wakeup tracer's wake-up (runtime/wakeup.c) */
	UT_CTX_WAKING = 0x10,
};

/*
 * The reporting thread's identity, at the report (a CTX record of n = 18,
 * entries.h; the control page's max record): the latency header's
 * "task: comm-pid (uid:U nice:N policy:P rt_prio:R)", as the kernel's
 * __update_max_tr() takes them.  Native byte order, unaligned in records.
 */
struct ut_ctx_task {
	int32_t uid;		/* real uid */
	int32_t nice;		/* -20..19 */
	int32_t policy;		/* SCHED_OTHER 0, SCHED_FIFO 1, SCHED_RR 2, ... */
	int32_t rt_prio;	/* 1..99 for FIFO/RR, else 0 */
};

/* what entries.h says of one type */
struct ut_rec_info {
	const char *name;
	uint8_t base;		/* length, or length without the variable part */
	uint8_t unit;		/* bytes per unit of the variable part; 0: none */
	uint16_t max;		/* most units */
	uint8_t counts;		/* an event: counted in page->entries */
};

/* by type; an unlisted type has base 0 */
static const struct ut_rec_info ut_rec_info[RB_TYPE_TIME_EXTEND + 1] = {
#define UT_RECORD(name, type, base, unit, max, counts)	\
	[type] = { #name, base, unit, max, counts },
#include "entries.h"
#undef UT_RECORD
	[RB_TYPE_TIME_EXTEND] = { "TIME_EXTEND", 8, 0, 0, 0 },
};

/* a free type (entries.h): sized, skipped by the readers */
static const struct ut_rec_info ut_rec_free = { NULL, 6, 1, 65535, 0 };

/* 1 if records of @type are events (counted), 0 if not */
static inline int ut_rec_counts(uint32_t type)
{
	return type <= RB_TYPE_TIME_EXTEND && ut_rec_info[type].counts;
}

/* the name of @type, NULL for a free one */
static inline const char *ut_rec_name(uint32_t type)
{
	return type <= RB_TYPE_TIME_EXTEND ? ut_rec_info[type].name : NULL;
}

#define UT_ADDR_MASK	0xffffffffffffull

static inline uint64_t ut_get48(const unsigned char *p)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, p, 4);
	memcpy(&hi, p + 4, 2);
	return (uint64_t)lo | ((uint64_t)hi << 32);
}

static inline void ut_put48(unsigned char *p, uint64_t v)
{
	uint32_t lo = (uint32_t)v;
	uint16_t hi = (uint16_t)(v >> 32);

	memcpy(p, &lo, 4);
	memcpy(p + 4, &hi, 2);
}

/* length of the record at @rec, 0 if it is not a valid record or does not fit in @avail */
static inline uint32_t ut_rec_len(const unsigned char *rec, uint32_t avail)
{
	const struct ut_rec_info *ri;
	uint32_t h, type, len;
	uint16_t n;

	if (avail < 4)
		return 0;
	memcpy(&h, rec, 4);
	type = RB_HDR_TYPE(h);
	ri = &ut_rec_info[type];
	if (!ri->base) {
		if (!type)
			return 0;
		ri = &ut_rec_free;
	}
	len = ri->base;
	if (ri->unit) {
		if (avail < 6)
			return 0;
		memcpy(&n, rec + 4, 2);
		if (n > ri->max)
			return 0;
		len += (uint32_t)ri->unit * n;
	}
	return len <= avail ? len : 0;
}

/* what the hooks record, derived from the active tracers' needs */
enum ut_rec_mode {
	UT_MODE_NONE = 0,	/* nop: nothing */
	UT_MODE_FUNC = 1,	/* function: FUNC records, no return hooks */
	UT_MODE_GRAPH = 2,	/* function_graph: ENTRY/EXIT */
};

/* what a tracer needs the programs to record (tracers.def) */
enum ut_need {
	UT_NEED_FUNC = 1,	/* every call: FUNC records */
	UT_NEED_GRAPH = 2,	/* calls and returns: ENTRY/EXIT */
	UT_NEED_ENTRIES = 4,	/* entries of its own (branch, hw-branch): its directory records */
	/*
	 * its calls shown flat, each with its caller, never their returns
	 * (function): a directory's ENTRY records print as FUNC events, and
	 * a recording of it has no returns for function_graph to show
	 */
	UT_NEED_CALLS_FLAT = 8,
	/* a recorder source (cmds/source.h): the CPU's branch records (cmds/hwbsrc.c) */
	UT_NEED_SRC_HWBRANCH = 16,
};

/* the records for tracers needing @needs together: the most detailed */
static inline enum ut_rec_mode ut_needs_mode(uint32_t needs)
{
	if (needs & UT_NEED_GRAPH)
		return UT_MODE_GRAPH;
	return needs & UT_NEED_FUNC ? UT_MODE_FUNC : UT_MODE_NONE;
}

#endif /* USERTRACE_RECORD_H */
