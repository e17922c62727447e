// SPDX-License-Identifier: MIT
/*
 * threads.c - bench program: T threads, each calling small functions in a
 * loop, all at once.
 *
 *   threads T ITERS
 *
 * Each thread runs worker(), which calls step() ITERS times; step() calls
 * add() and mix().  So a run makes 1 (main) + T * (1 + 3 * ITERS) traced
 * calls.  With more threads than CPUs, the threads and the tracer's
 * recorder compete for the CPUs.
 *
 * The last line of the output is "cpu_ns N wall_ns W" (clock.h): all
 * threads' CPU time and the wall time from the start of main to the join
 * of the last thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

static long iters;

/* the empty asm statements keep the functions from being folded away */
__attribute__((noinline)) long add(long a, long b)
{
	__asm__ volatile("" : "+r"(a));
	return a + b;
}

__attribute__((noinline)) long mix(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x ^ (x >> 3);
}

__attribute__((noinline)) long step(long i, long s)
{
	s = add(s, i);
	s = mix(s);
	/* no tail call: GCC would jump to mix() and a tracer take its slow path */
	__asm__ volatile("" : "+r"(s));
	return s;
}

__attribute__((noinline)) void *worker(void *arg)
{
	long s = (long)arg;

	for (long i = 0; i < iters; i++) {
		s = step(i, s);
		/* a compiler barrier: no unrolling into fewer calls */
		__asm__ volatile("" ::: "memory");
	}
	return (void *)s;
}

int main(int argc, char **argv)
{
	struct bench_clock clk;
	int nr = argc > 1 ? atoi(argv[1]) : 16;
	pthread_t *tids;
	long sum = 0;

	bench_start(&clk);
	iters = argc > 2 ? atol(argv[2]) : 200000;
	if (nr < 1 || iters < 0) {
		fprintf(stderr, "usage: threads T ITERS\n");
		return 2;
	}
	tids = calloc(nr, sizeof(*tids));
	if (!tids) {
		perror("calloc");
		return 1;
	}
	for (int i = 0; i < nr; i++) {
		if (pthread_create(&tids[i], NULL, worker, (void *)(long)i)) {
			fprintf(stderr, "threads: cannot create thread %d\n", i);
			return 1;
		}
	}
	for (int i = 0; i < nr; i++) {
		void *ret;

		pthread_join(tids[i], &ret);
		sum += (long)ret;
	}
	free(tids);
	printf("sum %ld\n", sum);
	bench_print(&clk);
	return 0;
}
