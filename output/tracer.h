/* SPDX-License-Identifier: MIT */
/*
 * tracer.h - the tracer plugin interface, as in the kernel's struct tracer.
 *
 * A tracer decides what the runtime records (its mode in
 * usertrace/tracers.def) and how events are printed.  Output is defined
 * once here and shared by replay, live and the tracing directory's trace
 * and trace_pipe files.
 *
 * Adding a tracer is adding output/tracers/<name>.c that ends in a
 * designated-initialiser `struct tracer <name>_tracer`, plus its line in
 * include/usertrace/tracers.def.
 */
#ifndef USERTRACE_TRACER_H
#define USERTRACE_TRACER_H

#include <stdint.h>
#include <stdio.h>

#include "reader/data.h"

struct trace_iter;
struct trace_threads;
struct ut_evtab;

/* the trace options: the global ones (TRACE_ITER_*, options.def), and the tables of a tracer's own */
#include "output/options.h"

/* what a tracer's print_line did with an event, as the kernel's enum print_line_t */
enum print_line_t {
	TRACE_TYPE_HANDLED,	/* printed (or consumed: not to be shown) */
	TRACE_TYPE_UNHANDLED,	/* not the tracer's: the generic printer shows it */
};

/*
 * struct trace_array - the tracer state of one tracing directory (the top
 * one or an instance, tracefs/), as the kernel's: what the hooks of
 * the directory's tracer are given.
 */
#define TRACE_ARRAY_TRACERS	32	/* tracers.def's and the registered ones */

struct trace_array {
	const char *name;			/* "" for the top directory, else the instance's */
	const struct tracer *current_trace;	/* never NULL: nop_tracer at least */
	unsigned tracer_gen;			/* bumped at each change of tracer */
	uint32_t trace_flags;			/* the set global options' bits (options.def) */
	/*
	 * each tracer's own options (its .opts), kept across tracer changes
	 * as the kernel keeps them: trace_array_tracer_flags()
	 */
	uint32_t tracer_flags[TRACE_ARRAY_TRACERS];
	uint32_t tracer_flags_set;		/* a bit per word given its defaults */
	int clock_id;				/* trace_clock: enum trace_clock_id */
	/*
	 * tracing_max_latency (us) of a directory that does not hold the
	 * session's max record (trace_max_owner()): what was written to it
	 */
	unsigned long long max_latency;
	void *priv;				/* the current tracer's, from init to reset */
};

/*
 * struct tracer - a tracer's output part, with the kernel's hooks.  The
 * directory hooks (init to set_flag) are called by the tracing directory
 * on the directory's trace_array; the output hooks (open to close) by
 * whatever prints a trace (replay, live, the trace and trace_pipe files).
 * Every hook is optional.
 */
