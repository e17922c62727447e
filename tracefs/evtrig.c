// SPDX-License-Identifier: MIT
/*
 * evtrig.c - the events' trigger files: events/SYS/NAME/trigger and
 * events/ftrace/print/trigger, as the kernel's (their filters: evfilt.c).
 *
 * A trigger is parsed here (lib/event/trigger.c), its `if` compiled as a
 * filter is, and written into the registry's trigs[slot]; the programs
 * run it when they hit the event (runtime/triggers.c).
 * enable_event/disable_event put their target in soft mode: its enable
 * file reads "0*" or "1*", the programs keep its tracepoints live, and
 * the triggers switch its recording.
 *
 * Triggers are a directory's own, as filters are.  They sit together in
 * the registry's trigs[slot] (the programs run them all), each naming its
 * directory: the top's act on what the programs record (tracing_on, the
 * slots' soft switches), an instance's on the instance's words in the
 * registry (dirs[d]), whose logged changes its pump applies at their
 * times (tfs_inst_pump()).  Several layouts of one event share the first
 * one's triggers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

/* ---- triggers ---- */

static void bit_put(volatile uint64_t *w, uint32_t i, int on)
{
	if (on)
		__atomic_fetch_or(&w[i / 64], 1ull << (i % 64), __ATOMIC_ACQ_REL);
	else
		__atomic_fetch_and(&w[i / 64], ~(1ull << (i % 64)), __ATOMIC_ACQ_REL);
}

/*
 * Instance @in's words in the registry (dirs[]), given at its first
 * trigger, function command or options/stacktrace: 0, or -ENOSPC when
 * UT_EVREG_DIRS - 1 instances have them.
 * Context: s->lock held.
 */
int tfs_inst_rdir(struct tfs_session *s, struct tfs_inst *in)
{
	struct ut_evreg_dir *d;

	if (in == &s->top || in->rdir)
		return 0;
	for (uint32_t i = 1; i < UT_EVREG_DIRS; i++) {
		if (s->rdirs >> i & 1)
			continue;
		d = &s->evreg->dirs[i];
		s->rdirs |= 1u << i;
		in->rdir = i;
		in->rd = d;
		for (int w = 0; w < UT_EVREG_WORDS; w++) {
			__atomic_store_n(&d->soft_mode[w], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&d->soft_off[w], 0, __ATOMIC_RELAXED);
		}
		memset(in->soft_off, 0, sizeof(in->soft_off));
		__atomic_store_n(&d->on, (uint32_t)in->on, __ATOMIC_RELEASE);
		/* what an earlier owner logged is not its own */
		in->log_done = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
		in->snap_req_seen = __atomic_load_n(&d->snapshot_req, __ATOMIC_ACQUIRE);
		return 0;
	}
	return -ENOSPC;
}

/*
 * options/stacktrace of @in: its bit of the registry's opt_stack (the
 * top's 0, an instance's its dirs[] index, whose TRACE_DIR records its
 * pump takes), so that the programs write their stack after each event.
 * Context: s->lock held.
 */
int tfs_opt_stack_update(struct tfs_session *s, struct tfs_inst *in)
{
	int on = (in->tr.trace_flags & TRACE_ITER_STACKTRACE) != 0;
	uint32_t bit;

	if (!s->evreg)
		return 0;	/* no events to follow */
	if (on && tfs_inst_rdir(s, in) < 0) {
		in->tr.trace_flags &= ~(uint32_t)TRACE_ITER_STACKTRACE;
		tfs_err(s, "Too many instances with triggers or stacks", "stacktrace");
		return -ENOSPC;
	}
	if (in != &s->top && !in->rdir)
		return 0;
	bit = 1u << (in == &s->top ? 0 : in->rdir);
	if (on)
		__atomic_fetch_or(&s->evreg->opt_stack, bit, __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&s->evreg->opt_stack, ~bit, __ATOMIC_RELEASE);
	return 0;
}

