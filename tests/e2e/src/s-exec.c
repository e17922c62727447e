/* s-exec.c - vfork + exec of itself, then posix_spawn */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

extern char **environ;

noinline int child_work(int x) { return x + 1; }

noinline void run(const char *self, const char *what)
{
	char *argv[] = { (char *)self, (char *)what, NULL };
	pid_t pid;

	if (!strcmp(what, "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execv(self, argv);
			_exit(127);
		}
	} else {
		posix_spawn(&pid, self, NULL, NULL, argv, environ);
	}
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return child_work(1) == 2 ? 0 : 1;
	run(argv[0], "vfork");
	run(argv[0], "spawn");
	return 0;
}
