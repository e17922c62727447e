// SPDX-License-Identifier: MIT
/*
 * live_stage.c - the ring buffers of a directory as page sources of the
 * decoder (reader/data.c), and what a view shows of their events, as
 * stages on the decoded events:
 *
 *   time      at or before `since` (echo > trace), a clear point of a
 *             trace_pipe reader (consumed), a hidden range (the time a
 *             directory's tracing was off), a per-CPU clear point or the
 *             part of a CPU past its per_cpu buffer_size_kb (the cuts)
 *   cpu       per_cpu/cpuN files show that CPU's events
 *   pid       set_ftrace_pid: a buffer's calls; set_event_pid: its
 *             events (live_stage_buffer()); a view without pids_calls: a
 *             whole buffer
 *   events    the programs' events the directory enabled (ev_on) and
 *             its event filters match (ev_filter), the calls a nop pump
 *             does not take
 *   functions set_ftrace_filter/notrace of an instance: a call's EXIT
 *             goes with its ENTRY, and the depth shown counts the
 *             selected calls (the kept-frames stack, struct live_fsel);
 *             for the function tracer calls become FUNC events
 *
 * A selection sees every event (its frames follow the stream); the
 * other stages only hide.  The decoder keeps the depth and the open
 * calls of the whole stream, so hiding an event needs no restating.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/evfilter.h"
#include "lib/event/trigger.h"
#include "lib/funclist/funclist.h"
#include "output/output.h"
#include "output/tracer.h"
#include "tracefs/live_int.h"
#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* ---- buffers ---- */

void live_buf_free(struct live_buf *b)
{
	rb_close(&b->r);
	free(b->cnt);
	free(b->tag);
	free(b->st);
	free(b->fsel);
}

/*
 * the next id of pid list @p ("ID" or "!ID", anything else between): its
 * value in *@v, and *@no 1 for "!ID"; returns where the list goes on
 * after it, NULL at the list's end
 */
static const char *pid_next(const char *p, long *v, int *no)
{
	while (*p) {
		char *end;

		*no = *p == '!';
		*v = strtol(p + *no, &end, 10);
		if (end != p + *no)
			return end;
		p++;
	}
	return NULL;
}

/*
 * a pid list (live_view.pids) on thread @tid of process @pid: "!ID"
 * never, else a listed id or any if none is; -1: no list
 */
static int ids_selected(const char *pids, long tid, long pid)
{
	const char *p = pids;
	int any = 0, in = 0, no;
	long v;

	if (!p)
		return -1;
	while ((p = pid_next(p, &v, &no))) {
		if (v == tid || v == pid) {
			if (no)
				return 0;
			in = 1;
		}
		any |= !no;
	}
	return in || !any;
}

/* a view's pid list (live_view.pids) on a buffer: its thread's, its process's */
int live_pid_selected(const char *pids, const struct live_buf *b)
{
	const struct rb_header *h = b->r.hdr;

	/* set_ftrace_pid chooses whose functions are traced; markers stay */
	if (b->marker || !pids)
		return 1;
	return ids_selected(pids, h->tid, h->pid);
}

int live_buf_other_tasks(const char *evpids, const struct live_buf *b)
{
	/* the kernel events' sources write the sched events, in the buffer of the task they ran in */
	return evpids && *evpids && (b->r.hdr->flags & RB_HDR_AUX);
}

int live_buf_shown(const struct live_view *v, const struct live_buf *b)
{
	if (!v)
		return 1;
	if (!v->pids_calls)
		return live_pid_selected(v->pids, b);
	return live_pid_selected(v->pids, b) || live_pid_selected(v->evpids, b) ||
	       live_buf_other_tasks(v->evpids, b);
}

void live_buf_thread(struct live_buf *b)
{
	const struct rb_header *h = b->r.hdr;
	struct ut_thread_info *ti = &b->ti;

	ut_thread_info_from(ti, h);
	snprintf(ti->path, sizeof(ti->path), "%s", b->name);
}

