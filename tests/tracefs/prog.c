/* prog.c - the program the tracing-directory scenarios trace: calls
 * top() -> mid() -> leaf() every millisecond until the file argv[1] exists. */
#include <time.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

volatile int sink;

noinline int leaf(int x) { sink++; return x + 1; }
noinline int mid(int x) { return leaf(x) + leaf(x + 1); }
noinline int top(int x) { return mid(x) * 2; }

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };

	while (argc < 2 || access(argv[1], F_OK) != 0) {
		sink += top(1);
		nanosleep(&ms, NULL);
	}
	return 0;
}
