// SPDX-License-Identifier: MIT
/*
 * triggers.c - what an event's triggers do in the program, and the soft
 * mode of the events they enable or disable (usertrace/evreg.h).
 *
 * The tracing directory writes the triggers into the registry
 * (trigs[slot]); the program that hits the event runs them.  The top's:
 * traceon and traceoff switch the top's tracing_on (ut_top_switch()), as
 * the traceon/traceoff function commands do; snapshot asks the tracing directory for one
 * (snapshot_req); stacktrace writes a TRACE_DIR record for the top after
 * the event; enable_event and disable_event flip the target's
 * SOFT_DISABLED bit.  An instance's act on its own words (dirs[d]: its
 * tracing_on, its soft switches, its snapshot requests), each change
 * logged with its time for the instance's pump, and its stacktrace
 * writes a TRACE_DIR record only that instance shows.  As in the kernel,
 * traceon, traceoff and the event switches spend a run of their count
 * only when they change something.
 *
 * Context: the thread that hit the tracepoint, outside any write.  No
 * locks, no allocation: the counts are atomics shared by every process.
 */
#include <link.h>
#include <unwind.h>

#include "lib/event/switch.h"
#include "lib/event/trigger.h"
#include "runtime/runtime.h"
#include "usertrace/evreg.h"

/* the session's clock, for the changes logged (lib/event/switch.h) */
static uint64_t rt_now(const void *arg)
{
	(void)arg;
	return ut_clock();
}

/* the target's soft switch: 1 if this call changed it */
int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
{
	return ut_sw_soft(r, target, enable, count);
}

/**
 * ut_top_switch - the top directory's tracing_on to @on (a traceon or
 * traceoff trigger or function command, spending a run of @count, NULL:
 * none; the program's tracing_on()/tracing_off())
 *
 * The programs' word, unless an instance records too (insts_on): then
 * they go on recording for it, and the top's word in the registry
 * changes.  Either change is logged with its time (ut_sw_top()).
 * Returns 1 if this call changed the state.
 */
int ut_top_switch(struct ut_evreg *r, int on, volatile int64_t *count)
{
	return ut_sw_top(r, &ut_ctl->tracing_on, on, count, rt_now, NULL);
}

int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count)
{
	if (!r || !dir || dir >= UT_EVREG_DIRS)
		return 0;
	return ut_sw_dir(&r->dirs[dir], on, count, rt_now, NULL);
}

int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count)
{
	if (!r || !dir || dir >= UT_EVREG_DIRS)
		return 0;
	return ut_sw_dir_soft(r, &r->dirs[dir], target, enable, count, rt_now, NULL);
}

/* instance @dir's trigger @t of command @cmd */
static uint64_t dir_run(struct ut_evreg *r, uint32_t dir, struct ut_evreg_trig *t, uint32_t cmd)
{
	struct ut_evreg_dir *d;

	if (dir >= UT_EVREG_DIRS)
		return 0;
	d = &r->dirs[dir];
	switch (cmd) {
	case UT_TRIG_TRACEON:
	case UT_TRIG_TRACEOFF:
		ut_sw_dir(d, cmd == UT_TRIG_TRACEON, &t->count, rt_now, NULL);
		break;
	case UT_TRIG_SNAPSHOT:
		if (ut_take_run(&t->count))
			ut_sw_snapshot(d, &d->snapshot_req, rt_now, NULL);
		break;
	case UT_TRIG_STACKTRACE:
		if (ut_take_run(&t->count))
			return 1ull << dir;
		break;
	case UT_TRIG_ENABLE_EVENT:
	case UT_TRIG_DISABLE_EVENT:
		ut_sw_dir_soft(r, d, t->target, cmd == UT_TRIG_ENABLE_EVENT, &t->count, rt_now,
			       NULL);
		break;
	}
	return 0;
}

