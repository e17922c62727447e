// SPDX-License-Identifier: MIT
/*
 * loop.c - bench program: N calls of an empty function.
 *
 *   loop [N]        (default 10000000)
 *
 * Traced, every call costs one entry and one exit event and nothing else,
 * so (traced time - untraced time) / N is the tracer's cost per call.
 */
#include <stdlib.h>

/* the empty asm keeps the function impure: its calls cannot be dropped */
__attribute__((noinline)) void empty(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;

	for (long i = 0; i < n; i++) {
		empty();
		/* a compiler barrier: no unrolling into fewer calls, no hoisting */
		__asm__ volatile("" ::: "memory");
	}
	return 0;
}
