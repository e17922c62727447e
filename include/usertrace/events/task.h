/* SPDX-License-Identifier: MIT */
/*
 * task.h - the built-in `task` events: a thread renames itself
 * (prctl(PR_SET_NAME), pthread_setname_np; runtime/sched.c).  As the
 * kernel's events/task/task_rename/format (see sched.h).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM task

#if !defined(USERTRACE_EVENTS_TASK_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_TASK_H

#include <sys/types.h>
#include "usertrace/tracepoint.h"

TRACE_EVENT(task_rename,
	TP_PROTO(pid_t pid, const char *oldcomm, const char *newcomm, short oom_score_adj),
	TP_ARGS(pid, oldcomm, newcomm, oom_score_adj),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__array(char, oldcomm, 16)
		__array(char, newcomm, 16)
		__field(short, oom_score_adj)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__builtin_strncpy(__entry->oldcomm, oldcomm, 15);
		__builtin_strncpy(__entry->newcomm, newcomm, 15);
		__entry->oom_score_adj = oom_score_adj;
	),
	TP_printk("pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd", __entry->pid, __entry->oldcomm, __entry->newcomm, __entry->oom_score_adj)
);

#endif /* USERTRACE_EVENTS_TASK_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE task
#include "usertrace/define_trace.h"
