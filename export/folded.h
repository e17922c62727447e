/* SPDX-License-Identifier: MIT */
/*
 * folded.h - the one builder of folded stacks (flame graphs), used by
 * `report --folded` and by `dump --flame-graph[=svg]` (export_flame.c).
 *
 * The stacks are a tree of frames: a node is (its caller's node, a
 * function name), so memory grows with the distinct call paths, never
 * with the number of calls or samples.  Each node counts its self value:
 *
 *  - function_graph calls (FOLDED_CALLS): the ns spent in the function
 *    and not in its callees, from each thread's ENTRY/EXIT pairs
 *    (reader/callstack.h pairs them; every thread into the same tree);
 *  - sysprof samples (FOLDED_SAMPLES): the samples whose innermost frame
 *    it is.
 *
 * The two are not mixed: the first ENTRY or sample seen decides what the
 * tree counts, and events of the other kind are only counted as ignored.
 */
#ifndef UT_CMDS_FOLDED_H
#define UT_CMDS_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "reader/data.h"

enum { FOLDED_CALLS = 1, FOLDED_SAMPLES = 2 };

struct folded_node {
	uint32_t parent;	/* node 0 is the root (no function), its own parent */
	uint32_t name;		/* folded_name() */
	uint32_t depth;		/* the root's children: 1 */
	uint32_t child, next;	/* after folded_finish(): first child, next sibling (by name); 0: none */
	uint64_t self;
	uint64_t total;		/* after folded_finish(): self and that of every node below */
};

struct folded;

/* a builder for the events of @d counting @kinds (FOLDED_*) */
struct folded *folded_new(struct ut_data *d, unsigned kinds);
void folded_free(struct folded *f);
/* one event, in time order (a merge of every thread, or one thread's) */
void folded_event(struct folded *f, const struct ut_event *ev);
/*
 * folded_finish - after the last event: the calls still open end at
 * their thread's last event; totals and child lists are made.
 */
void folded_finish(struct folded *f);
/* what the tree counts: FOLDED_CALLS (ns), FOLDED_SAMPLES, or 0 (nothing seen) */
unsigned folded_kind(const struct folded *f);
/* events of the kind not counted (samples in a call tree, or calls in a sample tree) */
uint64_t folded_ignored(const struct folded *f);
/* the nodes (after folded_finish()): *@nodes, their number */
size_t folded_nodes(const struct folded *f, const struct folded_node **nodes);
const char *folded_name(const struct folded *f, uint32_t name);
/*
 * folded_write - "main;run;compute 1234" per node with a self value,
 * outermost first, lines sorted by stack (byte order, as `LC_ALL=C sort`
 * does); returns the number of lines.
 */
size_t folded_write(const struct folded *f, FILE *out);

#endif
