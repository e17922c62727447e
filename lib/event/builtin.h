/* SPDX-License-Identifier: MIT */
/*
 * builtin.h - usertrace's built-in event systems (sched, task, signal,
 * kmem, lock, dl): their tracepoints, defined once in
 * include/usertrace/events/SYSTEM.h and made by lib/event/builtin.c.
 */
#ifndef UT_LIB_EVENT_BUILTIN_H
#define UT_LIB_EVENT_BUILTIN_H

#include "usertrace/evreg.h"

/* every built-in tracepoint, in a fixed order (that of registration) */
extern struct ut_tracepoint *const ut_builtin_tps[];
extern const unsigned ut_builtin_nr;

/*
 * Register the built-in events in a new session's registry @r, after its
 * -e patterns are set: they get the first slots, in ut_builtin_tps order,
 * so that available_events lists them before any program runs and the
 * runtime of every process finds them there (same layout, same id).
 * Returns 0, or -1 if one did not fit.
 */
int ut_builtin_register(struct ut_evreg *r);

/*
 * The entry of sched:sched_process_exit (the layout trace_sched_process_exit()
 * writes) into @buf (UT_EVENT_MAX bytes), common_type 0 and common_pid
 * @pid: for a thread whose end another process writes (lib/event/reap.c).
 * Returns its size.
 */
uint32_t ut_builtin_exit_entry(void *buf, const char *comm, int pid, int prio, int group_dead);

#endif /* UT_LIB_EVENT_BUILTIN_H */
