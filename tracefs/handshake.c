// SPDX-License-Identifier: MIT
/*
 * handshake.c - the generation handshake with the traced processes: a
 * change they must follow is applied before the write returns.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

static long tfs_futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static int proc_alive(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) != 0)
		return 0;
	/* a zombie answers kill() but will never acknowledge */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/*
 * tfs_ctl_apply - make the traced processes take the settings now in the
 * control page: bump gen, wake it, wait until every live process applied
 * it (at most 2 s, then an error_log line; the write still succeeds).
 * Context: s->lock not held.
 */
/*
 * Is the process's control thread still there?  After an exec into a
 * program that is not traced, the pid lives on without it.  A tid of 0:
 * the thread is starting.
 */
static int control_alive(pid_t pid, pid_t tid)
{
	char path[64];

	if (!tid)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

void tfs_ctl_apply(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t g = __atomic_add_fetch(&c->gen, 1, __ATOMIC_SEQ_CST);
	uint64_t deadline = tfs_mono_ns() + TFS_ACK_TIMEOUT_NS;

	tfs_futex(&c->gen, FUTEX_WAKE, INT_MAX, NULL);
	for (;;) {
		uint32_t acked = __atomic_load_n(&c->acked, __ATOMIC_ACQUIRE);
		struct timespec ts = { 0, TFS_POLL_MS * 1000000L };
		int waiting = 0;

		for (int i = 0; i < UT_CTL_PROCS; i++) {
			pid_t pid = c->procs[i].pid;
			uint32_t pg = __atomic_load_n(&c->procs[i].gen, __ATOMIC_ACQUIRE);

			if (pid && (int32_t)(pg - g) < 0 && proc_alive(pid) &&
			    control_alive(pid, c->procs[i].tid))
				waiting = 1;
		}
		if (!waiting)
			return;
		if (tfs_mono_ns() > deadline) {
			pthread_mutex_lock(&s->lock);
			tfs_err(s, "Timed out waiting for the traced processes to apply the settings", "");
			pthread_mutex_unlock(&s->lock);
			return;
		}
		tfs_futex(&c->acked, FUTEX_WAIT, acked, &ts);
	}
}