uint64_t ut_triggers_run(struct ut_evreg *r, uint32_t slot, struct ut_trace_entry *ent,
			 uint32_t size, int after)
{
	uint64_t post = 0;
	int pid_set = 0;

	if (slot >= UT_EVREG_SLOTS)
		return 0;
	for (int k = 0; k < UT_EVREG_TRIGS; k++) {
		struct ut_evreg_trig *t = &r->trigs[slot][k];
		uint32_t cmd = __atomic_load_n(&t->cmd, __ATOMIC_ACQUIRE);

		if (!cmd || __atomic_load_n(&t->after, __ATOMIC_RELAXED) != after)
			continue;
		if (t->filter) {
			struct ut_evf_ctx ctx = { 0, NULL, NULL };
			const struct ut_evreg_prog *p;

			if (t->filter > UT_EVREG_PROGS)
				continue;
			p = &r->progs[t->filter - 1];
			/* the filter sees the common fields the write will fill */
			if (!pid_set) {
				ent->pid = ut_self.tid;
				pid_set = 1;
			}
			if (p->f.needs)
				ut_events_fill_ctx(&ctx, p->f.needs);
			if (!ut_evfilter_match(&p->f, ent, size, &ctx))
				continue;
		}
		if (t->dir) {
			post |= dir_run(r, t->dir, t, cmd - 1);
			continue;
		}
		switch (cmd - 1) {
		case UT_TRIG_TRACEON:
		case UT_TRIG_TRACEOFF:
			ut_top_switch(r, cmd - 1 == UT_TRIG_TRACEON, &t->count);
			break;
		case UT_TRIG_SNAPSHOT:
			if (ut_take_run(&t->count))
				ut_sw_snapshot(&r->dirs[0], &r->snapshot_req, rt_now, NULL);
			break;
		case UT_TRIG_STACKTRACE:
			if (ut_take_run(&t->count))
				post |= 1;
			break;
		case UT_TRIG_ENABLE_EVENT:
		case UT_TRIG_DISABLE_EVENT:
			ut_event_soft_switch(r, t->target, cmd - 1 == UT_TRIG_ENABLE_EVENT, &t->count);
			break;
		}
	}
	return post;
}

struct unwind_ctx {
	uintptr_t *ips;
	uint32_t n;
	int started;
	uint32_t max;
};

/* the runtime's code, found once: the frames in it are not the program's */
uintptr_t ut_rt_lo, ut_rt_hi;

static int rt_range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && me >= lo && me < hi) {
			ut_rt_lo = lo;
			ut_rt_hi = hi;
			return 1;
		}
	}
	return 0;
}

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *uc, void *arg)
{
	struct unwind_ctx *c = arg;
	uintptr_t ip = _Unwind_GetIP(uc);

	if (!ip)
		return _URC_END_OF_STACK;
	/* the runtime's frames: ours at the top, ut_thread_start at the bottom */
	if (ut_in_runtime(ip))
		return _URC_NO_REASON;
	c->started = 1;
	/* a return address: the call is the byte before it */
	c->ips[c->n++] = ip - 1;
	return c->n < c->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/*
 * ut_program_stack - the program's stack at this point, innermost first:
 * with function_graph the return addresses of traced calls point at our
 * trampoline, so the shadow stack gives the traced calls instead.
 */
uint32_t ut_program_stack(struct ut_thread *t, uintptr_t *ips, uint32_t max)
{
	struct unwind_ctx c = { ips, 0, 0, max };

	if (ut_rec_mode == UT_MODE_GRAPH)
		return ut_shadow_ips(t, ips, max);
	ut_runtime_range();
	_Unwind_Backtrace(unwind_one, &c);
	return c.n;
}

/* ut_rt_lo, ut_rt_hi: at start-up, before a signal handler needs them */
void ut_runtime_range(void)
{
	if (!ut_rt_hi)
		dl_iterate_phdr(rt_range_cb, (void *)(uintptr_t)ut_program_stack);
}

/* drop the runtime's frames from @ips, unless none would be left */
uint32_t ut_drop_runtime_frames(uintptr_t *ips, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (!ut_in_runtime(ips[i]))
			ips[k++] = ips[i];
	return k ? k : n;
}

/*
 * The stack of the thread at the tracepoint, as the kernel's stacktrace
 * trigger: the caller of the event's function first
 * (ut_program_stack()).  One record for each directory whose trigger
 * asked (@post, a bit each).
 */
void ut_triggers_post(uint64_t post)
{
	struct ut_thread *t = &ut_self;
	uintptr_t ips[UT_STACK_MAX];
	uint32_t n = 0;

	if (!post || t->state != UT_TS_READY)
		return;
	/* from the program's first frame: __ut_do_trace_X, as the kernel starts at trace_event_raw_event_X */
	n = ut_program_stack(t, ips, UT_STACK_MAX);
	if (!n)
		return;
	for (uint32_t d = 0; d < UT_EVREG_DIRS; d++)
		if (post >> d & 1)
			ut_write_trace_dir(t, ips, n, ut_clock(), d + 1);
}
