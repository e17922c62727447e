/*
 * hello.c - the bundled example: a few calls, a loop and a thread.
 *
 *   make example
 */
#include <pthread.h>
#include <stdio.h>

#define noinline __attribute__((noinline))

static volatile int sink;

noinline static int square(int x)
{
	sink++;
	return x * x;
}

noinline static int sum_squares(int n)
{
	int s = 0;

	for (int i = 1; i <= n; i++)
		s += square(i);
	return s;
}

noinline static void *worker(void *arg)
{
	int *n = arg;

	*n = sum_squares(*n);
	return NULL;
}

int main(void)
{
	pthread_t th;
	int n = 2;

	pthread_create(&th, NULL, worker, &n);
	pthread_join(th, NULL);
	printf("hello: %d %d\n", sum_squares(3), n);
	return 0;
}
