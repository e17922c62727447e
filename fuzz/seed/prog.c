/*
 * prog.c - the tiny program whose recordings seed the data target's
 * corpus (fuzz/seed/mkcorpus.sh): nested calls, a thread, a fork, and a
 * slow call (for --thresh and the stacktrace command); `prog N` makes N
 * more calls, `prog N LIB` also loads LIB (fuzz/seed/lib.c) and calls
 * its lib_fn().
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define noinline __attribute__((noinline))

static volatile int sink;

noinline static void leaf(int i)
{
	sink += i;
}

noinline static void slow(void)
{
	struct timespec ts = { 0, 200 * 1000 };

	nanosleep(&ts, NULL);
	leaf(1);
}

noinline static void work(int n)
{
	for (int i = 0; i < n; i++)
		leaf(i);
	slow();
}

noinline static void *thread_main(void *arg)
{
	work(2);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid;
	/* an argument: that many calls of leaf() at the end (a buffer that grows) */
	int n = argc > 1 ? atoi(argv[1]) : 3;

	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	pid = fork();
	if (pid == 0) {
		work(1);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	work(n);
	if (argc > 2) {
		void *h = dlopen(argv[2], RTLD_NOW);
		void (*fn)(void) = h ? (void (*)(void))dlsym(h, "lib_fn") : NULL;

		if (fn)
			fn();
		if (h)
			dlclose(h);
	}
	return 0;
}