int live_scan_bufs(const char *dir, struct live_buf **bufs, int nr, int markers)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		char path[PATH_MAX];
		struct live_buf *b;
		int known = 0;
		int marker = !strncmp(de->d_name, LIVE_MARKER_RING, strlen(LIVE_MARKER_RING));

		if ((strncmp(de->d_name, "buf.", 4) && !(markers && marker)) ||
		    strlen(de->d_name) >= sizeof(b->name))
			continue;
		for (int i = 0; i < nr && !known; i++)
			known = !strcmp((*bufs)[i].name, de->d_name);
		if (known)
			continue;
		*bufs = xrealloc(*bufs, sizeof(**bufs) * ((size_t)nr + 1));
		b = &(*bufs)[nr];
		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (rb_open(path, &b->r) < 0)
			continue;	/* being created: next time */
		b->marker = marker;
		live_buf_thread(b);
		nr++;
	}
	if (d)
		closedir(d);
	return nr;
}

void live_load_head(const struct rb_header *h, uint64_t *head, uint64_t *overrun)
{
	for (int i = 0; i < 100; i++) {
		*head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		*overrun = __atomic_load_n(&h->overrun, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->head, __ATOMIC_ACQUIRE) == *head)
			return;
	}
}

uint64_t live_oldest_seq(const struct rb_header *h, uint64_t head)
{
	return head + 1 > h->nr_pages ? head + 1 - h->nr_pages : 0;
}

/* ---- page sources ---- */

void live_pages_copy(struct live_pages *s, const struct live_buf *b)
{
	struct rb_header *h = b->r.hdr;
	uint64_t head, seq;

	memset(s, 0, sizeof(*s));
	live_load_head(h, &head, &s->overrun);
	seq = live_oldest_seq(h, head);
	s->pages = xmalloc((size_t)(head + 1 - seq) * RB_PAGE_SIZE);
	for (; seq <= head; seq++)
		if (rb_copy_page(h, seq, s->pages + s->nr * RB_PAGE_SIZE) >= 0)
			s->nr++;
}

void live_pages_free(struct live_pages *s)
{
	free(s->pages);
	s->pages = NULL;
}

static const struct rb_page *pages_next(void *arg, struct ut_stream *st, uint32_t *skip)
{
	struct live_pages *s = arg;

	(void)st;
	*skip = 0;
	if (s->next >= s->nr)
		return NULL;
	return (const void *)(s->pages + s->next++ * RB_PAGE_SIZE);
}

/* @s's pages from the first on */
void live_pages_src(struct live_pages *s, struct ut_page_src *src)
{
	s->next = 0;
	src->next = pages_next;
	src->arg = s;
}

/*
 * At the first page of a read: the pages overwritten since the last read,
 * the events lost with them (those read from them are not), and the
 * position moved to the oldest page left.
 */
static void pipe_start(struct live_pipe_src *ps, struct ut_stream *s)
{
	struct live_buf *b = ps->b;
	struct rb_header *h = b->r.hdr;
	uint32_t nr = h->nr_pages;
	uint64_t ovr, oldest;

	live_load_head(h, &ps->head, &ovr);
	oldest = live_oldest_seq(h, ps->head);
	if (!b->started) {
		b->started = 1;
		b->cnt = xcalloc(nr, sizeof(*b->cnt));
		b->tag = xcalloc(nr, sizeof(*b->tag));
		for (uint32_t i = 0; i < nr; i++)
			b->tag[i] = UINT64_MAX;
		b->rseq = b->ret_seq = oldest;
		b->ovr0 = ovr;
	}
	for (; b->ret_seq < oldest; b->ret_seq++)
		if (b->tag[b->ret_seq % nr] == b->ret_seq)
			b->retired += b->cnt[b->ret_seq % nr];
	if (b->rseq < oldest) {
		uint64_t lost = ovr - b->ovr0 - b->retired;

		if (lost > b->reported && ovr - b->ovr0 >= b->retired) {
			b->pending_lost += lost - b->reported;
			b->reported = lost;
		}
		b->rseq = oldest;
		b->roff = 0;
		/* the open calls are known again from the next restating */
		memset(s->stack, 0, sizeof(s->stack));
		if (b->fsel)
			b->fsel->known = 0;
	}
	s->pending_lost += b->pending_lost;
	b->pending_lost = 0;
	ps->seq = b->rseq;
}

