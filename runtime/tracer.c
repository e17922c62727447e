// SPDX-License-Identifier: MIT
/*
 * tracer.c - the runtime parts of the tracers (tracers.def), and which of
 * them run in this process.
 */
#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/tracers.h"

static const struct ut_rt_tracer *const ut_rt_tracers[] = {
#define UT_TRACER(name, needs, help)	&ut_rt_tracer_##name,
#include "usertrace/tracers.def"
#undef UT_TRACER
};

_Static_assert(sizeof(ut_rt_tracers) / sizeof(ut_rt_tracers[0]) == UT_NR_TRACERS,
	       "one runtime part per tracer");

/* the tracers running in this process; Context: start-up or control thread */
static uint32_t ut_running;

/*
 * The sections the running latency tracers measure (their `lat` bits),
 * and the gate: calls are recorded only inside sections when no other
 * running tracer records them.
 */
static void ut_lat_apply(uint32_t running)
{
	int mode = 0, wake = 0, others = 0;

	for (unsigned i = 0; i < UT_NR_TRACERS; i++) {
		if (!(running & (1u << i)))
			continue;
		if (ut_rt_tracers[i]->lat || ut_rt_tracers[i]->wake) {
			mode |= ut_rt_tracers[i]->lat;
			wake |= ut_rt_tracers[i]->wake;
		} else if (ut_tracers[i].needs & (UT_NEED_FUNC | UT_NEED_GRAPH))
			others = 1;
	}
	/* wakeup counts every thread: it wins over wakeup_rt */
	ut_wake_configure(wake & UT_WAKE_ALL ? UT_WAKE_ALL : wake);
	/* 2: function-trace off, the marks alone (runtime/latency.c) */
	ut_lat_configure(mode, !(mode || wake) || others ? 0 :
			       ut_ctl && (ut_ctl->flags & UT_CTL_NOFUNC) ? 2 : 1);
}

uint32_t ut_tracers_set(uint32_t set)
{
	set &= (1u << UT_NR_TRACERS) - 1;
	for (unsigned i = 0; i < UT_NR_TRACERS; i++) {
		const struct ut_rt_tracer *t = ut_rt_tracers[i];
		uint32_t bit = 1u << i;

		if ((ut_running & bit) && !(set & bit)) {
			if (t->reset)
				t->reset();
			ut_running &= ~bit;
		} else if (!(ut_running & bit) && (set & bit)) {
			if (t->init && t->init()) {
				ut_log("tracer %s cannot run in this process", t->name);
				continue;
			}
			ut_running |= bit;
		} else if ((ut_running & bit) && t->apply) {
			t->apply();
		}
	}
	ut_lat_apply(ut_running);
	return ut_running;
}
