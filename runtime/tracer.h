/* SPDX-License-Identifier: MIT */
/*
 * tracer.h - the runtime part of a tracer: what it hooks and records in
 * the traced program.  Its output part is output/tracer.h's struct
 * tracer; both are listed once, in include/usertrace/tracers.def.
 *
 * The hooks record what the active tracers need together (their `needs`
 * in tracers.def, ut_needs_mode()): function_graph's ENTRY/EXIT serve
 * function too.  A tracer with more to do (a latency tracer arms its
 * wrappers and the gate) does it in init, undoes it in reset and follows
 * the others in apply: its logic is in its own file (runtime/tracers/),
 * the generic code knows it only through these hooks.
 */
#ifndef USERTRACE_RT_TRACER_H
#define USERTRACE_RT_TRACER_H

#include <stdint.h>

struct ut_rt_tracer {
	const char *name;
	/*
	 * Does its machinery work in this process?  Run once, when the
	 * tracers are registered (ut_tracers_register(): start-up, before
	 * any init), as the kernel's register_tracer() runs a tracer's
	 * selftest: nonzero, the tracer is refused (logged), it never runs
	 * here.  Optional.  Context: the start-up thread.
	 */
	int (*selftest)(void);
	/*
	 * The tracer became active in this process (at start-up, or when a
	 * settings change adds it); nonzero: it cannot run here, it stays
	 * inactive and the reason is logged.  Optional.
	 * Context: the start-up or the control thread, before the hooks
	 * record its needs.
	 */
	int (*init)(void);
	/*
	 * It is no longer active.  Optional.  Context: as init, before the
	 * hooks change (they may still record its needs for a moment).
	 */
	void (*reset)(void);
	/*
	 * The settings changed while it runs (a write to the tracing
	 * directory the programs applied), or the set of running tracers
	 * did: called for every running tracer, the new ones too, once the
	 * others' init and reset are done.  Optional.  Context: the
	 * start-up or the control thread.
	 */
	void (*apply)(void);
};

#define UT_TRACER(name, needs, help)	extern const struct ut_rt_tracer ut_rt_tracer_##name;
#include "usertrace/tracers.def"
#undef UT_TRACER

/*
 * Register the tracers: run their self-tests; those that fail are
 * refused (ut_tracers_set() leaves them out).  Called once, at start-up,
 * by ut_tracers_set() if not before.  Returns the set refused.
 */
uint32_t ut_tracers_register(void);

/*
 * The tracers of @set (active_tracers) become the active ones: reset
 * those that leave, init those that come.  Returns the set that runs
 * (those refused at registration or whose init failed are left out).
 */
uint32_t ut_tracers_set(uint32_t set);

/* @t's id: its bit in active_tracers is 1 << id.  -1: not a tracer of tracers.def */
int ut_tracer_id(const struct ut_rt_tracer *t);
/*
 * Does a running tracer of @among (active_tracers bits) have the hooks
 * record calls (its needs: UT_NEED_FUNC, UT_NEED_GRAPH)?  Meant for
 * apply, when the running set is settled.
 */
int ut_tracers_record_calls(uint32_t among);

#endif /* USERTRACE_RT_TRACER_H */
