// SPDX-License-Identifier: MIT
/*
 * events.c - the programs' events (the session's registry): events/,
 * set_event, available_events, the enable files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/format.h"
#include "tracefs/tfs_int.h"

/* the descriptors of the slots registered since the last call.  Context: s->lock held. */
void tfs_ev_refresh(struct tfs_session *s)
{
	uint32_t nr;

	if (!s->evreg)
		return;
	nr = __atomic_load_n(&s->evreg->nr, __ATOMIC_ACQUIRE);
	if (nr > UT_EVREG_SLOTS)
		nr = UT_EVREG_SLOTS;
	for (; s->nr_evd < nr; s->nr_evd++)
		s->evd[s->nr_evd] = ut_evreg_desc(s->evreg, s->nr_evd);
}

int tfs_ev_bit(const uint64_t *set, uint32_t i)
{
	return (int)(set[i / 64] >> (i % 64) & 1);
}

void tfs_ev_bit_set(uint64_t *set, uint32_t i, int on)
{
	if (on)
		set[i / 64] |= 1ull << (i % 64);
	else
		set[i / 64] &= ~(1ull << (i % 64));
}

/* does slot @i hold event @sys:@name (@name NULL: any of @sys, @sys NULL: any)? */
int tfs_ev_is(const struct tfs_session *s, uint32_t i, const char *sys, const char *name)
{
	const struct ut_event_desc *d = s->evd[i];

	return d && (!sys || !strcmp(d->system, sys)) && (!name || !strcmp(d->name, name));
}

/*
 * Is slot @i the first of its event?  Another layout of an event (two
 * versions of a library) has a slot of its own; the files show the first.
 */
static int ev_first_of(const struct tfs_session *s, uint32_t i)
{
	if (!s->evd[i])
		return 0;
	for (uint32_t j = 0; j < i; j++)
		if (tfs_ev_is(s, j, s->evd[i]->system, s->evd[i]->name))
			return 0;
	return 1;
}

/* the first slot of the event (or system: @name NULL) named by @len bytes at @c; -1 if none */
int tfs_ev_find(struct tfs_session *s, const char *sys, const char *c, size_t len)
{
	tfs_ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		const struct ut_event_desc *d = s->evd[i];
		const char *w;

		if (!d || (sys && strcmp(d->system, sys)))
			continue;
		w = sys ? d->name : d->system;
		if (strlen(w) == len && !strncmp(w, c, len))
			return (int)i;
	}
	return -1;
}

/* does the directory enable an event (or its tracer one)? */
int tfs_ev_any(const struct tfs_inst *in)
{
	for (int i = 0; i < TFS_EV_WORDS; i++)
		if (in->ev_on[i] || in->tr_ev[i])
			return 1;
	return 0;
}

void tfs_ev_dir(const struct tfs_inst *in, uint64_t *set)
{
	for (int i = 0; i < TFS_EV_WORDS; i++)
		set[i] = in->ev_on[i] | in->tr_ev[i];
}

/* the events a tracer shows (its .events: sched_switch's, mmiotrace's), as record -t */
void tfs_tracer_events(struct tfs_session *s, struct tfs_inst *in)
{
	const char *const *evs = in->tr.current_trace ? in->tr.current_trace->events : NULL;

	memset(in->tr_ev, 0, sizeof(in->tr_ev));
	if (!evs || !*evs)
		return;
	tfs_ev_refresh(s);
	for (; *evs; evs++) {
		const char *colon = strchr(*evs, ':');
		char sys[64];

		if (!colon || (size_t)(colon - *evs) >= sizeof(sys))
			continue;
		memcpy(sys, *evs, (size_t)(colon - *evs));
		sys[colon - *evs] = 0;
		for (uint32_t i = 0; i < s->nr_evd; i++)
			if (tfs_ev_is(s, i, sys, colon + 1))
				tfs_ev_bit_set(in->tr_ev, i, 1);
	}
}

/* what every directory enables together into @set.  Context: s->lock held. */
void tfs_ev_union(struct tfs_session *s, uint64_t *set)
{
	tfs_ev_dir(&s->top, set);
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		for (int i = 0; i < TFS_EV_WORDS; i++)
			set[i] |= in->ev_on[i] | in->tr_ev[i];
}

/*
 * The registry's enable bits from the directories' sets: an event is
 * recorded while some directory enables it.  Returns 1 when a bit changed
 * (the programs must apply it: tfs_ctl_apply()).  Context: s->lock held.
 */
