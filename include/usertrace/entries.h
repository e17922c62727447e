/* SPDX-License-Identifier: MIT */
/*
 * entries.h - the wire records, defined once.
 *
 * Each line is one type of record in the ring buffers and in the .dat
 * files: its type, how its length is found, and its payload's fields.
 * This file has no include guard: like the kernel's trace_entries.h, it
 * is included several times with UT_RECORD and UT_SIZED defined to make
 * different things of the same list (record.h makes the `enum
 * ut_rec_type`, one packed `struct ut_rec_<name>` per type, the
 * length/event table; arch/x86_64/rec-offsets.c the values the assembly
 * uses).  Writers and readers take lengths and offsets from those
 * structs (UT_REC_LEN(), UT_REC_OFF()), never as numbers: adding a field
 * is a change of its line here and of the code that fills it.
 *
 *   UT_RECORD(NAME, name, type, counts, fields)
 *     a record of fixed length: the header, then @fields
 *   UT_SIZED(NAME, name, type, counts, unit, max, fields)
 *     a "sized" record: the header, a u16 n (offset 4), then @fields;
 *     its length is 6 + unit * n, whatever @fields say (an older reader
 *     finds the length of a record whose fixed fields grew)
 *
 *   NAME, name  the enum's UT_REC_NAME, the struct's ut_rec_name
 *   type    the 4-bit type in the record header (ringbuf.h); 15 is the
 *           ring buffer's own TIME_EXTEND, 1..14 are ours
 *   counts  1: an event, counted in page->entries and in the lost and
 *           overrun numbers; 0: a record that describes the stream
 *   unit    the bytes per unit of n
 *   max     the largest n a writer makes (a larger one is corrupt)
 *   fields  after the header (and n), in order, unaligned, native byte
 *           order: UT_U8(f), UT_U16(f), UT_U32(f), UT_U48(f) (an address
 *           or a time in 6 bytes, ut_get48()/ut_put48()), and last the
 *           variable part UT_VAR(f), whose offset is the fixed part's
 *           length
 *
 * Type 14 is free.  A reader takes them as sized records with
 * unit 1 and skips them, so that a newer writer's record is not taken
 * for corruption by an older reader.  ENTRY and EXIT are also written by
 * the assembly fast path (arch/x86_64/entry.h, trampoline.S), which takes
 * their type, length and the ip's offset from the header made of this
 * list (arch/x86_64/rec-offsets.c).
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
/*        NAME          name          type counts  fields */
UT_RECORD(ENTRY,        entry,          1,  1,  UT_U48(ip))
UT_RECORD(EXIT,         exit,           2,  1,  )
UT_RECORD(FUNC,         func,           3,  1,  UT_U48(ip) UT_U48(parent))
UT_RECORD(ENTRY_PARENT, entry_parent,   4,  1,  UT_U48(ip) UT_U48(parent))
UT_RECORD(DEPTH,        depth,          5,  0,  UT_U32(depth))
UT_RECORD(CPU,          cpu,            6,  0,  UT_U32(cpu))
UT_RECORD(RETURN,       return,         9,  1,  UT_U48(ip) UT_U16(depth) UT_U48(duration))
/*       NAME           name          type counts unit, max                          fields */
UT_SIZED(STACK,         stack,          7,  0,  UT_ADDR_BYTES, UT_STACK_MAX,          UT_VAR(ips))
UT_SIZED(DATA,          data,           8,  1,  1, 65535,                             UT_VAR(text))
UT_SIZED(TRACE,         trace,         10,  1,  UT_ADDR_BYTES, UT_STACK_MAX,          UT_VAR(ips))
UT_SIZED(EVENT,         event,         11,  1,  1, UT_EVENT_MAX,                      UT_VAR(entry))
/* TRACE_DIR's n counts its dir and its ips (UT_REC_DIR_IPS_MAX, record.h) */
UT_SIZED(TRACE_DIR,     trace_dir,     12,  1,  1, UT_REC_DIR_IPS_MAX,                UT_U16(dir) UT_VAR(ips))
UT_SIZED(CTX,           ctx,           13,  0,  1, 64,                                UT_U8(flags) UT_U8(preempt) UT_VAR(task))
