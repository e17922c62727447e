// SPDX-License-Identifier: MIT
/*
 * instances.c - instances/NAME (mkdir, rmdir) and what the programs
 * record for the top and the instances together: the recording union.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "tracefs/tfs_int.h"

static int inst_records(struct tfs_inst *in);
static int inst_soft_any(const struct tfs_inst *in);
static int rec_filter_update(struct tfs_session *s);
static void top_state(struct tfs_session *s, int on);
static void top_state_at(struct tfs_session *s, int on, uint64_t ns);
static void top_log_sync(struct tfs_session *s);
static void programs_on(struct tfs_session *s, int force);
static int dir_fires(struct ut_evreg_dir *d, uint64_t *pos_io, struct live_fire *fires, int *lost,
		     int *drained);
static int fire_on(const struct live_fire *f);
static int fire_by_time(const void *a, const void *b);

/* does an instance need the programs to record?  Context: s->lock held. */
static int insts_recording(struct tfs_session *s)
{
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		if (inst_records(in))
			return 1;
	return 0;
}

/*
 * The top instance's tracing_on.  The control page's word is what the
 * programs follow: the top's state or an instance's (tfs_recording_update()).
 * Function commands (traceon, traceoff) in the programs change the word
 * too; they are the top's commands, so such a change is the top's new
 * state, from the time they logged it (dirs[0]'s log, top_log_sync()):
 * what was recorded after a traceon shows even if no one read the
 * directory in between.  Context: s->lock held.
 */

void tfs_top_sync(struct tfs_session *s)
{
	uint32_t v;

	top_log_sync(s);
	v = __atomic_load_n(&s->ctl->tracing_on, __ATOMIC_ACQUIRE);
	if (v != s->on_stored) {
		s->on_stored = v;
		top_state(s, v != 0);
	}
}

int tfs_inst_on(struct tfs_session *s, struct tfs_inst *in)
{
	if (in == &s->top)
		tfs_top_sync(s);
	return in->on;
}

/*
 * What the programs record: the top instance's tracer and every
 * instance's are the active tracers (the programs record what they need
 * together), while the top or an instance with a tracer is on.  Returns 1 when
 * the tracer changed (the programs must apply it: tfs_ctl_apply()).
 * Context: s->lock held.
 */
int tfs_recording_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t set;
	int changed;

	/* a traceoff in the programs since: keep it */
	tfs_top_sync(s);
	set = tfs_tracer_bit(tfs_tracer_name(&s->top));
	/*
	 * Instances that are off count too: switching tracing_on then needs
	 * no handshake, and keeps the recording's kind.
	 */
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		set |= tfs_tracer_bit(tfs_tracer_name(in));
	programs_on(s, 1);
	changed = c->active_tracers != set;
	c->active_tracers = set;
	{
		/* function-trace of the directory running a latency tracer */
		uint32_t flags = c->flags & ~(uint32_t)UT_CTL_NOFUNC;
		const struct tracer *t = s->top.tr.current_trace;

		if (t && t->lat_sections && !(s->top.tr.trace_flags & TRACE_ITER_FUNCTION))
			flags |= UT_CTL_NOFUNC;
		for (struct tfs_inst *in = s->insts; in; in = in->next)
			if (in->tr.current_trace && in->tr.current_trace->lat_sections &&
			    !(in->tr.trace_flags & TRACE_ITER_FUNCTION))
				flags |= UT_CTL_NOFUNC;
		changed |= flags != c->flags;
		c->flags = flags;
	}
	changed |= rec_filter_update(s);
	changed |= tfs_lists_update(s);
	return changed;
}

/* does the directory's tracer make the programs record function calls now? */
static int inst_traces(struct tfs_inst *in)
{
	return in->on && tfs_tracer_mode(tfs_tracer_name(in)) > 0;
}

/*
 * does the directory make the programs record now: calls, or events it
 * enabled?  An instance that is off but has a traceon trigger does: the
 * trigger turns it on at once, its pump keeps what follows.
 */
static int inst_records(struct tfs_inst *in)
{
	int t = ut_tracer_index(tfs_tracer_name(in));

	return (in->on || in->traceon_trigs || in->traceon_cmds) &&
	       (tfs_tracer_mode(tfs_tracer_name(in)) > 0 || tfs_ev_any(in) || inst_soft_any(in) || in->nr_cmds ||
		(t >= 0 && (ut_tracers[t].needs & UT_NEED_ENTRIES)));
}