static const struct rb_page *pipe_next(void *arg, struct ut_stream *s, uint32_t *skip)
{
	struct live_pipe_src *ps = arg;
	struct live_buf *b = ps->b;
	struct rb_header *h = b->r.hdr;
	uint32_t nr = h->nr_pages;

	*skip = 0;
	if (ps->first) {
		ps->first = 0;
		pipe_start(ps, s);
	}
	if (ps->seq > ps->head)
		return NULL;
	if (rb_copy_page(h, ps->seq, ps->page.bytes) < 0) {
		ps->seq = ps->head + 1;
		return NULL;	/* overwritten meanwhile: the next read counts it */
	}
	/* the events read from the page, for the lost count when it is overwritten */
	b->tag[ps->seq % nr] = ps->seq;
	b->cnt[ps->seq % nr] = ps->page.p.entries;
	if (ps->seq == b->rseq)
		*skip = b->roff;
	if (ps->limit) {
		/* the records from the limit on stay: the read ends before the first */
		uint32_t cut = ps->page.p.commit, len;
		const unsigned char *r;
		struct rb_iter it;
		uint64_t ts;

		rb_iter_init(&it, &ps->page.p, ut_rec_len);
		for (;;) {
			uint32_t at = it.off;

			if (rb_iter_next(&it, &r, &len, &ts) <= 0)
				break;
			if (ts >= ps->limit) {
				cut = at;
				break;
			}
		}
		if (cut < ps->page.p.commit) {
			if (ps->seq == b->rseq && cut < b->roff)
				cut = b->roff;
			ps->page.p.commit = cut;
			b->rseq = ps->seq;
			b->roff = cut;
			ps->seq = ps->head + 1;
			return &ps->page.p;
		}
	}
	if (ps->seq < ps->head) {
		b->rseq = ps->seq + 1;
		b->roff = 0;
	} else {
		b->rseq = ps->seq;
		b->roff = ps->page.p.commit;
	}
	ps->seq++;
	return &ps->page.p;
}

void live_pipe_src(struct live_pipe_src *ps, struct live_buf *b, struct ut_page_src *src)
{
	ps->b = b;
	ps->first = 1;
	ps->seq = ps->head = 0;
	ps->limit = 0;
	src->next = pipe_next;
	src->arg = ps;
}

/* ---- stages ---- */

/* the slots of the sched events that name a second task (live_stage.sw_slot, wk_slot) */
static void stage_sched_slots(struct live_stage *f, const struct live_cache *c)
{
	static const char *const wk[] = { "sched_waking", "sched_wakeup", "sched_wakeup_new" };
	int n;

	if (!c->evreg)
		return;
	n = ut_evreg_find(c->evreg, "sched", "sched_switch", f->sw_slot, 4);
	f->nr_sw = n > 0 ? n : 0;
	for (int i = 0; i < 3; i++) {
		n = ut_evreg_find(c->evreg, "sched", wk[i], f->wk_slot + f->nr_wk, 4);
		f->nr_wk += n > 0 ? n : 0;
	}
}

/*
 * is @id in pid list @pids (live_view.evpids) as "!ID" (@neg) or as a
 * plain ID?  @id -1: is there any such?
 */
static int id_listed(const char *pids, long id, int neg)
{
	int no;
	long v;

	for (const char *p = pids; (p = pid_next(p, &v, &no));)
		if (no == neg && (id < 0 || v == id))
			return 1;
	return 0;
}

static int slot_in(const uint32_t *slots, int n, uint32_t slot)
{
	for (int i = 0; i < n; i++)
		if (slots[i] == slot)
			return 1;
	return 0;
}

/*
 * set_event_pid and set_event_notrace_pid (f->evpids) on a sched event
 * that names a second task, as the kernel's pid filter probes
 * (event_filter_pid_sched_switch_probe_pre(), ..._wakeup_probe_pre()):
 * a sched_switch is kept unless both tasks are in the notrace list or
 * neither is in the pid list; a wake-up when the task it ran in or the
 * woken one is chosen.  -1: another event, the buffer's task decides
 * (f->events_off).
 */
static int stage_sched_pids(const struct live_stage *f, const struct ut_event *ev)
{
	uint32_t slot = ev->id - UT_EVENT_ID_DYNAMIC;
	struct trace_sched_switch sw;
	struct trace_sched_wakeup wk;

	if (!f->evpids || ev->id < UT_EVENT_ID_DYNAMIC)
		return -1;
	if (slot_in(f->sw_slot, f->nr_sw, slot) && trace_sched_switch_fields(ev, &sw)) {
		if (id_listed(f->evpids, sw.prev_pid, 1) && id_listed(f->evpids, sw.next_pid, 1))
			return 0;
		return !id_listed(f->evpids, -1, 0) || id_listed(f->evpids, sw.prev_pid, 0) ||
		       id_listed(f->evpids, sw.next_pid, 0);
	}
	/* the woken task */
	if (slot_in(f->wk_slot, f->nr_wk, slot) && trace_sched_wakeup_fields(ev, &wk))
		return !f->events_off || ids_selected(f->evpids, wk.pid, -1);
	return -1;
}

