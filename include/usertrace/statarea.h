/* SPDX-License-Identifier: MIT */
/*
 * statarea.h - statistics the traced programs keep for the tools.
 *
 * A statistic that the programs count outside the ring buffers (the
 * function profiler, the max stack tracer, the branch profilers, kmem's
 * call sites, workqueues...) lives in a file of the session directory,
 *
 *	SESSION/stat/NAME.<pid>.<img>
 *
 * one per process image and statistic, mapped shared by the runtime
 * (runtime/statarea.c) and read by the tools (reader/statarea.c): the
 * tracing directory's trace_stat/ and stack files read them live,
 * `record` copies them into DATADIR/stat/ for replay and report.
 *
 * The file is this header, then the statistic's payload, laid out by its
 * tracer (@version names the layout; a reader skips a version it does
 * not know).  The runtime writes the payload without locks: a reader may
 * see a counter a few events old.  What a tracer counts in the program's
 * own memory (the branch profilers' sections) it copies into its payload
 * at a sync: when the tracing directory asks (the control generation,
 * before each read of a statistic) and when the process exits; @syncs
 * counts them.
 */
#ifndef USERTRACE_STATAREA_H
#define USERTRACE_STATAREA_H

#include <stdint.h>

#define UT_STAT_DIR		"stat"
#define UT_STAT_MAGIC		"UTSTAT\0\1"
#define UT_STAT_NAME_MAX	32

struct ut_stat_hdr {
	char magic[8];			/* UT_STAT_MAGIC */
	char name[UT_STAT_NAME_MAX];	/* NAME, NUL-terminated */
	uint32_t version;		/* the payload's layout */
	uint32_t hdr_size;		/* sizeof(struct ut_stat_hdr): the payload's offset */
	uint64_t size;			/* the payload's bytes */
	int32_t pid;			/* the process */
	uint32_t reserved;
	uint64_t img;			/* its image (buf.<pid>.<tid>.<img>) */
	uint64_t syncs;			/* syncs done: payload copies are fresh */
	char comm[16];			/* the process's name at the last sync */
};

#endif
