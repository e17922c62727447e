/* SPDX-License-Identifier: MIT */
/*
 * callstack.h - one thread's open calls, as the events of the decoder
 * (reader/data.h) pair them: the one call stack behind report, folded
 * stacks, the slice exports and the function_graph and function output.
 *
 * An ENTRY pushes a frame, an EXIT pops the frame of its depth and says
 * how long the call lasted and how much of that was its own.  What the
 * trace does not show is decided here, once:
 *
 *  - a frame's index is its graph depth.  An event deeper than the
 *    stack (a forked child, a flight recording, a restatement after lost
 *    records: calls entered before what the trace shows) adds frames that
 *    were not seen (ip 0, or named by the caller), running since then;
 *  - an EXIT or a DEPTH restatement shallower than the stack ends the
 *    frames above unseen: their returns are not in the trace (lost, or a
 *    longjmp past them whose EXITs are still to come: then the EXIT of
 *    the outer frame closes them too, innermost first, as the viewers of
 *    the slice exports need);
 *  - an EXIT with no frame at its depth (its call began before the
 *    trace) is an orphan: counted, and the caller says what to do with it;
 *  - a RETURN (tracing_thresh: a whole call recorded at its return)
 *    never opens a frame: its self time is its duration less its callees
 *    recorded whole before it (they return first), and it is a callee of
 *    the open frame below it;
 *  - lost records (UT_EV_LOST): with UT_CS_LOSS_NOT_OWN, the lost range
 *    is not the own time of the call it fell in, nor is the time of a
 *    frame that ended unseen in it;
 *  - depth: frames past @max (a corrupt or runaway depth) are not kept;
 *    their events are counted and pair with nothing.
 *
 * Time not a frame's own (callees, lost ranges) adds up in its child
 * field; an EXIT gives dur = exit - entry and self = dur - child.
 *
 * The frames that ended with an event stay readable until the next
 * event (struct ut_cs_change), outermost first: a caller writes their
 * ends or their statistics from there.  What a caller keeps per frame (a
 * tree node, a recursion sum) is the frame's user field.
 */
#ifndef UT_UTILS_CALLSTACK_H
#define UT_UTILS_CALLSTACK_H

#include <stdint.h>

#include "reader/data.h"

struct ut_cs_frame {
	uint64_t ip;		/* 0: not known */
	uint64_t image;
	uint64_t ts;		/* its entry; not seen: since when it is known to run */
	uint64_t child;		/* time that is not its own: callees, lost ranges */
	uint64_t user;		/* the caller's */
	uint32_t depth;		/* its index */
	int seen;		/* its ENTRY is in the trace */
};

/* the RETURNs recorded at @depth + 1 whose caller's RETURN has not come yet */
struct ut_cs_pend {
	uint32_t depth;
	uint64_t first;		/* the entry time of the first of them */
	uint64_t sum;		/* their durations */
};

enum {
	UT_CS_LOSS_NOT_OWN = 1,	/* a lost range is not the own time of the call around it */
};

struct ut_callstack {
	struct ut_cs_frame *f;
	uint32_t sp, cap;
	uint32_t max;		/* the deepest depth kept + 1 */
	unsigned flags;		/* UT_CS_* */
	uint64_t last_ts;	/* of the last event given; 0: none yet */
	int hole;		/* records were lost, and no event but DEPTH since */
	uint64_t hole_from, hole_to;
	struct ut_cs_pend *pend;	/* by increasing depth */
	uint32_t npend, cappend;
	struct ut_cs_frame *gone;	/* frames that ended, when the stack reuses their slots */
	uint32_t capgone;
	/* counts */
	uint64_t orphans;	/* EXITs with no frame at their depth */
	uint64_t too_deep;	/* events past max */
	uint64_t lost_events, lost_ranges;	/* UT_EV_LOST: their counts, and how many */
	uint64_t lost_time;	/* ns from the event before each loss to the one after */
};

/* what one event did */
struct ut_cs_change {
	const struct ut_cs_frame *ended;	/* the frames that ended, outermost first */
	uint32_t nended;
	int matched;		/* EXIT: ended[nended - 1] is its frame; the others ended unseen */
	int orphan;		/* EXIT: no frame at its depth */
	uint32_t added;		/* frames [added, sp) are new: unseen ones, then the ENTRY's */
	uint64_t dur, self;	/* a matched EXIT (of a seen frame), a RETURN */
	uint64_t ended_at;	/* the ended frames' return, or the latest it can be */
};

#define UT_CS_MAX_DEPTH		UT_STREAM_MAX_OPEN

/* an empty stack keeping at most @max frames (0: UT_CS_MAX_DEPTH) */
void ut_callstack_init(struct ut_callstack *cs, uint32_t max, unsigned flags);
void ut_callstack_free(struct ut_callstack *cs);

/*
 * ut_callstack_event - one event of the thread, in its order: ENTRY,
 * EXIT, RETURN, DEPTH and LOST change the stack, any event closes a lost
 * range (its time is known from then on) and is the thread's last so far.
 * *@c says what it did.
 */
void ut_callstack_event(struct ut_callstack *cs, const struct ut_event *ev,
			struct ut_cs_change *c);

/* the parts of it, for the callers that take only some events */
void ut_callstack_entry(struct ut_callstack *cs, const struct ut_event *ev, struct ut_cs_change *c);
void ut_callstack_exit(struct ut_callstack *cs, uint32_t depth, uint64_t ts, struct ut_cs_change *c);
void ut_callstack_return(struct ut_callstack *cs, const struct ut_event *ev, struct ut_cs_change *c);
/* the stream restates @depth open calls at @ts (UT_EV_DEPTH) */
void ut_callstack_restate(struct ut_callstack *cs, uint32_t depth, uint64_t ts,
			  struct ut_cs_change *c);
void ut_callstack_lost(struct ut_callstack *cs, const struct ut_event *ev);

/*
 * ut_callstack_end - the trace of the thread (or of its process image)
 * ends: every frame ends unseen, at the last event; the lost range and
 * the RETURNs waiting for their caller are forgotten.
 */
void ut_callstack_end(struct ut_callstack *cs, struct ut_cs_change *c);

/* the open frame at @depth, or NULL */
static inline struct ut_cs_frame *ut_callstack_at(const struct ut_callstack *cs, uint32_t depth)
{
	return depth < cs->sp ? &cs->f[depth] : NULL;
}

/* the innermost open frame, or NULL */
static inline struct ut_cs_frame *ut_callstack_top(const struct ut_callstack *cs)
{
	return cs->sp ? &cs->f[cs->sp - 1] : NULL;
}

#endif
