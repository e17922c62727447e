/* s-daemon.c - daemon(): the grandchild outlives its parent */
#include <stdlib.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

noinline int in_daemon(int x) { return x + 1; }

int main(void)
{
	if (daemon(1, 1) < 0)
		return 1;
	return in_daemon(1) == 2 ? 0 : 1;
}