void live_stage_init(struct live_stage *f, const struct live_cache *c, const struct live_view *v)
{
	memset(f, 0, sizeof(*f));
	f->cal = &c->cal;
	f->since = v ? v->since : 0;
	f->cpu = v ? v->cpu : -1;
	f->hide = v ? v->hide : NULL;
	f->nr_hide = v && v->hide ? v->nr_hide : 0;
	f->ffilter = v && v->ffilter && v->ffilter[0] ? v->ffilter : NULL;
	f->fnotrace = v && v->fnotrace && v->fnotrace[0] ? v->fnotrace : NULL;
	f->as_func = v && v->tracer && (ut_tracer_needs(v->tracer) & UT_NEED_CALLS_FLAT);
	/*
	 * A tracer that records no calls (nop, sched_switch) shows none:
	 * the calls in the buffers are another directory's, not counted in
	 * this one's entries (the kernel's buffer would not hold them)
	 */
	f->events_only = v && v->tracer && ut_tracer_mode(v->tracer) == UT_MODE_NONE;
	/*
	 * A tracer's own entries (branch's, hw-branch's) go to its
	 * directory's buffer alone, as the kernel's (into its trace_array)
	 */
	f->other_entries = 0;
	for (unsigned i = 0; v && v->tracer && i < UT_NR_TRACERS; i++) {
		const struct tracer *t = tracer_at(i);

		if (t && t->entry_id && t->entry_id < 64 && strcmp(t->name, v->tracer))
			f->other_entries |= 1ull << t->entry_id;
	}
	f->symtab = c->cal.symtab;
	f->ev_on = v ? v->ev_on : NULL;
	f->ev_filter = v ? v->ev_filter : NULL;
	f->pids = v && v->pids_calls ? v->pids : NULL;
	f->evpids = v && v->pids_calls ? v->evpids : NULL;
	f->trace_dir = v ? v->trace_dir : 0;
	stage_sched_slots(f, c);
}

struct ut_stream *live_stream_get(struct live_buf *b)
{
	if (!b->st)
		b->st = xcalloc(1, sizeof(*b->st));
	return b->st;
}

struct live_fsel *live_fsel_get(struct live_buf *b)
{
	if (!b->fsel)
		b->fsel = xcalloc(1, sizeof(*b->fsel));
	return b->fsel;
}

/* which buffer's events follow: its symbols, its selection's frames */
void live_stage_buffer(struct live_stage *f, struct live_buf *b)
{
	f->pid = b->r.hdr->pid;
	f->image = b->r.hdr->image;
	f->entries = f->bytes = f->first_ts = 0;
	f->have_first = 0;
	f->drop_all = 0;
	if (f->tl) {
		f->tl_next = 0;
		f->tl_on = f->tl->on;
		if (f->tl->soft_off)
			memcpy(f->tl_soft, f->tl->soft_off, sizeof(f->tl_soft));
	}
	f->calls_off = !live_pid_selected(f->pids, b);
	f->events_off = !live_pid_selected(f->evpids, b);
	if (f->ffilter || f->fnotrace) {
		f->fsel = live_fsel_get(b);
	} else {
		if (b->fsel)
			b->fsel->on = 0;
		f->fsel = NULL;
	}
}

int live_stage_time(const struct live_stage *f, uint64_t ns)
{
	if (ns <= f->since)
		return 0;
	for (int i = 0; i < f->nr_hide; i++)
		if (ns >= f->hide[2 * i] && ns < f->hide[2 * i + 1])
			return 0;
	return 1;
}

int live_stage_cut(const struct live_stage *f, uint32_t cpu, uint64_t raw)
{
	return !f->cut || cpu >= f->nr_cut || raw >= f->cut[cpu];
}

/* does the function at @ip (at @raw, or UT_SYMTAB_LATEST) pass the selection? */
static int stage_func(const struct live_stage *f, uint64_t ip, uint64_t raw)
{
	uint64_t ns = raw == UT_SYMTAB_LATEST ? raw : ut_data_ns(f->cal, raw);
	const struct ut_sym *sym = f->symtab ? ut_symtab_find(f->symtab, f->pid, f->image, ip, ns) : NULL;
	/* the lists have the ELF names (available_filter_functions) */
	const char *name = sym ? sym->raw ? sym->raw : sym->name : "";
	const char *mod = sym && sym->module ? sym->module : "";

	return ut_funclist_match(f->ffilter, name, mod) != 0 &&
	       ut_funclist_match(f->fnotrace, name, mod) != 1;
}

