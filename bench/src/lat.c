/* lat.c - a loop of sigprocmask pairs (SIG_BLOCK, SIG_SETMASK) and one of
 * preempt_disable/preempt_enable pairs, timed; prints "sig ns/pair X" and
 * "preempt ns/pair Y" on stderr (bench/lat.sh). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <usertrace/preempt.h>

#include "clock.h"

#define now_ns()	((double)bench_ns(CLOCK_MONOTONIC))

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	sigset_t s, o;
	double t0, t1, t2;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		sigprocmask(SIG_BLOCK, &s, &o);
		sigprocmask(SIG_SETMASK, &o, NULL);
	}
	t1 = now_ns();
	for (long i = 0; i < n; i++) {
		preempt_disable();
		preempt_enable();
	}
	t2 = now_ns();
	fprintf(stderr, "sig ns/pair %.1f\npreempt ns/pair %.1f\n", (t1 - t0) / n, (t2 - t1) / n);
	return 0;
}
