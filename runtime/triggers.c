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

#include "lib/event/trigger.h"
#include "runtime/runtime.h"
#include "usertrace/evreg.h"

/* the target's soft switch: 1 if this call changed it */
int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
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

/* a change of instance @d's words, logged for its pump (evreg.h) */
static void dir_log(struct ut_evreg_dir *d, uint32_t what, uint32_t target)
{
	/*
	 * the time first: a pump that read the head before this change took
	 * its time limit before that, so the records after the change are
	 * past its limit (evreg.h)
	 */
	uint64_t ts = ut_clock();
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

/* instance @d's tracing_on to @on: 1 if this call changed it */
static int dir_switch(struct ut_evreg_dir *d, int on, volatile int64_t *count)
{
	uint32_t old = (uint32_t)!on;

	if (__atomic_load_n(&d->on, __ATOMIC_RELAXED) != old || (count && !ut_take_run(count)))
		return 0;
	if (!__atomic_compare_exchange_n(&d->on, &old, (uint32_t)on, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return 0;	/* another thread did it first: the run is spent, as a race in the kernel */
	dir_log(d, on ? UT_TRIG_TRACEON + 1 : UT_TRIG_TRACEOFF + 1, 0);
	return 1;
}

/**
 * ut_top_switch - the top directory's tracing_on to @on (a traceon or
 * traceoff trigger or function command, spending a run of @count, NULL:
 * none; the program's tracing_on()/tracing_off())
 *
 * The programs' word, unless an instance records too (insts_on): then
 * they go on recording for it, and the top's word in the registry
 * changes, logged with the time, so that the top's views hide what it
 * did not take.  The programs' word changes are logged with their time
 * too.  Returns 1 if this call changed the state.
 */
int ut_top_switch(struct ut_evreg *r, int on, volatile int64_t *count)
{
	if (r && __atomic_load_n(&r->insts_on, __ATOMIC_ACQUIRE))
		return dir_switch(&r->dirs[0], on, count);
	if ((__atomic_load_n(&ut_ctl->tracing_on, __ATOMIC_ACQUIRE) != 0) == on ||
	    (count && !ut_take_run(count)))
		return 0;
	__atomic_store_n(&ut_ctl->tracing_on, (uint32_t)on, __ATOMIC_RELEASE);
	/*
	 * logged with its time, as an instance's: the top's views show what
	 * was recorded from the switch on, not from when the tracing
	 * directory noticed it (top_sync())
	 */
	if (r) {
		__atomic_store_n(&r->dirs[0].on, (uint32_t)on, __ATOMIC_RELEASE);
		dir_log(&r->dirs[0], on ? UT_TRIG_TRACEON + 1 : UT_TRIG_TRACEOFF + 1, 0);
	}
	return 1;
}

/* an instance's soft switch of @target: 1 if this call changed it */
static int dir_soft_switch(struct ut_evreg *r, struct ut_evreg_dir *d, uint32_t target,
			   int enable, volatile int64_t *count)
{
	uint64_t bit = 1ull << (target % 64);
	volatile uint64_t *w = &d->soft_off[target / 64];
	uint64_t v;

	if (target >= UT_EVREG_SLOTS ||
	    !(__atomic_load_n(&d->soft_mode[target / 64], __ATOMIC_RELAXED) & bit))
		return 0;
	v = __atomic_load_n(w, __ATOMIC_RELAXED);
	if ((!(v & bit)) == enable || !ut_take_run(count))
		return 0;
	v = enable ? __atomic_fetch_and(w, ~bit, __ATOMIC_ACQ_REL) :
		     __atomic_fetch_or(w, bit, __ATOMIC_ACQ_REL);
	if ((!(v & bit)) == enable)
		return 0;	/* another thread did it first */
	/* the programs write it while an instance has it on (INST_SOFT) */
	__atomic_add_fetch(&r->soft_on[target], enable ? 1 : -1, __ATOMIC_ACQ_REL);
	dir_log(d, enable ? UT_TRIG_ENABLE_EVENT + 1 : UT_TRIG_DISABLE_EVENT + 1, target);
	return 1;
}

/*
 * a snapshot trigger fired: its time (the tracing directory copies the
 * buffers later, and shows nothing recorded after it), then the request
 */
static void snapshot_request(struct ut_evreg_dir *d, volatile uint64_t *req)
{
	__atomic_store_n(&d->snapshot_ts, ut_clock(), __ATOMIC_RELAXED);
	__atomic_fetch_add(req, 1, __ATOMIC_RELEASE);
}

int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count)
{
	if (!r || !dir || dir >= UT_EVREG_DIRS)
		return 0;
	return dir_switch(&r->dirs[dir], on, count);
}

int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count)
{
	if (!r || !dir || dir >= UT_EVREG_DIRS)
		return 0;
	return dir_soft_switch(r, &r->dirs[dir], target, enable, count);
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
		dir_switch(d, cmd == UT_TRIG_TRACEON, &t->count);
		break;
	case UT_TRIG_SNAPSHOT:
		if (ut_take_run(&t->count))
			snapshot_request(d, &d->snapshot_req);
		break;
	case UT_TRIG_STACKTRACE:
		if (ut_take_run(&t->count))
			return 1ull << dir;
		break;
	case UT_TRIG_ENABLE_EVENT:
	case UT_TRIG_DISABLE_EVENT:
		dir_soft_switch(r, d, t->target, cmd == UT_TRIG_ENABLE_EVENT, &t->count);
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
				snapshot_request(&r->dirs[0], &r->snapshot_req);
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
