/* s-pthread-exit.c - a thread leaves through pthread_exit from a nested call */
#include <pthread.h>
#define noinline __attribute__((noinline))

noinline void leave(void) { pthread_exit(NULL); }
noinline void *worker(void *arg) { (void)arg; leave(); return NULL; }
noinline int after(int x) { return x + 1; }

int main(void)
{
	pthread_t th;

	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	return after(1) == 2 ? 0 : 1;
}
