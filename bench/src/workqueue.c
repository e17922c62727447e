// SPDX-License-Identifier: MIT
/*
 * workqueue.c - bench program for trace_stat/workqueue: N tiny works
 * queued to a queue of W workers (<usertrace/workqueue.h>), flushed
 * every 1000.
 *
 *   workqueue [N [W]]        (default 1000000 works, 2 workers)
 *
 * Untraced the annotations are one load and a branch; traced (any
 * tracer) each work is counted at its insert and at its end, and with
 * -e 'workqueue:*' writes four events.  The last line of the output is
 * "cpu_ns N wall_ns W" (clock.h).
 */
#include <stdlib.h>

#include <usertrace/workqueue.h>

#include "clock.h"

#define BATCH	1000

static struct work_struct works[BATCH];
static volatile long done;

static void tick(struct work_struct *w)
{
	(void)w;
	__atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int nw = argc > 2 ? atoi(argv[2]) : 2;
	struct workqueue_struct *wq = alloc_workqueue("bench", 0, nw);
	struct bench_clock clk;

	if (!wq)
		return 1;
	bench_start(&clk);
	for (long i = 0; i < n; i += BATCH) {
		for (int k = 0; k < BATCH && i + k < n; k++) {
			INIT_WORK(&works[k], tick);
			queue_work(wq, &works[k]);
		}
		flush_workqueue(wq);
	}
	destroy_workqueue(wq);
	bench_print(&clk);
	return done == n ? 0 : 1;
}
