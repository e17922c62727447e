/* SPDX-License-Identifier: MIT */
/*
 * kmemstat.h - the kmemtrace tracer's statistics file
 * (SESSION/stat/kmem.<pid>.<img>, usertrace/statarea.h): per call site,
 * what the program allocated and what it still holds.  Written by the
 * runtime (runtime/tracers/kmemtrace.c) with atomic adds, read by trace_stat/kmem and
 * `report --kmem` (output/tracers/kmemtrace.c).
 *
 * A call site takes the first free row of its hash chain (a CAS on
 * @site); when none is free within UT_KMEM_PROBE rows, its allocations
 * are counted in @other and @site_overflow.  Each live block is kept in
 * a table of the program (pointer -> row, bytes) so that its free lowers
 * its site's live counts; a block the table cannot hold is counted in
 * @live_overflow and its free in @unknown_frees (as are the frees of
 * blocks allocated before the tracer ran).  The counts do not come from
 * the ring buffers: lost events do not change them.
 */
#ifndef USERTRACE_KMEMSTAT_H
#define USERTRACE_KMEMSTAT_H

#include <stdint.h>

#define UT_KMEM_STAT_NAME	"kmem"
#define UT_KMEM_STAT_VERSION	1
#define UT_KMEM_SITES		4096	/* rows: a power of 2 */
#define UT_KMEM_PROBE		32	/* rows tried per site */

struct ut_kmem_site {
	uint64_t site;		/* the return address of the call; 0: a free row */
	uint64_t hits;		/* allocations that succeeded */
	uint64_t failed;	/* allocations that returned NULL */
	uint64_t bytes_req;	/* bytes asked for */
	uint64_t bytes_alloc;	/* bytes given (malloc_usable_size; a mapping's pages) */
	uint64_t frees;		/* of its blocks, wherever they are freed */
	uint64_t live_blocks;	/* allocated, not yet freed */
	uint64_t live_bytes;	/* their bytes_alloc */
};

struct ut_kmem_stat {
	uint64_t site_overflow;		/* allocations of sites that found no row */
	uint64_t live_overflow;		/* blocks the live table could not hold */
	uint64_t unknown_frees;		/* frees of blocks not in the live table */
	uint64_t mmaps;			/* anonymous mappings counted (also in the rows) */
	struct ut_kmem_site other;	/* the sites of site_overflow, together */
	struct ut_kmem_site sites[UT_KMEM_SITES];
};

#endif
