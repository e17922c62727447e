/* s-deep.c - recursion deeper than the shadow stack (4096 frames) */
#include <stdlib.h>
#define noinline __attribute__((noinline))

volatile int sink;

noinline int down(int n) { sink++; return n ? down(n - 1) + 1 : 0; }
noinline int after(int x) { return x + 1; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5000;

	return down(n) == n && after(1) == 2 ? 0 : 1;
}
