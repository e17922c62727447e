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
 *                        _exit or _Exit.  A child that died of a signal:
 *                        written for its threads when waitpid, wait,
 *                        wait4 or waitid returns it (ut_sched_reaped(),
 *                        lib/event/reap.c), else by the recorder
 *   task_rename          prctl(PR_SET_NAME), and pthread_setname_np on
 *                        the calling thread (another thread's name is
 *                        written through /proc and not seen); and at
 *                        start-up in a new image, from the name the old
 *                        one left (ut_sched_exec_save(), exec.c)
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/event/reap.h"
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
static __typeof__(waitpid) *real_waitpid;
static __typeof__(wait) *real_wait;
static __typeof__(wait4) *real_wait4;
static __typeof__(waitid) *real_waitid;

#define RESOLVE(name) \
	(real_##name ?: (real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)))

void ut_sched_resolve(void)
{
	RESOLVE(fork);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(prctl);
	RESOLVE(pthread_setname_np);
	RESOLVE(waitpid);
	RESOLVE(wait);
	RESOLVE(wait4);
	RESOLVE(waitid);
}

/* the calling thread's name (16 bytes), without our prctl wrapper */
static void thread_comm(char *comm)
{
	memset(comm, 0, 16);
	syscall(SYS_prctl, PR_GET_NAME, comm, 0, 0, 0);
}

static void rename_event(const char *oldcomm);

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
	/* the recorder writes it for the threads that did not (lib/event/reap.c) */
	if (ut_self.state == UT_TS_READY)
		__atomic_fetch_or(&ut_self.w.hdr->flags, RB_HDR_ENDED, __ATOMIC_RELEASE);
	errno = err;
}

/**
 * ut_sched_exec_mark - around an exec: the calling thread's buffer ends (@on)
 *
 * The thread goes on in the new image, so no sched_process_exit is due
 * in this one (lib/event/reap.c).  Returns 1 if it marked the buffer,
 * which ut_sched_exec_mark(0) unmarks when the exec failed.
 */
int ut_sched_exec_mark(int on)
{
	struct ut_thread *t = &ut_self;

	if (t->state != UT_TS_READY)
		return 0;
	if (!on) {
		__atomic_fetch_and(&t->w.hdr->flags, ~RB_HDR_ENDED, __ATOMIC_RELEASE);
		return 0;
	}
	return !(__atomic_fetch_or(&t->w.hdr->flags, RB_HDR_ENDED, __ATOMIC_RELEASE) & RB_HDR_ENDED);
}

/* SESSION/comm.<pid>: the name before an exec, for the new image's task_rename */
static void comm_path(char *path, size_t size)
{
	snprintf(path, size, "%s/comm.%d", ut_session_dir(), (int)getpid());
}

/**
 * ut_sched_exec_save - before an exec: the calling thread's name, for the new image
 *
 * The kernel's exec renames the thread (begin_new_exec) and writes
 * task_rename before sched_process_exec; the new image writes both at
 * its start-up (ut_sched_exec_rename()) with the name kept here.
 */
void ut_sched_exec_save(void)
{
	char path[600], comm[16];
	int err = errno, fd;

	if (!ut_ctl)
		return;
	thread_comm(comm);
	comm_path(path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, comm, strnlen(comm, 15)) < 0)
			unlink(path);
		close(fd);
	}
	errno = err;
}

/* the exec failed: the old image goes on, with its name */
void ut_sched_exec_failed(void)
{
	char path[600];
	int err = errno;

	if (!ut_ctl)
		return;
	comm_path(path, sizeof(path));
	unlink(path);
	errno = err;
}

/**
 * ut_sched_exec_rename - at start-up: task_rename from the name before the exec
 *
 * The old image left its name in SESSION/comm.<pid> (or the recorder,
 * for the first program) if task_rename was on there; read once, and
 * removed whether the event is on here or not.
 */
