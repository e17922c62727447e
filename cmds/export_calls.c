// SPDX-License-Identifier: MIT
/*
 * export_calls.c - the open calls of each stream of a slice export
 * (export_calls.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cmds/export_calls.h"
#include "utils/utils.h"

int export_calls_init(struct export_calls *c, struct export_ctx *x)
{
	int n = x->d->nr_threads;

	c->nr = n > 0 ? n : 1;
	c->st = xcalloc((size_t)c->nr, sizeof(*c->st));
	for (int i = 0; i < n; i++) {
		c->st[i].pid = x->d->threads[i].pid;
		c->st[i].tid = x->d->threads[i].tid;
	}
	c->dropped = 0;
	return 0;
}

void export_calls_free(struct export_calls *c)
{
	for (int i = 0; i < c->nr; i++)
		free(c->st[i].open);
	free(c->st);
	c->st = NULL;
	c->nr = 0;
}

struct export_calls_stream *export_calls_of(struct export_calls *c, struct export_ctx *x,
					    const struct ut_event *ev)
{
	struct export_calls_stream *s = &c->st[c->nr - 1];
	int i = export_thread_index(x, ev);

	if (i >= 0) {
		s = &c->st[i];
	} else {
		/* not a file of the directory (cannot happen with ut_merge_new): by tid */
		for (i = 0; i < c->nr; i++)
			if (c->st[i].tid == ev->tid) {
				s = &c->st[i];
				break;
			}
	}
	s->last_ts = ev->ts;
	return s;
}

int export_calls_push(struct export_calls_stream *s, const struct ut_event *ev)
{
	if (s->nr == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->open = xrealloc(s->open, s->cap * sizeof(*s->open));
	}
	s->open[s->nr++] = (struct export_call){ .depth = ev->depth, .ip = ev->ip,
						 .image = ev->image };
	return 0;
}

uint32_t export_calls_pop(struct export_calls *c, struct export_calls_stream *s, uint32_t depth,
			  const struct export_call **calls)
{
	uint32_t i = s->nr, n;

	/* the innermost open call not deeper than the exit */
	while (i > 0 && s->open[i - 1].depth > depth)
		i--;
	if (i == 0 || s->open[i - 1].depth != depth) {
		c->dropped++;
		return 0;
	}
	i--;
	n = s->nr - i;
	s->nr = i;
	*calls = s->open ? &s->open[i] : NULL;	/* none opened yet: no array */
	return n;
}

uint32_t export_calls_cut(struct export_calls_stream *s, uint32_t depth,
			  const struct export_call **calls)
{
	uint32_t i = s->nr, n;

	while (i > 0 && s->open[i - 1].depth >= depth)
		i--;
	n = s->nr - i;
	s->nr = i;
	*calls = s->open ? &s->open[i] : NULL;	/* none opened yet: no array */
	return n;
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
