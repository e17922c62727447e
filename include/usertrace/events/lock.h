/* SPDX-License-Identifier: MIT */
/*
 * lock.h - the built-in `lock` events: a pthread mutex or rwlock that a
 * traced thread waits for (runtime/lock.c).  As the kernel's
 * events/lock/NAME/format (see sched.h), with its LCB_F_* flags.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lock

#if !defined(USERTRACE_EVENTS_LOCK_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_LOCK_H

#include "usertrace/tracepoint.h"

/* the kernel's contention flags (include/trace/events/lock.h) */
#ifndef UT_LCB_F_SPIN
#define UT_LCB_F_SPIN	(1U << 0)
#define UT_LCB_F_READ	(1U << 1)
#define UT_LCB_F_WRITE	(1U << 2)
#define UT_LCB_F_RT	(1U << 3)
#define UT_LCB_F_PERCPU	(1U << 4)
#define UT_LCB_F_MUTEX	(1U << 5)
#endif

/* the lock at @lock_addr is taken: this thread waits */
TRACE_EVENT(contention_begin,
	TP_PROTO(void *lock_addr, unsigned int flags),
	TP_ARGS(lock_addr, flags),
	TP_STRUCT__entry(
		__field(void *, lock_addr)
		__field(unsigned int, flags)
	),
	TP_fast_assign(
		__entry->lock_addr = lock_addr;
		__entry->flags = flags;
	),
	TP_printk("%p (flags=%s)", __entry->lock_addr, __print_flags(__entry->flags, "|",
		{ (1U << 0), "SPIN" }, { (1U << 1), "READ" }, { (1U << 2), "WRITE" },
		{ (1U << 3), "RT" }, { (1U << 4), "PERCPU" }, { (1U << 5), "MUTEX" } ))
);

/* the wait is over: the lock call returned @ret */
TRACE_EVENT(contention_end,
	TP_PROTO(void *lock_addr, int ret),
	TP_ARGS(lock_addr, ret),
	TP_STRUCT__entry(
		__field(void *, lock_addr)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->lock_addr = lock_addr;
		__entry->ret = ret;
	),
	TP_printk("%p (ret=%d)", __entry->lock_addr, __entry->ret)
);

#endif /* USERTRACE_EVENTS_LOCK_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE lock
#include "usertrace/define_trace.h"