/* the kernel's post-trigger commands (EVENT_CMD_FL_POST_TRIGGER) */
static int trig_post(enum ut_trig_cmd cmd)
{
	return cmd == UT_TRIG_TRACEOFF || cmd == UT_TRIG_STACKTRACE;
}

/*
 * Which triggers of @slot run after the write (each entry's `after`), as
 * a 6.18 kernel's do.  A directory whose triggers include one with an
 * `if` or a post-trigger command (traceoff, stacktrace) is TRIGGER_COND:
 * its triggers run with the written entry, the event switches before
 * the event is dropped as soft-disabled or not, traceon, traceoff,
 * stacktrace and snapshot once it is recorded (the event that turns
 * tracing off is; the one that turns it on is not).  Another directory's
 * run before the event is recorded (a traceon's event is).  Returns 1
 * if some run after.
 */
static int trig_after(struct tfs_session *s, uint32_t slot)
{
	int any = 0;

	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next) {
		struct tfs_trig *tt = in->evtrig[slot];
		int cond = 0;

		for (int k = 0; tt && k < UT_EVREG_TRIGS; k++)
			cond |= tt[k].used && (tt[k].prog || trig_post(tt[k].spec.cmd));
		for (int k = 0; tt && k < UT_EVREG_TRIGS; k++) {
			int after = cond && tt[k].spec.cmd != UT_TRIG_ENABLE_EVENT &&
				    tt[k].spec.cmd != UT_TRIG_DISABLE_EVENT;

			if (!tt[k].used)
				continue;
			__atomic_store_n(&s->evreg->trigs[slot][tt[k].reg].after, (uint16_t)after,
					 __ATOMIC_RELEASE);
			any |= after;
		}
	}
	return any;
}

/*
 * The registry's bits of @slot from every directory's files: TRIGGERS
 * while some directory has triggers on it; the top's SOFT_MODE while a
 * trigger or command of the top targets it (SOFT_DISABLED then follows
 * its enable unless a trigger switched it); OTHERS while an instance
 * enables it while the top holds it; INST_SOFT while an instance holds
 * it in soft mode, with each instance's soft_mode bit and its share of
 * soft_on[].  Returns 1 if a bit that makes tracepoints
 * live changed.
 */
static int soft_publish(struct tfs_session *s, uint32_t slot)
{
	volatile uint32_t *st = &s->evreg->slots[slot].state;
	uint32_t old = __atomic_load_n(st, __ATOMIC_ACQUIRE), v = old;
	int others, inst_soft = 0, inst_on = 0;

	for (struct tfs_inst *in = s->insts; in; in = in->next) {
		struct ut_evreg_dir *d = in->rd;

		if (d && in->ev_soft[slot] && !tfs_ev_bit((const uint64_t *)d->soft_mode, slot)) {
			/* as the kernel's, soft mode starts from the event's enable */
			int off = !tfs_ev_bit(in->ev_on, slot);

			if (!off)
				__atomic_add_fetch(&s->evreg->soft_on[slot], 1, __ATOMIC_ACQ_REL);
			tfs_ev_bit_set(in->soft_off, slot, off);
			bit_put(d->soft_off, slot, off);
			bit_put(d->soft_mode, slot, 1);
		} else if (d && !in->ev_soft[slot] && tfs_ev_bit((const uint64_t *)d->soft_mode, slot)) {
			uint64_t b = 1ull << (slot % 64);

			bit_put(d->soft_mode, slot, 0);
			if (!(__atomic_fetch_or(&d->soft_off[slot / 64], b, __ATOMIC_ACQ_REL) & b))
				__atomic_sub_fetch(&s->evreg->soft_on[slot], 1, __ATOMIC_ACQ_REL);
			bit_put(d->soft_off, slot, 0);
			tfs_ev_bit_set(in->soft_off, slot, 0);
		}
		inst_soft |= in->ev_soft[slot] != 0;
		inst_on |= tfs_ev_bit(in->ev_on, slot);
	}
	others = s->top.ev_soft[slot] && inst_on;
	v = s->trig_reg[slot] ? v | UT_EVS_TRIGGERS : v & ~UT_EVS_TRIGGERS;
	v = trig_after(s, slot) ? v | UT_EVS_TRIG_AFTER : v & ~UT_EVS_TRIG_AFTER;
	v = others ? v | UT_EVS_OTHERS : v & ~UT_EVS_OTHERS;
	v = inst_soft ? v | UT_EVS_INST_SOFT : v & ~UT_EVS_INST_SOFT;
	if (s->top.ev_soft[slot] && !(old & UT_EVS_SOFT_MODE))
		v |= UT_EVS_SOFT_MODE | (tfs_ev_bit(s->top.ev_on, slot) ? 0 : UT_EVS_SOFT_DISABLED);
	else if (!s->top.ev_soft[slot])
		v &= ~(UT_EVS_SOFT_MODE | UT_EVS_SOFT_DISABLED);
	/* the programs record what the top's switches left out: its views choose */
	if (others || inst_soft)
		s->top_ev_wide = 1;
	/* the filter the programs run follows who may keep it */
	tfs_evfilt_publish(s, slot);
	if (v == old)
		return 0;
	/* only the bits that changed here: a program may flip SOFT_DISABLED meanwhile */
	if (old & ~v)
		__atomic_fetch_and(st, ~(old & ~v), __ATOMIC_ACQ_REL);
	if (v & ~old)
		__atomic_fetch_or(st, v & ~old, __ATOMIC_ACQ_REL);
	return (old & UT_EVS_LIVE) != (v & UT_EVS_LIVE);
}

