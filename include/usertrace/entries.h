/* SPDX-License-Identifier: MIT */
/*
 * entries.h - the wire records, defined once.
 *
 * Each UT_RECORD() line is one type of record in the ring buffers and in
 * the .dat files.  This file has no include guard: like the kernel's
 * trace_entries.h, it is included several times with UT_RECORD defined
 * to make different things of the same list (record.h makes the
 * `enum ut_rec_type` and the length/event table from it).
 *
 *   UT_RECORD(NAME, type, base, unit, max, counts)
 *
 *   type    the 4-bit type in the record header (ringbuf.h); 15 is the
 *           ring buffer's own TIME_EXTEND, 1..14 are ours
 *   base    the length in bytes, header included, of a record without a
 *           variable part
 *   unit    0: the length is base.  Otherwise the record is "sized": a
 *           u16 n follows the header (offset 4) and the length is
 *           base + unit * n
 *   max     the largest n a writer makes (a larger one is corrupt)
 *   counts  1: an event, counted in page->entries and in the lost and
 *           overrun numbers; 0: a record that describes the stream
 *
 * Type 14 is free.  A reader takes them as sized records with
 * unit 1 and skips them, so that a newer writer's record is not taken
 * for corruption by an older reader.  ENTRY and EXIT are also written by
 * the assembly fast path (arch/x86_64/entry.h, runtime/asm-offsets.h):
 * their type and length must not change.
 *
 *   type           bytes  payload
 *   ENTRY            10   ip
 *   EXIT              4   -
 *   FUNC             16   ip, parent ip          (function tracer)
 *   ENTRY_PARENT     16   ip, parent ip          (graph entry at depth 0)
 *   DEPTH             8   u32 shadow-stack depth (first record of a page)
 *   CPU               8   u32 cpu                (the thread migrated)
 *   STACK        6+6*n    u16 n, n ips, outermost first (the open calls
 *                         at the start of a buffer or after a hole)
 *   DATA          6+len   u16 len, bytes         (trace_marker text)
 *   RETURN           18   ip, u16 depth, u48 duration in clock units
 *                         (a call at least tracing_thresh long; its
 *                         ENTRY was not written; time = the return)
 *   TRACE        6+6*n    u16 n, n ips, innermost first (a stacktrace
 *                         function command fired)
 *   EVENT          6+len  u16 len, an entry of len bytes (event.h): the
 *                         common fields, whose common_type is the event
 *                         id, then the event's fields; unaligned
 *   TRACE_DIR      6+len  u16 len, u16 dir, (len - 2) / 6 ips, innermost
 *                         first: a stacktrace trigger's stack for one
 *                         directory of the tracing directory (1: the top,
 *                         d + 1: instance d of the registry, evreg.h);
 *                         sized as a free type, so older readers skip it;
 *                         dir 0xffff (UT_TRACE_DIR_SAMPLE): a sysprof
 *                         sample, the user stack when the thread's
 *                         CPU-time timer fired (runtime/tracers/sysprof.c);
 *                         0xe000-0xefff: a sample of (dir & 0xfff) + 1
 *                         periods (record.h)
 *   CTX           6+n     u16 n = 2, u8 flags, u8 preempt depth: the
 *                         thread's context from here on (UT_CTX_*
 *                         below), written by the latency tracers when it
 *                         changes and at each page start while it is not
 *                         plain; sized as a free type (a reader
 *                         takes the first two bytes of a longer one).
 *                         n = 18 when a latency is reported: the same
 *                         context, then struct ut_ctx_task (record.h),
 *                         the task line of the latency header
 */
/*        NAME           type base unit  max    counts */
UT_RECORD(ENTRY,           1,  10,  0,     0,     1)
UT_RECORD(EXIT,            2,   4,  0,     0,     1)
UT_RECORD(FUNC,            3,  16,  0,     0,     1)
UT_RECORD(ENTRY_PARENT,    4,  16,  0,     0,     1)
UT_RECORD(DEPTH,           5,   8,  0,     0,     0)
UT_RECORD(CPU,             6,   8,  0,     0,     0)
UT_RECORD(STACK,           7,   6,  6, UT_STACK_MAX, 0)
UT_RECORD(DATA,            8,   6,  1, 65535,     1)
UT_RECORD(RETURN,          9,  18,  0,     0,     1)
UT_RECORD(TRACE,          10,   6,  6, UT_STACK_MAX, 1)
UT_RECORD(EVENT,          11,   6,  1, UT_EVENT_MAX, 1)
UT_RECORD(TRACE_DIR,      12,   6,  1, 2 + 6 * UT_STACK_MAX, 1)
UT_RECORD(CTX,            13,   6,  1,    64,     0)
