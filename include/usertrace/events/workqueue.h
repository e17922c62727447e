/* SPDX-License-Identifier: MIT */
/*
 * workqueue.h - the built-in `workqueue` events: the works of
 * <usertrace/workqueue.h>'s queues (or of a thread pool that calls its
 * annotations), as the kernel's events/workqueue/NAME/format: a work
 * queued (queue_work, then activate_work: a queue here has no limit of
 * active works), a worker starting and ending it (runtime/workqueue.c).
 * cpu is the worker the work goes to (a queue's worker N stands for the
 * kernel's per-CPU worker of CPU N), req_cpu the one asked for
 * (queue_work_on), or WORK_CPU_UNBOUND (8192) for any.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM workqueue

#if !defined(USERTRACE_EVENTS_WORKQUEUE_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_WORKQUEUE_H

#include "usertrace/tracepoint.h"

TRACE_EVENT(workqueue_queue_work,
	TP_PROTO(const void *work, const void *function, const char *workqueue, int req_cpu, int cpu),
	TP_ARGS(work, function, workqueue, req_cpu, cpu),
	TP_STRUCT__entry(
		__field(void *, work)
		__field(void *, function)
		__string(workqueue, workqueue)
		__field(int, req_cpu)
		__field(int, cpu)
	),
	TP_fast_assign(
		__entry->work = (void *)work;
		__entry->function = (void *)function;
		__assign_str(workqueue);
		__entry->req_cpu = req_cpu;
		__entry->cpu = cpu;
	),
	TP_printk("work struct=%p function=%ps workqueue=%s req_cpu=%d cpu=%d", __entry->work,
		  __entry->function, __get_str(workqueue), __entry->req_cpu, __entry->cpu)
);

/* a work and its function: the three events below, as the kernel's */
DECLARE_EVENT_CLASS(workqueue_work_fn,
	TP_PROTO(const void *work, const void *function),
	TP_ARGS(work, function),
	TP_STRUCT__entry(
		__field(void *, work)
		__field(void *, function)
	),
	TP_fast_assign(
		__entry->work = (void *)work;
		__entry->function = (void *)function;
	),
	TP_printk("work struct %p: function %ps", __entry->work, __entry->function)
);

DEFINE_EVENT_PRINT(workqueue_work_fn, workqueue_activate_work,
	TP_PROTO(const void *work, const void *function),
	TP_ARGS(work, function),
	TP_printk("work struct %p function=%ps ", __entry->work, __entry->function)
);

DEFINE_EVENT(workqueue_work_fn, workqueue_execute_start,
	TP_PROTO(const void *work, const void *function),
	TP_ARGS(work, function)
);

DEFINE_EVENT(workqueue_work_fn, workqueue_execute_end,
	TP_PROTO(const void *work, const void *function),
	TP_ARGS(work, function)
);

#endif /* USERTRACE_EVENTS_WORKQUEUE_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE workqueue
#include "usertrace/define_trace.h"