/* does the instance hold an event in soft mode (its triggers may switch it on)? */
static int inst_soft_any(const struct tfs_inst *in)
{
	for (int w = 0; in->rd && w < TFS_EV_WORDS; w++)
		if (__atomic_load_n(&in->rd->soft_mode[w], __ATOMIC_RELAXED))
			return 1;
	return 0;
}

/*
 * Directory @in's tracing_on to @on, as a write of the file or a print
 * trigger makes it (the caller then runs tfs_recording_update()).  Context:
 * s->lock held.
 */
void tfs_inst_set_on(struct tfs_session *s, struct tfs_inst *in, int on)
{
	/* what was recorded before the switch is the buffer's */
	tfs_inst_pump(in);
	if (in == &s->top) {
		tfs_top_set_on(s, on);
		return;
	}
	in->on = on;
	/* its triggers switch from the state the user left */
	if (in->rd)
		__atomic_store_n(&in->rd->on, (uint32_t)on, __ATOMIC_RELEASE);
}

/*
 * The instances' triggers turned some on or off: the programs record
 * while the top or an instance needs it.  Context: s->lock held.
 */
void tfs_inst_trig_sync(struct tfs_session *s)
{
	tfs_top_sync(s);
	programs_on(s, 0);
}

/*
 * What the programs record: the control page's tracing_on while the top
 * or an instance needs it (@force: stored even if it seems unchanged),
 * and the registry's insts_on while an instance does, so that the top's
 * switches in the programs then leave the programs recording (the top's
 * log, top_log_sync()).  Context: s->lock held.
 */
static void programs_on(struct tfs_session *s, int force)
{
	struct ut_evreg *r = s->evreg;
	int insts = insts_recording(s);
	uint32_t want;

	if (r && insts && !__atomic_load_n(&r->insts_on, __ATOMIC_ACQUIRE)) {
		/* the switches logged until now (at their times), then the top's word from its state */
		top_log_sync(s);
		__atomic_store_n(&r->dirs[0].on, (uint32_t)s->top.on, __ATOMIC_RELEASE);
		s->top_log_done = __atomic_load_n(&r->dirs[0].head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&r->insts_on, 1, __ATOMIC_RELEASE);
	} else if (r && !insts && __atomic_load_n(&r->insts_on, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&r->insts_on, 0, __ATOMIC_RELEASE);
		top_log_sync(s);	/* what the top's switches did meanwhile */
	}
	want = (uint32_t)(s->top.on || insts);
	if (force || want != s->on_stored) {
		s->on_stored = want;
		__atomic_store_n(&s->ctl->tracing_on, want, __ATOMIC_RELEASE);
	}
}

/*
 * The function lists the programs follow (control page filter, notrace):
 * those of the directories that record, together.  A call is recorded if
 * one of them wants it: no filter if one has none, else all their
 * filters; a notrace list only if all have the same.  Each directory then
 * shows its own choice (the top's views, the instances' pumps).  While
 * none records, the top's lists.  Returns 1 when the control page's lists
 * changed.  Context: s->lock held.
 */
int tfs_lists_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	char filter[UT_LIST_MAX] = "", notrace[UT_LIST_MAX] = "";
	const char *same_notrace = NULL;
	int n = 0, all = 0, differ = 0, changed;

	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next) {
		size_t l = strlen(filter), k = strlen(in->filter);

		if (!inst_traces(in))
			continue;
		n++;
		if (!in->filter[0])
			all = 1;
		else if (l + k + 2 > sizeof(filter))
			all = 1;	/* too long together: everything, each shows its own */
		else
			snprintf(filter + l, sizeof(filter) - l, "%s%s", l ? " " : "", in->filter);
		if (!same_notrace)
			same_notrace = in->notrace;
		else if (strcmp(same_notrace, in->notrace))
			differ = 1;
	}
	if (!n) {
		snprintf(filter, sizeof(filter), "%s", s->top.filter);
		snprintf(notrace, sizeof(notrace), "%s", s->top.notrace);
	} else {
		if (all)
			filter[0] = '\0';
		if (!differ && same_notrace)
			snprintf(notrace, sizeof(notrace), "%s", same_notrace);
	}
	changed = strcmp(filter, c->filter) || strcmp(notrace, c->notrace);
	strcpy(c->filter, filter);
	strcpy(c->notrace, notrace);
	/* the programs record more than the top chose: its views choose, until cleared */
	if (strcmp(filter, s->top.filter) || strcmp(notrace, s->top.notrace))
		s->top_lists_wide = 1;
	return changed;
}

