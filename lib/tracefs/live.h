/* SPDX-License-Identifier: MIT */
/*
 * live.h - reading the ring buffers of a running (or ended) session:
 * the text of `trace` (non-consuming) and `trace_pipe` (consuming), in the
 * formats of the tracers in lib/trace/, merged by time across every thread
 * and process of the session.
 *
 * The buffers are the session's buf.<pid>.<tid>.<image> files, written by
 * the runtime in overwrite mode; the reader never changes them.
 */
#ifndef USERTRACE_LIVE_H
#define USERTRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct live_view {
	const char *tracer;		/* "function_graph", "function", "nop" */
	const char *const *options;	/* trace_options words, NULL-terminated, e.g.
					   "funcgraph-proc", "nofuncgraph-cpu" */
	int cpu;			/* -1: all; else per_cpu/cpuN only */
	uint64_t since;			/* events at or before this time (live_now()) are
					   not shown: `echo > trace` */
	const char *pids;		/* set_ftrace_pid: blank-separated thread or process
					   ids whose events are shown; NULL or "": all */
	int clock;			/* trace_clock: enum trace_clock_id (0: local) */
};

struct live_stats {			/* per_cpu/cpuN/stats, buffer_size_kb... */
	uint64_t entries;		/* events in the buffers now */
	uint64_t overrun;		/* events overwritten */
	uint64_t written;		/* events ever written */
	uint64_t bytes;			/* bytes of records in the buffers */
	double oldest_event_ts;		/* seconds, the trace's clock */
	double now_ts;
};

/* the session's current time, in the unit of live_view.since */
uint64_t live_now(const char *session_dir);

/* the whole `trace` file, malloc'ed in *out (header included); -errno */
int live_trace(const char *session_dir, const struct live_view *v, char **out, size_t *len);

struct live_reader;
struct live_reader *live_pipe_open(const char *session_dir, const struct live_view *v);
/*
 * What is new since the last call, consumed: malloc'ed text in *out (no
 * header, as the kernel's trace_pipe), *len 0 if nothing is new.  Returns
 * 0, or -errno.  Events the writers overwrote before they were read are
 * shown as the kernel shows them ("CPU:N [LOST M EVENTS]").
 */
int live_pipe_read(struct live_reader *r, char **out, size_t *len);
void live_pipe_close(struct live_reader *r);
/* show what is read from now on in @clock (trace_clock was written) */
void live_pipe_set_clock(struct live_reader *r, int clock);

int live_stats(const char *session_dir, int cpu, struct live_stats *st);

#endif /* USERTRACE_LIVE_H */
