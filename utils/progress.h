/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress bar on stderr for the tools' long reads
 * (exports, replays): shown once the work has taken a second, redrawn
 * at most ten times a second, with the percentage and the rate; never
 * when stderr is not a terminal (or USERTRACE_PROGRESS=0; =1 forces it,
 * for tests).  The cost per item is a counter and a compare.
 */
#ifndef UT_UTILS_PROGRESS_H
#define UT_UTILS_PROGRESS_H

#include <stdint.h>

struct ut_progress {
	const char *what;	/* "events" */
	uint64_t total;		/* 0: unknown (no percentage) */
	uint64_t done;
	uint64_t next_check;	/* done at which the clock is read again */
	uint64_t t0, last;	/* ns */
	int on, shown;
};

#define UT_PROGRESS_ENV	"USERTRACE_PROGRESS"

void ut_progress_init(struct ut_progress *p, const char *what, uint64_t total);
void ut_progress_draw(struct ut_progress *p);
/* @n more items done */
static inline void ut_progress_add(struct ut_progress *p, uint64_t n)
{
	p->done += n;
	if (p->on && p->done >= p->next_check)
		ut_progress_draw(p);
}
/* the bar erased (the line left clean for what follows) */
void ut_progress_end(struct ut_progress *p);

#endif
