/*
 * s-branch.c - known branch outcomes for the branch profilers and the
 * branch tracer (usertrace/branch.h, built with -DUSERTRACE_PROFILE_BRANCHES
 * or -DUSERTRACE_PROFILE_ALL_BRANCHES).
 *
 * argv[1] rounds: check(i) guesses i > 0 likely (wrong once), rare(i)
 * guesses i % 4 == 0 unlikely (wrong for 0, 4, 8...), never() is never
 * called (X), always_wrong() is always wrong (100).  A forked child
 * takes check() 5 more times: its counts are its own, so the sums are
 * the parent's and the child's, not the parent's twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <usertrace/branch.h>

static volatile int sink;

__attribute__((noinline)) static int check(int v)
{
	if (likely(v > 0))
		return 1;
	return 0;
}

__attribute__((noinline)) static int rare(int v)
{
	if (unlikely(v % 4 == 0))
		return 1;
	return 0;
}

__attribute__((noinline)) static int always_wrong(int v)
{
	return unlikely(v >= 0);
}

__attribute__((noinline)) static int never(int v)
{
	return likely(v == 42);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	pid_t pid;

	for (int i = 0; i < n; i++) {
		sink += check(i);
		sink += rare(i);
	}
	sink += always_wrong(n);
	if (sink < 0)
		sink += never(sink);
	pid = fork();
	if (pid == 0) {
		for (int i = 1; i <= 5; i++)
			sink += check(i);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return 0;
}
