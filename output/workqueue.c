// SPDX-License-Identifier: MIT
/*
 * workqueue.c - trace_stat/workqueue, as the kernel's workqueue
 * statistical tracer printed it: for each worker of each work queue of
 * <usertrace/workqueue.h> (or a pool's annotations), the works inserted
 * for it and executed by it,
 *
 *	# CPU  INSERTED  EXECUTED   NAME
 *	# |      |         |          |
 *
 *	  0      1000      1000       crunch/0
 *	  0        10        10       io/0
 *
 *	  1      1000      1000       crunch/1
 *
 * CPU is the worker's number in its queue (worker N standing for the
 * kernel's per-CPU worker thread of CPU N), NAME the queue's name and the
 * worker's number, the name of its thread; a blank line before each
 * CPU's first line, as the kernel's.  The counts come from the
 * statistics files the programs keep (usertrace/wqstat.h); the same
 * queue and worker in several processes are added together.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/stat.h"
#include "usertrace/wqstat.h"
#include "reader/statarea.h"
#include "utils/utils.h"

struct wq_ent {
	struct wq_ent *next;
	int cpu;
	int first;		/* the CPU's first line */
	char name[UT_WQ_NAME_MAX];
	uint64_t inserted, executed;
};

struct wq_walk {
	struct wq_ent *head;
	uint64_t overflow;
};

static int wq_before(const struct wq_ent *a, const struct wq_ent *b)
{
	return a->cpu != b->cpu ? a->cpu < b->cpu : strcmp(a->name, b->name) < 0;
}

/* into the list sorted by CPU, then name; an existing line adds */
static void wq_add(struct wq_walk *w, const struct ut_wq_row *r)
{
	struct wq_ent **pp = &w->head, *e;
	struct wq_ent key = { .cpu = r->cpu };

	memcpy(key.name, r->name, sizeof(key.name) - 1);
	while (*pp && wq_before(*pp, &key))
		pp = &(*pp)->next;
	if (*pp && (*pp)->cpu == key.cpu && !strcmp((*pp)->name, key.name)) {
		e = *pp;
	} else {
		e = xcalloc(1, sizeof(*e));
		*e = key;
		e->next = *pp;
		*pp = e;
	}
	e->inserted += r->inserted;
	e->executed += r->executed;
}

static int wq_file(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	const struct ut_wq_stat *s = payload;
	struct wq_walk *w = arg;

	if (h->size < sizeof(*s)) {
		pr_warn("workqueue statistics of pid %d: cut short", h->pid);
		return 0;
	}
	w->overflow += s->overflow;
	for (unsigned i = 0; i < UT_WQ_ROWS; i++)
		if (s->rows[i].state == 2)
			wq_add(w, &s->rows[i]);
	return 0;
}

static void *wq_start(struct tracer_stat *trace, const char *dir)
{
	struct wq_walk w = { 0 };

	(void)trace;
	ut_stat_foreach(dir, UT_WQ_STAT_NAME, UT_WQ_STAT_VERSION, wq_file, &w);
	for (struct wq_ent *e = w.head, *prev = NULL; e; prev = e, e = e->next)
		e->first = !prev || prev->cpu != e->cpu;
	if (w.overflow)
		pr_warn("workqueue statistics: %" PRIu64 " works of queues beyond the %u rows not counted",
			w.overflow, UT_WQ_ROWS);
	return w.head;
}

static void *wq_next(void *prev, int idx)
{
	(void)idx;
	return ((struct wq_ent *)prev)->next;
}

static int wq_headers(FILE *m)
{
	fprintf(m, "# CPU  INSERTED  EXECUTED   NAME\n");
	fprintf(m, "# |      |         |          |\n");
	return 0;
}

static int wq_show(FILE *m, void *p)
{
	const struct wq_ent *e = p;

	if (e->first)
		fputc('\n', m);
	fprintf(m, "%3d %6" PRIu64 "     %6" PRIu64 "       %s/%d\n", e->cpu, e->inserted, e->executed,
		e->name, e->cpu);
	return 0;
}

static void wq_release(void *p)
{
	free(p);
}

/* no stat_cmp: the lines as wq_start sorted them (by CPU, then name) */
static struct tracer_stat workqueue_stat = {
	.name		= "workqueue",
	.stat_start	= wq_start,
	.stat_next	= wq_next,
	.stat_show	= wq_show,
	.stat_release	= wq_release,
	.stat_headers	= wq_headers,
};

/* as the kernel registers its stat tracers at boot */
static __attribute__((constructor)) void workqueue_stat_register(void)
{
	register_stat_tracer(&workqueue_stat);
}