int tfs_ev_publish(struct tfs_session *s)
{
	uint64_t all[TFS_EV_WORDS];
	int changed = 0;

	if (!s->evreg)
		return 0;
	tfs_ev_union(s, all);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		volatile uint32_t *st = &s->evreg->slots[i].state;
		int want = tfs_ev_bit(all, i);

		if (!!(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UT_EVS_RECORD) == want)
			continue;
		if (want)
			__atomic_fetch_or(st, UT_EVS_RECORD, __ATOMIC_ACQ_REL);
		else
			__atomic_fetch_and(st, ~UT_EVS_RECORD, __ATOMIC_ACQ_REL);
		changed = 1;
	}
	/* the programs' filters follow the directories that enable each event */
	tfs_evfilt_publish_all(s);
	/* and the soft modes (an instance enabling an event the top holds) */
	changed |= tfs_soft_publish_all(s);
	/* the session's buffers get events the top did not enable: its views drop them */
	for (int i = 0; i < TFS_EV_WORDS; i++)
		if (all[i] & ~(s->top.ev_on[i] | s->top.tr_ev[i]))
			s->top_ev_wide = 1;
	return changed;
}

/* has directory @in a trigger on event slot @i? */
static int ev_has_trig(const struct tfs_inst *in, uint32_t i)
{
	for (int k = 0; in->evtrig[i] && k < UT_EVREG_TRIGS; k++)
		if (in->evtrig[i][k].used)
			return 1;
	return 0;
}

/*
 * Is event slot @i on in directory @in as the kernel's enable files and
 * set_event count it (its EVENT_FILE_FL_ENABLED): enabled, or held in
 * soft mode, by a trigger of its own (event_trigger_register() puts the
 * event that fires in soft mode) or as the target of an enable_event or
 * disable_event, whether that records it now or not.
 */
static int ev_held(const struct tfs_inst *in, uint32_t i)
{
	return tfs_ev_bit(in->ev_on, i) || in->ev_soft[i] || ev_has_trig(in, i);
}

/*
 * "0", "1" or "X" (some), as the kernel's enable files: the events of
 * system @sys (NULL: all) that directory @in enables or holds in soft
 * mode (ev_held()); "?" when there is no event.  Context: s->lock held.
 */
static char ev_state(struct tfs_session *s, struct tfs_inst *in, const char *sys)
{
	unsigned set = 0;

	tfs_ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd && set != 3; i++)
		if (tfs_ev_is(s, i, sys, NULL))
			set |= 1u << ev_held(in, i);
	return "?01X"[set];
}

/*
 * a line "system:name" per event (@in NULL: all of them, else those @in
 * enables or holds in soft mode, as the kernel's set_event lists them)
 */
static void ev_list(struct tfs_session *s, struct tfs_inst *in, struct tfs_sbuf *b)
{
	tfs_ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		if (ev_first_of(s, i) && (!in || ev_held(in, i)))
			tfs_sb_printf(b, "%s:%s\n", s->evd[i]->system, s->evd[i]->name);
}

/*
 * Enable (@on) or disable the events in directory @in that @match (NULL:
 * any), @sys and @name (NULL: any) select as the kernel's set_event does:
 * @match is an event's name or its system.  Returns how many slots it
 * selected; the caller publishes.  Context: s->lock held.
 */
int tfs_ev_set(struct tfs_session *s, struct tfs_inst *in, const char *match, const char *sys,
		  const char *name, int on)
{
	int n = 0;

	tfs_ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		const struct ut_event_desc *d = s->evd[i];

		if (!d || (match && strcmp(match, d->name) && strcmp(match, d->system)) ||
		    !tfs_ev_is(s, i, sys, name))
			continue;
		/* an instance's buffers take what came before with the set of before */
		if (!n && in != &s->top)
			tfs_inst_pump(in);
		tfs_ev_bit_set(in->ev_on, i, on);
		/* in soft mode, enabling records it and disabling stops it, as the kernel's */
		tfs_ev_soft_enable(s, in, i, on);
		n++;
	}
	return n;
}

/*
 * A directory's events changed: the registry's bits and the recording
 * state follow.  Returns 1 when the programs must apply them (tfs_ctl_apply();
 * s->ev_apply is set too, for a write that fails after a change).
 * Context: s->lock held.
 */
static int ev_changed(struct tfs_session *s)
{
	int changed = tfs_ev_publish(s);

	changed |= tfs_recording_update(s);
	s->ev_apply |= changed;
	return changed;
}

/*
 * set_event, as the kernel's ftrace_event_write(): each word enables
 * events, or disables them after a '!'.  "sys:name" selects by system and
 * name, either "" or "*" meaning any ("sys:*", "*:*", ":name"); a word
 * without ':' names an event or a system.  Names are compared whole (no
 * globs).  A word that selects no event is EINVAL (the words before it
 * took effect); as the kernel's, it adds nothing to error_log.
 * Returns 0, 1 (apply) or -errno.  Context: s->lock held.
 */
