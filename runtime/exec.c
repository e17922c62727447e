// SPDX-License-Identifier: MIT
/*
 * exec.c - programs started with an environment of their own are traced
 * too.
 *
 * A traced program runs with LD_PRELOAD naming libusertrace.so and
 * USERTRACE_SESSION naming the session: its children inherit both, unless
 * it starts them with an environment it made (execve, posix_spawn, ...,
 * down to an empty one).  Every exec and spawn function is wrapped here:
 * when the environment it is given lacks either variable, or LD_PRELOAD
 * lacks the runtime, a copy with them is passed on; the program's own
 * variables are kept as they are.
 *
 * exec may be called in a vfork child, which shares the parent's memory:
 * nothing here allocates, locks or writes outside its stack.  The copy is
 * on the stack, so it has limits: at most UT_ENV_MAX variables and an
 * LD_PRELOAD of at most UT_PRELOAD_MAX bytes; past them the environment
 * is passed on as it is (the child is then not traced).  The next
 * definitions are found at start-up, not in a vfork child.
 */
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "usertrace/events/sched.h"
#include "usertrace/events/task.h"
#include "usertrace/session.h"

#define UT_ENV_MAX	4096
#define UT_PRELOAD_MAX	4096
#define UT_ARGS_MAX	65536

#define PRELOAD		"LD_PRELOAD="
#define PRELOAD_LEN	(sizeof(PRELOAD) - 1)
#define SESSION		UT_SESSION_ENV "="
#define SESSION_LEN	(sizeof(SESSION) - 1)

extern char **environ;

/* set once at start-up, read-only afterwards */
static char ut_env_session[600];	/* "USERTRACE_SESSION=<dir>" */
static char ut_lib[512];		/* the runtime's path, as it was loaded */

static __typeof__(execve) *real_execve;
static __typeof__(execvpe) *real_execvpe;
static __typeof__(fexecve) *real_fexecve;
static __typeof__(execveat) *real_execveat;
static __typeof__(posix_spawn) *real_posix_spawn;
static __typeof__(posix_spawnp) *real_posix_spawnp;

#define RESOLVE(name) \
	(real_##name ?: (real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)))

/* find the real functions: first thing in the constructor, traced or not */
void ut_exec_resolve(void)
{
	RESOLVE(execve);
	RESOLVE(execvpe);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	RESOLVE(posix_spawn);
	RESOLVE(posix_spawnp);
}

/* remember what the children need: once the session is open */
void ut_exec_init(void)
{
	const char *session = ut_session_dir();
	Dl_info info;
	size_t n = strlen(session);

	if (!ut_ctl || !n || SESSION_LEN + n >= sizeof(ut_env_session))
		return;
	if (!dladdr((void *)ut_exec_init, &info) || !info.dli_fname ||
	    strlen(info.dli_fname) >= sizeof(ut_lib) || !strchr(info.dli_fname, '/'))
		return;
	strcpy(ut_lib, info.dli_fname);
	memcpy(ut_env_session, SESSION, SESSION_LEN);
	memcpy(ut_env_session + SESSION_LEN, session, n + 1);
}

/* does the LD_PRELOAD value @v (blank- or colon-separated) load a runtime? */
static int ut_preload_has_lib(const char *v)
{
	static const char base[] = "libusertrace.so";
	size_t bl = sizeof(base) - 1;

	while (*v) {
		size_t len = strcspn(v, ": \t");

		if (len == strlen(ut_lib) && !memcmp(v, ut_lib, len))
			return 1;
		if (len >= bl && !memcmp(v + len - bl, base, bl) &&
		    (len == bl || v[len - bl - 1] == '/'))
			return 1;
		v += len;
		v += strspn(v, ": \t");
	}
	return 0;
}

/* the variables of @envp, UT_ENV_MAX + 1 if more */
static size_t ut_env_count(char *const *envp)
{
	size_t n = 0;

	while (envp && envp[n] && n <= UT_ENV_MAX)
		n++;
	return n;
}

/*
 * @envp with what the runtime needs: @vec (room for @n + 3 pointers) and
 * @buf (UT_PRELOAD_MAX bytes) hold the copy when one is needed.  Returns
 * @envp itself when it has them, or when no copy can be made.
 */
static char *const *ut_env_fix(char *const *envp, size_t n, char **vec, char *buf)
{
	ssize_t preload = -1, session = -1;
	size_t m = 0;

	if (!ut_ctl || !ut_env_session[0] || n > UT_ENV_MAX)
		return envp;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(envp[i], PRELOAD, PRELOAD_LEN))
			preload = (ssize_t)i;
		else if (!strncmp(envp[i], SESSION, SESSION_LEN))
			session = (ssize_t)i;
	}
	if (session >= 0 && preload >= 0 && ut_preload_has_lib(envp[preload] + PRELOAD_LEN))
		return envp;
	if (preload < 0 || !ut_preload_has_lib(envp[preload] + PRELOAD_LEN)) {
		/* "LD_PRELOAD=<runtime>[:<theirs>]" */
		const char *old = preload >= 0 ? envp[preload] + PRELOAD_LEN : "";
		size_t ll = strlen(ut_lib), ol = strlen(old);

		if (PRELOAD_LEN + ll + 1 + ol + 1 > UT_PRELOAD_MAX)
			return envp;
		memcpy(buf, PRELOAD, PRELOAD_LEN);
		memcpy(buf + PRELOAD_LEN, ut_lib, ll);
		if (ol) {
			buf[PRELOAD_LEN + ll] = ':';
			memcpy(buf + PRELOAD_LEN + ll + 1, old, ol + 1);
		} else {
			buf[PRELOAD_LEN + ll] = 0;
		}
	} else {
		buf = NULL;
	}
	for (size_t i = 0; i < n; i++)
		vec[m++] = (ssize_t)i == preload && buf ? buf : envp[i];
	if (preload < 0)
		vec[m++] = buf;
	if (session < 0)
		vec[m++] = ut_env_session;
	vec[m] = NULL;
	return vec;
}