/* the ids of @list into @ids (unique, @n so far); -1 when they do not fit */
static int ids_union(const char *list, int32_t *ids, uint32_t *n)
{
	int32_t v[UT_REC_PIDS_MAX];
	int nv = tfs_pids_parse(list, v, UT_REC_PIDS_MAX);

	for (int i = 0; i < nv; i++) {
		uint32_t j;

		for (j = 0; j < *n && ids[j] != v[i]; j++)
			;
		if (j < *n)
			continue;
		if (*n == UT_REC_PIDS_MAX)
			return -1;
		ids[(*n)++] = v[i];
	}
	return nv < 0 ? -1 : 0;
}

/* keep of @ids (@n) those in @list too */
static void ids_inter(const char *list, int32_t *ids, uint32_t *n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < *n; i++)
		if (tfs_pids_has(list, ids[i]))
			ids[k++] = ids[i];
	*n = k;
}

/*
 * One kind of the programs' pid filter (@events 0: calls, 1: events)
 * from the lists of the top and of @in and later instances that record:
 * into @ids the ids one of them wants (*@n 0: all, as when one has an
 * empty list), into @no those all of them exclude (notrace lists).
 */
static void pids_union(struct tfs_session *s, int events, int32_t *ids, uint32_t *n, int32_t *no,
		       uint32_t *nno)
{
	int k = events ? TFS_PIDS_EVENT : TFS_PIDS_FUNC, all = 0, first = 1;

	*n = *nno = 0;
	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next) {
		if (in != &s->top && !inst_records(in))
			continue;
		if (!in->pids[k][0] || ids_union(in->pids[k], ids, n) < 0)
			all = 1;
		if (first) {
			int m = tfs_pids_parse(in->pids[k + 1], no, UT_REC_PIDS_MAX);

			*nno = m < 0 ? 0 : (uint32_t)m;	/* too many: the views exclude them */
		} else {
			ids_inter(in->pids[k + 1], no, nno);
		}
		first = 0;
	}
	if (all)
		*n = 0;
}

/*
 * Who the programs record (set_ftrace_pid, set_ftrace_notrace_pid,
 * set_event_pid, set_event_notrace_pid, tracing_cpumask): the threads and
 * CPUs the top or an instance that records wants; an instance has no
 * cpumask, and one with an empty pid list wants every thread.  And whose
 * forks they follow (the -fork options of every directory).  Returns 1
 * when the filter was turned on or off: the programs must apply it.
 * Context: s->lock held.
 */