void ut_sched_exec_rename(void)
{
	char path[600], old[16];
	ssize_t n;
	int fd;

	comm_path(path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(old, 0, sizeof(old));
	n = read(fd, old, 15);
	close(fd);
	unlink(path);
	if (n >= 0 && trace_task_rename_enabled())
		rename_event(old);
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
	/* the statistics kept in the program's memory, as exit()'s destructors do */
	if (ut_ctl)
		ut_stat_sync();
	if (RESOLVE(_exit))
		real__exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

EXPORT void _Exit(int status)
{
	if (unlikely(trace_sched_process_exit_enabled()))
		ut_sched_exit(1);
	/* the statistics kept in the program's memory, as exit()'s destructors do */
	if (ut_ctl)
		ut_stat_sync();
	if (RESOLVE(_Exit))
		real__Exit(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

/*
 * The thread's new name in its buffer's header, as the thread's end
 * does: the name of a thread that dies of a signal (lib/event/reap.c).
 */
static void header_comm(void)
{
	struct ut_thread *t = &ut_self;
	int err = errno;

	if (t->state == UT_TS_READY)
		thread_comm(t->w.hdr->comm);
	errno = err;
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
	if (likely(option != PR_SET_NAME))
		return real_prctl(option, a2, a3, a4, a5);
	if (likely(!trace_task_rename_enabled())) {
		ret = real_prctl(option, a2, a3, a4, a5);
		if (ret == 0)
			header_comm();
		return ret;
	}
	thread_comm(old);
	ret = real_prctl(option, a2, a3, a4, a5);
	if (ret == 0) {
		err = errno;
		rename_event(old);
		header_comm();
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
	if (!pthread_equal(th, pthread_self()))
		return real_pthread_setname_np(th, name);
	if (likely(!trace_task_rename_enabled())) {
		ret = real_pthread_setname_np(th, name);
		if (ret == 0)
			header_comm();
		return ret;
	}
	thread_comm(old);
	ret = real_pthread_setname_np(th, name);
	if (ret == 0) {
		int err = errno;

		rename_event(old);
		header_comm();
		errno = err;
	}
	return ret;
}

/* ---- the end of a child that could not write it ---- */

#define REAP_MAX	64

static uint64_t reap_clock(void)
{
	return ut_clock();
}

/* a buffer of the child: buf.<pid>.<tid>.<image>[.<gen>] */
struct reap_buf {
	pid_t tid;
	uint64_t image;
	unsigned gen;
};

/* "<n>." at @p: the number, and @p past the dot; -1 if not */
static int name_num(const char **p, uint64_t *v, int last)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	*v = strtoull(*p, &end, 10);
	if (*end == '.')
		end++;
	else if (*end || !last)
		return -1;
	*p = end;
	return 0;
}

/*
 * ut_sched_reaped - the program reaped (waited for) its child @child:
 * sched_process_exit for the threads of it that did not write their own
 * (a death by a signal, SIGKILL included), in their buffers, now: the
 * kernel writes it before the wait returns (lib/event/reap.c; the
 * recorder does the same for the processes it reaps itself).
 */
static __attribute__((noinline)) void ut_sched_reaped(pid_t child)
{
	struct reap_buf rb[REAP_MAX];
	struct ut_reap_thread t[REAP_MAX];
	char dbuf[1024], path[600], prefix[32];
	int fd, n = 0, err = errno;
	size_t pl;
	long got;

	if (!ut_ctl || child <= 0)
		return;
	pl = (size_t)snprintf(prefix, sizeof(prefix), "buf.%d.", (int)child);
	fd = open(ut_session_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto out;
	while ((got = syscall(SYS_getdents64, fd, dbuf, sizeof(dbuf))) > 0) {
		for (long off = 0; off < got;) {
			struct ut_dirent64 *de = (void *)(dbuf + off);
			const char *p = de->name + pl;
			uint64_t tid, image, gen = 0;
			int k;

			off += de->reclen;
			if (strncmp(de->name, prefix, pl) || name_num(&p, &tid, 0) ||
			    name_num(&p, &image, 1) || (*p && name_num(&p, &gen, 1)))
				continue;
			for (k = 0; k < n && (rb[k].tid != (pid_t)tid || rb[k].image != image); k++)
				;
			if (k == n) {
				if (n == REAP_MAX)
					continue;
				rb[n++] = (struct reap_buf){ (pid_t)tid, image, (unsigned)gen };
			} else if (gen > rb[k].gen) {
				rb[k].gen = (unsigned)gen;
			}
		}
	}
	close(fd);
	for (int i = 0; i < n; i++) {
		struct rb_header *h;
		uint32_t pages;

		snprintf(path, sizeof(path), "%s/%s%d.%llu", ut_session_dir(), prefix, (int)rb[i].tid,
			 (unsigned long long)rb[i].image);
		if (rb[i].gen)
			snprintf(path + strlen(path), sizeof(path) - strlen(path), ".%u", rb[i].gen);
		t[i].h = NULL;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		h = mmap(NULL, RB_PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		pages = h != MAP_FAILED ? h->nr_pages : 0;
		if (h != MAP_FAILED)
			munmap(h, RB_PAGE_SIZE);
		h = pages >= 2 ? mmap(NULL, rb_file_size(pages), PROT_READ | PROT_WRITE, MAP_SHARED,
				      fd, 0) : MAP_FAILED;
		close(fd);
		if (h != MAP_FAILED && !memcmp(h->magic, RB_MAGIC, 8) && h->nr_pages == pages)
			t[i].h = h;
		else if (h != MAP_FAILED)
			munmap(h, rb_file_size(pages));
	}
	{
		int m = 0;

		for (int i = 0; i < n; i++)
			if (t[i].h) {
				t[m] = t[i];
				t[m].prio = 0;
				m++;
			}
		ut_reap_exit(ut_events_reg(), __atomic_load_n(&ut_ctl->tracing_on, __ATOMIC_ACQUIRE),
			     t, m, reap_clock);
		for (int i = 0; i < m; i++)
			munmap(t[i].h, rb_file_size(t[i].h->nr_pages));
	}
out:
	errno = err;
}

/* @st: the status of a child that ended (not stopped or continued) */
static inline int ended(int st)
{
	return WIFEXITED(st) || WIFSIGNALED(st);
}

EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	int st = 0;
	pid_t ret;

	if (!RESOLVE(waitpid))
		return errno = ENOSYS, -1;
	ret = real_waitpid(pid, &st, options);
	if (status && ret > 0)
		*status = st;
	if (unlikely(trace_sched_process_exit_enabled()) && ret > 0 && ended(st))
		ut_sched_reaped(ret);
	return ret;
}

EXPORT pid_t wait(int *status)
{
	int st = 0;
	pid_t ret;

	if (!RESOLVE(wait))
		return errno = ENOSYS, -1;
	ret = real_wait(&st);
	if (status && ret > 0)
		*status = st;
	if (unlikely(trace_sched_process_exit_enabled()) && ret > 0 && ended(st))
		ut_sched_reaped(ret);
	return ret;
}

EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t ret;

	if (!RESOLVE(wait4))
		return errno = ENOSYS, -1;
	ret = real_wait4(pid, &st, options, ru);
	if (status && ret > 0)
		*status = st;
	if (unlikely(trace_sched_process_exit_enabled()) && ret > 0 && ended(st))
		ut_sched_reaped(ret);
	return ret;
}

EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int ret;

	if (!RESOLVE(waitid))
		return errno = ENOSYS, -1;
	ret = real_waitid(idtype, id, info, options);
	if (unlikely(trace_sched_process_exit_enabled()) && ret == 0 && info && info->si_pid > 0 &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	     info->si_code == CLD_DUMPED))
		ut_sched_reaped(info->si_pid);
	return ret;
}
