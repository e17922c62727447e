// SPDX-License-Identifier: MIT
/*
 * export_calls.c - the open calls of each stream of a slice export
 * (export_calls.h).
 */
#include <stdlib.h>
#include <string.h>

#include "export/export_calls.h"
#include "utils/utils.h"

int export_calls_init(struct export_calls *c, struct export_ctx *x)
{
	int n = x->d->nr_threads;

	c->nr = n > 0 ? n : 1;
	c->st = xcalloc((size_t)c->nr, sizeof(*c->st));
	for (int i = 0; i < c->nr; i++)
		ut_callstack_init(&c->st[i].cs, 0, 0);
	for (int i = 0; i < n; i++) {
		c->st[i].pid = x->d->threads[i].pid;
		c->st[i].tid = x->d->threads[i].tid;
	}
	c->dropped = 0;
	c->ends = NULL;
	c->capends = 0;
	return 0;
}

void export_calls_free(struct export_calls *c)
{
	for (int i = 0; i < c->nr; i++)
		ut_callstack_free(&c->st[i].cs);
	free(c->st);
	free(c->ends);
	c->st = NULL;
	c->ends = NULL;
	c->nr = 0;
	c->capends = 0;
}

/* the stream of @ev (an event of an unknown file gets the last) */
static struct export_calls_stream *calls_of(struct export_calls *c, struct export_ctx *x,
					    const struct ut_event *ev)
{
	int i = export_thread_index(x, ev);

	if (i >= 0)
		return &c->st[i];
	/* not a file of the directory (cannot happen with ut_merge_new): by tid */
	for (i = 0; i < c->nr; i++)
		if (c->st[i].tid == ev->tid)
			return &c->st[i];
	return &c->st[c->nr - 1];
}

/* the ended frames whose ENTRY was written: the slices to end */
static uint32_t slices(struct export_calls *c, const struct ut_cs_change *ch,
		       const struct ut_cs_frame **calls)
{
	uint32_t n = 0;

	if (ch->nended > c->capends) {
		c->capends = ch->nended < 16 ? 16 : ch->nended;
		c->ends = xrealloc(c->ends, c->capends * sizeof(*c->ends));
	}
	for (uint32_t i = 0; i < ch->nended; i++)
		if (ch->ended[i].seen)
			c->ends[n++] = ch->ended[i];
	*calls = c->ends;
	return n;
}

uint32_t export_calls_event(struct export_calls *c, struct export_ctx *x, const struct ut_event *ev,
			    const struct ut_cs_frame **calls)
{
	struct export_calls_stream *s = calls_of(c, x, ev);
	struct ut_cs_change ch;

	ut_callstack_event(&s->cs, ev, &ch);
	/* an EXIT of a call whose slice was not begun: not written */
	if (ev->type == UT_EV_EXIT && (ch.orphan || (ch.matched && !ch.ended[0].seen)))
		c->dropped++;
	return slices(c, &ch, calls);
}

uint32_t export_calls_end(struct export_calls *c, int i, const struct ut_cs_frame **calls,
			  uint64_t *ts)
{
	struct ut_cs_change ch;

	ut_callstack_end(&c->st[i].cs, &ch);
	*ts = ch.ended_at;
	return slices(c, &ch, calls);
}

const unsigned char *export_field_array(const struct ut_evfield *f, const void *entry,
					uint32_t len, uint32_t *n, uint32_t *elem)
{
	uint32_t off = f->offset, size = f->size;

	*elem = f->elem_size == 1 || f->elem_size == 2 || f->elem_size == 4 ||
		f->elem_size == 8 ? f->elem_size : 1;
	if (f->flags & UT_EVF_DYNAMIC) {
		uint32_t loc;

		if ((uint64_t)f->offset + 4 > len)
			return NULL;
		memcpy(&loc, (const char *)entry + f->offset, 4);
		off = loc & 0xffff;
		size = loc >> 16;
	} else if (!size && off <= len) {
		size = len - off;	/* type x[] at the end: the rest of the entry */
	}
	if ((uint64_t)off + size > len)
		return NULL;
	*n = size / *elem;
	return (const unsigned char *)entry + off;
}

uint64_t export_field_elem(const struct ut_evfield *f, const unsigned char *p, uint32_t elem,
			   uint32_t i)
{
	uint64_t v = 0;

	memcpy(&v, p + (size_t)i * elem, elem);	/* little-endian: the low bytes */
	if ((f->flags & UT_EVF_SIGNED) && elem < 8 && (v >> (8 * elem - 1)) & 1)
		v |= ~0ull << (8 * elem);
	return v;
}
