/*
 * the signal events (usertrace/events/signal.h): raise, kill, sigqueue,
 * an ignored SIGCHLD, pthread_kill to a thread that unblocks the signal
 * later, a handler on a small alternate stack (no event: no room), and
 * sigaction's old action, which must be the program's own
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int hits;
static int fds[2];

static void plain(int sig)
{
	(void)sig;
	hits++;
}

static void info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	hits += si->si_value.sival_int;
}

static void *waiter(void *arg)
{
	sigset_t set;
	char c;

	(void)arg;
	if (read(fds[0], &c, 1) != 1)
		return NULL;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	return NULL;
}

int main(void)
{
	struct sigaction sa, old;
	sigset_t set;
	stack_t ss;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = plain;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR1, NULL, &old);
	if (old.sa_handler != plain || !(old.sa_flags & SA_RESTART) || (old.sa_flags & SA_SIGINFO))
		return 1;
	sa.sa_sigaction = info;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGHUP, plain);
	raise(SIGUSR1);
	kill(getpid(), SIGHUP);
	sigqueue(getpid(), SIGUSR2, (union sigval){ .sival_int = 1 });
	kill(getpid(), SIGCHLD);
	/* a handler on an alternate stack too small for an event */
	ss.ss_sp = malloc(12 << 10);	/* the kernel's frame, and a few KiB */
	ss.ss_size = 12 << 10;
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);
	sa.sa_handler = plain;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGALRM);
	/* generated now, delivered when the thread unblocks it */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pipe(fds))
		return 1;
	pthread_create(&th, NULL, waiter, NULL);
	pthread_kill(th, SIGUSR1);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	printf("hits=%d\n", hits);
	return hits == 5 ? 0 : 1;
}
