/* s-filters.c - call trees for the graph filters and function commands */
#include <time.h>
#define noinline __attribute__((noinline))

volatile int sink;

noinline int leaf(int x) { return x + 1; }
noinline int mid(int x) { return leaf(x) + leaf(x + 1); }
noinline int top(int x) { return mid(x) * 2; }
noinline int quiet(int x) { return leaf(x) - 1; }
noinline void off(void) { sink++; }
noinline void on(void) { sink++; }

/* at least 3 ms: the only call over a 1 ms threshold, with main */
noinline void slow(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 3000000L);
}

int main(void)
{
	sink += top(1);
	sink += quiet(2);
	off();
	sink += top(3);
	on();
	sink += mid(4);
	slow();
	return 0;
}
