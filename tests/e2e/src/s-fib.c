/* s-fib.c - recursion */
#include <stdlib.h>
#define noinline __attribute__((noinline))

noinline int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;

	return fib(n) == 0 && n > 0;
}