/* the selection of the open calls below depth @d: those the stream restated are looked up */
static void fsel_known(const struct live_stage *f, struct live_fsel *k, const struct ut_stream *s,
		       uint32_t d)
{
	if (d > LIVE_KEPT_MAX)
		d = LIVE_KEPT_MAX;
	if (k->known > d)
		k->known = d;
	for (uint32_t i = k->known; i < d; i++) {
		k->kept[i] = s->stack[i] && stage_func(f, s->stack[i], UT_SYMTAB_LATEST);
		k->kc[i + 1] = k->kc[i] + k->kept[i];
	}
	k->known = d;
}

static uint32_t fsel_depth(const struct live_fsel *k, uint32_t d)
{
	return k->kc[d < k->known ? d : k->known];
}

/*
 * The function selection: 0 if @ev is a call not selected.  The depths
 * become those of the selected calls.
 */
static int stage_select(struct live_stage *f, const struct ut_stream *s, struct ut_event *ev)
{
	struct live_fsel *k = f->fsel;
	uint32_t d = ev->depth, old;
	int pass;

	if (k->on != 1 || k->as_func != f->as_func) {
		/* the selection changed: what is shown open changes too */
		k->on = 1;
		k->as_func = f->as_func;
		k->known = 0;
	}
	switch (ev->type) {
	case UT_EV_ENTRY:
		fsel_known(f, k, s, d);
		pass = d < LIVE_KEPT_MAX && stage_func(f, ev->ip, s->raw);
		if (d < LIVE_KEPT_MAX) {
			k->kept[d] = (uint8_t)pass;
			k->kc[d + 1] = k->kc[d] + (uint32_t)pass;
			k->known = d + 1;
		}
		ev->depth = k->kc[d < LIVE_KEPT_MAX ? d : LIVE_KEPT_MAX];
		return pass;
	case UT_EV_EXIT:
		if (d < k->known)
			pass = k->kept[d];
		else
			pass = d < LIVE_KEPT_MAX && ev->ip && stage_func(f, ev->ip, UT_SYMTAB_LATEST);
		fsel_known(f, k, s, d);
		ev->depth = fsel_depth(k, d);
		return pass;
	case UT_EV_FUNC:
	case UT_EV_RETURN:
		return stage_func(f, ev->ip, s->raw);
	case UT_EV_DEPTH:
		old = fsel_depth(k, (uint32_t)ev->count);
		fsel_known(f, k, s, d);
		ev->count = old;
		ev->depth = fsel_depth(k, d);
		return ev->depth != old;
	case UT_EV_LOST:
		return 1;
	default:
		fsel_known(f, k, s, s->depth);
		ev->depth = fsel_depth(k, d);
		return 1;
	}
}

static void ev_word_put(uint64_t *w, uint32_t i, int on)
{
	if (on)
		w[i / 64] |= 1ull << (i % 64);
	else
		w[i / 64] &= ~(1ull << (i % 64));
}

/*
 * An instance's trigger changes up to the record at raw time @raw: its
 * tracing_on and soft switches then.  Returns tracing_on.
 */
static int stage_timeline(struct live_stage *f, uint64_t raw)
{
	const struct live_timeline *tl = f->tl;

	for (; f->tl_next < tl->nr && tl->fires[f->tl_next].ts <= raw; f->tl_next++) {
		const struct live_fire *x = &tl->fires[f->tl_next];
		uint32_t t = x->target;

		switch (x->what - 1) {
		case UT_TRIG_TRACEON:
		case UT_TRIG_TRACEOFF:
			f->tl_on = x->what - 1 == UT_TRIG_TRACEON;
			break;
		case UT_TRIG_ENABLE_EVENT:
		case UT_TRIG_DISABLE_EVENT:
			if (t < UT_EVREG_SLOTS)
				ev_word_put(f->tl_soft, t, x->what - 1 == UT_TRIG_DISABLE_EVENT);
			break;
		}
	}
	return f->tl_on;
}

