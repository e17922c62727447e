// SPDX-License-Identifier: MIT
/*
 * triggers.c - what an event's triggers do in the program, and the soft
 * mode of the events they enable or disable (usertrace/evreg.h).
 *
 * The tracing directory writes the triggers into the registry
 * (trigs[slot]); the program that hits the event runs them: traceon and
 * traceoff set tracing_on, as the traceon/traceoff function commands do;
 * snapshot asks the tracing directory for one (snapshot_req); stacktrace
 * writes a TRACE record after the event; enable_event and disable_event
 * flip the target's SOFT_DISABLED bit.  As in the kernel, traceon,
 * traceoff and the event switches spend a run of their count only when
 * they change something.
 *
 * Context: the thread that hit the tracepoint, outside any write.  No
 * locks, no allocation: the counts are atomics shared by every process.
 */
#include <unwind.h>

#include "lib/event/trigger.h"
#include "runtime/runtime.h"
#include "usertrace/evreg.h"

/* take one of a trigger's runs; 0 if none is left */
static int take(volatile int64_t *count)
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

/* the target's soft switch: 1 if this call changed it */
static int soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
{
	volatile uint32_t *st;
	uint32_t v;

	if (target >= UT_EVREG_SLOTS)
		return 0;
	st = &r->slots[target].state;
	v = __atomic_load_n(st, __ATOMIC_RELAXED);
	if (!(v & UT_EVS_SOFT_MODE) || (!(v & UT_EVS_SOFT_DISABLED)) == enable)
		return 0;
	if (!take(count))
		return 0;
	if (enable)
		__atomic_fetch_and(st, ~UT_EVS_SOFT_DISABLED, __ATOMIC_RELAXED);
	else
		__atomic_fetch_or(st, UT_EVS_SOFT_DISABLED, __ATOMIC_RELAXED);
	return 1;
}

int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
{
	return soft_switch(r, target, enable, count);
}

unsigned int ut_triggers_run(struct ut_evreg *r, uint32_t slot, const struct ut_trace_entry *ent,
			     uint32_t size)
{
	unsigned int post = 0;

	(void)ent;
	(void)size;
	if (slot >= UT_EVREG_SLOTS)
		return 0;
	for (int k = 0; k < UT_EVREG_TRIGS; k++) {
		struct ut_evreg_trig *t = &r->trigs[slot][k];
		uint32_t cmd = __atomic_load_n(&t->cmd, __ATOMIC_ACQUIRE);

		if (!cmd)
			continue;
		switch (cmd - 1) {
		case UT_TRIG_TRACEON:
			if (!ut_ctl->tracing_on && take(&t->count))
				__atomic_store_n(&ut_ctl->tracing_on, 1, __ATOMIC_RELEASE);
			break;
		case UT_TRIG_TRACEOFF:
			if (ut_ctl->tracing_on && take(&t->count))
				__atomic_store_n(&ut_ctl->tracing_on, 0, __ATOMIC_RELEASE);
			break;
		case UT_TRIG_SNAPSHOT:
			if (take(&t->count))
				__atomic_fetch_add(&r->snapshot_req, 1, __ATOMIC_RELEASE);
			break;
		case UT_TRIG_STACKTRACE:
			if (take(&t->count))
				post |= UT_TRIG_POST_STACK;
			break;
		case UT_TRIG_ENABLE_EVENT:
		case UT_TRIG_DISABLE_EVENT:
			soft_switch(r, t->target, cmd - 1 == UT_TRIG_ENABLE_EVENT, &t->count);
			break;
		}
	}
	return post;
}

struct unwind_ctx {
	uintptr_t *ips;
	uint32_t n, skip;
};

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *uc, void *arg)
{
	struct unwind_ctx *c = arg;
	uintptr_t ip = _Unwind_GetIP(uc);

	if (!ip)
		return _URC_END_OF_STACK;
	if (c->skip) {
		c->skip--;
		return _URC_NO_REASON;
	}
	/* a return address: the call is the byte before it */
	c->ips[c->n++] = ip - 1;
	return c->n < UT_STACK_MAX ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/*
 * The stack of the thread at the tracepoint, as the kernel's stacktrace
 * trigger: the caller of the event's function first.  With
 * function_graph the return addresses of traced calls point at our
 * trampoline, so the shadow stack gives the traced calls instead.
 */
void ut_triggers_post(unsigned int post)
{
	struct ut_thread *t = &ut_self;
	uintptr_t ips[UT_STACK_MAX];
	uint32_t n = 0;

	if (!(post & UT_TRIG_POST_STACK) || t->state != UT_TS_READY)
		return;
	if (ut_rec_mode == UT_MODE_GRAPH) {
		for (uint32_t d = t->depth; d-- > 0 && n < UT_STACK_MAX;)
			if (t->frames[d].recorded != UT_FR_SKIP)
				ips[n++] = t->frames[d].ip;
	} else {
		/* skip this function and tp_write, start at __ut_do_trace_X's caller */
		struct unwind_ctx c = { ips, 0, 3 };

		_Unwind_Backtrace(unwind_one, &c);
		n = c.n;
	}
	if (n)
		ut_write_trace(t, ips, n, ut_clock());
}
