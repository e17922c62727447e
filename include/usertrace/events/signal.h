/* SPDX-License-Identifier: MIT */
/*
 * signal.h - the built-in `signal` events: signals the traced threads
 * send, and the program's handlers running (runtime/signal.c).  As the
 * kernel's events/signal/NAME/format (see sched.h).
 *
 * The kernel names two fields `errno` and `sa_handler`, which C libraries
 * define as macros: the file that makes the events (lib/event/builtin.c)
 * undefines them around this header.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM signal

#if !defined(USERTRACE_EVENTS_SIGNAL_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_SIGNAL_H

#include <sys/types.h>
#include "usertrace/tracepoint.h"

/* the kernel's results (enum trace_signal_result) */
#ifndef UT_SIGNAL_RESULTS
#define UT_SIGNAL_RESULTS
enum {
	UT_SIGNAL_DELIVERED,
	UT_SIGNAL_IGNORED,
	UT_SIGNAL_ALREADY_PENDING,
	UT_SIGNAL_OVERFLOW_FAIL,
	UT_SIGNAL_LOSE_INFO,
};
#endif

/* a signal sent: to @pid (a thread, or with @group its process) named @comm */
TRACE_EVENT(signal_generate,
	TP_PROTO(int sig, int err, int code, const char *comm, pid_t pid, int group, int result),
	TP_ARGS(sig, err, code, comm, pid, group, result),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__array(char, comm, 16)
		__field(pid_t, pid)
		__field(int, group)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->sig = sig;
		__entry->errno = err;
		__entry->code = code;
		__builtin_strncpy(__entry->comm, comm, 15);
		__entry->pid = pid;
		__entry->group = group;
		__entry->result = result;
	),
	TP_printk("sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d", __entry->sig, __entry->errno, __entry->code, __entry->comm, __entry->pid, __entry->group, __entry->result)
);

/* the program's handler @handler (installed with @flags) is about to run */
TRACE_EVENT(signal_deliver,
	TP_PROTO(int sig, int err, int code, unsigned long handler, unsigned long flags),
	TP_ARGS(sig, err, code, handler, flags),
	TP_STRUCT__entry(
		__field(int, sig)
		__field(int, errno)
		__field(int, code)
		__field(unsigned long, sa_handler)
		__field(unsigned long, sa_flags)
	),
	TP_fast_assign(
		__entry->sig = sig;
		__entry->errno = err;
		__entry->code = code;
		__entry->sa_handler = handler;
		__entry->sa_flags = flags;
	),
	TP_printk("sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx", __entry->sig, __entry->errno, __entry->code, __entry->sa_handler, __entry->sa_flags)
);

#endif /* USERTRACE_EVENTS_SIGNAL_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE signal
#include "usertrace/define_trace.h"