static int rec_filter_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	int32_t pids[UT_REC_PIDS_MAX], nopids[UT_REC_PIDS_MAX];
	int32_t evp[UT_REC_PIDS_MAX], evnop[UT_REC_PIDS_MAX];
	uint32_t mask[UT_CTL_CPUS / 32], n, nno, nev, nevno, nfol = 0;
	__typeof__(c->follow[0]) fol[UT_REC_PIDS_MAX];
	int inst_rec = 0, was = 0, now = 0;

	pids_union(s, 0, pids, &n, nopids, &nno);
	pids_union(s, 1, evp, &nev, evnop, &nevno);
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		inst_rec |= inst_records(in);
	for (int i = 0; i < UT_CTL_CPUS / 32; i++) {
		mask[i] = inst_rec ? ~0u : i < TFS_MAX_CPUS / 32 ? s->cpumask[i] : 0;
		/* CPUs beyond the configured ones: no reason to refuse them */
		for (int b = 0; b < 32; b++)
			if (i * 32 + b >= s->ncpu)
				mask[i] |= 1u << b;
		was |= c->rec_cpumask[i] != ~0u;
		now |= mask[i] != ~0u;
	}
	/* the lists that follow forks: of every directory, recording or not */
	memset(fol, 0, sizeof(fol));
	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next)
		for (int k = 0; k < TFS_NR_PIDS; k++) {
			int32_t v[UT_REC_PIDS_MAX];
			int m = tfs_pids_follows(in, k) ? tfs_pids_parse(in->pids[k], v, UT_REC_PIDS_MAX) : 0;
			uint32_t what = k <= TFS_PIDS_FUNC_NO ? UT_FOLLOW_FUNC : UT_FOLLOW_EVENT;

			for (int i = 0; i < m; i++) {
				uint32_t j;

				for (j = 0; j < nfol && fol[j].id != v[i]; j++)
					;
				if (j == nfol && nfol == UT_REC_PIDS_MAX)
					break;	/* more: those are not followed */
				fol[j].id = v[i];
				fol[j].what |= what;
				nfol += j == nfol;
			}
		}
	/* the programs' two switches, ut_rec_filter and ut_ev_filter */
	was |= (c->nr_rec_pids || c->nr_rec_nopids) << 1 | (c->nr_ev_pids || c->nr_ev_nopids) << 2;
	now |= (n || nno) << 1 | (nev || nevno) << 2;
	if (c->nr_rec_pids == n && !memcmp(c->rec_pids, pids, n * sizeof(*pids)) &&
	    c->nr_rec_nopids == nno && !memcmp(c->rec_nopids, nopids, nno * sizeof(*nopids)) &&
	    c->nr_ev_pids == nev && !memcmp(c->ev_pids, evp, nev * sizeof(*evp)) &&
	    c->nr_ev_nopids == nevno && !memcmp(c->ev_nopids, evnop, nevno * sizeof(*evnop)) &&
	    c->nr_follow == nfol && !memcmp(c->follow, fol, nfol * sizeof(*fol)) &&
	    !memcmp(c->rec_cpumask, mask, sizeof(mask)))
		return 0;
	/* odd while changing: a thread that sees it keeps what it knew */
	__atomic_store_n(&c->rec_filter_gen, (c->rec_filter_gen | 1) , __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c->nr_rec_pids = n;
	memcpy(c->rec_pids, pids, n * sizeof(*pids));
	c->nr_rec_nopids = nno;
	memcpy(c->rec_nopids, nopids, nno * sizeof(*nopids));
	c->nr_ev_pids = nev;
	memcpy(c->ev_pids, evp, nev * sizeof(*evp));
	c->nr_ev_nopids = nevno;
	memcpy(c->ev_nopids, evnop, nevno * sizeof(*evnop));
	c->nr_follow = nfol;
	memcpy(c->follow, fol, nfol * sizeof(*fol));
	memcpy(c->rec_cpumask, mask, sizeof(mask));
	__atomic_store_n(&c->rec_filter_gen, c->rec_filter_gen + 1, __ATOMIC_RELEASE);
	return was != now;
}

/* the top instance goes on or off now: its views hide the time it is off */
void tfs_top_set_on(struct tfs_session *s, int on)
{
	tfs_top_sync(s);
	top_state(s, on);
	/* the programs switch the top from the state the user left */
	if (s->evreg)
		__atomic_store_n(&s->evreg->dirs[0].on, (uint32_t)on, __ATOMIC_RELEASE);
}

/*
 * The top's switches that the programs logged while an instance made
 * them record (insts_on): its hide ranges from their times.  Context:
 * s->lock held.
 */
static void top_log_sync(struct tfs_session *s)
{
	struct live_fire fires[UT_EVREG_DIRLOG];
	struct ut_evreg_dir *d;
	int n, lost, drained;

	if (!s->evreg)
		return;
	d = &s->evreg->dirs[0];
	if (__atomic_load_n(&d->head, __ATOMIC_ACQUIRE) == s->top_log_done)
		return;
	n = dir_fires(d, &s->top_log_done, fires, &lost, &drained);
	qsort(fires, (size_t)n, sizeof(*fires), fire_by_time);
	for (int i = 0; i < n; i++)
		if (fire_on(&fires[i]))
			top_state_at(s, fires[i].what - 1 == UT_TRIG_TRACEON,
				     live_ns(s->dir, fires[i].ts));
	if (drained > 0)
		top_state(s, (int)__atomic_load_n(&d->on, __ATOMIC_ACQUIRE));
}

static void top_state(struct tfs_session *s, int on)
{
	top_state_at(s, on, live_now(s->dir));
}

