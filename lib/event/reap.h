/* SPDX-License-Identifier: MIT */
/*
 * reap.h - sched_process_exit for the threads of a process that died
 * without writing it (lib/event/reap.c), written by the process that saw
 * the death: the recorder.
 */
#ifndef UT_LIB_EVENT_REAP_H
#define UT_LIB_EVENT_REAP_H

#include <stdint.h>
#include <sys/types.h>

#include "usertrace/evreg.h"
#include "usertrace/ringbuf.h"

/* a thread of the dead process */
struct ut_reap_thread {
	struct rb_header *h;	/* its last buffer, mapped writable */
	int prio;		/* its prio when last seen alive; <= 0: unknown (120) */
	int reap;		/* set by ut_reap_exit(): its end was written here */
};

/*
 * ut_reap_exit - the end of each thread of @t[0..@n) (the last buffers of
 * one process, that is gone) that did not write its own: a
 * sched_process_exit event at @now() (the session's clock), the thread
 * with group_dead last, if @reg records it, @tracing_on and its filter
 * passes it; the buffer is then closed.
 * Threads of an earlier image of the process (before an exec) are left
 * as they are.  Returns the events written.
 */
int ut_reap_exit(const struct ut_evreg *reg, int tracing_on, struct ut_reap_thread *t, int n,
		 uint64_t (*now)(void));

/* the kernel's prio of thread @tid of process @pid, from /proc; -1 if gone */
int ut_reap_prio(pid_t pid, pid_t tid);

#endif /* UT_LIB_EVENT_REAP_H */
