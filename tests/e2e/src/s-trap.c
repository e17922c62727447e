/* s-trap.c - the program's own SIGTRAP handler still gets its traps */
#include <signal.h>
#include <string.h>
#define noinline __attribute__((noinline))

static volatile int traps;

static void on_trap(int sig) { (void)sig; traps++; }
noinline void work(void) { raise(SIGTRAP); }

int main(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL) < 0)
		return 2;
	work();
	signal(SIGTRAP, on_trap);
	work();
	if (sigaction(SIGTRAP, NULL, &old) < 0 || old.sa_handler != on_trap)
		return 3;
	return traps == 2 ? 0 : 1;
}
