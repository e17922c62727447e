/* s-signal.c - a traced signal handler */
#include <signal.h>
#define noinline __attribute__((noinline))

static volatile int hits;

noinline void in_handler(void) { hits++; }
noinline void handler(int sig) { (void)sig; in_handler(); }
noinline void send(void) { raise(SIGUSR1); }

int main(void)
{
	signal(SIGUSR1, handler);
	send();
	return hits == 1 ? 0 : 1;
}
