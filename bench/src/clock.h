/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the bench programs' own timing.  A program takes both clocks at
 * the start of main and prints, as its last line,
 *
 *   cpu_ns N wall_ns W
 *
 * N: the CPU time of the process (all its threads, user and system) and W:
 * the wall time, both since the start of main, in nanoseconds.  The
 * helpers are no traced calls themselves: always inlined (-pg) and not
 * instrumented (-finstrument-functions instruments inlined functions too).
 */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdio.h>
#include <time.h>

static inline __attribute__((always_inline, no_instrument_function)) long long bench_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct bench_clock {
	long long cpu, wall;
};

static inline __attribute__((always_inline, no_instrument_function)) void bench_start(struct bench_clock *c)
{
	c->cpu = bench_ns(CLOCK_PROCESS_CPUTIME_ID);
	c->wall = bench_ns(CLOCK_MONOTONIC);
}

static inline __attribute__((always_inline, no_instrument_function)) void bench_print(const struct bench_clock *c)
{
	long long cpu = bench_ns(CLOCK_PROCESS_CPUTIME_ID), wall = bench_ns(CLOCK_MONOTONIC);

	printf("cpu_ns %lld wall_ns %lld\n", cpu - c->cpu, wall - c->wall);
}

#endif
