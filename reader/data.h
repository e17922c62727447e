/* SPDX-License-Identifier: MIT */
/*
 * data.h - reading a usertrace data directory (see doc/usertrace-data.5).
 *
 *   DIR/info                        key=value lines (version, tracer, clock
 *                                   calibration, command line, exit status)
 *   DIR/<pid>.<tid>.<image>.dat     one per thread and process image: the
 *                                   final struct rb_header (one page), then
 *                                   the ring-buffer pages in write order
 *   DIR/maps.<pid>.<image>.<n>      /proc/<pid>/maps snapshots
 *   DIR/sym/                        symbol tables of every mapped ELF file
 *
 * Events are decoded per thread by a cursor and merged by time.
 */
#ifndef USERTRACE_DATA_H
#define USERTRACE_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "usertrace/record.h"
#include "usertrace/session.h"

struct ut_symtab;
struct rb_page;

/*
 * The events the decoder hands out, each with the name `usertrace dump`
 * prints (ut_ev_name()): UT_EV_TYPE(NAME, name)
 */
#define UT_EV_TYPES(UT_EV_TYPE)								\
	/* function_graph entry */							\
	UT_EV_TYPE(ENTRY, entry)							\
	/* function_graph return: ip = the function it closes (0 if unknown) */	\
	UT_EV_TYPE(EXIT, exit)								\
	/* function tracer: ip, parent */						\
	UT_EV_TYPE(FUNC, func)								\
	/* text in ev->data */								\
	UT_EV_TYPE(MARKER, marker)							\
	/* ev->count records lost here; 0: an unknown number (damaged data	\
	 * skipped, said on stderr) */							\
	UT_EV_TYPE(LOST, lost)								\
	/* a call at least tracing_thresh long, whose entry was not recorded:	\
	 * ip, depth, ts = its return, duration */					\
	UT_EV_TYPE(RETURN, return)							\
	/* a stack trace: ev->count ips, innermost first, in ev->data		\
	 * (UT_ADDR_BYTES each, see ut_event_trace_ip()) */				\
	UT_EV_TYPE(TRACE, trace)							\
	/* right after a UT_EV_LOST, the stream restates its open calls (DEPTH,	\
	 * STACK records) and they are not what the events before left open	\
	 * (ev->count of them): ev->depth calls are open now.  Fewer: the	\
	 * innermost ended unseen, their returns lost.  More: calls began	\
	 * unseen, their entries lost; the EXIT that closes one names it if a	\
	 * STACK did.  (Other restatements, at a fork, a context switch, the	\
	 * start of a flight recording, only set the depth of the next events.) */ \
	UT_EV_TYPE(DEPTH, depth)							\
	/* an event (tracepoint): ev->id, and its entry (common fields first,	\
	 * see usertrace/event.h) in ev->data, ev->data_len bytes, at least 8,	\
	 * aligned */									\
	UT_EV_TYPE(EVENT, event)							\
	/* a sysprof sample: the user stack, as UT_EV_TRACE (ev->count ips,	\
	 * innermost first, in ev->data); ev->weight the periods of CPU time	\
	 * it stands for */								\
	UT_EV_TYPE(SAMPLE, sample)							\
	/* the initcall tracer: ev->dir UT_TRACE_DIR_ICALL, a constructor or	\
	 * destructor is called (ip 0 of ev->data), or UT_TRACE_DIR_ICRET, it	\
	 * returned (ip 0, then its return value as ip 1) */			\
	UT_EV_TYPE(INITCALL, initcall)

/* the types count from 1 (0: no event) */
enum {
#define UT_EV_INDEX(NAME, name)	UT_EV_INDEX_##NAME,
	UT_EV_TYPES(UT_EV_INDEX)
#undef UT_EV_INDEX
};

enum ut_ev_type {
#define UT_EV_ENUM(NAME, name)	UT_EV_##NAME = UT_EV_INDEX_##NAME + 1,
	UT_EV_TYPES(UT_EV_ENUM)
#undef UT_EV_ENUM
};