/* is @ev one of the programs' events the view shows? */
static int stage_event(const struct live_stage *f, const struct ut_event *ev)
{
	uint32_t slot;

	if (ev->id < 64)
		return !(f->other_entries >> ev->id & 1);
	if (ev->id < UT_EVENT_ID_DYNAMIC)
		return 1;
	slot = ev->id - UT_EVENT_ID_DYNAMIC;
	if (slot >= UT_EVREG_SLOTS)
		return !f->ev_on;
	if (f->tl && f->tl->soft_mode && (f->tl->soft_mode[slot / 64] >> (slot % 64) & 1)) {
		/* in the instance's soft mode: its switch says */
		if (f->tl_soft[slot / 64] >> (slot % 64) & 1)
			return 0;
	} else if (f->ev_on && !(f->ev_on[slot / 64] >> (slot % 64) & 1)) {
		return 0;
	}
	if (f->ev_filter && f->ev_filter[slot]) {
		/* the directory's filter on the entry, as the kernel's before it records */
		struct ut_evf_ctx ctx = { .cpu = (int)ev->cpu,
					  .comm = ev->thread ? ev->thread->comm : NULL };

		return ut_evfilter_match(f->ev_filter[slot], ev->data, ev->data_len, &ctx);
	}
	return 1;
}

static int ev_is_call(enum ut_ev_type type)
{
	return type == UT_EV_ENTRY || type == UT_EV_EXIT || type == UT_EV_FUNC ||
	       type == UT_EV_RETURN;
}

int live_stages(void *arg, const struct ut_stream *s, struct ut_event *ev)
{
	struct live_stage *f = arg;
	int pass = 1;

	if (f->drop_all) {
		/* the calls opened meanwhile are looked up again when shown */
		if (f->fsel)
			f->fsel->known = 0;
		return 0;
	}
	if (f->tl && !stage_timeline(f, s->raw) && ev->type != UT_EV_LOST) {
		/* the instance's triggers turned it off: consumed, not kept */
		if (f->fsel)
			f->fsel->known = 0;
		return 0;
	}
	if (f->cpumask && ev->type != UT_EV_LOST &&
	    (ev->cpu >= LIVE_CPUMASK_WORDS * 32 || !(f->cpumask[ev->cpu / 32] >> (ev->cpu % 32) & 1))) {
		/* a CPU its tracing_cpumask leaves out: as the kernel's, not recorded there */
		if (f->fsel)
			f->fsel->known = 0;
		return 0;
	}
	if (f->fsel)
		pass = stage_select(f, s, ev);
	if (ev->type == UT_EV_TRACE && ev->dir && ev->dir != f->trace_dir)
		pass = 0;	/* another directory's stacktrace trigger */
	if (ev->type == UT_EV_EVENT) {
		int chosen = stage_sched_pids(f, ev);

		pass = (chosen < 0 ? !f->events_off : chosen) && stage_event(f, ev);
	}
	else if ((f->events_only || f->calls_off) && (ev_is_call(ev->type) || ev->type == UT_EV_DEPTH))
		pass = 0;
	if (!pass || !live_stage_time(f, ev->ts) || !live_stage_cut(f, ev->cpu, s->raw) ||
	    (f->cpu >= 0 && (uint32_t)f->cpu != ev->cpu))
		return 0;
	if (f->fsel && f->as_func) {
		/* the function tracer with a selection: calls, with the parent of the whole stack */
		if (ev->type == UT_EV_EXIT)
			return 0;
		if (ev->type == UT_EV_ENTRY)
			ev->type = UT_EV_FUNC;
	}
	if (f->sink)
		return live_sink_put(f->sink, f, s, ev);
	if (s->rec && ev->type != UT_EV_LOST && ev->type != UT_EV_DEPTH) {
		uint32_t h;

		memcpy(&h, s->rec, sizeof(h));
		if (ut_rec_counts(RB_HDR_TYPE(h))) {
			f->entries++;
			if (!f->have_first) {
				f->have_first = 1;
				f->first_ts = ev->ts;
			}
		}
		f->bytes += s->rec_len;
	}
	return 1;
}

/* ---- per-CPU buffer sizes ---- */

struct cpu_seg {
	uint64_t ts;			/* raw time of its first record */
	uint32_t cpu, bytes;
};

static int seg_newest_first(const void *a, const void *b)
{
	const struct cpu_seg *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ts > y->ts ? -1 : x->ts < y->ts;
}

