// SPDX-License-Identifier: MIT
/*
 * loop.c - bench program: N calls of an empty function.
 *
 *   loop [N]        (default 10000000)
 *
 * Traced, every call costs one entry and one exit event and nothing else,
 * so (traced time - untraced time) / N is the tracer's cost per call.
 * The last line of the output is "cpu_ns N wall_ns W" (clock.h).
 */
#include <stdlib.h>

#include "clock.h"

/* the empty asm keeps the function impure: its calls cannot be dropped */
__attribute__((noinline)) void empty(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	struct bench_clock clk;

	bench_start(&clk);

	for (long i = 0; i < n; i++) {
		empty();
		/* a compiler barrier: no unrolling into fewer calls, no hoisting */
		__asm__ volatile("" ::: "memory");
	}
	bench_print(&clk);
	return 0;
}
