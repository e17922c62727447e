// SPDX-License-Identifier: MIT
/*
 * report_diff.c - usertrace report --diff OLD_DIR: two recordings
 * compared function by function (matched by name), the numbers of each
 * and the changes, largest change first.  The statistics of each side
 * are report.c's (report_profile_load()).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "utils/utils.h"

/*
 * report --diff: a function's numbers in the old recording and in the
 * new one (zero where it was not called), matched by name.
 */
struct drow {
	const char *label;
	struct fstat old, new;
};

static const struct fstat fstat_none = { .min = UINT64_MAX };

static uint64_t calls_of(const struct fstat *s)
{
	return s->calls + s->untimed;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* the size of the change in the sorted column */
static uint64_t drow_key(const struct drow *r)
{
	switch (report_sort_by) {
	case SORT_SELF:		return absdiff(r->old.self, r->new.self);
	case SORT_CALLS:	return absdiff(calls_of(&r->old), calls_of(&r->new));
	default:		return absdiff(r->old.total, r->new.total);
	}
}

static int cmp_drow(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	uint64_t kx, ky;

	if (report_sort_by != SORT_NAME) {
		kx = drow_key(x);
		ky = drow_key(y);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	return strcmp(x->label, y->label);
}

static int cmp_row_label(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->label, ((const struct row *)b)->label);
}

/* "   +1.234 ms": a signed difference of times, 12 columns as report_print_time() */
static void print_dtime(uint64_t old, uint64_t new)
{
	const char *unit;
	double v = report_scale_time(absdiff(old, new), &unit);

	printf("%+9.3f %s", new < old ? -v : v, unit);
}

/* "   +12.50%": the change relative to the old value; "-" when there was none */
static void print_dpct(uint64_t old, uint64_t new)
{
	if (!old)
		printf("%10s", "-");
	else
		printf("%+9.2f%%", 100.0 * ((double)new - (double)old) / (double)old);
}

static void print_dtimes(uint64_t old, uint64_t new)
{
	report_print_time(old);
	report_print_time(new);
	print_dtime(old, new);
	print_dpct(old, new);
}

static void print_dcalls(uint64_t old, uint64_t new)
{
	printf("%12" PRIu64 "%12" PRIu64 "%+12" PRId64, old, new, (int64_t)(new - old));
	print_dpct(old, new);
}

/*
 * Each function of either recording with its calls, total and self time
 * in both and the differences, largest change of total time first (-s:
 * of self time, of calls, or by name).  Without durations on either side
 * (the function tracer) only the calls are compared.
 */
static void print_diff(struct profile *old, struct profile *new, const char *olddir,
		       const char *newdir)
{
	size_t i = 0, j = 0, n = 0;
	int times = old->graph && new->graph;
	struct drow *dr;

	if (old->nr_rows)
		qsort(old->rows, old->nr_rows, sizeof(*old->rows), cmp_row_label);
	if (new->nr_rows)
		qsort(new->rows, new->nr_rows, sizeof(*new->rows), cmp_row_label);
	dr = xcalloc(old->nr_rows + new->nr_rows + 1, sizeof(*dr));
	while (i < old->nr_rows || j < new->nr_rows) {
		int c = i == old->nr_rows ? 1 : j == new->nr_rows ? -1 :
			strcmp(old->rows[i].label, new->rows[j].label);

		dr[n].old = c <= 0 ? old->rows[i].st : fstat_none;
		dr[n].new = c >= 0 ? new->rows[j].st : fstat_none;
		dr[n].label = c <= 0 ? old->rows[i].label : new->rows[j].label;
		i += c <= 0;
		j += c >= 0;
		n++;
	}
	/* no time column shown: the times of the side that has them must not order the rows */
	if (!times && report_sort_by != SORT_NAME)
		report_sort_by = SORT_CALLS;
	if (n)
		qsort(dr, n, sizeof(*dr), cmp_drow);

	printf("# old: %s (%s)\n# new: %s (%s)\n", olddir, old->d.cmdline, newdir, new->d.cmdline);
	if (!times)
		printf("# no durations in %s (function tracer): calls only\n",
		       old->graph ? newdir : olddir);
	if (old->loss.events || new->loss.events)
		printf("# lost events: %" PRIu64 " old, %" PRIu64 " new (the numbers are partial)\n",
		       old->loss.events, new->loss.events);
	if (times) {
		printf("   Total old   Total new  Total diff    Total%%"
		       "    Self old    Self new   Self diff     Self%%");
	}
	printf("   Calls old   Calls new  Calls diff    Calls%%  Function\n");
	for (int k = times ? 3 : 1; k > 0; k--)
		printf("  ==========  ==========  ==========  ========");
	printf("  ====================\n");
	for (size_t k = 0; k < n; k++) {
		if (times) {
			print_dtimes(dr[k].old.total, dr[k].new.total);
			print_dtimes(dr[k].old.self, dr[k].new.self);
		}
		print_dcalls(calls_of(&dr[k].old), calls_of(&dr[k].new));
		printf("  %s\n", dr[k].label);
	}
	free(dr);
}

/* report --diff OLD_DIR: 0, 1 when a directory cannot be read or the output written */
int report_diff(const char *dir, const char *olddir)
{
	struct profile old, new;
	int ret = 0;

	if (report_profile_load(&new, dir) < 0)
		return 1;
	if (report_profile_load(&old, olddir) < 0) {
		pr_err("report --diff: %s is not a recording to compare %s with", olddir, dir);
		report_profile_free(&new);
		return 1;
	}
	print_diff(&old, &new, olddir, dir);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("cannot write the report: %s", strerror(errno));
		ret = 1;
	}
	if (old.bad || new.bad)
		ret = 1;
	report_profile_free(&old);
	report_profile_free(&new);
	return ret;
}
