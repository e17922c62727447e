// SPDX-License-Identifier: MIT
/*
 * stat.c - the registry of statistics tracers and the text of their
 * trace_stat/ files (stat.h).
 *
 * The kernel keeps a read's entries in an rbtree where an entry that
 * compares greater or equal goes left: the file lists them largest
 * first, and of equal ones the later one first.  Here they go into an
 * array, each inserted before the first entry it compares >= 0 with,
 * which gives the same order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "output/stat.h"

static struct tracer_stat *stats[TRACE_STAT_MAX];
static unsigned nr_stats;
static pthread_mutex_t stat_lock = PTHREAD_MUTEX_INITIALIZER;

int register_stat_tracer(struct tracer_stat *trace)
{
	int ret = 0;

	if (!trace || !trace->name || !*trace->name || strchr(trace->name, '/') ||
	    !trace->stat_start || !trace->stat_next || !trace->stat_show)
		return -EINVAL;
	pthread_mutex_lock(&stat_lock);
	for (unsigned i = 0; i < nr_stats && !ret; i++)
		if (!strcmp(stats[i]->name, trace->name))
			ret = -EEXIST;
	if (!ret && nr_stats == TRACE_STAT_MAX)
		ret = -ENOSPC;
	if (!ret)
		stats[nr_stats++] = trace;
	pthread_mutex_unlock(&stat_lock);
	return ret;
}

void unregister_stat_tracer(struct tracer_stat *trace)
{
	pthread_mutex_lock(&stat_lock);
	for (unsigned i = 0; i < nr_stats; i++) {
		if (stats[i] == trace) {
			memmove(stats + i, stats + i + 1, (nr_stats - i - 1) * sizeof(*stats));
			nr_stats--;
			break;
		}
	}
	pthread_mutex_unlock(&stat_lock);
}

struct tracer_stat *stat_tracer_at(unsigned i)
{
	struct tracer_stat *t;

	pthread_mutex_lock(&stat_lock);
	t = i < nr_stats ? stats[i] : NULL;
	pthread_mutex_unlock(&stat_lock);
	return t;
}

struct tracer_stat *stat_tracer_find(const char *name, size_t len)
{
	struct tracer_stat *t = NULL;

	pthread_mutex_lock(&stat_lock);
	for (unsigned i = 0; i < nr_stats && !t; i++)
		if (strlen(stats[i]->name) == len && !strncmp(stats[i]->name, name, len))
			t = stats[i];
	pthread_mutex_unlock(&stat_lock);
	return t;
}

/* @e into the sorted @v of @n entries (room for one more) */
static void insert_sorted(void **v, size_t n, void *e, int (*cmp)(const void *, const void *))
{
	size_t i = n;

	if (cmp)
		for (i = 0; i < n && cmp(e, v[i]) < 0; i++)
			;
	memmove(v + i + 1, v + i, (n - i) * sizeof(*v));
	v[i] = e;
}

int trace_stat_print(struct tracer_stat *trace, const char *dir, FILE *out)
{
	void **v = NULL, *e;
	size_t n = 0, cap = 0;
	int ret = 0;

	for (e = trace->stat_start(trace, dir); e; e = trace->stat_next(e, (int)n)) {
		if (n == cap) {
			void **nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
		insert_sorted(v, n++, e, trace->stat_cmp);
	}
	if (!ret && trace->stat_headers)
		ret = trace->stat_headers(out);
	for (size_t i = 0; i < n && !ret; i++)
		ret = trace->stat_show(out, v[i]);
	if (trace->stat_release)
		for (size_t i = 0; i < n; i++)
			trace->stat_release(v[i]);
	free(v);
	return ret;
}
