/* SPDX-License-Identifier: MIT */
/*
 * report.h - what the views of usertrace report share: a recording's
 * per-function statistics (cli/report.c walks its threads) and the sort
 * column; report --diff is cli/report_diff.c, the trace_stat views
 * (--stat, --branch, --kmem, --workqueue) cli/report_stat.c
 */
#ifndef USERTRACE_CMD_REPORT_H
#define USERTRACE_CMD_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/data.h"

/*
 * The columns a report can be sorted on (-s, --sort): each column that
 * report or report --stat shows, by the name of its heading where it is
 * a word.  Numbers sort largest first, names alphabetically.
 */
enum sort_key {
	SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_UNTIMED, SORT_AVG, SORT_MIN, SORT_MAX,
	SORT_TIME, SORT_VARIANCE, SORT_NAME,
};

struct fstat {
	uint64_t calls, total, self, min, max;	/* of the calls with a duration */
	uint64_t untimed;		/* calls whose entry or return is not in the trace */
	uint64_t sum;			/* of every call's duration, recursive ones too */
	unsigned __int128 sumsq;	/* of durations in ns^2: exact, for --stat */
};

/*
 * statistics of one ip in one process image, while one mapping holds it
 * (since: see ut_symtab_since(); a library may be mapped where another was)
 */
struct ipent {
	uint64_t ip, image, since;
	int pid;
	int used;
	struct fstat st;
};

struct iptab {
	struct ipent *ents;
	size_t cap, nr;			/* cap is a power of two */
};

/* what could not be known, over all threads */
struct losses {
	uint64_t events, ranges;	/* lost records, and the LOST marks */
	uint64_t time;			/* ns between the events around each loss */
	uint64_t overrun;		/* overwritten (flight recorder) */
	uint64_t unknown;		/* returns of calls whose entry and name are unknown */
};

/* one line of the report: all ips that name the same function */
struct row {
	const char *name;
	const char *module;
	char *label;		/* what is printed; allocated */
	struct fstat st;
};

/* one recording's statistics: what report prints, and each side of --diff */
struct profile {
	struct ut_data d;
	struct iptab tab;
	struct losses loss;
	struct row *rows;		/* by name until sorted for printing */
	size_t nr_rows;
	int mode;			/* ut_tracer_mode() of its tracer */
	int graph;			/* it has durations */
	int bad;			/* some events could not be read */
};

/* the column rows are sorted on (-s) */
extern enum sort_key report_sort_by;

/* @ns scaled to ns/us/ms/s for 3 decimals: the value, and its unit */
double report_scale_time(uint64_t ns, const char **unit);
/* "   1.234 ms": the value scaled to ns/us/ms/s, 3 decimals, 12 columns */
void report_print_time(uint64_t ns);
/* the statistics of data directory @dir: 0, or -1 when it cannot be opened (said) */
int report_profile_load(struct profile *p, const char *dir);
void report_profile_free(struct profile *p);
/* some call has no duration: the column that counts them is shown */
int report_any_untimed(const struct row *rows, size_t n);
/* what the numbers cannot include, before the table, when there is any */
void report_print_losses(const struct losses *l, int graph, int untimed_col);

/* report_stat.c: s^2 of a function's durations, in us^2 (--stat, -s s^2) */
long double report_variance_us2(const struct fstat *s);
/* report --stat: the kernel's trace_stat/function<cpu> layout */
void report_print_stat(const struct row *rows, size_t n, int graph, const struct losses *l);
/* --branch: the branch profilers' tables of the recording in @dir: 0, or 1 when it has none */
int report_branch(const char *dir);
/* --kmem, --workqueue: DIR/stat/NAME.* as trace_stat/NAME: 0, or 1 (said) */
int report_statfile(const char *dir, const char *name);

/* report --diff OLD_DIR: 0, 1 when a directory cannot be read or the output written */
int report_diff(const char *dir, const char *olddir);

#endif