/* every slot's bits (a directory's events or its instances changed) */
int tfs_soft_publish_all(struct tfs_session *s)
{
	int apply = 0;

	for (uint32_t i = 0; s->evreg && i < s->nr_evd && i < UT_EVREG_SLOTS; i++)
		apply |= soft_publish(s, i);
	return apply;
}

/*
 * A trigger file's text: @tt's triggers newest first, as the kernel lists
 * them, with their runs left (the registry's for a program event's
 * @slot; -1: ftrace:print's own), or @avail when there is none.
 */
static void trig_list(struct tfs_session *s, struct tfs_sbuf *b, const struct tfs_trig *tt, int slot,
		      const char *avail)
{
	uint64_t last = UINT64_MAX;
	int any = 0;

	for (;;) {
		const struct tfs_trig *best = NULL;
		char line[UT_EVF_TEXT_MAX + 256];
		int64_t count;

		for (int k = 0; tt && k < UT_EVREG_TRIGS; k++)
			if (tt[k].used && tt[k].order < last && (!best || tt[k].order > best->order))
				best = &tt[k];
		if (!best)
			break;
		last = best->order;
		count = slot < 0 ? best->count :
			__atomic_load_n(&s->evreg->trigs[slot][best->reg].count, __ATOMIC_RELAXED);
		ut_trig_show(&best->spec, count, best->filter, line, sizeof(line));
		tfs_sb_puts(b, line);
		any = 1;
	}
	if (!any)
		tfs_sb_puts(b, avail);
}

static int trig_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	trig_list(h->s, b, h->n.inst->evtrig[h->n.slot], h->n.slot, UT_TRIG_AVAILABLE);
	return 0;
}

/*
 * A hold on @slot's soft mode in directory @in goes.  When it was the
 * last, the event stays as the soft mode left it, as the kernel's
 * __ftrace_event_enable_disable() leaves it: enabled if it records now
 * (an enable_event that fired), disabled if not (a disable_event that
 * fired), whatever its enable file said before.  Returns 1 if its
 * enable changed (the caller publishes: tfs_ev_publish()).
 */
static int soft_release(struct tfs_session *s, struct tfs_inst *in, uint32_t slot)
{
	int rec;

	if (!in->ev_soft[slot])
		return 0;
	if (in->ev_soft[slot] > 1 || !tfs_ev_soft_state(s, in, slot, &rec)) {
		in->ev_soft[slot]--;
		return 0;
	}
	in->ev_soft[slot] = 0;
	if (tfs_ev_bit(in->ev_on, slot) == rec)
		return 0;
	tfs_ev_bit_set(in->ev_on, slot, rec);
	return 1;
}

