/* prog.c - the program the tracing-directory scenarios trace: calls
 * top() -> mid() -> leaf() and allocates a block every millisecond until
 * the file argv[1] exists. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

volatile int sink;
void *volatile block;

noinline int leaf(int x) { sink++; return x + 1; }
noinline int mid(int x) { return leaf(x) + leaf(x + 1); }
noinline int top(int x) { return mid(x) * 2; }

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };

	while (argc < 2 || access(argv[1], F_OK) != 0) {
		sink += top(1);
		block = malloc(100);
		free(block);
		nanosleep(&ms, NULL);
	}
	return 0;
}