/* the top's tracing_on changed at @now: its views hide what follows an off */
static void top_state_at(struct tfs_session *s, int on, uint64_t now)
{
	struct tfs_inst *t = &s->top;

	if (t->on == on)
		return;
	t->on = on;
	if (!on) {
		if (t->nr_hide == TFS_HIDE_MAX) {
			/* no room: what is older than the oldest range goes too */
			if (t->since < t->hide[1])
				t->since = t->hide[1];
			memmove(t->hide, t->hide + 2, sizeof(t->hide) - 2 * sizeof(t->hide[0]));
			t->nr_hide--;
		}
		t->hide[2 * t->nr_hide] = now;
		t->hide[2 * t->nr_hide + 1] = UINT64_MAX;
		t->nr_hide++;
	} else if (t->nr_hide && t->hide[2 * t->nr_hide - 1] == UINT64_MAX) {
		t->hide[2 * t->nr_hide - 1] = now;
	}
}

static int fire_by_time(const void *a, const void *b)
{
	const struct live_fire *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * What the triggers changed in @d's words since position *@pos_io of its
 * log, into @fires (UT_EVREG_DIRLOG, in log order); *@pos_io moves past them.
 * Returns how many; *@lost is set if the log ran over changes not yet
 * read; *@drained is 1 if every change logged so far was read, -1 if one
 * is still being written (*@pos_io: its position).
 */
static int dir_fires(struct ut_evreg_dir *d, uint64_t *pos_io, struct live_fire *fires, int *lost,
		     int *drained)
{
	uint64_t head = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE), pos = *pos_io;
	int n = 0;

	*lost = 0;
	*drained = 0;
	if (head - pos > UT_EVREG_DIRLOG) {
		pos = head - UT_EVREG_DIRLOG;
		*lost = 1;
	}
	for (; pos < head; pos++) {
		const struct ut_evreg_fire *f = &d->log[pos % UT_EVREG_DIRLOG];
		uint64_t seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);

		/* being written: a few moments for the writer */
		for (int spin = 0; (seq == 0 || seq < pos + 1) && spin < 1000; spin++) {
			sched_yield();
			seq = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
		}
		if (seq == 0 || seq < pos + 1) {
			*drained = -1;	/* still: the next run takes it */
			break;
		}
		fires[n].ts = f->ts;
		fires[n].what = f->what;
		fires[n].target = f->target;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq > pos + 1 || __atomic_load_n(&f->seq, __ATOMIC_RELAXED) != seq) {
			*lost = 1;	/* written over */
			continue;
		}
		n++;
	}
	*pos_io = pos;
	if (*drained != -1)
		*drained = pos == head;
	return n;
}

static int fire_on(const struct live_fire *f)
{
	return f->what - 1 == UT_TRIG_TRACEON || f->what - 1 == UT_TRIG_TRACEOFF;
}

static int fire_soft(const struct live_fire *f)
{
	return (f->what - 1 == UT_TRIG_ENABLE_EVENT || f->what - 1 == UT_TRIG_DISABLE_EVENT) &&
	       f->target < UT_EVREG_SLOTS;
}

/*
 * An instance takes what the programs recorded until now, as its
 * triggers had it at each record's time (live_timeline), then takes
 * their changes as its state: tracing_on, the soft switches.  When the
 * log ran over, the state before the changes left is what the first of
 * each undid.  Context: s->lock held.
 */
