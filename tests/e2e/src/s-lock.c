/*
 * the lock events (usertrace/events/lock.h): a thread waits for a mutex
 * and for a rwlock that main holds; main relocks an error-checking mutex
 * (EDEADLK); an uncontended lock writes nothing
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile pid_t waiter_tid;

static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

/* until the waiter sleeps (in the lock it waits for) */
static void wait_blocked(void)
{
	struct timespec ms = { 0, 1000000 };
	char path[64], buf[256], *p;
	FILE *f;

	while (!waiter_tid)
		nanosleep(&ms, NULL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)waiter_tid);
	for (;;) {
		nanosleep(&ms, NULL);
		if (!(f = fopen(path, "r")))
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (p && (p = strrchr(buf, ')')) && p[2] == 'S')
			return;
	}
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t ec;
	pthread_t th;

	pthread_mutex_lock(&m);		/* not contended: no event */
	pthread_rwlock_wrlock(&rw);
	pthread_create(&th, NULL, waiter, NULL);
	wait_blocked();
	pthread_mutex_unlock(&m);
	wait_blocked();
	pthread_rwlock_unlock(&rw);
	pthread_join(th, NULL);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&ec, &a);
	pthread_mutex_lock(&ec);
	return pthread_mutex_lock(&ec) == 0;	/* EDEADLK */
}
