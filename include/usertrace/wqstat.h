/* SPDX-License-Identifier: MIT */
/*
 * wqstat.h - trace_stat/workqueue's statistics file
 * (SESSION/stat/workqueue.<pid>.<img>, usertrace/statarea.h): per work
 * queue and worker, the works inserted and executed.  Written by the
 * runtime (runtime/workqueue.c), read by output/workqueue.c.
 *
 * A row is claimed once, without a lock: @state 0 (free) -> 1 (its key
 * being written, by a CAS) -> 2 (ready); the others wait the few
 * instructions of 1.  A queue and worker that find no row within
 * UT_WQ_PROBE are counted in @overflow.
 */
#ifndef USERTRACE_WQSTAT_H
#define USERTRACE_WQSTAT_H

#include <stdint.h>

#define UT_WQ_STAT_NAME		"workqueue"
#define UT_WQ_STAT_VERSION	1
#define UT_WQ_ROWS		1024	/* a power of 2 */
#define UT_WQ_PROBE		64
#define UT_WQ_NAME_MAX		32

struct ut_wq_row {
	uint32_t state;			/* 0 free, 1 being claimed, 2 ready */
	int32_t cpu;			/* the worker */
	uint64_t inserted;		/* works queued to it */
	uint64_t executed;		/* works it ran to their end */
	char name[UT_WQ_NAME_MAX];	/* the queue's name (cut to fit) */
};

struct ut_wq_stat {
	uint64_t overflow;		/* inserts and executions of rows not found */
	struct ut_wq_row rows[UT_WQ_ROWS];
};

#endif
