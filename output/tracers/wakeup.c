// SPDX-License-Identifier: MIT
/*
 * wakeup.c - the output parts of the wakeup and wakeup_rt tracers, as the
 * kernel's trace_sched_wakeup.c: the latency format (output/latency.c)
 * over the trace of the longest wake-up, kept in the max buffers.
 *
 * A wake-up a traced thread caused (runtime/tracers/wakeup.c): the wake, on the
 * waker's line as the kernel's TRACE_WAKE entry ("PID:PRIO:R   + [CPU]
 * PID:PRIO:R comm", the woken task in its data), the waking call ("<-"
 * the waker's caller), then in the woken thread's context the run (the
 * waiting call, "<-" its caller), and the stack where it runs again:
 *
 *	# wakeup_rt latency trace v1.1.5 on 6.18.0
 *	# latency: 1052 us, #4/4, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:2)
 *	...
 *	  waker-1234      1.....    0us :    1234:120:R   + [001]    1235: 89:R rt
 *	  waker-1234      1.....    0us!: pthread_cond_signal <-waker
 *	     rt-1235      1..... 1052us : pthread_cond_wait <-rt_thread
 *	     rt-1235      1..... 1052us : <stack trace>
 *	 => rt_thread
 *
 * The woken thread writes the wake (a sched:sched_wakeup entry whose
 * common_pid is the waker) and the waking call: both print with the
 * waker's comm-pid.  A wake-up the kernel tells (its sched_waking, then
 * its sched_switch to the task; a timer's, root only) prints as the
 * kernel's: the wake on the waker's line, and the switch ("==>").
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/event.h"

/* the woken thread's last wake line: the waking call that follows is the waker's */
struct wk_state {
	struct sw_state sw;
	int tid;
	uint64_t ts;
	struct ut_thread_info *waker;
	int waker_tid, waker_pid;
	struct ut_thread_info proc;	/* a waker named from /proc (the tracing directory) */
};

/*
 * The thread of @tid in the recording (a waker's buffer is made at its
 * first wake), else as /proc names it, NULL if it does not: the tracing
 * directory's max buffer has the woken thread's buffer only, and its
 * waker is alive or recently was (as the kernel's saved cmdlines).
 */
static struct ut_thread_info *thread_of(struct trace_iter *iter, struct wk_state *st, int tid)
{
	char path[64];
	ssize_t n;
	int fd;

	for (int i = 0; iter->data && i < iter->data->nr_threads; i++)
		if (iter->data->threads[i].tid == tid)
			return &iter->data->threads[i];
	if (tid <= 0)
		return NULL;
	if (st->proc.tid == tid)
		return &st->proc;
	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	memset(&st->proc, 0, sizeof(st->proc));
	n = read(fd, st->proc.comm, sizeof(st->proc.comm) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	st->proc.comm[n - (st->proc.comm[n - 1] == '\n')] = 0;
	st->proc.tid = st->proc.pid = tid;
	return &st->proc;
}

static enum print_line_t wakeup_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	struct wk_state *st = iter->priv;
	struct trace_sched_switch sw;
	struct trace_sched_wakeup wk;

	if (!st)
		return trace_fn_print_line(iter, ev);
	if (ev->type == UT_EV_EVENT && (trace_event_is(iter, ev, "sched", "sched_wakeup") ||
					trace_event_is(iter, ev, "sched", "sched_waking")) &&
	    trace_sched_wakeup_fields(ev, &wk)) {
		struct ut_event w = *ev;
		int waker;

		memcpy(&waker, ev->data + offsetof(struct ut_trace_entry, pid), sizeof(waker));
		if (waker != ev->tid) {
			w.thread = thread_of(iter, st, waker);
			w.tid = waker;
			w.pid = w.thread ? w.thread->pid : waker;
		}
		st->tid = ev->tid;
		st->ts = ev->ts;
		st->waker = w.thread;
		st->waker_tid = w.tid;
		st->waker_pid = w.pid;
		if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
			trace_print_context(iter, &w);
		trace_sched_ctxwake(&iter->seq, waker, trace_sched_prio_of(&st->sw, waker), 'R',
				    "  +", wk.target_cpu, wk.pid, wk.prio, 'R', wk.comm);
		return TRACE_TYPE_HANDLED;
	}
	if (ev->type == UT_EV_EVENT && trace_event_is(iter, ev, "sched", "sched_switch") &&
	    trace_sched_switch_fields(ev, &sw)) {
		trace_sched_switch_print(iter, ev, &sw, &st->sw);
		return TRACE_TYPE_HANDLED;
	}
	if (ev->type == UT_EV_FUNC && st->tid == ev->tid && st->ts == ev->ts &&
	    st->waker_tid != ev->tid) {
		/* the waking call: the waker's */
		struct ut_event w = *ev;

		st->tid = -1;
		w.thread = st->waker;
		w.tid = st->waker_tid;
		w.pid = st->waker_pid;
		return trace_fn_print_line(iter, &w);
	}
	return trace_fn_print_line(iter, ev);
}

static void wakeup_header(struct trace_iter *iter)
{
	if (!iter->priv && (iter->priv = calloc(1, sizeof(struct wk_state))))
		((struct wk_state *)iter->priv)->tid = -1;
	trace_default_header(iter);
}

static void wakeup_close(struct trace_iter *iter)
{
	free(iter->priv);
	iter->priv = NULL;
}

#define WAKEUP_TRACER(tname)						\
	const struct tracer tname##_tracer = {				\
		.name		= #tname,				\
		.lat_sections	= 4,					\
		.use_max_tr	= 1,					\
		.print_max	= 1,					\
		.init		= trace_lat_tracer_init,		\
		.reset		= trace_lat_tracer_reset,		\
		.open		= trace_lat_tracer_open,		\
		.print_header	= wakeup_header,			\
		.print_line	= wakeup_print_line,			\
		.close		= wakeup_close,				\
	}

int trace_wakeup_rt_only(const struct tracer *t)
{
	return t == &wakeup_rt_tracer;
}

/* the section: a wake-up (output/latency.c lat_cond()) */
WAKEUP_TRACER(wakeup_rt);
WAKEUP_TRACER(wakeup);
