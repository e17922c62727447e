/* s-fork.c - the child goes on at the parent's depth */
#include <sys/wait.h>
#include <unistd.h>
#define noinline __attribute__((noinline))

noinline int work(int x) { return x * 3; }

noinline int split(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(work(1) == 3 ? 0 : 1);
	waitpid(pid, NULL, 0);
	return work(2);
}

int main(void)
{
	return split() == 6 ? 0 : 1;
}
