// SPDX-License-Identifier: MIT
/*
 * profile.c - the max stack tracer and the function profiler, in the
 * program (their files: usertrace/profile.h).
 *
 * Neither is a tracer of tracers.def: as the kernel's, each is switched
 * on by a file of the tracing directory (stack_tracer_enabled,
 * function_profile_enabled) or a record option, whatever the current
 * tracer; the control page's flags UT_CTL_STACK and UT_CTL_PROFILE say
 * so.  While either is on, ut_extra is nonzero: the assembly entry hook
 * steps aside (ut_fast 0) and every entry comes to the C hooks of
 * graph.c, which call ut_prof_entry() first; while the profiler is on
 * the return trampoline's fast path steps aside too (ut_ret_fast 0), and
 * every return goes through ut_frame_end(), which calls ut_prof_exit().
 * With both off the hooks cost what they did: the asm paths test the
 * flags they already tested.
 *
 * The stack tracer: at each entry, the stack in use is the distance from
 * the top of the thread's stack (stack_hi) to the traced function's
 * return address (mcount, __fentry__, patched sites) or to its caller's
 * stack pointer (-finstrument-functions).  A new maximum of the thread
 * (rare) is kept in its slot; a new maximum of the process also stores
 * the chain: the shadow stack's frames, each at the place of its return
 * address.
 *
 * The profiler: a hit at each entry, in the thread's own table under
 * (function, CPU); at the return, the call's time (with its callees, or
 * without them when graph-time is off) and its square.  No lock, no
 * allocation: a table that is full counts the hits it could not keep.
 */
#include <string.h>
#include <time.h>

#include "runtime/runtime.h"
#include "usertrace/profile.h"

extern void *__libc_stack_end;

int ut_extra;			/* UT_X_*: the hooks' extra work */
int ut_ret_fast;		/* the return trampoline's fast path may run */

static struct ut_stack_stat *stk;
static uint32_t stk_frames;	/* the shadow stack's depth when the maximum was stored */
static struct ut_prof_stat *prof;
static uint64_t prof_epoch;	/* frames entered before it have no start time */
static int prof_sync_set;

#define UT_TAB_NONE	((struct ut_prof_table *)1)
#define UT_THR_NONE	((struct ut_stk_thread *)1)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the clock's rate, for the tools: a pair taken at each sync */
static void prof_sync(void)
{
	struct ut_prof_stat *p = __atomic_load_n(&prof, __ATOMIC_ACQUIRE);

	if (!p || p->clock_ns)
		return;
	p->mono1 = mono_ns();
	p->tsc1 = ut_clock();
}

static void prof_clock_init(struct ut_prof_stat *p)
{
	p->clock_ns = !ut_use_tsc;
	p->mono0 = mono_ns();
	p->tsc0 = ut_clock();
	p->mono1 = p->mono0;
	p->tsc1 = p->tsc0;
	p->graph_time = !(ut_ctl->flags & UT_CTL_NOGRAPHTIME);
}

/**
 * ut_extra_apply - take the control page's flags (start-up, control thread)
 *
 * Before ut_filter_update(): the assembly entry hook steps aside first.
 */
void ut_extra_apply(void)
{
	uint32_t f = ut_ctl ? ut_ctl->flags : 0;
	int x = 0;

	if ((f & UT_CTL_STACK) && !stk)
		stk = ut_stat_area(UT_STACK_STAT_NAME, UT_STACK_STAT_VERSION, sizeof(*stk));
	if ((f & UT_CTL_PROFILE) && !prof) {
		struct ut_prof_stat *p = ut_stat_area(UT_PROF_STAT_NAME, UT_PROF_STAT_VERSION,
						      sizeof(*p));

		if (p) {
			prof_clock_init(p);
			__atomic_store_n(&prof, p, __ATOMIC_RELEASE);
		}
	}
	if (prof && !prof_sync_set)
		prof_sync_set = ut_stat_on_sync(prof_sync) == 0;
	if ((f & UT_CTL_STACK) && stk)
		x |= UT_X_STACK;
	if ((f & UT_CTL_PROFILE) && prof) {
		x |= UT_X_PROF;
		prof->graph_time = !(f & UT_CTL_NOGRAPHTIME);
		if (!(ut_extra & UT_X_PROF)) {
			/* as the kernel's: enabling the profiler starts its counts anew */
			uint32_t nt = prof->ntables < UT_PROF_THREADS ? prof->ntables : UT_PROF_THREADS;

			for (uint32_t i = 0; i < nt; i++) {
				memset(prof->tab[i].ent, 0, sizeof(prof->tab[i].ent));
				prof->tab[i].used = 0;
				prof->tab[i].overflow = 0;
			}
			prof_epoch = ut_clock();
		}
	}
	if (x & UT_X_PROF)
		__atomic_store_n(&ut_ret_fast, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_extra, x, __ATOMIC_RELEASE);
	if (!(x & UT_X_PROF))
		__atomic_store_n(&ut_ret_fast, ut_use_tsc, __ATOMIC_RELEASE);
}