struct tracer {
	const char *name;	/* its name in tracers.def */
	/*
	 * @opts: the tracer's own options (TRACER_OPT ... TRACER_OPTS_END),
	 * shown in trace_options and options/ while it is the directory's
	 * tracer, their bits in tracer_flags.  NULL: none.
	 */
	const struct trace_opt_info *opts;
	/*
	 * @use_max_tr: its runtime part keeps the trace of the maximum
	 * latency in the max buffers (ut_update_max_tr()): `snapshot` shows
	 * them and `echo N > snapshot` is -EBUSY, as the kernel's.
	 * @print_max: `trace` shows the max buffers too (the latency tracers).
	 */
	unsigned use_max_tr : 1;
	unsigned print_max : 1;
	/*
	 * @lat_sections: a latency tracer whose sections the records' context
	 * shows (UT_LAT_IRQ: signals blocked, UT_LAT_PREEMPT: preempt depth;
	 * runtime/tracers/irqsoff.c).  A recording's trace is that of its longest
	 * section, or of each one over tracing_thresh (trace_lat_select()).
	 * 4: the wake-ups of the wakeup tracers (UT_CTX_WAKING), alone.
	 */
	unsigned lat_sections : 3;
	/*
	 * @available: can the tracer run on this machine (what it needs of
	 * the CPU and kernel, probed once)?  1, or 0 with the reason in
	 * @why.  An unavailable tracer is left out of available_tracers, the
	 * help texts and `record -t`; current_tracer refuses it as an
	 * unknown one (the reason in error_log).  A recording made of it
	 * elsewhere still replays.  NULL: always available.
	 */
	int (*available)(char *why, size_t len);
	/*
	 * @events: the events the tracer shows, "system:name" each, NULL
	 * ended: recorded while it is the tracer (record -t, a directory's
	 * current_tracer), as the kernel's sched_switch tracer did its own.
	 */
	const char *const *events;
	/*
	 * @entry_id: the ftrace entry only this tracer writes (branch's,
	 * hw-branch's; 0: none, an id below 64): a directory whose tracer is
	 * another shows none of them, as the kernel's entries go to the
	 * tracer's own buffer
	 */
	uint32_t entry_id;
	/*
	 * @init: called when a directory switches to this tracer (after the
	 * old one's reset, its buffer cleared).  0, or a negative errno: the
	 * tracer refuses, the directory keeps nop and the write fails.
	 */
	int (*init)(struct trace_array *tr);
	/* @reset: called when a directory switches away from this tracer, or goes */
	void (*reset)(struct trace_array *tr);
	/* @start, @stop: called when the directory's tracing_on goes on or off */
	void (*start)(struct trace_array *tr);
	void (*stop)(struct trace_array *tr);
	/* @update_thresh: called when tracing_thresh is written (the top directory's tracer) */
	void (*update_thresh)(struct trace_array *tr);
	/*
	 * @set_flag: called before one of the tracer's own options (@opts)
	 * changes while it is the directory's tracer; @old_flags are its
	 * options before, @bit the option's.  Nonzero (a negative errno)
	 * refuses the change.
	 */
	int (*set_flag)(struct trace_array *tr, uint32_t old_flags, uint32_t bit, int set);
	/*
	 * @open: called by trace_iter_init() when a trace is opened, after the
	 * default flags are set and before the user's -O options are applied,
	 * to adjust defaults to the recording (funcgraph-proc for several
	 * threads).  It must not allocate: print_header/close own @priv.
	 */
	void (*open)(struct trace_iter *iter);
	/* @print_header: called once before the first event */
	void (*print_header)(struct trace_iter *iter);
	/*
	 * @print_line: called for every event in time order.  It may look at
	 * the next event of the same thread with ut_merge_peek_same() and
	 * consume it (a leaf call is printed on one line).  NULL, or
	 * TRACE_TYPE_UNHANDLED: trace_print_generic() shows the event (a
	 * marker, a stack trace, a program's event; nothing for the others).
	 */
	enum print_line_t (*print_line)(struct trace_iter *iter, struct ut_event *ev);
	/* @close: called after the last event */
	void (*close)(struct trace_iter *iter);
};

#define TRACE_MAX_CPUS 1024

/*
 * trace_clock: how a timestamp is shown.  Events carry CLOCK_MONOTONIC
 * nanoseconds (reader/data.c converts the TSC), so every clock is a view of
 * the same times: local, global, perf and mono show them as they are;
 * mono_raw, boot and tai add the offset of that clock to CLOCK_MONOTONIC,
 * measured when the clock is set; x86-tsc shows TSC ticks; counter numbers
 * the events shown, 1, 2, 3...  As in the kernel, counter and x86-tsc are
 * not nanoseconds and are printed as plain numbers.
 */
enum trace_clock_id {
	TRACE_CLOCK_LOCAL, TRACE_CLOCK_GLOBAL, TRACE_CLOCK_COUNTER, TRACE_CLOCK_PERF,
	TRACE_CLOCK_MONO, TRACE_CLOCK_MONO_RAW, TRACE_CLOCK_BOOT, TRACE_CLOCK_TAI,
	TRACE_CLOCK_X86_TSC, TRACE_NR_CLOCKS
};
extern const char *const trace_clock_names[TRACE_NR_CLOCKS];
/* the clock called @name, or -1 */
int trace_clock_find(const char *name);
static inline int trace_clock_in_ns(int clock)
{
	return clock != TRACE_CLOCK_COUNTER && clock != TRACE_CLOCK_X86_TSC;
}

/*
 * The text being printed, as the kernel's trace_seq: the tracers build
 * their lines in @buf with the trace_seq_*() helpers of output.h, and
 * trace_print_all() writes each event's lines to @out in one call (a
 * longer text is written as the buffer fills).
 */
#define TRACE_SEQ_SIZE 4096

struct trace_seq {
	FILE *out;
	size_t len;
	char buf[TRACE_SEQ_SIZE];
};

/*
 * The maximum a latency trace shows (its header, output/latency.c),
 * as the kernel's max_data: NULL in trace_iter.lat when there is none.
 */
struct trace_lat_info {
	uint64_t latency_ns;
	int pid, tid, cpu;
	char comm[16];
	struct ut_ctx_task task;	/* the task line's uid, nice, policy, rt_prio */
	uint64_t image;			/* the process image of the ips */
	uint64_t start_ip, end_ip;	/* 0: not known */
	/* the times are shown from here (the iterator's clock); 0: from the first event */
	uint64_t time_start;
};

/* the events of thread @tid from @lo to @hi (ns), both included */
struct trace_window {
	int tid;
	uint64_t lo, hi;
	/* whose records: 0 every buffer of the thread, 1 the runtime's only, 2 the kernel's (sched) only */
	int from;
};

