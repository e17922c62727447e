/*
 * s-wakeup.c - threads woken through a condition variable after known
 * delays: the waker signals, then holds the mutex for the delay, so the
 * woken thread runs again at least that long after its wake.
 *
 *   s-wakeup [rt_ms other_ms]...
 *
 * Thread "rt" (SCHED_FIFO 10) is woken with delays rt_ms, thread "other"
 * (SCHED_OTHER) with other_ms, in turn.  Exits 77 without the privilege
 * to make a SCHED_FIFO thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct waiter {
	pthread_mutex_t m;
	pthread_cond_t cv;
	int gen, seen, waiting, stop;	/* seen: the last gen the thread took */
	const char *name;
};

static struct waiter rt = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, "rt" };
static struct waiter other = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, "other" };

static void __attribute__((noinline)) spin_ms(int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ms * 1000000L);
}

static void *rt_thread(void *arg)
{
	struct waiter *w = arg;

	pthread_setname_np(pthread_self(), w->name);
	pthread_mutex_lock(&w->m);
	for (;;) {
		w->waiting = 1;
		while (w->gen == w->seen && !w->stop)
			pthread_cond_wait(&w->cv, &w->m);
		w->waiting = 0;
		if (w->stop)
			break;
		w->seen = w->gen;
	}
	pthread_mutex_unlock(&w->m);
	return NULL;
}

static void __attribute__((noinline)) waker(struct waiter *w, int ms)
{
	/*
	 * until the thread waits again, having taken the last wake-up: a
	 * thread slow to run (a loaded machine) still had waiting set from
	 * before it, and a second signal then woke nobody
	 */
	for (;;) {
		pthread_mutex_lock(&w->m);
		if (w->waiting && w->seen == w->gen)
			break;
		pthread_mutex_unlock(&w->m);
		sched_yield();
	}
	w->gen++;
	pthread_cond_signal(&w->cv);
	spin_ms(ms);
	pthread_mutex_unlock(&w->m);
}

static void stop(struct waiter *w, pthread_t th)
{
	pthread_mutex_lock(&w->m);
	w->stop = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->m);
	pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = 10 };
	pthread_t t1, t2;
	int err;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	err = pthread_create(&t1, &a, rt_thread, &rt);
	if (err == EPERM) {
		fprintf(stderr, "s-wakeup: no SCHED_FIFO here: %s\n", strerror(err));
		return 77;
	}
	if (err)
		return 1;
	pthread_create(&t2, NULL, rt_thread, &other);
	for (int i = 1; i + 1 < argc; i += 2) {
		waker(&rt, atoi(argv[i]));
		waker(&other, atoi(argv[i + 1]));
	}
	stop(&rt, t1);
	stop(&other, t2);
	return 0;
}
