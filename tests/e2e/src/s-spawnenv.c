/*
 * s-spawnenv.c - children started with an environment of their own,
 * without the variables the tracer had set: execve, execle, posix_spawn
 * and posix_spawnp, with one variable or none at all.
 */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

noinline int child_work(int x) { return x + 1; }

noinline int run(const char *self, const char *how)
{
	char *argv[] = { (char *)self, (char *)how, NULL };
	char *env[] = { "FOO=bar", NULL }, *none[] = { NULL };
	int status = -1;
	pid_t pid;

	if (!strcmp(how, "spawn")) {
		if (posix_spawn(&pid, self, NULL, NULL, argv, env))
			return -1;
	} else if (!strcmp(how, "spawnp-empty")) {
		if (posix_spawnp(&pid, self, NULL, NULL, argv, none))
			return -1;
	} else {
		pid = fork();
		if (pid == 0) {
			if (!strcmp(how, "execve"))
				execve(self, argv, env);
			else if (!strcmp(how, "execve-empty"))
				execve(self, argv, none);
			else
				execle(self, self, how, (char *)NULL, env);
			_exit(127);
		}
	}
	waitpid(pid, &status, 0);
	return status;
}

int main(int argc, char **argv)
{
	static const char *const how[] = { "execve", "execle", "spawn", "execve-empty",
					   "spawnp-empty" };

	if (argc > 1) {
		/* the child: its own environment is intact */
		const char *foo = getenv("FOO");

		if (strstr(argv[1], "empty") ? foo != NULL : !foo || strcmp(foo, "bar"))
			return 3;
		return child_work(1) == 2 ? 0 : 1;
	}
	for (unsigned i = 0; i < sizeof(how) / sizeof(how[0]); i++)
		if (run(argv[0], how[i]) != 0)
			return 4;
	return 0;
}