/*
 * EXEC(call): the exec, after the calling thread's name is saved for the
 * new image's task_rename (sched.c) while the event is on, and its buffer
 * marked as ended (the thread goes on in the new image: no
 * sched_process_exit for it in this one); an exec that returns failed.
 */
#define EXEC(call)							\
	({								\
		int save_ = unlikely(trace_task_rename_enabled()), ret_;	\
		int mark_ = ut_sched_exec_mark(1);			\
		if (save_)						\
			ut_sched_exec_save();				\
		ret_ = (call);						\
		if (save_)						\
			ut_sched_exec_failed();				\
		if (mark_)						\
			ut_sched_exec_mark(0);				\
		ret_;							\
	})

/*
 * FIX_ENV(envp): a variable-length array for the copy lives in the
 * caller's frame, so the result is valid until the caller returns.
 */
#define FIX_ENV(envp)							\
	size_t env_n_ = ut_env_count(envp);				\
	char *env_vec_[env_n_ <= UT_ENV_MAX ? env_n_ + 3 : 1];		\
	char env_buf_[ut_ctl ? UT_PRELOAD_MAX : 1];			\
	char *const *env_ = ut_ctl ? ut_env_fix(envp, env_n_, env_vec_, env_buf_) : (envp)

static int ut_execve(const char *path, char *const argv[], char *const envp[])
{
	FIX_ENV(envp);

	if (!RESOLVE(execve))
		return errno = ENOSYS, -1;
	return EXEC(real_execve(path, argv, env_));
}

static int ut_execvpe(const char *file, char *const argv[], char *const envp[])
{
	FIX_ENV(envp);

	if (!RESOLVE(execvpe))
		return errno = ENOSYS, -1;
	return EXEC(real_execvpe(file, argv, env_));
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return ut_execve(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return ut_execve(path, argv, environ);
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return ut_execvpe(file, argv, envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return ut_execvpe(file, argv, environ);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	FIX_ENV(envp);

	if (!RESOLVE(fexecve))
		return errno = ENOSYS, -1;
	return EXEC(real_fexecve(fd, argv, env_));
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	FIX_ENV(envp);

	if (!RESOLVE(execveat))
		return errno = ENOSYS, -1;
	return EXEC(real_execveat(dirfd, path, argv, env_, flags));
}

/* the list after @arg up to its NULL: how many, at most UT_ARGS_MAX + 1 */
#define COUNT_ARGS(n, arg, last)					\
	do {								\
		va_list c_;						\
		va_start(c_, last);					\
		for ((n) = 1; (n) <= UT_ARGS_MAX && va_arg(c_, char *); (n)++) \
			;						\
		va_end(c_);						\
	} while (0)

/* execl, execlp, execle: the list as an array on the stack, then as execve/execvpe */
EXPORT int execl(const char *path, const char *arg, ...)
{
	size_t n;
	va_list ap;

	COUNT_ARGS(n, arg, arg);
	if (n > UT_ARGS_MAX)
		return errno = E2BIG, -1;
	{
		char *argv[n + 1];

		argv[0] = (char *)arg;
		va_start(ap, arg);
		for (size_t i = 1; i <= n; i++)
			argv[i] = va_arg(ap, char *);
		va_end(ap);
		return ut_execve(path, argv, environ);
	}
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	size_t n;
	va_list ap;

	COUNT_ARGS(n, arg, arg);
	if (n > UT_ARGS_MAX)
		return errno = E2BIG, -1;
	{
		char *argv[n + 1];

		argv[0] = (char *)arg;
		va_start(ap, arg);
		for (size_t i = 1; i <= n; i++)
			argv[i] = va_arg(ap, char *);
		va_end(ap);
		return ut_execvpe(file, argv, environ);
	}
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	size_t n;
	va_list ap;

	COUNT_ARGS(n, arg, arg);
	if (n > UT_ARGS_MAX)
		return errno = E2BIG, -1;
	{
		char *argv[n + 1], *const *envp;

		argv[0] = (char *)arg;
		va_start(ap, arg);
		for (size_t i = 1; i <= n; i++)
			argv[i] = va_arg(ap, char *);
		envp = va_arg(ap, char *const *);
		va_end(ap);
		return ut_execve(path, argv, envp);
	}
}

/* a spawn returned @ret with the child @child: sched_process_fork, and *@pid */
static int spawned(int ret, pid_t child, pid_t *pid)
{
	if (ret == 0) {
		if (unlikely(trace_sched_process_fork_enabled()))
			ut_sched_fork(child);
		/* the -fork options: the child may have run already, it is listed from now */
		if (unlikely(ut_follow_on()))
			ut_pid_follow(NULL, (int32_t)syscall(SYS_gettid), (int32_t)getpid(), child);
		if (pid)
			*pid = child;
	}
	return ret;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	pid_t child = 0;
	int ret;
	FIX_ENV(envp);

	if (!RESOLVE(posix_spawn))
		return ENOSYS;
	ret = real_posix_spawn(&child, path, fa, attr, argv, env_);
	return spawned(ret, child, pid);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	pid_t child = 0;
	int ret;
	FIX_ENV(envp);

	if (!RESOLVE(posix_spawnp))
		return ENOSYS;
	ret = real_posix_spawnp(&child, file, fa, attr, argv, env_);
	return spawned(ret, child, pid);
}
