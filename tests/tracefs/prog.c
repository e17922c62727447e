/* prog.c - the program the tracing-directory scenarios trace: calls
 * top() -> mid() -> leaf() and allocates a block every millisecond until
 * the file argv[1] exists.
 * When the file argv[1].fork appears, it forks a child, and for
 * argv[1].thread it creates a thread: each writes its id into
 * argv[1].kid (argv[1].tid), calls kid_leaf() (tid_leaf()) every
 * millisecond until argv[1].kidstop (argv[1].tidstop) exists, then ends
 * (the child is reaped).  While argv[1].irq exists, each round also calls
 * mid() with SIGUSR1 blocked (a section of the irqsoff tracer).
 * For argv[1].wake it starts a SCHED_FIFO thread (SCHED_OTHER without the
 * privilege; it writes its policy into argv[1].wakee) that a second
 * thread wakes through a condition variable every few milliseconds,
 * holding the mutex 2 ms after the signal, until argv[1].wakestop (or
 * argv[1]) exists.
 * For argv[1].ping two threads pass a byte to each other through two
 * pipes PING_ROUNDS times (each blocks in every round it waits), then
 * write "PINGER_TID PONGER_TID" into argv[1].pingdone.
 * For argv[1].branch it takes the likely()/unlikely() sites of
 * branch_once() ten times (built with -DUSERTRACE_PROFILE_BRANCHES:
 * check 9 right 1 wrong, rare 7 right 3 wrong), then writes
 * argv[1].branchdone.
 * 16 bytes of a page are registered as device memory at 0xfebf0000
 * (usertrace/mmio.h) from the start: while argv[1].mmio exists, each
 * round writes 0x1234abcd to its register 4 (4 bytes) and reads it back
 * (the mmiotrace tracer's W and R lines).
 * While argv[1].hold exists, top() stays in a loop that calls mid() every
 * millisecond (a caller entered before a tracer was switched on). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <usertrace/branch.h>
#include <sys/mman.h>
#include <stdint.h>
#include <usertrace/mmio.h>
#define noinline __attribute__((noinline))

volatile int sink;
void *volatile block;
static const char *stop;

noinline int leaf(int x) { sink++; return x + 1; }
noinline int mid(int x) { return leaf(x) + leaf(x + 1); }
static char holdpath[4096];
static volatile int hold;

noinline int top(int x)
{
	struct timespec ms = { 0, 1000000 };

	while (hold) {
		sink += mid(x);
		nanosleep(&ms, NULL);
		hold = access(holdpath, F_OK) == 0;
	}
	return mid(x) * 2;
}
noinline int kid_leaf(int x) { sink++; return x + 2; }
noinline int tid_leaf(int x) { sink++; return x + 3; }

static int exists(const char *suffix)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s%s", stop, suffix);
	return access(p, F_OK) == 0;
}

/* argv[1]SUFFIX holds @id (written whole: a rename) */
static void tell(const char *suffix, int id)
{
	char p[4096], t[4100];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", stop, suffix);
	snprintf(t, sizeof(t), "%s.tmp", p);
	if ((f = fopen(t, "w"))) {
		fprintf(f, "%d\n", id);
		fclose(f);
		rename(t, p);
	}
}

/* call @fn every millisecond until argv[1]@until (or argv[1]) exists */
static void work(int (*fn)(int), const char *until)
{
	struct timespec ms = { 0, 1000000 };

	while (!exists(until) && !exists("")) {
		sink += fn(1);
		nanosleep(&ms, NULL);
	}
}

static void *thread_main(void *arg)
{
	(void)arg;
	tell(".tid", gettid());
	work(tid_leaf, ".tidstop");
	return NULL;
}

noinline int check(int i)
{
	return likely(i > 0);
}

noinline int rare(int i)
{
	return unlikely(i % 4 == 0);
}

static void branch_once(void)
{
	for (int i = 0; i < 10; i++)
		sink += check(i) + rare(i);
}

static pthread_mutex_t wake_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cv = PTHREAD_COND_INITIALIZER;
static int wake_gen, wake_waiting, wake_done;

static void *wakee_main(void *arg)
{
	int seen = 0;

	(void)arg;
	tell(".wakee", sched_getscheduler(0));
	pthread_mutex_lock(&wake_m);
	while (!wake_done) {
		wake_waiting = 1;
		while (wake_gen == seen && !wake_done)
			pthread_cond_wait(&wake_cv, &wake_m);
		wake_waiting = 0;
		seen = wake_gen;
	}
	pthread_mutex_unlock(&wake_m);
	return NULL;
}

