/* SPDX-License-Identifier: MIT */
/*
 * switch.h - what a trigger or a function command changes in the
 * registry (usertrace/evreg.h), as the programs run them
 * (runtime/triggers.c) and the recorder runs those of the kernel's events
 * it collects (recorder/kernel_source.c): the runs of a count, the top's and the
 * instances' tracing_on, the events' soft switches, the snapshot
 * requests, each change of an instance's (or of the top's) words logged
 * with its time for the tracing directory.
 *
 * Static inline: the runtime calls them from the tracepoints (no locks,
 * no allocation; the counts and words are atomics shared by every
 * process).  @now gives the time of a change in the session's clock,
 * with @arg; it is read only when something changes.
 */
#ifndef USERTRACE_LIB_EVENT_SWITCH_H
#define USERTRACE_LIB_EVENT_SWITCH_H

#include <stdint.h>

#include "lib/event/trigger.h"
#include "usertrace/evreg.h"

typedef uint64_t (*ut_sw_now)(const void *arg);

/**
 * ut_take_run - spend one of the runs left in @count (-1: unlimited)
 *
 * Shared by every process (a count in the registry or the control page):
 * a CAS loop.  Returns 0 if none is left.
 */
static inline int ut_take_run(volatile int64_t *count)
{
	int64_t n = __atomic_load_n(count, __ATOMIC_RELAXED);

	do {
		if (n == 0)
			return 0;
		if (n < 0)
			return 1;
	} while (!__atomic_compare_exchange_n(count, &n, n - 1, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

/* a change of directory @d's words, logged for its pump (evreg.h) */
static inline void ut_sw_log(struct ut_evreg_dir *d, uint32_t what, uint32_t target,
			     ut_sw_now now, const void *arg)
{
	/*
	 * the time first: a pump that read the head before this change took
	 * its time limit before that, so the records after the change are
	 * past its limit (evreg.h)
	 */
	uint64_t ts = now(arg);
	uint64_t pos = __atomic_fetch_add(&d->head, 1, __ATOMIC_ACQ_REL);
	struct ut_evreg_fire *f = &d->log[pos % UT_EVREG_DIRLOG];

	/* a seqlock: 0 while the entry is written, so a reader sees a torn one */
	__atomic_store_n(&f->seq, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	f->ts = ts;
	f->what = what;
	f->target = target;
	__atomic_store_n(&f->seq, pos + 1, __ATOMIC_RELEASE);
}

/* directory @d's tracing_on to @on, spending a run of @count (NULL: none): 1 if changed */
static inline int ut_sw_dir(struct ut_evreg_dir *d, int on, volatile int64_t *count,
			    ut_sw_now now, const void *arg)
{
	uint32_t old = (uint32_t)!on;

	if (__atomic_load_n(&d->on, __ATOMIC_RELAXED) != old || (count && !ut_take_run(count)))
		return 0;
	if (!__atomic_compare_exchange_n(&d->on, &old, (uint32_t)on, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;	/* another thread did it first: the run is spent, as a race in the kernel */
	ut_sw_log(d, on ? UT_TRIG_TRACEON + 1 : UT_TRIG_TRACEOFF + 1, 0, now, arg);
	return 1;
}

/*
 * The top directory's tracing_on to @on: the programs' word *@word
 * (the control page's), unless an instance records too (insts_on): then
 * they go on recording for it, and the top's word in the registry
 * changes.  Either change is logged with its time, so that the top's
 * views show what was recorded from the switch on (tfs_top_sync()).
 * @r may be NULL (no registry: the programs' word alone), @word too (no
 * control page: the registry's alone).  1 if changed.
 */
static inline int ut_sw_top(struct ut_evreg *r, volatile uint32_t *word, int on,
			    volatile int64_t *count, ut_sw_now now, const void *arg)
{
	if (r && __atomic_load_n(&r->insts_on, __ATOMIC_ACQUIRE))
		return ut_sw_dir(&r->dirs[0], on, count, now, arg);
	if (!word || (__atomic_load_n(word, __ATOMIC_ACQUIRE) != 0) == on ||
	    (count && !ut_take_run(count)))
		return 0;
	__atomic_store_n(word, (uint32_t)on, __ATOMIC_RELEASE);
	if (r) {
		__atomic_store_n(&r->dirs[0].on, (uint32_t)on, __ATOMIC_RELEASE);
		ut_sw_log(&r->dirs[0], on ? UT_TRIG_TRACEON + 1 : UT_TRIG_TRACEOFF + 1, 0, now, arg);
	}
	return 1;
}

/* the top's soft switch of event @target: 1 if this call changed it */
static inline int ut_sw_soft(struct ut_evreg *r, uint32_t target, int enable,
			     volatile int64_t *count)
{
	volatile uint32_t *st;
	uint32_t v;

	if (target >= UT_EVREG_SLOTS)
		return 0;
	st = &r->slots[target].state;
	v = __atomic_load_n(st, __ATOMIC_RELAXED);
	if (!(v & UT_EVS_SOFT_MODE) || (!(v & UT_EVS_SOFT_DISABLED)) == enable)
		return 0;
	if (!ut_take_run(count))
		return 0;
	if (enable)
		__atomic_fetch_and(st, ~UT_EVS_SOFT_DISABLED, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(st, UT_EVS_SOFT_DISABLED, __ATOMIC_RELAXED);
	return 1;
}

/* instance @d's soft switch of event @target: 1 if this call changed it */
static inline int ut_sw_dir_soft(struct ut_evreg *r, struct ut_evreg_dir *d, uint32_t target,
				 int enable, volatile int64_t *count, ut_sw_now now,
				 const void *arg)
{
	uint64_t bit = 1ull << (target % 64);
	volatile uint64_t *w;
	uint64_t v;

	if (target >= UT_EVREG_SLOTS ||
	    !(__atomic_load_n(&d->soft_mode[target / 64], __ATOMIC_RELAXED) & bit))
		return 0;
	w = &d->soft_off[target / 64];
	v = __atomic_load_n(w, __ATOMIC_RELAXED);
	if ((!(v & bit)) == enable || !ut_take_run(count))
		return 0;
	v = enable ? __atomic_fetch_and(w, ~bit, __ATOMIC_ACQ_REL) :
		     __atomic_fetch_or(w, bit, __ATOMIC_ACQ_REL);
	if ((!(v & bit)) == enable)
		return 0;	/* another thread did it first */
	/* the programs write it while an instance has it on (INST_SOFT) */
	__atomic_add_fetch(&r->soft_on[target], enable ? 1 : -1, __ATOMIC_ACQ_REL);
	ut_sw_log(d, enable ? UT_TRIG_ENABLE_EVENT + 1 : UT_TRIG_DISABLE_EVENT + 1, target,
		  now, arg);
	return 1;
}

/*
 * A snapshot trigger of directory @d (dirs[0]: the top's) fired: its
 * time first (the tracing directory copies the buffers later and shows
 * nothing recorded after it), then the request *@req.
 */
static inline void ut_sw_snapshot(struct ut_evreg_dir *d, volatile uint64_t *req,
				  ut_sw_now now, const void *arg)
{
	__atomic_store_n(&d->snapshot_ts, now(arg), __ATOMIC_RELAXED);
	__atomic_fetch_add(req, 1, __ATOMIC_RELEASE);
}

#endif /* USERTRACE_LIB_EVENT_SWITCH_H */
