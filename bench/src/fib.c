// SPDX-License-Identifier: MIT
/*
 * fib.c - bench program: naive recursive Fibonacci, a deep call tree of
 * small functions.
 *
 *   fib [N]         (default 30: 2 * fib(30) - 1 = 1664079 calls of fib)
 *
 * The last line of the output is "cpu_ns N wall_ns W" (clock.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

__attribute__((noinline)) int fib(int n)
{
	int a, b;

	if (n <= 2)
		return 1;
	a = fib(n - 1);
	b = fib(n - 2);
	/*
	 * Without this barrier GCC turns the second call into a loop around
	 * the first (an accumulator), and there are far fewer calls to trace.
	 */
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	struct bench_clock clk;

	bench_start(&clk);
	printf("fib(%d) = %d\n", n, fib(n));
	bench_print(&clk);
	return 0;
}