struct ut_progress;

struct trace_iter {
	FILE *out;
	struct ut_data *data;
	struct ut_progress *progress;	/* replay's bar (utils/progress.h), counted per event; NULL: none */
	struct ut_merge *merge;		/* set before trace_print_all(): the events read
					   (freed by it); NULL: @data's threads */
	const struct tracer *tracer;
	uint32_t iter_flags;		/* the global options' bits (options.def) */
	uint32_t tracer_flags;		/* the tracer's own options' bits */
	uint64_t entries, written;	/* for the header */
	void *priv;			/* tracer state */
	const int *tids;		/* threads to print (NULL: all) */
	int nr_tids;
	struct trace_threads *threads;	/* per-thread state, see output.h */
	int clock;			/* enum trace_clock_id */
	int64_t clock_off;		/* the clock minus CLOCK_MONOTONIC, ns */
	uint64_t counter;		/* counter clock: the last number given */
	struct ut_evtab *events;	/* the events' formats, loaded at the first event */
	int events_loaded;
	struct trace_seq seq;		/* the output of the current event, to @out */
	const struct trace_lat_info *lat;	/* latency-format's header; NULL: none */
	/* only the events of these sections are shown (trace_lat_select()); 0: all */
	const struct trace_window *win;
	int nr_win;
	uint64_t lat_first;		/* lat->time_start 0: the first event's time */
	int lat_started;		/* lat_first is set */
};

/* set up @iter for @t over @d: default flags, no thread filter */
void trace_iter_init(struct trace_iter *iter, struct ut_data *d,
		     const struct tracer *t, FILE *out);

/* show timestamps in @clock from now on (enum trace_clock_id); -EINVAL if unknown */
int trace_iter_set_clock(struct trace_iter *iter, int clock);
/* @ev's time in the iterator's clock: ns, or ticks and counts (see above) */
uint64_t trace_clock_value(const struct trace_iter *iter, const struct ut_event *ev);

const struct tracer *tracer_find(const char *name);	/* accepts "ftrace" for function */
/* 1 if @t can run here; else 0, the reason in @why (struct tracer's available) */
int tracer_available(const struct tracer *t, char *why, size_t len);
/* the available tracers' names, as available_tracers lists them (without the newline) */
const char *tracer_available_names(void);
/*
 * register_tracer - add a tracer beyond those of tracers.def (a test's):
 * it has no runtime part, so the programs record nothing for it.  0, or
 * -EINVAL (no name, or too long), -EEXIST, -ENOSPC.  Context: before
 * the tracers are looked up from several threads (start-up).
 */
int register_tracer(const struct tracer *t);
/* the @i-th tracer, in available_tracers order (tracers.def, then the registered); NULL past the end */
const struct tracer *tracer_at(unsigned i);

/*
 * trace_array_tracer_flags - the word of tracer @t's own options in @tr,
 * given its defaults the first time; NULL if @t is not registered
 */
uint32_t *trace_array_tracer_flags(struct trace_array *tr, const struct tracer *t);

/*
 * trace_opt_find - option @name (@len bytes, without "no"): a global one
 * (*@t_out NULL), or one of @t's own (*@t_out = @t); NULL if neither has it
 */
const struct trace_opt_info *trace_opt_find(const struct tracer *t, const char *name, size_t len,
					    const struct tracer **t_out);
#define TRACER_NAME_MAX	32	/* a tracer's name is shorter */
/*
 * tracer_switch - @tr's tracer becomes @t: the current one's reset, then
 * @t's init.  0, or init's negative errno: @tr is left with nop.
 */
int tracer_switch(struct trace_array *tr, const struct tracer *t);
/* the generic line of an event no tracer printed: markers, stack traces, events */
void trace_print_generic(struct trace_iter *iter, struct ut_event *ev);
void tracer_list(FILE *out);
void tracer_help(FILE *out, const char *indent);
void trace_options_help(FILE *out, const char *indent);
/*
 * apply "-O name" / "-O noname": returns 0, or -EINVAL for an unknown
 * option (the caller prints the message)
 */
int tracer_set_option(struct trace_iter *iter, const char *opt);
/* print the symbol for @addr honouring sym-offset and sym-addr */
void trace_print_sym(struct trace_iter *iter, const struct ut_event *ev, uint64_t addr);
/* run the whole output: header, events, finish.  Returns 0 or -1 (corrupt data). */
int trace_print_all(struct trace_iter *iter);

/* the output part of each tracer of usertrace/tracers.def */
#define UT_TRACER(name, needs, help)	extern const struct tracer name##_tracer;
#include "usertrace/tracers.def"
#undef UT_TRACER

#endif
