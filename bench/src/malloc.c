// SPDX-License-Identifier: MIT
/*
 * malloc.c - bench program for kmemtrace: N allocations and frees of
 * mixed sizes from a few call sites, with a window of 64 blocks live.
 *
 *   malloc [N]        (default 10000000)
 *
 * Each round is one malloc (or calloc, or realloc of a live block) and
 * one free: untraced this is the allocator's cost alone; with kmemtrace
 * (record -t kmemtrace) each pair adds a kmalloc and a kfree event and
 * the per-site counts; with the tracer off, the wrappers' test.  The
 * last line of the output is "cpu_ns N wall_ns W" (clock.h).
 */
#include <stdlib.h>

#include "clock.h"

#define WINDOW	64

static void *live[WINDOW];

__attribute__((noinline)) static void *get(long i)
{
	size_t n = 16 + (size_t)(i * 37 % 500);

	switch (i & 3) {
	case 0:
		return calloc(1, n);
	case 1: {
		void *p = realloc(NULL, n / 2);

		return p ? realloc(p, n) : NULL;
	}
	default:
		return malloc(n);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	struct bench_clock clk;

	bench_start(&clk);
	for (long i = 0; i < n; i++) {
		unsigned k = (unsigned)(i % WINDOW);

		free(live[k]);
		live[k] = get(i);
		__asm__ volatile("" ::: "memory");
	}
	for (unsigned k = 0; k < WINDOW; k++)
		free(live[k]);
	bench_print(&clk);
	return 0;
}