static int trig_remove(struct tfs_session *s, struct tfs_inst *in, uint32_t slot,
		       struct tfs_trig *t)
{
	struct ut_evreg_trig *rt = &s->evreg->trigs[slot][t->reg];
	int changed = 0;

	__atomic_store_n(&rt->cmd, 0, __ATOMIC_RELEASE);
	s->trig_reg[slot] &= (uint16_t)~(1u << t->reg);
	if (t->prog)
		ut_evreg_prog_free(s->evreg, t->prog);
	if (t->spec.cmd == UT_TRIG_TRACEON && in->traceon_trigs)
		in->traceon_trigs--;
	if (t->spec.cmd == UT_TRIG_ENABLE_EVENT || t->spec.cmd == UT_TRIG_DISABLE_EVENT) {
		changed = soft_release(s, in, t->target);
		soft_publish(s, t->target);
	}
	free(t->filter);
	memset(t, 0, sizeof(*t));
	return changed;
}

static uint64_t trig_order;

/*
 * The front of a write to a trigger file whose triggers are @tt: parse
 * @buf into @spec (its `if` text in *@text, to free), the target of an
 * event switch (*@target), the trigger in the same place (*@same, NULL:
 * none) and a free entry (*@free_k, -1: none).  0 or -errno.
 */
static int trig_prepare(struct tfs_session *s, const char *buf, size_t size,
			const struct tfs_trig *tt, char **text, struct ut_trig_spec *spec,
			uint32_t *target, int *same, int *free_k)
{
	int ret;

	*text = NULL;
	*same = *free_k = -1;
	*target = 0;
	if (size >= UT_EVF_TEXT_MAX)
		return -EINVAL;
	if (!(*text = strndup(buf, size)))
		return -ENOMEM;
	ret = ut_trig_parse(*text, spec);
	if (ret)
		return ret;
	if (spec->cmd == UT_TRIG_ENABLE_EVENT || spec->cmd == UT_TRIG_DISABLE_EVENT) {
		int i = tfs_ev_find(s, spec->system, spec->event, strlen(spec->event));

		if (i < 0 || !s->evreg)
			return -EINVAL;
		*target = (uint32_t)i;
	}
	for (int k = 0; k < UT_EVREG_TRIGS; k++) {
		if (tt[k].used && ut_trig_same_place(&tt[k].spec, spec))
			*same = k;
		else if (!tt[k].used && *free_k < 0)
			*free_k = k;
	}
	return 0;
}

/*
 * A trigger's `if` compiled for event @d into *@prog (malloc'ed); a bad
 * one has its error_log line.  0 or -errno.
 */
static int trig_compile(struct tfs_session *s, const char *text, const struct ut_event_desc *d,
			struct ut_evfilter **prog)
{
	struct ut_evf_error err = { 0, 0, 0 };
	int ret;

	*prog = malloc(sizeof(**prog));
	if (!*prog)
		return -ENOMEM;
	ret = ut_evfilter_compile(*prog, text, d, &err);
	if (ret < 0) {
		if (err.ret)
			tfs_evfilt_errlog(s, text, &err);
		free(*prog);
		*prog = NULL;
	}
	return ret < 0 ? ret : 0;
}

/* trigger @t takes @spec (its `if` text copied), newest of its directory */
static void trig_take(struct tfs_trig *t, const struct ut_trig_spec *spec, uint32_t target)
{
	t->filter = spec->filter ? strdup(spec->filter) : NULL;
	t->spec = *spec;
	t->spec.filter = t->filter;
	t->target = target;
	t->order = ++trig_order;
	t->used = 1;
}

/*
 * Is @d an event of the kernel that the session daemon collects
 * (recorder/sched_source.c, recorder/power_source.c) rather than a program's tracepoint?
 * Its triggers run in the daemon, which has no stack of the task to give.
 */
