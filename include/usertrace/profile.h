/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the statistics files of the max stack tracer ("stack") and
 * of the function profiler ("function"): their payloads
 * (usertrace/statarea.h), written by runtime/profile.c, read by
 * output/profile.c.
 *
 * Both are written without locks.  The stack file's chain is stored by
 * the one thread that won `lock` (a compare-and-swap; a thread that finds
 * it taken skips that maximum), between two increments of `seq`: a
 * reader that sees seq odd, or changed across its copy, reads again.
 * The profiler's tables are per thread: a thread writes only its own.
 */
#ifndef USERTRACE_PROFILE_H
#define USERTRACE_PROFILE_H

#include <stdint.h>

#define UT_STACK_STAT_NAME	"stack"
#define UT_STACK_STAT_VERSION	1
#define UT_STK_ENTRIES		256	/* frames of the deepest chain kept */
#define UT_STK_THREADS		256	/* threads whose own maximum is kept */

struct ut_stk_thread {
	int32_t tid;			/* 0: free */
	uint32_t pad;
	uint64_t max;			/* its deepest stack, bytes */
};

struct ut_stack_stat {
	/*
	 * The process's deepest stack in bytes (stack_max_size); the tools
	 * write it (0 resets) through the file.
	 */
	uint64_t max;
	uint32_t lock;			/* a thread storing the chain */
	uint32_t seq;			/* odd while the chain is being written */
	int32_t tid;			/* whose thread */
	uint32_t nr;			/* entries of the chain */
	uint64_t ip[UT_STK_ENTRIES];	/* innermost first: the location */
	uint64_t depth[UT_STK_ENTRIES];	/* stack in use at that location, bytes */
	uint32_t nthreads;		/* thr[] slots taken */
	uint32_t lost_threads;		/* threads past UT_STK_THREADS */
	struct ut_stk_thread thr[UT_STK_THREADS];
};

#define UT_PROF_STAT_NAME	"function"
#define UT_PROF_STAT_VERSION	1
#define UT_PROF_THREADS		64	/* threads with a table */
#define UT_PROF_ENTRIES		2048	/* a table's entries (a power of 2) */

/* one function on one CPU, in one thread's table */
struct ut_prof_ent {
	uint64_t ip;			/* 0: free */
	uint32_t cpu;
	uint32_t pad;
	uint64_t hits;			/* calls entered (on this CPU) */
	uint64_t time;			/* clock units, of the calls that returned here */
	unsigned __int128 time_sq;	/* sum of their squares */
};

struct ut_prof_table {
	int32_t tid;			/* 0: free */
	uint32_t used;			/* entries taken */
	uint64_t overflow;		/* hits not counted: the table was full */
	struct ut_prof_ent ent[UT_PROF_ENTRIES];
};

struct ut_prof_stat {
	/*
	 * The clock: 1 when clock units are ns (CLOCK_MONOTONIC); else TSC
	 * ticks, whose rate is tsc1 - tsc0 per mono1 - mono0 ns (the runtime
	 * takes the pair at start and at each sync).
	 */
	uint32_t clock_ns;
	uint32_t graph_time;		/* 1: a call's time counts its callees' */
	uint64_t tsc0, mono0, tsc1, mono1;
	uint32_t ntables;		/* tables taken */
	uint32_t lost_threads;		/* threads past UT_PROF_THREADS */
	struct ut_prof_table tab[UT_PROF_THREADS];
};

#endif
