// SPDX-License-Identifier: MIT
/*
 * callstack.c - one thread's open calls (callstack.h): push on ENTRY,
 * pop and match on EXIT, and what the trace does not show (calls begun
 * before it, returns lost or skipped by a longjmp, whole-call RETURNs,
 * lost ranges) decided once for every reader.
 *
 * The stack is indexed by depth, so pairing is by depth, never by
 * counting: an EXIT at depth d closes frame d whatever happened above
 * it.  The events come from the decoder (reader/data.c), whose depths
 * follow the records: a longjmp or an exception writes one EXIT per
 * frame it leaves (runtime/graph.c, ut_close_frames()), a context switch
 * EXITs and ENTRYs (runtime/context.c), a loss a DEPTH restatement.
 */
#include <stdlib.h>
#include <string.h>

#include "reader/callstack.h"
#include "utils/utils.h"

void ut_callstack_init(struct ut_callstack *cs, uint32_t max, unsigned flags)
{
	memset(cs, 0, sizeof(*cs));
	cs->max = max ? max : UT_CS_MAX_DEPTH;
	cs->flags = flags;
}

void ut_callstack_free(struct ut_callstack *cs)
{
	free(cs->f);
	free(cs->pend);
	free(cs->gone);
	cs->f = cs->gone = NULL;
	cs->pend = NULL;
	cs->sp = cs->cap = cs->npend = cs->cappend = cs->capgone = 0;
}

static struct ut_cs_frame *cs_push(struct ut_callstack *cs, uint64_t ip, uint64_t image,
				   uint64_t ts, int seen)
{
	struct ut_cs_frame *f;

	if (cs->sp == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 64;
		cs->f = xrealloc(cs->f, cs->cap * sizeof(*cs->f));
	}
	f = &cs->f[cs->sp];
	*f = (struct ut_cs_frame){ .ip = ip, .image = image, .ts = ts, .depth = cs->sp,
				   .seen = seen };
	cs->sp++;
	return f;
}

/* the lost range before this event: not the own time of the call it fell in */
static void cs_close_hole(struct ut_callstack *cs)
{
	if (cs->hole && cs->sp && cs->hole_to > cs->hole_from)
		cs->f[cs->sp - 1].child += cs->hole_to - cs->hole_from;
	cs->hole = 0;
}

/*
 * Frames @depth and above end unseen at @ts (their returns are not in
 * the trace): the outermost ran from its entry to some time before @ts,
 * which is not the own time of its caller.  They are kept in cs->gone
 * when @keep (the slots are about to be reused), else left in place.
 */
static void cs_cut(struct ut_callstack *cs, uint32_t depth, uint64_t ts, int keep,
		   struct ut_cs_change *c)
{
	uint32_t n = cs->sp - depth;
	uint64_t from = cs->f[depth].ts;

	if (!cs->hole || from < cs->hole_from)
		cs->hole_from = from;
	cs->hole_to = ts;
	cs->hole = 1;
	if (keep) {
		if (n > cs->capgone) {
			cs->capgone = n < 16 ? 16 : n;
			cs->gone = xrealloc(cs->gone, cs->capgone * sizeof(*cs->gone));
		}
		memcpy(cs->gone, &cs->f[depth], n * sizeof(*cs->gone));
	}
	cs->sp = depth;
	c->ended = keep ? cs->gone : &cs->f[depth];
	c->nended = n;
	c->ended_at = ts;
}

/* calls entered unseen up to @depth: running since @ts at least */
static void cs_fill(struct ut_callstack *cs, uint32_t depth, uint64_t ts, uint64_t image)
{
	while (cs->sp < depth)
		cs_push(cs, 0, image, ts, 0);
}

void ut_callstack_restate(struct ut_callstack *cs, uint32_t depth, uint64_t ts,
			  struct ut_cs_change *c)
{
	memset(c, 0, sizeof(*c));
	if (depth > cs->max)
		depth = cs->max;
	if (cs->sp > depth)
		cs_cut(cs, depth, ts, 1, c);
	cs_close_hole(cs);
	c->added = cs->sp;
	cs_fill(cs, depth, ts, cs->sp ? cs->f[cs->sp - 1].image : 0);
}

void ut_callstack_entry(struct ut_callstack *cs, const struct ut_event *ev, struct ut_cs_change *c)
{
	memset(c, 0, sizeof(*c));
	if (ev->depth >= cs->max) {
		cs->too_deep++;
		c->added = cs->sp;
		return;
	}
	if (cs->sp > ev->depth) {
		/* the calls above ended unseen (a restatement the reader did not get) */
		cs_cut(cs, ev->depth, ev->ts, 1, c);
		cs_close_hole(cs);
	}
	c->added = cs->sp;
	/* the first events of a forked child or of a flight recording: calls began unseen */
	cs_fill(cs, ev->depth, ev->ts, ev->image);
	cs_push(cs, ev->ip, ev->image, ev->ts, 1);
}