void tfs_inst_pump(struct tfs_inst *in)
{
	struct live_fire fires[2 * UT_EVREG_DIRLOG];
	uint64_t soft_mode[TFS_EV_WORDS], soft0[TFS_EV_WORDS], seen[TFS_EV_WORDS], done = in->log_done;
	uint64_t ev_on[TFS_EV_WORDS];
	struct live_timeline tl = { .trace_dir = in->rdir ? in->rdir + 1 : 0, .on = in->on };
	char pids[LIVE_PIDS_MAX], evpids[LIVE_PIDS_MAX];
	int n = 0, lost = 0, drained = 0, on_seen = 0, applied;

	if (!in->pump)
		return;
	tfs_pids_view(in, 0, pids, sizeof(pids));
	tfs_pids_view(in, 1, evpids, sizeof(evpids));
	if (in->rd) {
		/* the changes until now: the records after stay for the next run */
		tl.until = live_pump_now(in->pump);
		/* those of the last run that came after its records, then the new ones */
		memcpy(fires, in->carry, sizeof(*fires) * (size_t)in->nr_carry);
		n = in->nr_carry + dir_fires(in->rd, &done, fires + in->nr_carry, &lost, &drained);
		qsort(fires, (size_t)n, sizeof(*fires), fire_by_time);
		/*
		 * a change still being written (its writer was stopped in the
		 * middle): the records wait for it, but not for ever (its
		 * writer may have been killed)
		 */
		if (drained < 0 && (done != in->stuck_pos || ++in->stuck_runs < TFS_STUCK_RUNS)) {
			if (done != in->stuck_pos) {
				in->stuck_pos = done;
				in->stuck_runs = 0;
			}
			tl.until = 1;
		} else if (drained < 0) {
			done++;		/* given up: counted as lost */
			in->stuck_runs = 0;
		}
		for (int w = 0; w < TFS_EV_WORDS; w++)
			soft_mode[w] = __atomic_load_n(&in->rd->soft_mode[w], __ATOMIC_ACQUIRE);
		memcpy(soft0, in->soft_off, sizeof(soft0));
		memset(seen, 0, sizeof(seen));
		for (int i = 0; lost && i < n; i++) {
			if (fire_on(&fires[i]) && !on_seen) {
				on_seen = 1;
				tl.on = fires[i].what - 1 != UT_TRIG_TRACEON;
			} else if (fire_soft(&fires[i]) && !tfs_ev_bit(seen, fires[i].target)) {
				tfs_ev_bit_set(seen, fires[i].target, 1);
				tfs_ev_bit_set(soft0, fires[i].target,
					       fires[i].what - 1 == UT_TRIG_ENABLE_EVENT);
			}
		}
		tl.soft_mode = soft_mode;
		tl.soft_off = soft0;
		tl.fires = fires;
		tl.nr = n;
	}
	tfs_ev_dir(in, ev_on);
	live_pump_run(in->pump, tfs_tracer_name(in), inst_records(in) || n, pids, evpids,
		      in->filter, in->notrace, ev_on, tfs_evfilt_progs(in), &tl);
	if (!in->rd)
		return;
	in->log_done = done;
	/* the changes before the records' limit are the state; the later wait with them */
	for (applied = 0; applied < n && fires[applied].ts < tl.until; applied++) {
		const struct live_fire *f = &fires[applied];

		if (fire_on(f))
			in->on = f->what - 1 == UT_TRIG_TRACEON;
		else if (fire_soft(f))
			tfs_ev_bit_set(in->soft_off, f->target, f->what - 1 == UT_TRIG_DISABLE_EVENT);
	}
	in->nr_carry = n - applied < UT_EVREG_DIRLOG ? n - applied : UT_EVREG_DIRLOG;
	memcpy(in->carry, fires + n - in->nr_carry, sizeof(*fires) * (size_t)in->nr_carry);
	if (drained > 0 && !n) {
		/*
		 * quiet, every change read: the words are the state (two
		 * changes that raced are logged in an order of their own)
		 */
		in->on = (int)__atomic_load_n(&in->rd->on, __ATOMIC_ACQUIRE);
		for (int w = 0; w < TFS_EV_WORDS; w++)
			in->soft_off[w] = __atomic_load_n(&in->rd->soft_off[w], __ATOMIC_ACQUIRE) &
					  soft_mode[w];
	}
}

void tfs_inst_init(struct tfs_inst *in)
{
	pthread_mutex_init(&in->pipe_lock, NULL);
	in->on = 1;
	in->tr.name = in->name;
	in->tr.current_trace = &nop_tracer;
	in->tr.trace_flags = trace_opt_defaults(trace_opts, TRACE_NR_OPTS);
}

void tfs_inst_free(struct tfs_inst *in, int remove)
{
	/* as the kernel's rmdir: the directory's tracer is reset */
	if (in->tr.current_trace->reset)
		in->tr.current_trace->reset(&in->tr);
	in->tr.current_trace = &nop_tracer;
	tfs_snap_empty(in);
	tfs_errlog_clear(in);
	live_marker_close(in->marker);
	in->marker = NULL;
	for (int i = 0; in->pipes && i <= TFS_MAX_CPUS; i++)
		live_pipe_close(in->pipes[i]);
	free(in->pipes);
	in->pipes = NULL;
	pthread_mutex_destroy(&in->pipe_lock);
	live_pump_close(in->pump, remove);
	in->pump = NULL;
	if (in->name[0]) {
		/* the top's go with the session (tfs_evfilt_free_all()) */
		tfs_evfilt_free_inst(in);
		tfs_evtrig_free_mem(in);
	}
}