/* the name of @type (`usertrace dump`'s), NULL for none */
static inline const char *ut_ev_name(enum ut_ev_type type)
{
	static const char *const names[] = {
#define UT_EV_NAME(NAME, name)	[UT_EV_##NAME] = #name,
		UT_EV_TYPES(UT_EV_NAME)
#undef UT_EV_NAME
	};

	return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

struct ut_event {
	enum ut_ev_type type;
	int pid, tid;
	uint32_t cpu;
	uint32_t depth;		/* graph depth of the call (entry and exit alike) */
	uint64_t ts;		/* CLOCK_MONOTONIC ns */
	uint64_t ip, parent;	/* parent: return address into the caller, if known */
	uint64_t count;
	uint64_t duration;	/* UT_EV_RETURN: ns from the entry to ts */
	uint64_t image;
	uint32_t id;		/* UT_EV_EVENT: the event id (common_type) */
	uint32_t dir;		/* UT_EV_TRACE of a stacktrace trigger: the directory
				 * it is for (entries.h's TRACE_DIR); 0: every one */
	uint32_t weight;	/* UT_EV_SAMPLE: sampling periods, 1 or more */
	uint8_t ctx;		/* the thread's context (UT_CTX_*, record.h) */
	uint8_t preempt;	/* its preempt depth (preempt_disable()) */
	/*
	 * Contexts the thread went through since its previous event (CTX
	 * records between the two): UT_GAP_IRQS_ON signals unblocked,
	 * UT_GAP_PREEMPT_ON preempt depth 0, UT_GAP_PLAIN both at once,
	 * UT_GAP_RUNNING a woken thread runs (UT_CTX_WAKING ends).  A
	 * latency section ended there even if the next one has begun.
	 */
	uint8_t ctx_gap;
	/* a latency report's CTX record came before this event: the reporting thread's identity */
	uint8_t has_task;
	struct ut_ctx_task task;
	const char *data;	/* UT_EV_MARKER, UT_EV_TRACE, UT_EV_EVENT */
	uint32_t data_len;
	struct ut_thread_info *thread;
};

enum { UT_GAP_IRQS_ON = 1, UT_GAP_PREEMPT_ON = 2, UT_GAP_PLAIN = 4, UT_GAP_RUNNING = 8 };

struct ut_thread_info {
	int pid, tid;
	uint64_t image;
	char comm[17];
	uint64_t entries;	/* records in the file */
	uint64_t written;	/* records the writer committed, incl. overwritten */
	uint64_t lost;		/* dropped because the buffer was full */
	uint64_t overrun;	/* overwritten (overwrite mode) */
	int compress;		/* enum ut_compress of its pages */
	int checked;		/* its pages carry checks (datfile.h) */
	/*
	 * Damage found and said (a damaged header, a file cut short): its
	 * readers read what is left and end with an error.  Damaged pages and
	 * chunks are found, said and skipped as they are read.
	 */
	int damaged;
	int counts_unknown;	/* its header is damaged: lost and overrun unknown (0) */
	int cut;		/* the file ends inside a page or chunk: a hole at its end */
	unsigned int said;	/* damage reports printed by its readers (each once) */
	char path[4096];
};

struct rb_header;
void ut_thread_info_from(struct ut_thread_info *ti, const struct rb_header *h);

struct ut_data {
	char dir[4096];
	char tracer[32];	/* tracer used at record time */
	int clock;		/* enum ut_clock */
	uint64_t tsc0, mono0, tsc1, mono1;
	uint64_t mult;		/* ns per TSC tick, 32.32 fixed point */
	int nr_cpus;
	int exit_status;
	char cmdline[1024];
	uint64_t thresh_ns;	/* tracing_thresh of the recording (--thresh); 0: none */
	int checks;		/* its .dat files carry checks (info: checks=1) */
	int compress;		/* info's compression: enum ut_compress, -1 if not said */
	int skipped;		/* .dat files that could not be read at all (said) */
	/* the raw times an event can have: raw_lo + [0, raw_span] (see ut_data_open()) */
	uint64_t raw_lo, raw_span;
	struct ut_thread_info *threads;
	int nr_threads;
	struct ut_symtab *symtab;
};

/* ip @i of a UT_EV_TRACE event (innermost first); 0 past the stored ips */
static inline uint64_t ut_event_trace_ip(const struct ut_event *ev, uint64_t i)
{
	if (!ev->data || i >= ev->count || i >= ev->data_len / UT_ADDR_BYTES)
		return 0;
	return ut_get48((const unsigned char *)ev->data + UT_ADDR_BYTES * i);
}

/* the number of ips of a UT_EV_TRACE event that can be read */
static inline uint64_t ut_event_trace_len(const struct ut_event *ev)
{
	uint64_t n = ev->data ? ev->data_len / UT_ADDR_BYTES : 0;

	return ev->count < n ? ev->count : n;
}

/*
 * TSC ticks to CLOCK_MONOTONIC ns: mono0 + (raw - tsc0) * mult / 2^32,
 * with mult = ns per tick in 32.32 fixed point, computed once in
 * ut_data_open() (a division per event costs more than all the rest).
 * Inline: the decoder (decode.c) converts every event's time.
 */
static inline uint64_t ut_data_ns(const struct ut_data *d, uint64_t raw)
{
	__int128 t;

	if (d->clock != UT_CLOCK_TSC)
		return raw;
	t = (__int128)(int64_t)(raw - d->tsc0) * (__int128)d->mult;
	return (uint64_t)((__int128)d->mono0 + (t >> 32));
}

/* open DIR; prints a message and returns -1 if it is not a readable data dir */
int ut_data_open(struct ut_data *d, const char *dir);
void ut_data_close(struct ut_data *d);
/* add one .dat file to d->threads (kept sorted): 0, or -1 after a warning */
int ut_data_add_thread(struct ut_data *d, const char *path);
uint64_t ut_data_ns_of(const void *d, uint64_t raw);
uint64_t ut_data_raw(const struct ut_data *d, uint64_t ns);

/*
 * The decoder's state of one stream (one thread's records), as the
 * records read so far leave it.  A stage (below) reads it; a reader that
 * goes on where it stopped (trace_pipe) keeps it between merges.
 */
#define UT_STREAM_MAX_OPEN	4096

struct ut_stream {
	uint32_t cpu;
	uint32_t depth;
	uint8_t ctx, preempt;	/* the last CTX record's (0 at each page read from its start) */
	uint8_t ctx_gap;	/* UT_GAP_*: contexts stated since the last event */
	uint8_t has_task;	/* a report's CTX since the last event: task holds it */
	struct ut_ctx_task task;
	uint64_t raw;		/* clock units of the record just decoded */
	const unsigned char *rec;	/* that record (header included), valid in the stage */
	uint32_t rec_len;
	int after_lost;		/* a LOST event and no other event since */
	uint64_t pending_lost;
	uint64_t stack[UT_STREAM_MAX_OPEN];	/* ips of open calls; 0 = unknown */
};

/*
 * A source of pages other than a .dat file (the live ring buffers):
 * @next gives the next page (valid until the next call), NULL at the
 * end.  *@skip: the bytes of records at the start of the page already
 * read (they are passed over without being decoded).  @next may add
 * lost records to @s->pending_lost, to be reported before the page.
 */
struct ut_page_src {
	const struct rb_page *(*next)(void *arg, struct ut_stream *s, uint32_t *skip);
	void *arg;
};

/*
 * A stage: sees each decoded event of a stream, with the stream's state
 * (the record it comes from in s->rec), may change it; returns 0 to drop it.
 */
typedef int (*ut_stage_fn)(void *arg, const struct ut_stream *s, struct ut_event *ev);

/* iterate all events of all selected threads in time order */
struct ut_merge;
struct ut_merge *ut_merge_new(struct ut_data *d, const int *tids, int nr_tids);
/*
 * returns 1 and fills *ev, 0 at the end, -1 at the end when some data was
 * damaged (each damage said where, and skipped: the rest is read)
 */
int ut_merge_next(struct ut_merge *m, struct ut_event *ev);
/* the next event of the same thread as the last returned one, without consuming it */
int ut_merge_peek_same(struct ut_merge *m, struct ut_event *ev);
/* consume the peeked event */
void ut_merge_skip_same(struct ut_merge *m);
void ut_merge_free(struct ut_merge *m);
/* how far merge @m has read its files: bytes read and in all (a progress bar's where()) */
void ut_merge_progress(const void *m, uint64_t *done, uint64_t *total);

/*
 * A merge of page sources: room for @cap streams, added with
 * ut_merge_add().  @ti: the stream's thread (the caller's, kept while the
 * merge is), @stage (NULL: none) filters its events, @state (NULL: a
 * fresh stream) is where the stream starts and, at ut_merge_free(), the
 * state it ends in.  ut_merge_add returns 0, or -1 when full.
 */
struct ut_merge *ut_merge_new_src(struct ut_data *d, int cap);
int ut_merge_add(struct ut_merge *m, struct ut_thread_info *ti, const struct ut_page_src *src,
		 ut_stage_fn stage, void *stage_arg, struct ut_stream *state);
/*
 * One stream alone, without a merge (counting what a view shows): the
 * next event through @stage; 1, 0 at the end, -1 on a corrupt page.
 */
struct ut_cursor;
struct ut_cursor *ut_cursor_new(struct ut_data *d, struct ut_thread_info *ti,
				const struct ut_page_src *src, ut_stage_fn stage, void *stage_arg,
				struct ut_stream *state);
int ut_cursor_next(struct ut_cursor *c, struct ut_event *ev);
void ut_cursor_free(struct ut_cursor *c);

#endif
