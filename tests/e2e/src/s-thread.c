/* s-thread.c - two threads, joined in order */
#include <pthread.h>
#define noinline __attribute__((noinline))

noinline int leaf(int x) { return x + 1; }
noinline void *worker(void *arg) { *(int *)arg = leaf(*(int *)arg); return NULL; }

int main(void)
{
	pthread_t th;
	int v = 1;

	pthread_create(&th, NULL, worker, &v);
	pthread_join(th, NULL);
	return leaf(v) == 3 ? 0 : 1;
}