static int kernel_sourced(const struct ut_event_desc *d)
{
	static const char *const ev[][2] = {
		{ "sched", "sched_switch" }, { "sched", "sched_wakeup" },
		{ "sched", "sched_waking" }, { "sched", "sched_migrate_task" },
		{ "power", "cpu_frequency" }, { "power", "cpu_idle" },
	};

	for (size_t i = 0; d && i < sizeof(ev) / sizeof(ev[0]); i++)
		if (!strcmp(d->system, ev[i][0]) && !strcmp(d->name, ev[i][1]))
			return 1;
	return 0;
}

static int trig_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	uint32_t slot = (uint32_t)h->n.slot, target;
	struct tfs_trig *tt, *t;
	struct ut_trig_spec spec;
	struct ut_evfilter *prog = NULL;
	char *text;
	int ret, same, free_k, reg_k = -1, apply = 0;

	if (!in->evtrig[slot] && !(in->evtrig[slot] = calloc(UT_EVREG_TRIGS, sizeof(struct tfs_trig))))
		return -ENOMEM;
	tt = in->evtrig[slot];
	ret = trig_prepare(s, buf, size, tt, &text, &spec, &target, &same, &free_k);
	if (ret)
		goto out;
	for (int k = 0; k < UT_EVREG_TRIGS && reg_k < 0; k++)
		if (!(s->trig_reg[slot] >> k & 1))
			reg_k = k;
	/* what the instance's buffers took until now was chosen by its triggers of before */
	if (in != &s->top)
		tfs_inst_pump(in);
	if (spec.remove) {
		if (same >= 0) {
			int evchg = trig_remove(s, in, slot, &tt[same]);

			apply = soft_publish(s, slot) | (evchg && tfs_ev_publish(s)) | tfs_recording_update(s);
		}
		ret = apply ? TFS_WR_APPLY : 0;
		goto out;
	}
	if (spec.cmd == UT_TRIG_STACKTRACE && kernel_sourced(s->evd[slot])) {
		char cmd[UT_EVF_TEXT_MAX];
		size_t n = 0;

		while (n < size && n < sizeof(cmd) - 1 && buf[n] != '\n' && buf[n])
			n++;
		snprintf(cmd, sizeof(cmd), "%.*s", (int)n, buf);
		tfs_err(s, "stacktrace: not available on an event the kernel writes", cmd);
		ret = -EINVAL;
		goto out;
	}
	ret = same >= 0 ? -EEXIST : -ENOSPC;
	if (same >= 0 || free_k < 0 || reg_k < 0 || tfs_inst_rdir(s, in) < 0)
		goto out;
	t = &tt[free_k];
	if (spec.filter) {
		int k;

		ret = trig_compile(s, spec.filter, s->evd[slot], &prog);
		if (ret)
			goto out;
		k = ut_evreg_prog_alloc(s->evreg, prog);
		if (k < 0) {
			ret = k;
			goto out;
		}
		t->prog = (uint32_t)k;
	}
	trig_take(t, &spec, target);
	t->reg = reg_k;
	s->trig_reg[slot] |= (uint16_t)(1u << reg_k);
	{
		struct ut_evreg_trig *rt = &s->evreg->trigs[slot][reg_k];

		rt->target = target;
		rt->count = spec.count;
		rt->filter = t->prog;
		rt->dir = (uint16_t)in->rdir;
		rt->after = (spec.filter || trig_post(spec.cmd)) && spec.cmd != UT_TRIG_ENABLE_EVENT &&
			    spec.cmd != UT_TRIG_DISABLE_EVENT;
		__atomic_store_n(&rt->cmd, (uint32_t)spec.cmd + 1, __ATOMIC_RELEASE);
	}
	if (spec.cmd == UT_TRIG_SNAPSHOT)
		in->snap_alloc = 1;	/* as the kernel, which allocates it here */
	if (spec.cmd == UT_TRIG_TRACEON) {
		/* an instance that is off: the programs record, its pump keeps what it turns on */
		in->traceon_trigs++;
		apply |= tfs_recording_update(s);
	}
	if (spec.cmd == UT_TRIG_ENABLE_EVENT || spec.cmd == UT_TRIG_DISABLE_EVENT) {
		in->ev_soft[target]++;
		apply |= soft_publish(s, target);
	}
	apply |= soft_publish(s, slot);
	ret = apply ? TFS_WR_APPLY : 0;
