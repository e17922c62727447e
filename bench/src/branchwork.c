// SPDX-License-Identifier: MIT
/*
 * branchwork.c - bench program for the branch profilers: N rounds of
 * four profiled branches (two likely/unlikely sites and two plain `if`s,
 * one of them on pseudo-random data), no calls.
 *
 *   branchwork [N]        (default 10000000)
 *
 * Build it three ways (the profilers cost only what is compiled in):
 *
 *   cc -O2 -Iinclude -o branchwork.plain bench/src/branchwork.c
 *   cc -O2 -Iinclude -DUSERTRACE_PROFILE_BRANCHES -o branchwork.ann ...
 *   cc -O2 -Iinclude -DUSERTRACE_PROFILE_ALL_BRANCHES -o branchwork.all ...
 *
 * and run .ann and .all untraced, under `usertrace record` (the counts,
 * tracer nop) and under `usertrace record -t branch` (an event per
 * likely/unlikely outcome: 2 per round).  (time - plain's time) / N is
 * the cost per round.  The last line of the output is
 * "cpu_ns N wall_ns W" (clock.h); the line before it, the checksum.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
/* after the system headers: the all-if profiler redefines `if` */
#include <usertrace/branch.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned long x = 88172645463325252ul, sum = 0;
	struct bench_clock clk;

	bench_start(&clk);
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (likely(x != 0))
			sum += x & 0xff;
		if (unlikely((i & 63) == 0))
			sum ^= (unsigned long)i;
		if (x & 1)		/* a coin: mispredicted half the time */
			sum += 3;
		if (i & 1)
			sum -= 1;
		__asm__ volatile("" ::: "memory");
	}
	printf("sum %lu\n", sum);
	bench_print(&clk);
	return 0;
}