/* a forked child: its areas are new (zeroed), its thread slots not taken yet */
void ut_prof_atfork_child(void)
{
	ut_self.prof_tab = NULL;
	ut_self.stk_thr = NULL;
	if (stk)
		stk->tid = 0;
	stk_frames = 0;
	if (prof)
		prof_clock_init(prof);
}

static struct ut_stk_thread *stk_thread(struct ut_thread *t)
{
	struct ut_stk_thread *s = t->stk_thr;
	uint32_t i;

	if (likely(s))
		return s == UT_THR_NONE ? NULL : s;
	i = __atomic_fetch_add(&stk->nthreads, 1, __ATOMIC_RELAXED);
	if (i >= UT_STK_THREADS) {
		__atomic_store_n(&stk->nthreads, UT_STK_THREADS, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stk->lost_threads, 1, __ATOMIC_RELAXED);
		t->stk_thr = UT_THR_NONE;
		return NULL;
	}
	s = &stk->thr[i];
	s->tid = t->tid;
	t->stk_thr = s;
	return s;
}

/*
 * A new maximum of the process: the chain, innermost first, each entry
 * at the place in the stack where its function's frame ends (the
 * kernel's Depth) so that Size is the function's own frame.
 *
 * mcount, __fentry__, patched sites: a frame's slot is the place of its
 * return address, where its caller's frame ends.  Entry 0 is the
 * function entered at @ip, at the place of its return address (@sp; its
 * own frame is not made yet: Size 0); each caller follows at the same
 * place as the function it called, named by the return address into it
 * (@ret for the innermost, the callee frame's orig for the others), as
 * the kernel's table.
 *
 * -finstrument-functions (@cyg): a frame's slot is its function's stack
 * pointer once the prologue made its frame: each function is at its own
 * slot, named by its address (the call sites are not kept).
 */
