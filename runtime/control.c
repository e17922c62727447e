// SPDX-License-Identifier: MIT
/*
 * control.c - the runtime's side of the tracing directory: a control
 * thread that applies changes of settings while the program runs.
 *
 * In a tracing-directory session (UT_CTL_LIVE) each traced process runs
 * one thread of ours that sleeps on the control page's `gen` futex.  The
 * controller (the session daemon serving the tracing directory) changes
 * the tracer, the filters, max_graph_depth or tracing_thresh in the
 * control page, bumps `gen` and wakes it; the thread then, under the
 * patch lock, takes the new settings (filters reloaded, call sites patched
 * or unpatched, the function table's flags recomputed), writes the list
 * of functions (ftrace.<pid>: available_filter_functions and
 * enabled_functions), stores the generation in the process's procs[] slot,
 * and wakes the controller on `acked`.  A write to set_ftrace_filter thus
 * returns once every process applies it, as the kernel's does.
 *
 * The hot path is not involved: it reads tracing_on, ut_fast and the
 * function table as always; nothing polls.
 *
 * The thread blocks every signal (the program's handlers never run on it)
 * and is not traced (state DISABLED).  A forked child starts its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"

static int slot = -1;		/* this process's procs[] entry */

static long futex(volatile uint32_t *uaddr, int op, uint32_t val)
{
	return ut_sys_futex(uaddr, op, val, NULL);
}

/*
 * A procs[] slot: a free one, one whose process is gone, or our own pid's
 * (the image before an exec).
 */
static int take_slot(pid_t pid)
{
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		int32_t old = ut_ctl->procs[i].pid;

		if (old && old != pid && (kill(old, 0) == 0 || errno != ESRCH))
			continue;
		if (__sync_bool_compare_and_swap(&ut_ctl->procs[i].pid, old, pid))
			return i;
	}
	return -1;
}

/**
 * ut_control_functions_changed - rewrite ftrace.<pid>, the functions known
 *
 * Context: under the patch lock (dynamic.c), in a live session only.
 */
void ut_control_functions_changed(void)
{
	char path[700], tmp[720];
	int fd;

	if (!ut_ctl || !(ut_ctl->flags & UT_CTL_LIVE))
		return;
	snprintf(path, sizeof(path), "%s/ftrace.%d", ut_session_dir(), (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ut_dyn_write_functions(fd);
	close(fd);
	rename(tmp, path);
}

static void *control_thread(void *arg)
{
	uint32_t applied = (uint32_t)(uintptr_t)arg;

	/* the runtime's own thread: never traced, its allocations fire no event */
	ut_self.state = UT_TS_INTERNAL;
	ut_ctl->procs[slot].tid = (int32_t)syscall(SYS_gettid);
	for (;;) {
		uint32_t g = __atomic_load_n(&ut_ctl->gen, __ATOMIC_ACQUIRE);

		if (g != applied) {
			ut_dyn_apply();
			ut_stat_sync();
			applied = g;
			__atomic_store_n(&ut_ctl->procs[slot].gen, g, __ATOMIC_RELEASE);
			__atomic_add_fetch(&ut_ctl->acked, 1, __ATOMIC_RELEASE);
			futex(&ut_ctl->acked, FUTEX_WAKE, INT_MAX);
			continue;
		}
		futex(&ut_ctl->gen, FUTEX_WAIT, g);
	}
	return NULL;
}

/**
 * ut_control_start - register this process and start its control thread
 *
 * Context: start-up (constructor) or a forked child.  The settings read
 * at start-up are the generation current now: anything newer is applied
 * by the thread.
 */
void ut_control_start(void)
{
	uint32_t gen = __atomic_load_n(&ut_ctl->gen, __ATOMIC_ACQUIRE);
	uint32_t saved = ut_self.state;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;

	slot = take_slot(getpid());
	if (slot < 0) {
		ut_session_error("control: more than %d processes; this one cannot be controlled",
				 UT_CTL_PROCS);
		return;
	}
	/* a change made before we started is applied at once by the thread */
	ut_ctl->procs[slot].gen = gen - 1;
	if (saved != UT_TS_DISABLED)
		ut_self.state = UT_TS_INTERNAL;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	ut_ctl->procs[slot].tid = 0;
	if (pthread_create(&th, &attr, control_thread, (void *)(uintptr_t)(gen - 1)) != 0) {
		ut_session_error("control: cannot start the control thread");
		ut_ctl->procs[slot].pid = 0;
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ut_self.state = saved;
}
