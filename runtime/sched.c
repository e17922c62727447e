// SPDX-License-Identifier: MIT
/*
 * sched.c - the built-in sched and task events (usertrace/events/sched.h,
 * task.h): where processes and threads start, exec, end and rename
 * themselves, as far as a library inside the process sees it.
 *
 *   sched_process_fork   fork (and vfork, which is fork here), and
 *                        posix_spawn (exec.c): in the parent, once the
 *                        child's pid is known; pthread_create
 *                        (interpose.c): in the creator, before the new
 *                        thread runs the program's code, as the kernel
 *                        writes it for every clone
 *   sched_process_exec   the runtime's start-up in each new image; old_pid
 *                        is the pid (an exec from another thread than the
 *                        main one is not told apart)
 *   sched_process_exit   a thread created while traced returns from its
 *                        start function or calls pthread_exit
 *                        (interpose.c); the process calls exit (the
 *                        runtime's atexit handler, after the program's),
 *                        _exit or _Exit.  Death by a signal records none
 *   task_rename          prctl(PR_SET_NAME), and pthread_setname_np on
 *                        the calling thread (another thread's name is
 *                        written through /proc and not seen)
 *
 * Each hook costs one load and one branch not taken while its event is
 * off (trace_<event>_enabled()); what the event needs beyond the call's
 * own result (names, priority, oom_score_adj: system calls) is read only
 * when it is on.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "usertrace/events/sched.h"
#include "usertrace/events/task.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

/*
 * The next definitions, found at start-up (ut_sched_resolve()): the
 * runtime calls prctl itself, also from the hooks, where dlsym (which
 * uses the vector registers the hooks do not save) must not run.  A call
 * before start-up (another library's constructor) finds them then.
 */
static __typeof__(fork) *real_fork;
static __typeof__(_exit) *real__exit;
static __typeof__(_Exit) *real__Exit;
static __typeof__(prctl) *real_prctl;
static __typeof__(pthread_setname_np) *real_pthread_setname_np;

#define RESOLVE(name) \
	(real_##name ?: (real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)))

void ut_sched_resolve(void)
{
	RESOLVE(fork);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(prctl);
	RESOLVE(pthread_setname_np);
}

/* the calling thread's name (16 bytes), without our prctl wrapper */
static void thread_comm(char *comm)
{
	memset(comm, 0, 16);
	syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
}

/* the first bytes of a small file as a number; @def if unreadable */
static long read_num(const char *path, long def)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return def;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return def;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/**
 * ut_sched_fork - sched_process_fork in the parent of @child (pid > 0)
 *
 * The child's name is the parent's: it has not run anything yet.
 */
void ut_sched_fork(pid_t child)
{
	char comm[16];
	int err = errno;

	thread_comm(comm);
	trace_sched_process_fork(comm, (pid_t)syscall(SYS_gettid), comm, child);
	errno = err;
}

/*
 * The kernel's prio of the calling thread: 120 + nice for the normal
 * policies, 99 - rt_priority for SCHED_FIFO and SCHED_RR, -1 for
 * SCHED_DEADLINE.
 */
static int thread_prio(void)
{
	struct sched_param sp;
	int pol = sched_getscheduler(0), nice;

	if ((pol == SCHED_FIFO || pol == SCHED_RR) && !sched_getparam(0, &sp))
		return 99 - sp.sched_priority;
	if (pol == SCHED_DEADLINE)
		return -1;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);	/* Linux: the calling thread */
	return errno ? 120 : 120 + nice;
}

/*
 * The threads of the process, from /proc/self/stat (field 20); 0 if
 * unknown.  The command name (field 2) may hold blanks and parentheses:
 * count from the last ')'.
 */
static long nr_threads(void)
{
	char buf[1024], *p;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (!(p = strrchr(buf, ')')))
		return 0;
	while (*p && field < 20)
		if (*p++ == ' ')
			field++;
	return strtol(p, NULL, 10);
}

/**
 * ut_sched_exit - sched_process_exit for the calling thread
 * @group: the whole process ends (exit, _exit); else only this thread,
 *	the last one if /proc says so
 */
void ut_sched_exit(int group)
{
	char comm[16];
	int err = errno;

	thread_comm(comm);
	trace_sched_process_exit(comm, (pid_t)syscall(SYS_gettid), thread_prio(),
				 group || nr_threads() == 1);
	errno = err;
}

/**
 * ut_sched_exec - sched_process_exec, at the runtime's start-up in a new image
 */
void ut_sched_exec(void)
{
	const char *file = (const char *)getauxval(AT_EXECFN);
	pid_t pid = getpid();

	trace_sched_process_exec(file ? file : "", pid, pid);
}

EXPORT pid_t fork(void)
{
	pid_t pid;

	if (!RESOLVE(fork))
		return errno = ENOSYS, -1;
	pid = real_fork();
	if (unlikely(trace_sched_process_fork_enabled()) && pid > 0)
		ut_sched_fork(pid);
	return pid;
}

EXPORT void _exit(int status)
{
	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(1);
	if (RESOLVE(_exit))
		real__exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(1);
	if (RESOLVE(_Exit))
		real__Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/* task_rename: the kernel's oom_score_adj is the process's */
static void rename_event(const char *oldcomm)
{
	char newcomm[16];

	thread_comm(newcomm);
	trace_task_rename((pid_t)syscall(SYS_gettid), oldcomm, newcomm,
			  (short)read_num("/proc/self/oom_score_adj", 0));
}

/* prctl takes up to four more arguments, read as glibc's own prctl reads them */
EXPORT int prctl(int option, ...)
{
	unsigned long a2, a3, a4, a5;
	char old[16];
	va_list ap;
	int ret, err;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (unlikely(!RESOLVE(prctl)))
		return (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
	if (likely(option != PR_SET_NAME) || likely(!trace_task_rename_enabled()))
		return real_prctl(option, a2, a3, a4, a5);
	thread_comm(old);
	ret = real_prctl(option, a2, a3, a4, a5);
	if (ret == 0) {
		err = errno;
		rename_event(old);
		errno = err;
	}
	return ret;
}

EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	char old[16];
	int ret;

	if (!RESOLVE(pthread_setname_np))
		return ENOSYS;
	if (likely(!trace_task_rename_enabled()) || !pthread_equal(th, pthread_self()))
		return real_pthread_setname_np(th, name);
	thread_comm(old);
	ret = real_pthread_setname_np(th, name);
	if (ret == 0) {
		int err = errno;

		rename_event(old);
		errno = err;
	}
	return ret;
}
