/* SPDX-License-Identifier: MIT */
/* record.h - the recorder, shared by record and live */
#ifndef USERTRACE_CMD_RECORD_H
#define USERTRACE_CMD_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct tracer;

struct record_opts {
	const char *outdir;
	size_t buf_size;
	const struct tracer *tracer;
	int overwrite;
	int drop;		/* --drop: a full buffer drops and counts (no growth) */
	uint64_t grow_limit;	/* --buffer-limit: bytes of growth for all threads */
	int compress;		/* --compress: enum ut_compress */
	int level;		/* its level */
	char filter[4096];	/* set_ftrace_filter: -F patterns, space separated */
	char notrace[4096];	/* set_ftrace_notrace: -N patterns */
	char gfunc[4096];	/* set_graph_function: -G patterns */
	char gnotrace[4096];	/* set_graph_notrace: --graph-notrace patterns */
	char cmds[4096];	/* function commands: -T func:cmd[:N] */
	char events[4096];	/* -e: event patterns (set_event's syntax), space separated */
	char evfilters[16384];	/* -f: "PATTERN\0FILTER\0" pairs (the -e each follows), then "\0" */
	const char *last_event;	/* the last -e, and whether it has its -f */
	int last_event_filtered;
	unsigned int max_depth;	/* max_graph_depth: -D */
	long long thresh_ns;	/* tracing_thresh: --thresh */
	int nofunc;		/* -O nofunction-trace: the latency tracers' marks alone */
	int stack_trace;	/* --stack-trace: the max stack tracer (stack_tracer_enabled) */
	int func_profile;	/* --func-profile: the function profiler (function_profile_enabled) */
	int nograph_time;	/* -O nograph-time: the profiler's time leaves out the callees' */
	char **argv;
};

/* parse [options] -- PROG ARGS for @cmd ("record", "live"); -1 after a message */
int record_options(int argc, char **argv, struct record_opts *o, const char *cmd);
/* @status: as a shell gives it; @wstatus: as waitpid() does, -1 if PROG did not run */
int record_run(const struct record_opts *o, int *status, int *wstatus);

#endif
