/*
 * deaths by signals, renames at exec, signals to a process group: the
 * program leads a group of its own; c1 ignores SIGUSR1 and has a second
 * thread, c2 execs this program again; kill(0) and killpg reach all
 * three; c1 dies of SIGKILL, c2 of SIGTERM (its default action), each
 * reaped by the parent.  Sends that fail record nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static int ready[2];

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

static void *idle(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "c1t");
	if (write(ready[1], "x", 1) != 1)
		return NULL;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t c1, c2;
	int go[2];
	char c;

	if (argc > 2) {		/* c2 after its exec: argv[2] is the pipe's write end */
		signal(SIGUSR1, on_usr1);
		if (write(atoi(argv[2]), "x", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	if (setpgid(0, 0) || pipe(ready) || pipe(go))
		return 1;
	prctl(PR_SET_NAME, "parent");
	signal(SIGUSR1, on_usr1);
	c1 = fork();
	if (c1 == 0) {
		/* after the parent's fork event */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		signal(SIGUSR1, SIG_IGN);
		prctl(PR_SET_NAME, "c1");
		if (pthread_create(&th, NULL, idle, NULL))
			_exit(1);
		for (;;)
			pause();
	}
	if (write(go[1], "x", 1) != 1 || read(ready[0], &c, 1) != 1)
		return 1;
	c2 = fork();
	if (c2 == 0) {
		char fd[16];

		snprintf(fd, sizeof(fd), "%d", ready[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl(argv[0], "sleeper", "sleeper", fd, (char *)NULL);
		_exit(1);
	}
	if (write(go[1], "x", 1) != 1 || read(ready[0], &c, 1) != 1)
		return 1;
	/* bad sends: no event */
	if (kill(-999999, SIGUSR1) == 0 || errno != ESRCH || kill(0, 99) == 0 ||
	    killpg(-1, SIGUSR1) == 0 || errno != EINVAL || kill(c1, 0) != 0)
		return 1;
	kill(0, SIGUSR1);
	killpg(getpgrp(), SIGCONT);
	kill(c1, SIGKILL);
	waitpid(c1, NULL, 0);
	kill(c2, SIGTERM);
	waitpid(c2, NULL, 0);
	return got == 1 ? 0 : 1;
}
