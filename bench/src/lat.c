/* lat.c - a loop of sigprocmask pairs (SIG_BLOCK, SIG_SETMASK), one of
 * preempt_disable/preempt_enable pairs and one of wake pairs (a
 * pthread_cond_signal and a sem_post/sem_wait that do not block: what the
 * wakeup tracers' wrappers cost), timed; prints "sig ns/pair X",
 * "preempt ns/pair Y" and "wake ns/pair Z" on stderr (bench/lat.sh). */
#include <pthread.h>
#include <semaphore.h>
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
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	sem_t sem;
	double t0, t1, t2, t3;

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
	sem_init(&sem, 0, 0);
	for (long i = 0; i < n; i++) {
		pthread_cond_signal(&cv);
		sem_post(&sem);
		sem_wait(&sem);
	}
	t3 = now_ns();
	fprintf(stderr, "sig ns/pair %.1f\npreempt ns/pair %.1f\nwake ns/pair %.1f\n",
		(t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n);
	return 0;
}