static void stk_store(struct ut_thread *t, uintptr_t sp, uintptr_t ip, uintptr_t ret, int cyg,
		      uint64_t used)
{
	uint32_t zero = 0, n = 0, d;
	uintptr_t below = sp, at = sp;

	if (!__atomic_compare_exchange_n(&stk->lock, &zero, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	if (used < __atomic_load_n(&stk->max, __ATOMIC_RELAXED)) {
		__atomic_store_n(&stk->lock, 0, __ATOMIC_RELEASE);
		return;
	}
	__atomic_add_fetch(&stk->seq, 1, __ATOMIC_RELEASE);
	stk->tid = t->tid;
	stk->ip[n] = ip;
	stk->depth[n++] = used;
	if (ret == (uintptr_t)ut_return_trampoline)
		ret = 0;	/* a tail call: the caller is named by its function */
	for (d = t->depth; d-- > 0 && n < UT_STK_ENTRIES;) {
		const struct ut_frame *f = &t->frames[d];

		if (!f->valid || f->slot < below || f->slot >= t->stk_top)
			break;	/* another stack (a context, sigaltstack): the chain ends */
		if (cyg) {
			at = f->slot;
			stk->ip[n] = f->ip;
		} else {
			stk->ip[n] = ret ? ret : f->ip;
			ret = f->orig;
		}
		stk->depth[n++] = t->stk_top - at;
		at = below = f->slot;
	}
	stk->nr = n;
	__atomic_store_n(&stk_frames, t->depth, __ATOMIC_RELAXED);
	__atomic_add_fetch(&stk->seq, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&stk->lock, 0, __ATOMIC_RELEASE);
}

static void stk_check(struct ut_thread *t, uintptr_t sp, uintptr_t ip, uintptr_t ret, int cyg)
{
	struct ut_stk_thread *s;
	uint64_t used, cur;

	if (!t->stack_hi || sp - t->stack_lo >= t->stack_hi - t->stack_lo)
		return;		/* bounds unknown, or another stack */
	if (unlikely(!t->stk_top)) {
		/*
		 * The main thread's stack starts below the arguments and the
		 * environment (__libc_stack_end); its bounds are rounded up
		 * past them.  Other threads: the top of their stack.
		 */
		uintptr_t e = (uintptr_t)__libc_stack_end;

		t->stk_top = e - t->stack_lo < t->stack_hi - t->stack_lo ? e : t->stack_hi;
	}
	if (sp >= t->stk_top)
		return;
	used = t->stk_top - sp;
	s = stk_thread(t);
	if (s && used > s->max)
		s->max = used;
	cur = __atomic_load_n(&stk->max, __ATOMIC_RELAXED);
	do {
		if (likely(used < cur))
			return;
		/*
		 * The same depth with more of its callers on the shadow stack:
		 * the chain stored had callers entered before the tracer was
		 * on (no frame of theirs); this one names them.
		 */
		if (used == cur) {
			if (likely(t->depth <= __atomic_load_n(&stk_frames, __ATOMIC_RELAXED)))
				return;
			break;
		}
	} while (!__atomic_compare_exchange_n(&stk->max, &cur, used, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	stk_store(t, sp, ip, ret, cyg, used);
}

static struct ut_prof_table *prof_table(struct ut_thread *t)
{
	struct ut_prof_table *tab = t->prof_tab;
	uint32_t i;

	if (likely(tab))
		return tab == UT_TAB_NONE ? NULL : tab;
	i = __atomic_fetch_add(&prof->ntables, 1, __ATOMIC_RELAXED);
	if (i >= UT_PROF_THREADS) {
		__atomic_store_n(&prof->ntables, UT_PROF_THREADS, __ATOMIC_RELAXED);
		__atomic_fetch_add(&prof->lost_threads, 1, __ATOMIC_RELAXED);
		t->prof_tab = UT_TAB_NONE;
		return NULL;
	}
	tab = &prof->tab[i];
	tab->tid = t->tid;
	t->prof_tab = tab;
	return tab;
}

/* the entry of (@ip, @cpu) in @tab, taken if new; NULL when full */
static struct ut_prof_ent *prof_find(struct ut_prof_table *tab, uintptr_t ip, uint32_t cpu)
{
	uint64_t h = ((uint64_t)ip ^ ((uint64_t)cpu << 48)) * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(h >> 40) & (UT_PROF_ENTRIES - 1);

	for (uint32_t k = 0; k < UT_PROF_ENTRIES; k++, i = (i + 1) & (UT_PROF_ENTRIES - 1)) {
		struct ut_prof_ent *e = &tab->ent[i];

		if (e->ip == ip && e->cpu == cpu)
			return e;
		if (!e->ip) {
			/* a table is only its thread's: plain stores, cpu first */
			if (tab->used >= UT_PROF_ENTRIES - UT_PROF_ENTRIES / 8)
				return NULL;	/* keep probes short: full */
			e->cpu = cpu;
			__atomic_store_n(&e->ip, ip, __ATOMIC_RELEASE);
			tab->used++;
			return e;
		}
	}
	return NULL;
}

/**
 * ut_prof_entry - a call of @ip enters at @sp (its return address's place,
 * or with @cyg its own stack pointer); its frame will be frames[t->depth].
 * @ret: the return address into its caller (-finstrument-functions: the
 * call site).
 *
 * Context: the thread's hooks, outside a write, ut_extra nonzero.
 */
void ut_prof_entry(struct ut_thread *t, uintptr_t sp, uintptr_t ip, uintptr_t ret, int cyg,
		   uint64_t ts)
{
	int x = ut_extra;

	if ((x & UT_X_STACK) && stk && ut_stack_listed(ip))
		stk_check(t, sp, ip, ret, cyg);
	if ((x & UT_X_PROF) && prof) {
		struct ut_prof_table *tab = prof_table(t);
		struct ut_prof_ent *e;
		uint32_t d = t->depth;

		if (!tab)
			return;
		e = prof_find(tab, ip, ut_cpu());
		if (e)
			e->hits++;
		else
			tab->overflow++;
		if (d < UT_SHADOW_MAX) {
			UT_FRAME_PTS(t)[d] = ts ? ts : 1;
			UT_FRAME_CHILD(t)[d] = 0;
		}
	}
}

/**
 * ut_prof_exit - the call of frame @d ended at @ts (ut_frame_end())
 */
void ut_prof_exit(struct ut_thread *t, uint32_t d, uint64_t ts)
{
	uint64_t t0 = UT_FRAME_PTS(t)[d], dur, self;
	struct ut_prof_table *tab;
	struct ut_prof_ent *e;

	if (!prof || !t0 || t0 < prof_epoch || ts < t0)
		return;
	UT_FRAME_PTS(t)[d] = 0;
	dur = ts - t0;
	self = dur;
	/* graph-time: read at each return, as the kernel's fgraph_graph_time */
	if (unlikely(ut_ctl->flags & UT_CTL_NOGRAPHTIME)) {
		if (prof->graph_time)
			prof->graph_time = 0;
		uint64_t c = UT_FRAME_CHILD(t)[d];

		self = c < dur ? dur - c : 0;
		if (d)
			UT_FRAME_CHILD(t)[d - 1] += dur;
	} else if (unlikely(!prof->graph_time)) {
		prof->graph_time = 1;
	}
	tab = prof_table(t);
	if (!tab)
		return;
	e = prof_find(tab, t->frames[d].ip, ut_cpu());
	if (!e)
		return;
	e->time += self;
	e->time_sq += (unsigned __int128)self * self;
}
