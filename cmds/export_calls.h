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
 * slice.  Each opened call keeps its graph depth: an EXIT at depth d
 * closes the open call of depth d, after the deeper ones (their exits
 * were lost: they end here too); with no open call of depth d it is
 * dropped.  Memory: the deepest nesting of each stream, not the calls.
 */
#ifndef UT_CMDS_EXPORT_CALLS_H
#define UT_CMDS_EXPORT_CALLS_H

#include <stdint.h>

#include "cmds/export.h"

struct export_call {
	uint32_t depth;
	uint64_t ip;		/* for the end's name (0: unknown) */
	uint64_t image;
};

struct export_calls_stream {
	struct export_call *open;
	uint32_t nr, cap;
	int pid, tid;
	uint64_t last_ts;	/* of the thread's last event: the calls still open end there */
};

struct export_calls {
	struct export_calls_stream *st;	/* one per x->d->threads entry */
	int nr;
	uint64_t dropped;	/* EXITs without their ENTRY, not written */
};

/* one stream per thread file of @x->d; 0, -1 (said) */
int export_calls_init(struct export_calls *c, struct export_ctx *x);
void export_calls_free(struct export_calls *c);
/* the stream of @ev (never NULL: an event of an unknown file gets the last) */
struct export_calls_stream *export_calls_of(struct export_calls *c, struct export_ctx *x,
					    const struct ut_event *ev);
/* an ENTRY (or an initcall) opens a call at @ev->depth: 0, -1 (said) */
int export_calls_push(struct export_calls_stream *s, const struct ut_event *ev);
/*
 * export_calls_pop - the calls an EXIT at @depth closes: returns how
 * many, *@calls the outermost (the innermost is (*@calls)[n - 1]); they
 * are removed, and stay readable until the next push.  0: nothing to
 * close (its entry is not in the trace; counted in c->dropped).
 */
uint32_t export_calls_pop(struct export_calls *c, struct export_calls_stream *s, uint32_t depth,
			  const struct export_call **calls);
/*
 * export_calls_cut - remove the open calls of depth @depth or deeper,
 * as export_calls_pop() gives them: after lost records the stream says
 * (UT_EV_DEPTH) that they ended unseen; at the end (@depth 0) the calls
 * the trace stopped in.
 */
uint32_t export_calls_cut(struct export_calls_stream *s, uint32_t depth,
			  const struct export_call **calls);

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
