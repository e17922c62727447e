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
#define UT_RECORD(NAME, name, type, counts, fields)	UT_REC_##NAME = type,
#define UT_SIZED(NAME, name, type, counts, unit, max, fields)	UT_REC_##NAME = type,
#include "entries.h"
#undef UT_SIZED
#undef UT_RECORD
};

/*
 * One packed struct per type, the header included: struct ut_rec_entry,
 * struct ut_rec_return, ...  A u48 is 6 bytes (ut_get48()/ut_put48()); a
 * sized record's n and the variable part (entries.h) are members too.
 * Records are unaligned in the pages: the structs give offsets and
 * lengths (UT_REC_OFF(), UT_REC_LEN()); bytes are moved with memcpy().
 */
/* the bytes of an address, or a time, in a record (a u48: ut_get48(), ut_put48()) */
#define UT_ADDR_BYTES	6u

/* what every sized record starts with (entries.h) */
struct ut_rec_sized {
	uint32_t hdr;
	uint16_t n;
} __attribute__((packed));

#define UT_U8(f)	uint8_t f;
#define UT_U16(f)	uint16_t f;
#define UT_U32(f)	uint32_t f;
#define UT_U48(f)	unsigned char f[UT_ADDR_BYTES];
#define UT_VAR(f)	unsigned char f[];
#define UT_RECORD(NAME, name, type, counts, fields)		\
	struct ut_rec_##name {					\
		uint32_t hdr;					\
		fields						\
	} __attribute__((packed));
#define UT_SIZED(NAME, name, type, counts, unit, max, fields)	\
	struct ut_rec_##name {					\
		uint32_t hdr;					\
		uint16_t n;					\
		fields						\
	} __attribute__((packed));
#include "entries.h"
#undef UT_SIZED
#undef UT_RECORD
#undef UT_VAR
#undef UT_U48
#undef UT_U32
#undef UT_U16
#undef UT_U8

/* ut_rec_write_bytes() writes these: n, then the bytes */
_Static_assert(sizeof(struct ut_rec_data) == sizeof(struct ut_rec_sized) &&
	       sizeof(struct ut_rec_event) == sizeof(struct ut_rec_sized), "DATA and EVENT layout");

/* the length of a record of type ut_rec_@name (of a sized one: of its fixed part) */
#define UT_REC_LEN(name)	((uint32_t)sizeof(struct ut_rec_##name))
/* the offset of its field @f */
#define UT_REC_OFF(name, f)	((uint32_t)__builtin_offsetof(struct ut_rec_##name, f))
/* what the length of every sized record counts from: the header and its u16 n */
#define UT_REC_SIZED_BASE	UT_REC_LEN(sized)
/* the largest n of a TRACE_DIR record: its dir, then UT_STACK_MAX ips */
#define UT_REC_DIR_IPS_MAX	(UT_REC_OFF(trace_dir, ips) - UT_REC_SIZED_BASE + UT_ADDR_BYTES * UT_STACK_MAX)

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
	/* (no column) woken, not yet running: a wakeup tracer's wake-up (runtime/tracers/wakeup.c) */
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
#define UT_RECORD(NAME, name, type, counts, fields)	\
	[type] = { #NAME, UT_REC_LEN(name), 0, 0, counts },
#define UT_SIZED(NAME, name, type, counts, unit, max, fields)	\
	[type] = { #NAME, UT_REC_SIZED_BASE, unit, max, counts },
#include "entries.h"
#undef UT_SIZED
#undef UT_RECORD
	[RB_TYPE_TIME_EXTEND] = { "TIME_EXTEND", RB_TIME_EXTEND_LEN, 0, 0, 0 },
};

/* a free type (entries.h): sized, skipped by the readers */
static const struct ut_rec_info ut_rec_free = { NULL, UT_REC_SIZED_BASE, 1, 65535, 0 };

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
	memcpy(&h, rec, sizeof(h));
	type = RB_HDR_TYPE(h);
	ri = &ut_rec_info[type];
	if (!ri->base) {
		if (!type)
			return 0;
		ri = &ut_rec_free;
	}
	len = ri->base;
	if (ri->unit) {
		if (avail < UT_REC_SIZED_BASE)
			return 0;
		memcpy(&n, rec + UT_REC_OFF(sized, n), sizeof(n));
		if (n > ri->max)
			return 0;
		len += (uint32_t)ri->unit * n;
	}
	return len <= avail ? len : 0;
}

/* the header of a record of @type at @ts, on writer @w: the delta from its last record */
static inline void ut_rec_hdr(unsigned char *p, const struct rb_writer *w, uint32_t type, uint64_t ts)
{
	uint32_t h = RB_HDR(type, ts - w->last_ts);

	memcpy(p, &h, sizeof(h));
}

/* the n of a sized record */
static inline void ut_rec_put_n(unsigned char *p, uint16_t n)
{
	memcpy(p + UT_REC_OFF(sized, n), &n, sizeof(n));
}

static inline uint16_t ut_rec_get_n(const unsigned char *p)
{
	uint16_t n;

	memcpy(&n, p + UT_REC_OFF(sized, n), sizeof(n));
	return n;
}

/*
 * ut_rec_write_cpu - on writer @w, a CPU record at @ts if @cpu is not the
 * CPU of its last record (w->cpu, set to @cpu).  A dropped one is not
 * retried: the next page's header names the CPU.  The writers that are
 * not a traced thread use it (the recorder's sources, the tracing
 * directory's marker); the runtime's counts its loss (graph.c).
 */
static inline void ut_rec_write_cpu(struct rb_writer *w, uint64_t ts, uint32_t cpu)
{
	unsigned char *p;

	if (cpu == w->cpu)
		return;
	w->cpu = cpu;
	p = rb_reserve(w, UT_REC_LEN(cpu), &ts);
	if (!p)
		return;
	ut_rec_hdr(p, w, UT_REC_CPU, ts);
	memcpy(p + UT_REC_OFF(cpu, cpu), &cpu, sizeof(cpu));
	rb_commit(w, UT_REC_LEN(cpu), ts, ut_rec_counts(UT_REC_CPU));
}

/*
 * ut_rec_write_bytes - on writer @w, a sized record of @type of unit 1
 * at @ts: n = @len, then the @len bytes at @data (a DATA record's text,
 * an EVENT record's entry); @len is at most the type's max (entries.h).
 * Returns 1 if written, 0 if dropped.
 */
static inline int ut_rec_write_bytes(struct rb_writer *w, uint32_t type, uint64_t ts,
				     const void *data, uint32_t len)
{
	uint32_t rlen = UT_REC_SIZED_BASE + len;
	unsigned char *p;

	p = rb_reserve(w, rlen, &ts);
	if (!p)
		return 0;
	ut_rec_hdr(p, w, type, ts);
	ut_rec_put_n(p, (uint16_t)len);
	memcpy(p + UT_REC_SIZED_BASE, data, len);
	rb_commit(w, rlen, ts, ut_rec_counts(type));
	return 1;
}

/* an EVENT record of the entry @ent, @size bytes (event.h) */
static inline int ut_rec_write_event(struct rb_writer *w, uint64_t ts, const void *ent,
				     uint32_t size)
{
	return ut_rec_write_bytes(w, UT_REC_EVENT, ts, ent, size);
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
	/* a recorder source (recorder/source.h): the CPU's branch records (recorder/hwbranch_source.c) */
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