struct tfs_inst *tfs_inst_find(struct tfs_session *s, const char *name, size_t len)
{
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		if (strlen(in->name) == len && !strncmp(in->name, name, len))
			return in;
	return NULL;
}

static int inst_name_ok(const char *name)
{
	if (!*name || strlen(name) > NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return !strchr(name, '/');
}

int tfs_mkdir(struct tfs_session *s, const char *path)
{
	const char *p = path, *c;
	struct tfs_inst *in;
	size_t len = tfs_next_comp(&p, &c);
	char name[NAME_MAX + 1];

	if (!tfs_comp_is(c, len, "instances")) {
		struct tfs_node n;
		int ret;

		pthread_mutex_lock(&s->lock);
		ret = tfs_resolve(s, path, &n);
		pthread_mutex_unlock(&s->lock);
		return ret == 0 ? -EEXIST : ret == -ENOENT ? -EACCES : ret;
	}
	len = tfs_next_comp(&p, &c);
	if (!len)
		return -EEXIST;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c, len);
	name[len] = '\0';
	while (*p == '/')
		p++;
	if (*p)
		return tfs_inst_find(s, c, len) ? -EACCES : -ENOENT;
	if (!inst_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (tfs_inst_find(s, name, len)) {
		pthread_mutex_unlock(&s->lock);
		return -EEXIST;
	}
	in = calloc(1, sizeof(*in));
	if (!in) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	memcpy(in->name, name, len + 1);
	tfs_inst_init(in);
	/* as the kernel: a new instance has the nop tracer (tfs_inst_init()) and an empty buffer */
	snprintf(in->bufdir, sizeof(in->bufdir), "%s/inst.%s", s->dir, name);
	in->nr_pages = s->ctl->nr_pages;
	tfs_cpu_pages_init(in, in->nr_pages);
	/* as the kernel's: every CPU */
	for (int i = 0; i < s->ncpu && i < TFS_MAX_CPUS; i++)
		in->cpumask[i / 32] |= 1u << (i % 32);
	in->since = live_now(s->dir);
	in->pump = live_pump_open(s->dir, in->bufdir, in->nr_pages, in->since);
	if (in->pump)
		in->marker = live_marker_open(s->dir, in->bufdir, in->nr_pages);
	if (!in->pump || !in->marker) {
		int err = errno ? -errno : -ENOMEM;

		live_pump_close(in->pump, 1);
		pthread_mutex_unlock(&s->lock);
		free(in);
		return err;
	}
	in->next = s->insts;
	s->insts = in;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int tfs_rmdir(struct tfs_session *s, const char *path)
{
	const char *p = path, *c;
	struct tfs_inst **pp, *in;
	struct tfs_node n;
	size_t len = tfs_next_comp(&p, &c);
	int ret, apply;

	/* the instance's pump takes what was collected until now */
	tfs_collect(s);
	pthread_mutex_lock(&s->lock);
	ret = tfs_resolve(s, path, &n);
	if (ret)
		goto out;
	ret = n.dir == D_NONE ? -ENOTDIR : -EPERM;
	if (!tfs_comp_is(c, len, "instances") || n.dir != D_ROOT || n.inst == &s->top)
		goto out;
	ret = -EBUSY;
	if (n.inst->refs)
		goto out;
	tfs_top_sync(s);
	/* its commands and triggers go first: the soft modes they held are recomputed without them */
	apply = tfs_cmds_free_inst(s, n.inst);
	tfs_evtrig_free_inst(s, n.inst);
	for (pp = &s->insts; (in = *pp); pp = &in->next) {
		if (in == n.inst) {
			*pp = in->next;
			tfs_inst_free(in, 1);
			free(in);
			break;
		}
	}
	tfs_top_sync(s);
	ret = 0;
	/* the programs may no longer record the events it enabled, nor at all */
	if (tfs_ev_publish(s) | tfs_recording_update(s) | apply) {
		/* the programs may record less now */
		pthread_mutex_unlock(&s->lock);
		tfs_ctl_apply(s);
		tfs_collect(s);
		return 0;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}
