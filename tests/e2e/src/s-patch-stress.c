/*
 * s-patch-stress.c - 16 threads call patched functions while the main
 * thread switches their call sites on and off thousands of times.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#define noinline __attribute__((noinline))

/* the runtime's switch, found at run time: it is preloaded, not linked */
static int (*usertrace_ftrace_set)(const char *filter, const char *notrace);

static volatile int stop;
volatile long sink;

noinline void leaf(long x) { sink += x; }
noinline void mid(long x) { leaf(x); leaf(x + 1); }

noinline void *worker(void *arg)
{
	long n = 0;

	while (!stop) {
		mid(n++);
	}
	return arg;
}

int main(void)
{
	pthread_t th[16];
	int switches = 0;

	usertrace_ftrace_set = (int (*)(const char *, const char *))dlsym(RTLD_DEFAULT,
									 "usertrace_ftrace_set");

	for (int i = 0; i < 16; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 3000; i++) {
		if (usertrace_ftrace_set) {
			usertrace_ftrace_set(i & 1 ? "leaf mid" : "", i & 1 ? "" : "leaf mid");
			switches++;
		}
	}
	stop = 1;
	for (int i = 0; i < 16; i++)
		pthread_join(th[i], NULL);
	printf("%d switches\n", switches);
	return 0;
}
