/* SPDX-License-Identifier: MIT */
/*
 * stat.h - the statistics tracers, as the kernel's trace_stat.c: each
 * registered struct tracer_stat is a file trace_stat/NAME of the tracing
 * directory (the function profiler, the branch profilers, workqueues...).
 *
 * Reading the file walks the tracer's entries (stat_start, then
 * stat_next until NULL), sorts them with stat_cmp, largest first, and
 * prints stat_headers then stat_show for each.  The data comes from
 * wherever the tracer keeps it: usually the statistics files the programs
 * fill (usertrace/statarea.h), read with ut_stat_foreach() from the
 * directory given to stat_start (a session's, live, or a recording's);
 * @priv is the tracer's.
 */
#ifndef USERTRACE_TRACE_STAT_H
#define USERTRACE_TRACE_STAT_H

#include <stdio.h>

struct tracer_stat {
	const char *name;		/* the file's name in trace_stat/ */
	/*
	 * the first entry, or NULL when there is none; called once per read.
	 * @dir: the session or data directory whose statistics to show.
	 */
	void *(*stat_start)(struct tracer_stat *trace, const char *dir);
	/* the entry after @prev, the @idx-th (1, 2...), or NULL at the end */
	void *(*stat_next)(void *prev, int idx);
	/*
	 * order: > 0 if @a comes before @b.  NULL: as stat_next gives them.
	 * Entries that compare equal: the later one first, as the kernel's.
	 */
	int (*stat_cmp)(const void *a, const void *b);
	/* one entry's line(s); 0 or -errno (the read fails) */
	int (*stat_show)(FILE *m, void *p);
	/* optional: called for each entry once the read is done */
	void (*stat_release)(void *stat);
	/* optional: the lines before the entries, even when there is none */
	int (*stat_headers)(FILE *m);
	void *priv;
};

#define TRACE_STAT_MAX	32	/* registered stat tracers */

/*
 * register_stat_tracer - add @trace (kept, not copied): 0, -EINVAL (no
 * name, a name with '/', no stat_start/stat_next/stat_show), -EEXIST
 * (a stat of that name), -ENOSPC.  Context: start-up, as register_tracer().
 */
int register_stat_tracer(struct tracer_stat *trace);
void unregister_stat_tracer(struct tracer_stat *trace);
/* the @i-th registered stat, in registration order; NULL past the end */
struct tracer_stat *stat_tracer_at(unsigned i);
struct tracer_stat *stat_tracer_find(const char *name, size_t len);
/* the file's text for @dir: headers, then the sorted entries; 0 or -errno */
int trace_stat_print(struct tracer_stat *trace, const char *dir, FILE *out);

#endif