noinline void wake_it(void)
{
	struct timespec a, b;

	pthread_mutex_lock(&wake_m);
	if (wake_waiting) {
		wake_gen++;
		pthread_cond_signal(&wake_cv);
		clock_gettime(CLOCK_MONOTONIC, &a);
		do
			clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 2000000L);
	}
	pthread_mutex_unlock(&wake_m);
}

static void *waker_main(void *arg)
{
	struct timespec ms = { 0, 3000000 };
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = 10 };
	pthread_t t;

	(void)arg;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	if (pthread_create(&t, &a, wakee_main, NULL) != 0 &&
	    pthread_create(&t, NULL, wakee_main, NULL) != 0)
		return NULL;
	while (!exists(".wakestop") && !exists("")) {
		wake_it();
		nanosleep(&ms, NULL);
	}
	pthread_mutex_lock(&wake_m);
	wake_done = 1;
	pthread_cond_signal(&wake_cv);
	pthread_mutex_unlock(&wake_m);
	pthread_join(t, NULL);
	return NULL;
}

#define PING_ROUNDS	20
static int ping_a[2], ping_b[2];
static pid_t ponger_tid;

static void *ponger_main(void *arg)
{
	char c;

	(void)arg;
	ponger_tid = gettid();
	for (int i = 0; i < PING_ROUNDS; i++)
		if (read(ping_a[0], &c, 1) != 1 || write(ping_b[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *pinger_main(void *arg)
{
	char p[4096], t[4100], c = 'x';
	pthread_t th;
	FILE *f;

	(void)arg;
	if (pipe(ping_a) || pipe(ping_b) || pthread_create(&th, NULL, ponger_main, NULL))
		return NULL;
	for (int i = 0; i < PING_ROUNDS; i++)
		if (write(ping_a[1], &c, 1) != 1 || read(ping_b[0], &c, 1) != 1)
			break;
	pthread_join(th, NULL);
	close(ping_a[0]);
	close(ping_a[1]);
	close(ping_b[0]);
	close(ping_b[1]);
	snprintf(p, sizeof(p), "%s.pingdone", stop);
	snprintf(t, sizeof(t), "%s.tmp", p);
	if ((f = fopen(t, "w"))) {
		fprintf(f, "%d %d\n", gettid(), ponger_tid);
		fclose(f);
		rename(t, p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };

	char *regs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (regs != MAP_FAILED)
		ut_mmio_register(regs, 16, 0xfebf0000ull);
	stop = argc > 1 ? argv[1] : "/nonexistent";
	snprintf(holdpath, sizeof(holdpath), "%s.hold", stop);
	while (argc < 2 || access(argv[1], F_OK) != 0) {
		hold = argc > 1 && access(holdpath, F_OK) == 0;
		sink += top(1);
		block = malloc(100);
		free(block);
		nanosleep(&ms, NULL);
		if (argc < 2)
			continue;
		if (exists(".fork")) {
			char p[4096];
			pid_t c;

			snprintf(p, sizeof(p), "%s.fork", stop);
			unlink(p);
			c = fork();
			if (c == 0) {
				tell(".kid", getpid());
				work(kid_leaf, ".kidstop");
				_exit(0);
			}
		}
		if (exists(".thread")) {
			char p[4096];
			pthread_t t;

			snprintf(p, sizeof(p), "%s.thread", stop);
			unlink(p);
			if (pthread_create(&t, NULL, thread_main, NULL) == 0)
				pthread_detach(t);
		}
		if (exists(".mmio") && regs != MAP_FAILED) {
			*(volatile uint32_t *)(regs + 4) = 0x1234abcd;
			sink += (int)*(volatile uint32_t *)(regs + 4);
		}
		if (exists(".irq")) {
			sigset_t s, o;

			sigemptyset(&s);
			sigaddset(&s, SIGUSR1);
			sigprocmask(SIG_BLOCK, &s, &o);
			sink += mid(1);
			sigprocmask(SIG_SETMASK, &o, NULL);
		}
		if (exists(".wake")) {
			char p[4096];
			pthread_t t;

			snprintf(p, sizeof(p), "%s.wake", stop);
			unlink(p);
			if (pthread_create(&t, NULL, waker_main, NULL) == 0)
				pthread_detach(t);
		}
		if (exists(".branch")) {
			char p[4096];

			snprintf(p, sizeof(p), "%s.branch", stop);
			unlink(p);
			branch_once();
			tell(".branchdone", 1);
		}
		if (exists(".ping")) {
			char p[4096];
			pthread_t t;

			snprintf(p, sizeof(p), "%s.ping", stop);
			unlink(p);
			if (pthread_create(&t, NULL, pinger_main, NULL) == 0)
				pthread_detach(t);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	return 0;
}