void ut_callstack_exit(struct ut_callstack *cs, uint32_t depth, uint64_t ts, struct ut_cs_change *c)
{
	struct ut_cs_frame *f;

	memset(c, 0, sizeof(*c));
	c->added = cs->sp;
	if (depth >= cs->max) {
		cs->too_deep++;
		return;
	}
	if (depth >= cs->sp) {
		/* of a call begun before the trace */
		cs->orphans++;
		c->orphan = 1;
		return;
	}
	/* the frames above ended unseen: closed here too, innermost first */
	c->nended = cs->sp - depth;
	c->ended = &cs->f[depth];
	c->ended_at = ts;
	c->matched = 1;
	c->added = depth;
	cs->sp = depth;
	f = &cs->f[depth];
	/* how long those ran is not known, but it was not this call's own time */
	if (c->nended > 1 && ts > f[1].ts)
		f->child += ts - f[1].ts;
	c->dur = ts > f->ts ? ts - f->ts : 0;
	c->self = c->dur > f->child ? c->dur - f->child : 0;
	if (depth)
		cs->f[depth - 1].child += c->dur;
}

void ut_callstack_return(struct ut_callstack *cs, const struct ut_event *ev, struct ut_cs_change *c)
{
	uint64_t dur = ev->duration, entry = ev->ts > dur ? ev->ts - dur : 0;
	uint32_t d = ev->depth;
	struct ut_cs_pend *p;

	memset(c, 0, sizeof(*c));
	c->added = cs->sp;
	c->dur = c->self = dur;
	/* callees of calls deeper than this one: those calls are over, their RETURNs missing */
	while (cs->npend && cs->pend[cs->npend - 1].depth > d)
		cs->npend--;
	if (cs->npend && cs->pend[cs->npend - 1].depth == d) {
		p = &cs->pend[--cs->npend];
		/* its callees began after it: else they may be an earlier call's, whose RETURN is lost */
		if (p->first >= entry)
			c->self = dur > p->sum ? dur - p->sum : 0;
	}
	/* a callee of the open entry below it, if the stream has ENTRY/EXIT pairs too */
	if (cs->sp && cs->sp == d)
		cs->f[cs->sp - 1].child += dur;
	if (!d)
		return;
	if (cs->npend && cs->pend[cs->npend - 1].depth == d - 1) {
		cs->pend[cs->npend - 1].sum += dur;
		return;
	}
	if (cs->npend == cs->cappend) {
		cs->cappend = cs->cappend ? 2 * cs->cappend : 64;
		cs->pend = xrealloc(cs->pend, cs->cappend * sizeof(*cs->pend));
	}
	cs->pend[cs->npend++] = (struct ut_cs_pend){ .depth = d - 1, .first = entry, .sum = dur };
}

void ut_callstack_lost(struct ut_callstack *cs, const struct ut_event *ev)
{
	/* the range: from the event before the loss to the first one after it */
	uint64_t from = cs->hole ? cs->hole_to : cs->last_ts ? cs->last_ts : ev->ts;

	cs->lost_events += ev->count;
	cs->lost_ranges++;
	if (ev->ts > from)
		cs->lost_time += ev->ts - from;
	/* the RETURNs before the loss are not told from those of calls lost in it */
	cs->npend = 0;
	if (!(cs->flags & UT_CS_LOSS_NOT_OWN))
		return;
	if (!cs->hole)
		cs->hole_from = from;
	cs->hole_to = ev->ts;
	cs->hole = 1;
}

void ut_callstack_end(struct ut_callstack *cs, struct ut_cs_change *c)
{
	memset(c, 0, sizeof(*c));
	c->ended = cs->f;
	c->nended = cs->sp;
	c->ended_at = cs->last_ts;
	cs->sp = 0;
	cs->npend = 0;
	cs->hole = 0;
}

void ut_callstack_event(struct ut_callstack *cs, const struct ut_event *ev,
			struct ut_cs_change *c)
{
	if (cs->hole && ev->type != UT_EV_DEPTH && ev->type != UT_EV_LOST)
		cs_close_hole(cs);
	switch (ev->type) {
	case UT_EV_ENTRY:
		ut_callstack_entry(cs, ev, c);
		break;
	case UT_EV_EXIT:
		ut_callstack_exit(cs, ev->depth, ev->ts, c);
		break;
	case UT_EV_RETURN:
		ut_callstack_return(cs, ev, c);
		break;
	case UT_EV_DEPTH:
		ut_callstack_restate(cs, ev->depth, ev->ts, c);
		break;
	case UT_EV_LOST:
		memset(c, 0, sizeof(*c));
		c->added = cs->sp;
		ut_callstack_lost(cs, ev);
		break;
	default:
		memset(c, 0, sizeof(*c));
		c->added = cs->sp;
		break;
	}
	cs->last_ts = ev->ts;
}
