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

/*
 * The scheduler's events, for the traced threads.  Never written by the
 * runtime (a thread does not see itself switched out): the recorder
 * writes them from the kernel's own events (a tracefs instance) or from
 * perf_event_open context-switch records (recorder/sched_source.c), into a
 * buffer of the thread they happened on.  The fields and print fmts are
 * the kernel's, so TP_fast_assign is never used; the print fmts are the
 * kernel's text as its format files show it (TASK_REPORT_MAX expanded).
 */

/* @prev_pid leaves the CPU in @prev_state (0: runnable, preempted), @next_pid runs */
TRACE_EVENT(sched_switch,
	TP_PROTO(const char *prev_comm, pid_t prev_pid, int prev_prio, long prev_state,
		 const char *next_comm, pid_t next_pid, int next_prio),
	TP_ARGS(prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio),
	TP_STRUCT__entry(
		__array(char, prev_comm, 16)
		__field(pid_t, prev_pid)
		__field(int, prev_prio)
		__field(long, prev_state)
		__array(char, next_comm, 16)
		__field(pid_t, next_pid)
		__field(int, next_prio)
	),
	TP_fast_assign(
		__builtin_strncpy(__entry->prev_comm, prev_comm, 15);
		__entry->prev_pid = prev_pid;
		__entry->prev_prio = prev_prio;
		__entry->prev_state = prev_state;
		__builtin_strncpy(__entry->next_comm, next_comm, 15);
		__entry->next_pid = next_pid;
		__entry->next_prio = next_prio;
	),
	TP_printk("prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio)
);

/* sched_waking (the wake-up starts, in the waker) and sched_wakeup (the task is runnable) */
DECLARE_EVENT_CLASS(sched_wakeup_template,
	TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),
	TP_ARGS(comm, pid, prio, target_cpu),
	TP_STRUCT__entry(
		__array(char, comm, 16)
		__field(pid_t, pid)
		__field(int, prio)
		__field(int, target_cpu)
	),
	TP_fast_assign(
		__builtin_strncpy(__entry->comm, comm, 15);
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->target_cpu = target_cpu;
	),
	TP_printk("comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu)
);

DEFINE_EVENT(sched_wakeup_template, sched_waking,
	TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),
	TP_ARGS(comm, pid, prio, target_cpu));

DEFINE_EVENT(sched_wakeup_template, sched_wakeup,
	TP_PROTO(const char *comm, pid_t pid, int prio, int target_cpu),
	TP_ARGS(comm, pid, prio, target_cpu));

/* the task @pid moves from @orig_cpu to @dest_cpu */
TRACE_EVENT(sched_migrate_task,
	TP_PROTO(const char *comm, pid_t pid, int prio, int orig_cpu, int dest_cpu),
	TP_ARGS(comm, pid, prio, orig_cpu, dest_cpu),
	TP_STRUCT__entry(
		__string(comm, comm)
		__field(pid_t, pid)
		__field(int, prio)
		__field(int, orig_cpu)
		__field(int, dest_cpu)
	),
	TP_fast_assign(
		__assign_str(comm);
		__entry->pid = pid;
		__entry->prio = prio;
		__entry->orig_cpu = orig_cpu;
		__entry->dest_cpu = dest_cpu;
	),
	TP_printk("comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", __get_str(comm), REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu)
);

#endif /* USERTRACE_EVENTS_SCHED_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE sched
#include "usertrace/define_trace.h"
