/*
 * tp.c - the cost of a tracepoint with one int field: N calls in a loop,
 * timed by the program itself (the loop only, not start-up or exit).
 *
 *   tp [N]     prints "ns/call <float>" on stderr
 *
 * Built three ways (bench/tp.sh): TP_USERTRACE (usertrace/tracepoint.h),
 * TP_LTTNG (LTTng-UST's tracepoint.h), neither (the empty loop).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(TP_USERTRACE)
#define CREATE_TRACE_POINTS
#include "tp_trace.h"
#define HIT(i)	trace_tp_int(i)
#elif defined(TP_LTTNG)
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tp_lttng.h"
#define HIT(i)	tracepoint(bench_lttng, tp_int, i)
#else
#define HIT(i)	__asm__ __volatile__("" : : "r"(i) : "memory")
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		HIT((int)i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "ns/call %.2f\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