/*
 * Per-CPU buffer sizes (live_view.cpu_pages): the kernel's CPU N keeps
 * the newest cpu_pages[N] pages of what ran on CPU N.  The threads'
 * buffers are as large as the largest: here the records of each CPU past
 * its size (newest first, in runs of a page at most, as the kernel drops
 * pages) get a cut time, @cut[cpu] (0: no cut).  @pids: the buffers the
 * view shows.  live_lock held.
 */
static void cuts_compute(struct live_buf *bufs, int nr, const struct live_stage *f,
			 const struct live_view *v, uint64_t *cut)
{
	static __thread union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
	struct cpu_seg *segs = NULL;
	size_t n = 0, cap = 0;
	uint32_t ncut = (uint32_t)v->nr_cpu_pages, maxp = 0;

	for (uint32_t i = 0; i < ncut; i++)
		if (v->cpu_pages[i] > maxp)
			maxp = v->cpu_pages[i];
	for (int i = 0; i < nr; i++) {
		struct rb_header *h = bufs[i].r.hdr;
		uint64_t head, ovr;

		if (bufs[i].gone || !live_buf_shown(v, &bufs[i]))
			continue;
		live_load_head(h, &head, &ovr);
		for (uint64_t seq = live_oldest_seq(h, head); seq <= head; seq++) {
			const unsigned char *r;
			struct rb_iter it;
			uint32_t len, cpu, hd;
			uint64_t ts;
			int fresh = 1;		/* a page starts a new run */

			if (rb_copy_page(h, seq, page.bytes) < 0)
				continue;
			cpu = page.p.cpu;
			rb_iter_init(&it, &page.p, ut_rec_len);
			while (rb_iter_next(&it, &r, &len, &ts) > 0) {
				memcpy(&hd, r, sizeof(hd));
				if (RB_HDR_TYPE(hd) == UT_REC_CPU) {
					memcpy(&cpu, r + UT_REC_OFF(cpu, cpu), sizeof(cpu));
					fresh = 1;
					continue;
				}
				if (!live_stage_time(f, ut_data_ns(f->cal, ts)) || cpu >= ncut || v->cpu_pages[cpu] >= maxp ||
				    ts < cut[cpu])
					continue;
				if (fresh) {
					if (n == cap) {
						cap = cap ? cap * 2 : 256;
						segs = xrealloc(segs, cap * sizeof(*segs));
					}
					segs[n++] = (struct cpu_seg){ ts, cpu, 0 };
					fresh = 0;
				}
				segs[n - 1].bytes += len;
			}
		}
	}
	if (n)
		qsort(segs, n, sizeof(*segs), seg_newest_first);
	for (size_t i = 0; i < n;) {
		uint32_t cpu = segs[i].cpu;
		uint64_t room = (uint64_t)v->cpu_pages[cpu] * RB_DATA_SIZE, used = 0;
		size_t first = i;

		for (; i < n && segs[i].cpu == cpu; i++) {
			used += segs[i].bytes;
			if (used > room && i > first) {
				/* this run and the older ones are out: keep from the one after */
				if (segs[i - 1].ts > cut[cpu])
					cut[cpu] = segs[i - 1].ts;
				break;
			}
		}
		while (i < n && segs[i].cpu == cpu)
			i++;
	}
	free(segs);
}

void live_cuts_set(struct live_stage *f, struct live_buf *bufs, int nr, const struct live_view *v)
{
	uint64_t *cut;
	int n = 0;

	f->cut = NULL;
	f->nr_cut = 0;
	if (v->cpu_pages && v->nr_cpu_pages > n)
		n = v->nr_cpu_pages;
	if (v->cpu_since && v->nr_cpu_since > n)
		n = v->nr_cpu_since;
	if (n <= 0)
		return;
	cut = xcalloc((size_t)n, sizeof(*cut));
	/* a CPU's own clear point (per_cpu/cpuN/trace) */
	for (int i = 0; v->cpu_since && i < v->nr_cpu_since; i++)
		if (v->cpu_since[i])
			cut[i] = ut_data_raw(f->cal, v->cpu_since[i]) + 1;
	if (v->cpu_pages && v->nr_cpu_pages > 0)
		cuts_compute(bufs, nr, f, v, cut);
	f->cut = cut;
	f->nr_cut = (uint32_t)n;
}

void live_cuts_free(struct live_stage *f)
{
	free((uint64_t *)f->cut);
	f->cut = NULL;
	f->nr_cut = 0;
}