out:
	free(prog);
	free(text);
	return ret;
}

/* ---- ftrace:print's triggers (trace_marker) ---- */

/*
 * The kernel's print event has triggers: a trace_marker write fires them
 * in its directory, after the text is recorded.  Here the daemon writes
 * the markers, so it runs them itself: traceon, traceoff, snapshot and
 * the event switches of its directory.  stacktrace is not offered: the
 * kernel's is the stack of the write in the kernel, and the daemon has
 * none of the writer's.
 */
#define PRINT_TRIG_AVAILABLE \
	"# Available triggers:\n" \
	"# traceon traceoff snapshot enable_event disable_event\n"

static int ptrig_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	trig_list(h->s, b, h->n.inst->ptrig, -1, PRINT_TRIG_AVAILABLE);
	return 0;
}

static int ptrig_remove(struct tfs_session *s, struct tfs_inst *in, struct tfs_trig *t)
{
	int changed = 0;

	if (t->spec.cmd == UT_TRIG_ENABLE_EVENT || t->spec.cmd == UT_TRIG_DISABLE_EVENT) {
		changed = soft_release(s, in, t->target);
		soft_publish(s, t->target);
	}
	free(t->local);
	free(t->filter);
	memset(t, 0, sizeof(*t));
	return changed;
}

static int ptrig_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_trig_spec spec;
	struct tfs_trig *t;
	uint32_t target;
	char *text;
	int ret, same, free_k;

	if (!in->ptrig && !(in->ptrig = calloc(UT_EVREG_TRIGS, sizeof(struct tfs_trig))))
		return -ENOMEM;
	ret = trig_prepare(s, buf, size, in->ptrig, &text, &spec, &target, &same, &free_k);
	if (!ret && spec.cmd == UT_TRIG_STACKTRACE)
		ret = -EINVAL;
	if (ret)
		goto out;
	if (spec.remove) {
		if (same >= 0 && ptrig_remove(s, in, &in->ptrig[same]))
			tfs_ev_publish(s);
		ret = same >= 0 ? TFS_WR_APPLY : 0;
		goto out;
	}
	ret = same >= 0 ? -EEXIST : -ENOSPC;
	if (same >= 0 || free_k < 0)
		goto out;
	t = &in->ptrig[free_k];
	if (spec.filter && (ret = trig_compile(s, spec.filter, h->n.ev, &t->local)))
		goto out;
	trig_take(t, &spec, target);
	t->count = spec.count;
	ret = 0;
	if (spec.cmd == UT_TRIG_SNAPSHOT)
		in->snap_alloc = 1;	/* as the kernel, which allocates it here */
	if (spec.cmd == UT_TRIG_ENABLE_EVENT || spec.cmd == UT_TRIG_DISABLE_EVENT) {
		in->ev_soft[target]++;
		ret = soft_publish(s, target) ? TFS_WR_APPLY : 0;
	}
out:
	free(text);
	return ret;
}

/* the directory's tracing_on from a print trigger: 1 if it changed */
static int print_switch(struct tfs_session *s, struct tfs_inst *in, int on)
{
	if (tfs_inst_on(s, in) == on)
		return 0;
	tfs_inst_set_on(s, in, on);
	return 1;
}

