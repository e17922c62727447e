// SPDX-License-Identifier: MIT
/*
 * builtin.c - the built-in event systems, made once from their trace
 * headers (include/usertrace/events/SYSTEM.h) by the program macros
 * (usertrace/define_trace.h), so that they are events like any
 * program's: a descriptor, a struct ut_tracepoint, a recording function.
 *
 * Built into the runtime, whose hooks call trace_<event>() and which
 * registers these tracepoints at start-up (runtime/events.c: the scan of
 * loaded objects skips libusertrace.so itself), and into the tools, which
 * register the descriptors in every new session (ut_builtin_register()):
 * each consumer of the registry (record -e, the format files, replay,
 * the tracing directory's events/ and available_events) then sees them
 * with no special case.  The tools never call the recording functions.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "lib/event/builtin.h"

/*
 * The kernel names fields `errno` (signal_*) and `sa_handler`
 * (signal_deliver), which the C library defines as macros: off while
 * the events are made.
 */
#pragma push_macro("errno")
#pragma push_macro("sa_handler")
#undef errno
#undef sa_handler

#define CREATE_TRACE_POINTS
#include "usertrace/events/sched.h"
#include "usertrace/events/task.h"
#include "usertrace/events/signal.h"
#include "usertrace/events/kmem.h"
#include "usertrace/events/lock.h"
#include "usertrace/events/dl.h"
#include "usertrace/events/workqueue.h"
#include "usertrace/events/mmiotrace.h"
#include "usertrace/events/power.h"

#pragma pop_macro("sa_handler")
#pragma pop_macro("errno")

struct ut_tracepoint *const ut_builtin_tps[] = {
	&__ut_tp_sched_sched_process_fork,
	&__ut_tp_sched_sched_process_exec,
	&__ut_tp_sched_sched_process_exit,
	&__ut_tp_sched_sched_switch,
	&__ut_tp_sched_sched_wakeup,
	&__ut_tp_sched_sched_waking,
	&__ut_tp_sched_sched_migrate_task,
	&__ut_tp_task_task_rename,
	&__ut_tp_signal_signal_generate,
	&__ut_tp_signal_signal_deliver,
	&__ut_tp_kmem_kmalloc,
	&__ut_tp_kmem_kfree,
	&__ut_tp_lock_contention_begin,
	&__ut_tp_lock_contention_end,
	&__ut_tp_dl_dlopen,
	&__ut_tp_dl_dlclose,
	&__ut_tp_workqueue_workqueue_queue_work,
	&__ut_tp_workqueue_workqueue_activate_work,
	&__ut_tp_workqueue_workqueue_execute_start,
	&__ut_tp_workqueue_workqueue_execute_end,
	&__ut_tp_mmiotrace_mmiotrace_rw,
	&__ut_tp_mmiotrace_mmiotrace_map,
	&__ut_tp_power_cpu_frequency,
	&__ut_tp_power_cpu_idle,
};

const unsigned ut_builtin_nr = sizeof(ut_builtin_tps) / sizeof(ut_builtin_tps[0]);

uint32_t ut_builtin_exit_entry(void *buf, const char *comm, int pid, int prio, int group_dead)
{
	struct ut_raw_sched_process_exit *e = buf;

	memset(e, 0, sizeof(*e));
	e->ent.pid = pid;
	__builtin_strncpy(e->comm, comm, 15);
	e->pid = pid;
	e->prio = prio;
	e->group_dead = group_dead != 0;
	return (uint32_t)sizeof(*e);
}

int ut_builtin_register(struct ut_evreg *r)
{
	int ret = 0;

	for (unsigned i = 0; i < ut_builtin_nr; i++)
		if (ut_evreg_register(r, ut_builtin_tps[i]->desc) < 0)
			ret = -1;
	return ret;
}
