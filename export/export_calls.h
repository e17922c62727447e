/* SPDX-License-Identifier: MIT */
/*
 * export_calls.h - the calls a slice export (--chrome, --perfetto) has
 * opened and not closed yet, per stream (one .dat file: a thread's
 * records of one process image), to pair each EXIT with its ENTRY.
 *
 * The viewers nest slices by order alone: an end closes the innermost
 * open slice of the thread, whatever its name.  So an EXIT whose ENTRY
 * is not in the trace (the recording began inside the call, or the
 * entry was lost) must not be written, or it would close the caller's
 * slice.  The pairing is reader/callstack.h's, by depth: an EXIT at depth
 * d closes the open call of depth d, after the deeper ones (their exits
 * were lost: they end here too); with no call of depth d whose ENTRY was
 * written it is dropped.  Memory: the deepest nesting of each stream,
 * not the calls.
 */
#ifndef UT_CMDS_EXPORT_CALLS_H
#define UT_CMDS_EXPORT_CALLS_H

#include <stdint.h>

#include "export/export.h"
#include "reader/callstack.h"

struct export_calls_stream {
	struct ut_callstack cs;
	int pid, tid;
};

struct export_calls {
	struct export_calls_stream *st;	/* one per x->d->threads entry */
	int nr;
	uint64_t dropped;	/* EXITs without their ENTRY, not written */
	struct ut_cs_frame *ends;	/* the slices the last event ended */
	uint32_t capends;
};

/* one stream per thread file of @x->d; 0, -1 (said) */
int export_calls_init(struct export_calls *c, struct export_ctx *x);
void export_calls_free(struct export_calls *c);
/*
 * export_calls_event - @ev (any event, in its stream's order) through the
 * call stack of its stream: returns how many slices it ends, *@calls the
 * outermost (the innermost is (*@calls)[n - 1]), readable until the next
 * call.  An ENTRY opens one; an EXIT ends its call and the deeper ones
 * still open, a DEPTH restatement after lost records those that it says
 * ended unseen.
 */
uint32_t export_calls_event(struct export_calls *c, struct export_ctx *x, const struct ut_event *ev,
			    const struct ut_cs_frame **calls);
/*
 * export_calls_end - the calls stream @i stopped in, as export_calls_event()
 * gives them, ended at its last event (*@ts)
 */
uint32_t export_calls_end(struct export_calls *c, int i, const struct ut_cs_frame **calls,
			  uint64_t *ts);

/*
 * export_field_array - the elements of array field @f (not a string) of
 * entry @entry (@len bytes): *@n of them, each *@elem bytes; returns
 * where they start, NULL when out of the entry.  Element @i's value is
 * export_field_elem().
 */
const unsigned char *export_field_array(const struct ut_evfield *f, const void *entry,
					uint32_t len, uint32_t *n, uint32_t *elem);
uint64_t export_field_elem(const struct ut_evfield *f, const unsigned char *p, uint32_t elem,
			   uint32_t i);

#endif
