/* SPDX-License-Identifier: MIT */
/*
 * sched.h - the built-in `sched` events: processes and threads as the
 * runtime sees them start, exec and end (runtime/sched.c).
 *
 * Names, fields, their order and the print fmts are those of this
 * machine's kernel (Linux 6.18, events/sched/NAME/format), so that tools
 * reading kernel traces read these; tests/unit/builtin-formats.txt keeps
 * the kernel's texts and tests/unit/test_format.c compares them.  A pid
 * is the kernel's: a thread id.
 *
 * The runtime's own: compiled with CREATE_TRACE_POINTS in
 * lib/event/builtin.c, into the runtime (which records them) and into
 * the tools (which register their descriptors when a session starts).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched

#if !defined(USERTRACE_EVENTS_SCHED_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_SCHED_H

#include <stdbool.h>
#include <sys/types.h>
#include "usertrace/tracepoint.h"

/* in the parent, after fork (or posix_spawn) made the child @child_pid */
TRACE_EVENT(sched_process_fork,
	TP_PROTO(const char *comm, pid_t pid, const char *child_comm, pid_t child_pid),
	TP_ARGS(comm, pid, child_comm, child_pid),
	TP_STRUCT__entry(
		__string(parent_comm, comm)
		__field(pid_t, parent_pid)
		__string(child_comm, child_comm)
		__field(pid_t, child_pid)
	),
	TP_fast_assign(
		__assign_str(parent_comm);
		__entry->parent_pid = pid;
		__assign_str(child_comm);
		__entry->child_pid = child_pid;
	),
	TP_printk("comm=%s pid=%d child_comm=%s child_pid=%d", __get_str(parent_comm), __entry->parent_pid, __get_str(child_comm), __entry->child_pid)
);

/* in the new image, when the runtime starts: the name execve was given */
TRACE_EVENT(sched_process_exec,
	TP_PROTO(const char *filename, pid_t pid, pid_t old_pid),
	TP_ARGS(filename, pid, old_pid),
	TP_STRUCT__entry(
		__string(filename, filename)
		__field(pid_t, pid)
		__field(pid_t, old_pid)
	),
	TP_fast_assign(
		__assign_str(filename);
		__entry->pid = pid;
		__entry->old_pid = old_pid;
	),
	TP_printk("filename=%s pid=%d old_pid=%d", __get_str(filename), __entry->pid, __entry->old_pid)
);

/* a thread ends; @group_dead: the last one, the process ends */
TRACE_EVENT(sched_process_exit,
	TP_PROTO(const char *comm, pid_t pid, int prio, bool group_dead),
	TP_ARGS(comm, pid, prio, group_dead),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(pid_t, pid)
		__field(int, prio)
		__field(bool, group_dead)
	),
	TP_fast_assign(
		__builtin_strncpy(__entry->comm, comm, 15);
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->group_dead = group_dead;
	),
	TP_printk("comm=%s pid=%d prio=%d group_dead=%s", __entry->comm, __entry->pid, __entry->prio, __entry->group_dead ? "true" : "false")
);

#endif /* USERTRACE_EVENTS_SCHED_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE sched
#include "usertrace/define_trace.h"
