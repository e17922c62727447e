/* s-threads.c - 16 threads calling traced functions at once */
#include <pthread.h>
#include <stdio.h>
#define noinline __attribute__((noinline))

volatile int sink;

noinline void leaf(int x) { sink += x; }
noinline void *worker(void *arg)
{
	for (int i = 0; i < 10000; i++)
		leaf(i);
	return arg;
}

int main(void)
{
	pthread_t th[16];

	for (int i = 0; i < 16; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	for (int i = 0; i < 16; i++)
		pthread_join(th[i], NULL);
	return 0;
}
