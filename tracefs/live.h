/* SPDX-License-Identifier: MIT */
/*
 * live.h - reading the ring buffers of a running (or ended) session:
 * the text of `trace` (non-consuming) and `trace_pipe` (consuming), in the
 * formats of the tracers in output/, merged by time across every thread
 * and process of the session.
 *
 * The buffers are the session's buf.<pid>.<tid>.<image> files, written by
 * the runtime in overwrite mode; the reader never changes them.
 */
#ifndef USERTRACE_LIVE_H
#define USERTRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "usertrace/evreg.h"

struct trace_lat_info;
struct ut_evfilter;

#define LIVE_PIDS_MAX	(4 * 4096)	/* live_view.pids, evpids: their bytes at most */

struct live_view {
	const char *tracer;		/* "function_graph", "function", "nop" */
	const char *const *options;	/* trace_options words, NULL-terminated, e.g.
					   "funcgraph-proc", "nofuncgraph-cpu" */
	int cpu;			/* -1: all; else per_cpu/cpuN only */
	uint64_t since;			/* events at or before this time (live_now()) are
					   not shown: `echo > trace` */
	const char *pids;		/* set_ftrace_pid: blank-separated thread or process
					   ids whose events are shown, NULL or none: all;
					   "!ID" (set_ftrace_notrace_pid): never shown
					   (LIVE_PIDS_MAX bytes at most) */
	int pids_calls;			/* 1: @pids chooses whose calls are shown, @evpids
					   whose events (the tracing directory's top);
					   0: @pids chooses whole buffers */
	const char *evpids;		/* set_event_pid and "!ID" set_event_notrace_pid,
					   with pids_calls; NULL or "": all */
	int clock;			/* trace_clock: enum trace_clock_id (0: local) */
	const char *bufdir;		/* where the buffers are: NULL, the session's;
					   an instance's directory (live_pump) */
	const uint64_t *hide;		/* time ranges not shown: nr_hide pairs
					   [from, to) in live_now() units */
	int nr_hide;
	const char *ffilter;		/* functions shown: set_ftrace_filter's list;
					   NULL or "": all */
	const char *fnotrace;		/* functions not shown: set_ftrace_notrace's */
	struct live_reader *consumed;	/* trace: what this trace_pipe reader consumed
					   is not shown; NULL: none */
	/*
	 * per_cpu/cpuN/buffer_size_kb: the pages of CPU N's buffer; of the
	 * events that ran on CPU N, only the newest that fit are shown (the
	 * threads' buffers have the largest size).  NULL: no per-CPU sizes.
	 */
	const uint32_t *cpu_pages;
	int nr_cpu_pages;
	/* per_cpu/cpuN/trace cleared: events of CPU N at or before [N] are not shown */
	const uint64_t *cpu_since;
	int nr_cpu_since;
	/*
	 * the programs' events shown: a bit per slot of the session's event
	 * registry (LIVE_EV_WORDS words; id UT_EVENT_ID_DYNAMIC + slot).
	 * NULL: all.  Events of lower ids (the ftrace system's) are shown.
	 */
	const uint64_t *ev_on;
	/* the maximum a latency trace shows (its latency-format header); NULL: none */
	const struct trace_lat_info *lat;
	/*
	 * the directory's event filters: [slot] the program an event of that
	 * slot must match to be shown (lib/event/evfilter.h), NULL: none.
	 * NULL: no filter.
	 */
	const struct ut_evfilter *const *ev_filter;
	/*
	 * the stacks of stacktrace triggers shown: those of this directory
	 * (the record's tag, entries.h TRACE_DIR: 1 the top); 0: none
	 */
	uint32_t trace_dir;
};

#define LIVE_EV_WORDS	(UT_EVREG_SLOTS / 64)

/*
 * What an instance's triggers changed since its pump last ran (the
 * registry's log of its words, evreg.h), for the pump to apply each at
 * its time: the state before, and the changes in time order.
 */
struct live_fire {
	uint64_t ts;			/* raw clock, as the records' */
	uint32_t what;			/* enum ut_trig_cmd + 1 */
	uint32_t target;		/* ENABLE/DISABLE_EVENT: the slot */
};

