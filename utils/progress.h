/* SPDX-License-Identifier: MIT */
/*
 * progress.h - a progress bar on stderr for the tools' long reads
 * (exports, replays): shown once the work has taken a second, redrawn
 * at most ten times a second, with the percentage and the rate; never
 * when stderr is not a terminal, nor when the output goes to the same
 * terminal (USERTRACE_PROGRESS=0: never; =1: always, from the start,
 * and a last drawing at the end, for tests).  The cost per item is a
 * counter and a compare.
 */
#ifndef UT_UTILS_PROGRESS_H
#define UT_UTILS_PROGRESS_H

#include <stdint.h>

struct ut_progress {
	const char *what;	/* what is counted: "events" */
	uint64_t done;		/* counted so far */
	/* where the work is: units done and in all (bytes of the files), NULL: no percentage */
	void (*where)(const void *arg, uint64_t *done, uint64_t *total);
	const void *arg;
	uint64_t next_check;	/* done at which the clock is read again */
	uint64_t t0, last;	/* ns */
	int on, shown;
	int forced;		/* USERTRACE_PROGRESS=1 */
};

#define UT_PROGRESS_ENV	"USERTRACE_PROGRESS"

void ut_progress_init(struct ut_progress *p, const char *what,
		      void (*where)(const void *arg, uint64_t *done, uint64_t *total),
		      const void *arg);
void ut_progress_draw(struct ut_progress *p);
/* @n more items done: a drawing now and then */
static inline void ut_progress_add(struct ut_progress *p, uint64_t n)
{
	p->done += n;
	if (p->on && p->done >= p->next_check)
		ut_progress_draw(p);
}
/* the bar erased (the line left clean for what follows) */
void ut_progress_end(struct ut_progress *p);

#endif
