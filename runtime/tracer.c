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
/* the tracers whose self-test failed, and whether ut_tracers_register() ran */
static uint32_t ut_refused;
static int ut_registered;

uint32_t ut_tracers_register(void)
{
	if (ut_registered)
		return ut_refused;
	ut_registered = 1;
	for (unsigned i = 0; i < UT_NR_TRACERS; i++) {
		const struct ut_rt_tracer *t = ut_rt_tracers[i];

		if (t->selftest && t->selftest()) {
			ut_log("tracer %s failed its self-test: it cannot run in this process",
			       t->name);
			ut_refused |= 1u << i;
		}
	}
	return ut_refused;
}

int ut_tracer_id(const struct ut_rt_tracer *t)
{
	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if (ut_rt_tracers[i] == t)
			return (int)i;
	return -1;
}

int ut_tracers_record_calls(uint32_t among)
{
	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if ((ut_running & among & (1u << i)) &&
		    (ut_tracers[i].needs & (UT_NEED_FUNC | UT_NEED_GRAPH)))
			return 1;
	return 0;
}

uint32_t ut_tracers_set(uint32_t set)
{
	set &= ((1u << UT_NR_TRACERS) - 1) & ~ut_tracers_register();
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
		}
	}
	/* the set is settled: each running tracer follows the others and the settings */
	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if ((ut_running & (1u << i)) && ut_rt_tracers[i]->apply)
			ut_rt_tracers[i]->apply();
	return ut_running;
}
