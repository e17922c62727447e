// SPDX-License-Identifier: MIT
/*
 * session.c - a session directory and the traced program, for record
 * and mount (see include/usertrace/session.h for what a session holds).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/session.h"
#include "usertrace/evreg.h"
#include "usertrace/session.h"
#include "utils/utils.h"

int session_find_runtime(char *out, size_t size)
{
	const char *env = getenv("USERTRACE_LIB");
	char self[PATH_MAX - 64], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(out, size, "%s", env);
		return access(out, R_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	snprintf(out, size, "%s/libusertrace.so", self);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, size, "%s/../lib/usertrace/libusertrace.so", self);
	return access(out, R_OK);
}

int session_default_clock(void)
{
	uint32_t a, b, c, d;

	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
	if (a < 0x80000007u)
		return UT_CLOCK_MONO;
	__asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
	return (d >> 8) & 1 ? UT_CLOCK_TSC : UT_CLOCK_MONO;
}

/* the start time of process @pid (/proc/PID/stat's 22nd field), 0 if it is gone */
static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* after the command's ")": state is field 3, starttime field 22 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu", &t) != 1)
		return 0;
	return t;
}

/*
 * The sessions that a killed or crashed recorder or daemon left in
 * /dev/shm (nothing of theirs ran to remove them): those of this user
 * whose SESSION_OWNER file names a process that is gone (its pid free or
 * taken by a process that started later).  A session without the file
 * (being made, or made by an older usertrace) stays.
 */
void session_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX], buf[64];
		unsigned long long start;
		struct stat st;
		int pid, fd;
		ssize_t n;

		if (strncmp(e->d_name, "usertrace.", 10) ||
		    snprintf(path, sizeof(path), "/dev/shm/%s/" SESSION_OWNER, e->d_name) >= (int)sizeof(path))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		n = fstat(fd, &st) == 0 && st.st_uid == geteuid() ? read(fd, buf, sizeof(buf) - 1) : -1;
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (sscanf(buf, "%d %llu", &pid, &start) != 2 || pid <= 0)
			continue;
		if (proc_start(pid) == start)
			continue;	/* its process runs */
		snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
		remove_tree(path);
	}
	closedir(d);
}

int session_create(struct session *s)
{
	char path[PATH_MAX];
	int fd;

	memset(s, 0, sizeof(*s));
	session_sweep();
	snprintf(s->dir, sizeof(s->dir), "/dev/shm/usertrace.XXXXXX");
	if (!mkdtemp(s->dir)) {
		pr_err("cannot create a session in /dev/shm: %s", strerror(errno));
		s->dir[0] = 0;
		return -1;
	}
	/* its owner, for session_sweep() should this process die without removing it */
	snprintf(path, sizeof(path), "%s/" SESSION_OWNER, s->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dprintf(fd, "%d %llu\n", (int)getpid(), proc_start(getpid()));
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/control", s->dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, UT_CTL_SIZE) < 0) {
		pr_err("cannot create %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	s->ctl = mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->ctl == MAP_FAILED) {
		pr_err("cannot map %s: %s", path, strerror(errno));
		s->ctl = NULL;
		goto fail;
	}
	memcpy(s->ctl->magic, UT_CTL_MAGIC, 8);
	s->ctl->version = UT_CTL_VERSION;
	/* every CPU records (tracing_cpumask) */
	memset(s->ctl->rec_cpumask, 0xff, sizeof(s->ctl->rec_cpumask));
	/* the event registry: a sparse file, its pages made as events register */
	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, s->dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(struct ut_evreg)) < 0) {
		pr_err("cannot create %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	s->events = mmap(NULL, sizeof(struct ut_evreg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->events == MAP_FAILED || (errno = -ut_evreg_init(s->events))) {
		pr_err("cannot set up %s: %s", path, strerror(errno));
		if (s->events != MAP_FAILED)
			munmap(s->events, sizeof(struct ut_evreg));
		s->events = NULL;
		goto fail;
	}
	return 0;
fail:
	if (s->ctl)
		munmap(s->ctl, UT_CTL_SIZE);
	s->ctl = NULL;
	remove_tree(s->dir);
	s->dir[0] = 0;
	return -1;
}

pid_t session_start(const struct session *s, char **argv, const char *lib,
		    const sigset_t *child_mask)
{
	char preload[PATH_MAX * 2];
	int errpipe[2], err;
	const char *old;
	ssize_t n;
	pid_t pid;

	if (pipe2(errpipe, O_CLOEXEC) < 0) {
		pr_err("pipe: %s", strerror(errno));
		return -1;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	pid = fork();
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		close(errpipe[0]);
		close(errpipe[1]);
		return -1;
	}
	if (pid == 0) {
		close(errpipe[0]);
		if (child_mask)
			sigprocmask(SIG_SETMASK, child_mask, NULL);
		if (s->sigpipe_default)
			signal(SIGPIPE, SIG_DFL);
		old = getenv("LD_PRELOAD");
		snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "",
			 old ? old : "");
		setenv("LD_PRELOAD", preload, 1);
		setenv(UT_SESSION_ENV, s->dir, 1);
		/* the name before the exec, for the program's task_rename (runtime/sched.c) */
		{
			char path[PATH_MAX], comm[16] = "";
			int fd;

			snprintf(path, sizeof(path), "%s/comm.%d", s->dir, (int)getpid());
			prctl(PR_GET_NAME, comm, 0, 0, 0);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd >= 0 && write(fd, comm, strnlen(comm, 15)) < 0)
				unlink(path);
			if (fd >= 0)
				close(fd);
		}
		/* stopped until the recorder has set up what watches it */
		if (s->before_exec)
			raise(SIGSTOP);
		execvp(argv[0], argv);
		err = errno;
		if (write(errpipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(errpipe[1]);
	if (s->before_exec) {
		int st;

		while (waitpid(pid, &st, WUNTRACED) < 0 && errno == EINTR)
			;
		s->before_exec(pid, s->before_exec_arg);
		kill(pid, SIGCONT);
	}
	do
		n = read(errpipe[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	if (n == sizeof(err)) {
		waitpid(pid, NULL, 0);
		pr_err("cannot run '%s': %s", argv[0], strerror(err));
		return -1;
	}
	return pid;
}

void session_destroy(struct session *s)
{
	if (s->ctl)
		munmap(s->ctl, UT_CTL_SIZE);
	s->ctl = NULL;
	if (s->events)
		munmap(s->events, sizeof(struct ut_evreg));
	s->events = NULL;
	if (s->dir[0])
		remove_tree(s->dir);
	s->dir[0] = 0;
}