int tfs_print_triggers(struct tfs_session *s, struct tfs_inst *in, const char *text, size_t len)
{
	struct {
		struct ut_trace_entry ent;
		uint64_t ip;
		char buf[LIVE_MARKER_MAX + 1];
	} e;
	int apply = 0, snap = 0;

	if (!in->ptrig)
		return 0;
	/* the entry as the kernel's filter sees it: the text without its newline */
	memset(&e, 0, sizeof(e));
	e.ent.type = UT_EVENT_ID_PRINT;
	e.ent.pid = (int32_t)getpid();
	if (len > LIVE_MARKER_MAX)
		len = LIVE_MARKER_MAX;
	memcpy(e.buf, text, len);
	if (len && e.buf[len - 1] == '\n')
		e.buf[len - 1] = 0;
	for (int k = 0; k < UT_EVREG_TRIGS; k++) {
		struct tfs_trig *t = &in->ptrig[k];
		int on, changed = 0;

		if (!t->used || !t->count)
			continue;
		if (t->local) {
			struct ut_evf_ctx ctx = { 0, NULL, NULL };

			if (!ut_evfilter_match(t->local, &e, (uint32_t)(offsetof(__typeof__(e), buf) + len + 1),
					       &ctx))
				continue;
		}
		switch (t->spec.cmd) {
		case UT_TRIG_TRACEON:
		case UT_TRIG_TRACEOFF:
			changed = print_switch(s, in, t->spec.cmd == UT_TRIG_TRACEON);
			apply |= changed;
			break;
		case UT_TRIG_SNAPSHOT:
			changed = snap = 1;
			break;
		case UT_TRIG_ENABLE_EVENT:
		case UT_TRIG_DISABLE_EVENT:
			on = t->spec.cmd == UT_TRIG_ENABLE_EVENT;
			if (tfs_ev_soft_state(s, in, t->target, &changed) && changed != on) {
				tfs_ev_soft_enable(s, in, t->target, on);
				changed = 1;
			} else {
				changed = 0;
			}
			break;
		default:
			break;
		}
		/* as the kernel's: a run is spent when the trigger did something */
		if (changed && t->count > 0)
			t->count--;
	}
	/* as the kernel's swap at the event: the marker, nothing after it */
	if (snap && tfs_snap_take(s, in, live_ns(s->dir, live_marker_last_ts(in->marker))))
		tfs_err(s, "Cannot take the snapshot", "snapshot");
	return apply ? tfs_recording_update(s) : 0;
}

/*
 * A function command's hold on the soft mode of @slot in directory @in:
 * +1 while an enable_event/disable_event command targets it, -1 when it
 * goes.  Returns 1 if the tracepoints' liveness changed.  Context:
 * s->lock held.
 */
int tfs_ev_soft_ref(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int delta)
{
	if (!s->evreg || slot >= UT_EVREG_SLOTS)
		return 0;
	if (delta > 0)
		in->ev_soft[slot]++;
	else if (soft_release(s, in, slot))
		return tfs_ev_publish(s) | soft_publish(s, slot);
	return soft_publish(s, slot);
}

/* the enable file of an event in soft mode: "0*" or "1*", as the kernel's */
int tfs_ev_soft_state(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int *recorded)
{
	uint32_t st;

	if (!s->evreg || !in->ev_soft[slot])
		return 0;
	if (in != &s->top) {
		tfs_inst_pump(in);	/* its triggers' changes until now */
		*recorded = !tfs_ev_bit(in->soft_off, slot);
		return 1;
	}
	st = __atomic_load_n(&s->evreg->slots[slot].state, __ATOMIC_ACQUIRE);
	*recorded = !(st & UT_EVS_SOFT_DISABLED);
	return 1;
}

