/*
 * s-prof.c - the max stack tracer's and the function profiler's program
 * (tests/cli/t-prof.sh): a known deepest chain and known hit counts.
 *
 *   main -> run -> deep_a (4096-byte array) -> deep_b (8192) -> deep_c (leaf)
 *   leaf() is called 1000 times from loop(), tick() 7 times
 *   argv[1] "fork": the child runs the deep chain twice as deep
 *   (deep_a -> deep_a2 -> ... ) and the parent the plain one
 *   argv[1] "thread": a second thread runs the deep chain, the main thread
 *   only loop()
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

volatile int sink;

noinline void leaf(int x) { sink += x; }
noinline void tick(void) { sink++; }

noinline void loop(void)
{
	for (int i = 0; i < 1000; i++)
		leaf(i);
	for (int i = 0; i < 7; i++)
		tick();
}

noinline void deep_c(void) { sink++; }

noinline void deep_b(void)
{
	volatile char buf[8192];

	memset((char *)buf, 1, sizeof(buf));
	deep_c();
	sink += buf[100];
}

noinline void deep_a(void)
{
	volatile char buf[4096];

	memset((char *)buf, 1, sizeof(buf));
	deep_b();
	sink += buf[100];
}

noinline void deeper(void)
{
	volatile char buf[16384];

	memset((char *)buf, 1, sizeof(buf));
	deep_a();
	sink += buf[100];
}

noinline void run(int more)
{
	if (more)
		deeper();
	else
		deep_a();
	loop();
}

static void *thread_fn(void *arg)
{
	(void)arg;
	run(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t p = fork();

		if (p == 0) {
			run(1);
			_exit(0);
		}
		run(0);
		waitpid(p, NULL, 0);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;

		pthread_create(&t, NULL, thread_fn, NULL);
		pthread_join(t, NULL);
		loop();
		return 0;
	}
	run(0);
	return 0;
}