static int write_set_event(struct tfs_session *s, struct tfs_inst *in, const char *buf,
			   size_t size)
{
	struct tfs_words ws = { 0 };
	int ret = tfs_words_split(&ws, buf, size), changed;

	for (int i = 0; !ret && i < ws.n; i++) {
		char *w = ws.w[i], *colon;
		int on = w[0] != '!';
		const char *match = NULL, *sys = NULL, *name = NULL;

		w += !on;
		colon = strchr(w, ':');
		if (colon) {
			*colon = '\0';
			sys = w[0] && strcmp(w, "*") ? w : NULL;
			name = colon[1] && strcmp(colon + 1, "*") ? colon + 1 : NULL;
		} else {
			match = w;
		}
		if (!tfs_ev_set(s, in, match, sys, name, on))
			ret = -EINVAL;
	}
	tfs_words_free(&ws);
	changed = ev_changed(s);
	return ret ? ret : changed;
}

/*
 * events/enable, events/SYS/enable, events/SYS/NAME/enable: 0 or 1, as the
 * kernel's (kstrtoul: anything else is EINVAL or ERANGE, and nothing in
 * error_log); enabling a system or all events when there is none is
 * EINVAL too.  Context: s->lock held.
 */
static int write_ev_enable(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	unsigned long long v;
	int ret = tfs_parse_ull(buf, size, &v), n;

	if (ret || v > 1)
		return ret ? ret : -EINVAL;
	if (h->n.slot >= 0)
		n = tfs_ev_set(s, h->n.inst, NULL, h->n.ev->system, h->n.ev->name, (int)v);
	else
		n = tfs_ev_set(s, h->n.inst, NULL, h->n.evsys, NULL, (int)v);
	if (!n)
		return -EINVAL;
	return ev_changed(s);
}

/* ---- the files ---- */

static int available_events_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	ev_list(h->s, NULL, b);
	return 0;
}

static int set_event_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	ev_list(h->s, h->n.inst, b);
	return 0;
}

static int set_event_write(struct tfs_handle *h, const char *buf, size_t size)
{
	return write_set_event(h->s, h->n.inst, buf, size);
}

/* as the kernel's: every event of the directory is disabled */
static int set_event_truncate(struct tfs_handle *h)
{
	tfs_ev_set(h->s, h->n.inst, NULL, NULL, NULL, 0);
	return ev_changed(h->s);
}

/* as the kernel's: opening with O_TRUNC disables the directory's events, appending or not */
static int set_event_open(struct tfs_handle *h, int flags)
{
	return tfs_open_trunc(flags) ? set_event_truncate(h) : 0;
}

/*
 * events/enable, events/SYS/enable: as the kernel's, 0 or 1 when the
 * events (of the system) all are, else X
 */
static int enable_all_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%c\n", ev_state(h->s, h->n.inst, h->n.evsys));
	return 0;
}

/*
 * as the kernel's: "0*" or "1*" in soft mode (a trigger switches it); an
 * event with a trigger of its own is in soft mode too, recorded while it
 * is enabled
 */
static int enable_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	int rec;

	if (tfs_ev_soft_state(h->s, h->n.inst, (uint32_t)h->n.slot, &rec))
		tfs_sb_printf(b, "%d*\n", rec);
	else if (ev_has_trig(h->n.inst, (uint32_t)h->n.slot))
		tfs_sb_printf(b, "%d*\n", tfs_ev_bit(h->n.inst->ev_on, (uint32_t)h->n.slot));
	else
		tfs_sb_printf(b, "%d\n", tfs_ev_bit(h->n.inst->ev_on, (uint32_t)h->n.slot));
	return 0;
}

static int format_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	char *t = ut_event_format(h->n.ev);

	if (!t)
		return -ENOMEM;
	tfs_sb_puts(b, t);
	free(t);
	return 0;
}

static int id_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%u\n", (unsigned)h->n.ev->id);
	return 0;
}

static int header_page_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	(void)h;
	tfs_sb_puts(b, ut_event_header_page());
	return 0;
}

static int header_event_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	(void)h;
	tfs_sb_puts(b, ut_event_header_event());
	return 0;
}

/*
 * The events' directories themselves (events/SYS/, events/SYS/NAME/,
 * events/ftrace/NAME/) come from the registries of events (files.c's
 * tfs_resolve()); these are the files in them.  The ftrace system's events,
 * as the kernel's, have format and id only: the tracers write them.
 */
const struct tfs_file tfs_events_files[] = {
	TFS_FILE("available_events", 0440, W_TOP, .show = available_events_show),
	TFS_FILE("set_event", 0640, W_TOP | W_INST, .show = set_event_show, .write = set_event_write,
		 .open = set_event_open, .truncate = set_event_truncate),
	TFS_FILE("enable", 0640, W_EVENTS | W_EVSYS, .show = enable_all_show, .write = write_ev_enable),
	TFS_FILE("header_event", 0440, W_EVENTS, .show = header_event_show),
	TFS_FILE("header_page", 0440, W_EVENTS, .show = header_page_show),
	TFS_FILE("enable", 0640, W_EVENT, .show = enable_show, .write = write_ev_enable),
	TFS_FILE("format", 0440, W_EVENT | W_FTEVENT, .show = format_show),
	TFS_FILE("id", 0440, W_EVENT | W_FTEVENT, .show = id_show),
	TFS_FILES_END
};
