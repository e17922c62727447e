/*
 * the sched and task events (usertrace/events/sched.h, task.h): a rename,
 * a thread that renames itself and ends, a fork whose child execs this
 * program again, renames itself and exits
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int fds[2];
	char c;
	pid_t pid;

	if (argc > 1) {		/* the exec'd child */
		prctl(PR_SET_NAME, "child");
		return 0;
	}
	prctl(PR_SET_NAME, "parent");
	pthread_create(&th, NULL, worker, NULL);
	pthread_join(th, NULL);
	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		/* after the parent's fork event */
		if (read(fds[0], &c, 1) != 1)
			_exit(1);
		execl(argv[0], argv[0], "child", (char *)NULL);
		_exit(1);
	}
	if (write(fds[1], "x", 1) != 1)
		return 1;
	waitpid(pid, NULL, 0);
	return 0;
}