struct live_timeline {
	uint32_t trace_dir;		/* its stacktrace triggers' tag (live_view.trace_dir) */
	/*
	 * the programs' clock when the changes were read: the records from
	 * then on stay in the buffers for the next run, whose changes may
	 * come before them (0: none)
	 */
	uint64_t until;
	int on;				/* tracing_on before the first change */
	const uint64_t *soft_mode;	/* events in soft mode (LIVE_EV_WORDS), NULL: none */
	const uint64_t *soft_off;	/* ... switched off before the first change */
	const struct live_fire *fires;
	int nr;
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
/* a time of the programs' clock (ut_clock(), the records') in live_now() units */
uint64_t live_ns(const char *session_dir, uint64_t raw);
/* the programs' clock now, in its own units (the records') */
uint64_t live_raw_now(const char *session_dir);

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
/* the time ranges not shown (live_view.hide), from the next read on */
void live_pipe_set_hide(struct live_reader *r, const uint64_t *hide, int nr);
/* the function selection (live_view.ffilter, fnotrace), from the next read on */
void live_pipe_set_funcs(struct live_reader *r, const char *ffilter, const char *fnotrace);
/*
 * all of the view (tracer, options, pids, clock, since...) from the next
 * read on; its ev_filter for the next read only (the caller's memory)
 */
void live_pipe_set_view(struct live_reader *r, const struct live_view *v);

/* @bufdir: NULL, the session's buffers; else an instance's */
int live_stats(const char *session_dir, const char *bufdir, int cpu, struct live_stats *st);
/* the same for view @v: its bufdir, cpu, since and cpu_pages */
int live_stats_view(const char *session_dir, const struct live_view *v, struct live_stats *st);

/*
 * An instance's own buffers.  The programs write the session's buffers;
 * a pump copies what they record into ring buffers of the instance's own
 * (one per thread, @nr_pages pages, overwrite mode) in @dir, as it
 * arrives, so the instance keeps its events whatever happens to the
 * session's buffers or to other instances: its size, its clear point, its
 * on/off state.  The instance's files read @dir (live_view.bufdir).
 * Events at or before @since (live_now()) are not taken.
 */
struct live_pump;
struct live_pump *live_pump_open(const char *session_dir, const char *dir, uint32_t nr_pages,
				 uint64_t since);
/*
 * Take what the programs recorded since the last run: into the instance's
 * buffers if @on, else dropped.  @tracer: the instance's; with one that
 * records no calls (nop), only events are taken.  @pids (set_ftrace_pid
 * and set_ftrace_notrace_pid as live_view.pids, NULL: all) selects the
 * threads whose calls are taken, @evpids (set_event_pid and
 * set_event_notrace_pid, NULL: all) those whose events are, @ffilter and @fnotrace (the instance's
 * set_ftrace_filter and set_ftrace_notrace, NULL: none) the functions,
 * @ev_on (live_view.ev_on, NULL: all) the programs' events, @ev_filter
 * (live_view.ev_filter) the instance's event filters, @tl what its
 * triggers changed meanwhile (NULL: the top's buffers, as they are).
 * 0 or -errno.
 */
int live_pump_run(struct live_pump *p, const char *tracer, int on, const char *pids,
		  const char *evpids, const char *ffilter, const char *fnotrace, const uint64_t *ev_on,
		  const struct ut_evfilter *const *ev_filter, const struct live_timeline *tl);
/*
 * the instance's tracing_cpumask: from the next run on, the events of
 * the CPUs whose bit of @mask (LIVE_CPUMASK_WORDS words) is clear are
 * not taken; NULL: every CPU's
 */
#define LIVE_CPUMASK_WORDS	32
void live_pump_set_cpumask(struct live_pump *p, const uint32_t *mask);
/* the programs' clock now (live_raw_now()) for the session of @p */
uint64_t live_pump_now(struct live_pump *p);
/* from now on, buffers of @nr_pages (the current ones stay readable) */
void live_pump_resize(struct live_pump *p, uint32_t nr_pages);
/* the instance's buffers in use, for buffer_total_size_kb */
int live_pump_buffers(struct live_pump *p);
/* stop, and remove @dir with the buffers when @remove */
void live_pump_close(struct live_pump *p, int remove);

/*
 * snapshot: a copy of the buffers in @srcdir (NULL: the session's) as they
 * are now, events after @since, into @dst (made anew; one ring per buffer,
 * of the source's size), the rings of trace_marker included.  Read it with live_view.bufdir
 * = @dst.  0 or -errno.
 */
int live_snapshot(const char *session_dir, const char *srcdir, const char *dst, uint64_t since);
/* remove a snapshot's copy */
void live_snapshot_free(const char *dst);

/*
 * trace_marker: each directory (the session's, an instance's) has a ring
 * of its own, LIVE_MARKER_RING in the directory, written by the daemon
 * (overwrite mode, the directory's buffer size): every marker is a DATA
 * record (ftrace:print) there, read, consumed, cleared and overwritten as
 * the threads' events are.  The ring is made at the first marker.
 */
#define LIVE_MARKER_RING	"marker.ring"
#define LIVE_MARKER_MAX		4000	/* bytes of one marker; a longer write is cut */

struct live_marker;
struct live_marker *live_marker_open(const char *session_dir, const char *dir, uint32_t nr_pages);
/* one print event of @len bytes (at most LIVE_MARKER_MAX taken): 0 or -errno */
int live_marker_write(struct live_marker *m, const void *text, size_t len);
/* the time of the last marker written (the programs' clock, raw), 0: none */
uint64_t live_marker_last_ts(const struct live_marker *m);
/* the next markers go to a ring of @nr_pages; the current one stays readable */
void live_marker_resize(struct live_marker *m, uint32_t nr_pages);
void live_marker_close(struct live_marker *m);

#endif /* USERTRACE_LIVE_H */