/* the user's enable of an event in soft mode switches its recording, as the kernel's */
void tfs_ev_soft_enable(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int on)
{
	struct ut_evreg_dir *d = in->rd;

	if (!s->evreg || !in->ev_soft[slot])
		return;
	if (in == &s->top) {
		if (on)
			__atomic_fetch_and(&s->evreg->slots[slot].state, ~UT_EVS_SOFT_DISABLED,
					   __ATOMIC_ACQ_REL);
		else
			__atomic_fetch_or(&s->evreg->slots[slot].state, UT_EVS_SOFT_DISABLED,
					  __ATOMIC_ACQ_REL);
		return;
	}
	if (!d)
		return;
	/* the change is the pump's from now: what came before goes with the old state */
	tfs_inst_pump(in);
	tfs_ev_bit_set(in->soft_off, slot, !on);
	{
		uint64_t b = 1ull << (slot % 64), was;

		was = on ? __atomic_fetch_and(&d->soft_off[slot / 64], ~b, __ATOMIC_ACQ_REL) :
			   __atomic_fetch_or(&d->soft_off[slot / 64], b, __ATOMIC_ACQ_REL);
		/* it was off and is on, or the other way: the programs' count follows */
		if (!!(was & b) == on && tfs_ev_bit((const uint64_t *)d->soft_mode, slot))
			__atomic_add_fetch(&s->evreg->soft_on[slot], on ? 1 : -1, __ATOMIC_ACQ_REL);
	}
}

/*
 * An instance's triggers at its rmdir: out of the registry, with the
 * soft mode they held; then its registry words are free.  Context:
 * s->lock held.
 */
void tfs_evtrig_free_inst(struct tfs_session *s, struct tfs_inst *in)
{
	for (uint32_t i = 0; i < UT_EVREG_SLOTS; i++) {
		for (int k = 0; in->evtrig[i] && k < UT_EVREG_TRIGS; k++)
			if (in->evtrig[i][k].used)
				trig_remove(s, in, i, &in->evtrig[i][k]);
		if (in->evtrig[i] && s->evreg)
			soft_publish(s, i);
		free(in->evtrig[i]);
		in->evtrig[i] = NULL;
	}
	for (int k = 0; in->ptrig && k < UT_EVREG_TRIGS; k++)
		if (in->ptrig[k].used)
			ptrig_remove(s, in, &in->ptrig[k]);
	free(in->ptrig);
	in->ptrig = NULL;
	if (in->rdir) {
		s->rdirs &= ~(1u << in->rdir);
		/* its stacks too */
		if (s->evreg)
			__atomic_fetch_and(&s->evreg->opt_stack, ~(1u << in->rdir), __ATOMIC_RELEASE);
	}
	in->rdir = 0;
	in->rd = NULL;
}

void tfs_evfilt_free_inst(struct tfs_inst *in)
{
	for (uint32_t i = 0; i < UT_EVREG_SLOTS; i++) {
		if (in->evfilt[i]) {
			free(in->evfilt[i]->text);
			free(in->evfilt[i]->prog);
		}
		free(in->evfilt[i]);
		in->evfilt[i] = NULL;
	}
	while (in->sysfilt) {
		struct tfs_sysfilt *n = in->sysfilt->next;

		free(in->sysfilt->f.text);
		free(in->sysfilt);
		in->sysfilt = n;
	}
}

/* the memory of a directory's triggers, the session closing (the registry goes too) */
void tfs_evtrig_free_mem(struct tfs_inst *in)
{
	for (uint32_t i = 0; i < UT_EVREG_SLOTS; i++) {
		for (int k = 0; in->evtrig[i] && k < UT_EVREG_TRIGS; k++)
			free(in->evtrig[i][k].filter);
		free(in->evtrig[i]);
		in->evtrig[i] = NULL;
	}
	for (int k = 0; in->ptrig && k < UT_EVREG_TRIGS; k++) {
		free(in->ptrig[k].local);
		free(in->ptrig[k].filter);
	}
	free(in->ptrig);
	in->ptrig = NULL;
}

void tfs_evfilt_free_all(struct tfs_session *s)
{
	tfs_evfilt_free_inst(&s->top);
	tfs_evtrig_free_mem(&s->top);
}

const struct tfs_file tfs_evtrig_files[] = {
	TFS_FILE("trigger", 0640, W_EVENT, .show = trig_show, .write = trig_write),
	TFS_FILE("trigger", 0640, W_FTPRINT, .show = ptrig_show, .write = ptrig_write),
	TFS_FILES_END
};
