/* SPDX-License-Identifier: MIT */
/*
 * tracer.h - the tracer plugin interface, as in the kernel's struct tracer.
 *
 * A tracer decides what the runtime records (@rec_mode) and how events are
 * printed.  Output is defined once here and shared by replay, live and
 * (later) the tracing directory's trace and trace_pipe files.
 *
 * Adding a tracer is adding lib/trace/tracers/<name>.c that ends in a
 * designated-initialiser struct tracer, plus one line in tracer.c.
 */
#ifndef USERTRACE_TRACER_H
#define USERTRACE_TRACER_H

#include <stdint.h>
#include <stdio.h>

#include "utils/data.h"

struct trace_iter;
struct trace_threads;

struct tracer_opt {
	const char *name;	/* as in trace_options, without "no" */
	uint32_t bit;
};

/* global trace options (trace_options), shared by all tracers */
enum trace_iter_flags {
	TRACE_ITER_PRINT_PARENT	= 1u << 0,
	TRACE_ITER_SYM_OFFSET	= 1u << 1,
	TRACE_ITER_SYM_ADDR	= 1u << 2,
	TRACE_ITER_IRQ_INFO	= 1u << 3,
	TRACE_ITER_CONTEXT_INFO	= 1u << 4,
	TRACE_ITER_RECORD_TGID	= 1u << 5,
	TRACE_ITER_MARKERS	= 1u << 6,
};
#define TRACE_ITER_DEFAULT (TRACE_ITER_PRINT_PARENT | TRACE_ITER_IRQ_INFO | \
			    TRACE_ITER_CONTEXT_INFO | TRACE_ITER_MARKERS)

struct tracer {
	const char *name;
	/* what the runtime records for this tracer: enum ut_rec_mode */
	int rec_mode;
	/* tracer-specific options (funcgraph-*), terminated by a NULL name */
	const struct tracer_opt *opts;
	uint32_t default_flags;
	/* @print_header: called once before the first event */
	void (*print_header)(struct trace_iter *iter);
	/*
	 * @print_event: called for every event in time order.  It may look at
	 * the next event of the same thread with ut_merge_peek_same() and
	 * consume it (a leaf call is printed on one line).
	 */
	void (*print_event)(struct trace_iter *iter, struct ut_event *ev);
	/* @finish: called after the last event */
	void (*finish)(struct trace_iter *iter);
	/*
	 * @init (optional): called by trace_iter_init() after the default
	 * flags are set and before the user's -O options are applied, to
	 * adjust defaults to the recording (funcgraph-proc for several
	 * threads).  It must not allocate: print_header/finish own @priv.
	 */
	void (*init)(struct trace_iter *iter);
};

#define TRACE_MAX_CPUS 1024

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

struct trace_iter {
	FILE *out;
	struct ut_data *data;
	struct ut_merge *merge;
	const struct tracer *tracer;
	uint32_t iter_flags;		/* enum trace_iter_flags */
	uint32_t tracer_flags;		/* bits of tracer->opts */
	uint64_t entries, written;	/* for the header */
	void *priv;			/* tracer state */
	const int *tids;		/* threads to print (NULL: all) */
	int nr_tids;
	struct trace_threads *threads;	/* per-thread state, see output.h */
	struct trace_seq seq;		/* the output of the current event, to @out */
};

/* set up @iter for @t over @d: default flags, no thread filter */
void trace_iter_init(struct trace_iter *iter, struct ut_data *d,
		     const struct tracer *t, FILE *out);

const struct tracer *tracer_find(const char *name);	/* accepts "ftrace" for function */
void tracer_list(FILE *out);
/*
 * apply "-O name" / "-O noname": returns 0, or -EINVAL for an unknown
 * option (the caller prints the message)
 */
int tracer_set_option(struct trace_iter *iter, const char *opt);
/* print the symbol for @addr honouring sym-offset and sym-addr */
void trace_print_sym(struct trace_iter *iter, const struct ut_event *ev, uint64_t addr);
/* run the whole output: header, events, finish.  Returns 0 or -1 (corrupt data). */
int trace_print_all(struct trace_iter *iter);

extern const struct tracer nop_tracer, function_tracer, function_graph_tracer;

#endif
