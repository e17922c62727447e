// SPDX-License-Identifier: MIT
/*
 * report_stat.c - usertrace report's trace_stat views: --stat (the
 * function table in the layout of the kernel's trace_stat/function) and
 * the statistics files the programs kept (--branch, --kmem, --workqueue),
 * printed as the tracing directory's trace_stat/ shows them.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/report.h"
#include "output/stat.h"
#include "usertrace/branchstat.h"
#include "reader/statarea.h"
#include "utils/utils.h"

/* the kernel's "%llu.%03lu us" duration: microseconds with 3 decimals */
static int fmt_us(char *buf, size_t size, uint64_t ns)
{
	return snprintf(buf, size, "%" PRIu64 ".%03u us", ns / 1000, (unsigned)(ns % 1000));
}

/* s^2 = (n * sum(x^2) - sum(x)^2) / (n * (n - 1)), from ns^2 to us^2 */
long double report_variance_us2(const struct fstat *s)
{
	long double sum = (long double)s->sum, cnt = (long double)s->calls, v;

	if (s->calls < 2)
		return 0;
	v = ((long double)s->sumsq - sum * sum / cnt) / (cnt - 1);
	return v > 0 ? v / 1e6L : 0;	/* rounding can make it a hair negative */
}

/* the Time, Avg and s^2 of a row: "-" when no call of it has a duration */
static void stat_texts(const struct fstat *s, char *total, char *avg, char *var, size_t size)
{
	if (!s->calls) {
		snprintf(total, size, "-");
		snprintf(avg, size, "-");
		snprintf(var, size, "-");
		return;
	}
	/* the kernel's profiler adds up every call, recursive ones too */
	fmt_us(total, size, s->sum);
	fmt_us(avg, size, s->sum / s->calls);
	snprintf(var, size, "%.3Lf us", report_variance_us2(s));
}

/*
 * The kernel's trace_stat/function<cpu> layout (the function profiler):
 * time and average in microseconds, s^2 the variance of the durations in
 * us^2.  Columns widen for long names and times instead of cutting them.
 * Hit counts every call, as the profiler counts a hit at the entry; Time,
 * Avg and s^2 are those of the calls with a duration, and the calls
 * without one are counted in a last column when there are any.
 */
void report_print_stat(const struct row *rows, size_t n, int graph, const struct losses *l)
{
	char total[48], avg[48], var[64];
	int w = 30, wt = 12, wa = 12, wv = 3, len, ucol = graph && report_any_untimed(rows, n);

	report_print_losses(l, graph, ucol);
	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i].label) > (size_t)w)
			w = (int)strlen(rows[i].label);
		stat_texts(&rows[i].st, total, avg, var, sizeof(total));
		len = (int)strlen(total);
		wt = len > wt ? len : wt;
		len = (int)strlen(avg);
		wa = len > wa ? len : wa;
		len = (int)strlen(var);
		wv = len > wv ? len : wv;
	}
	if (!graph) {
		printf("  %-*s  %10s\n", w, "Function", "Hit");
		printf("  %-*s  %10s\n", w, "--------", "---");
		for (size_t i = 0; i < n; i++)
			printf("  %-*s  %10" PRIu64 "\n", w, rows[i].label, rows[i].st.calls);
		return;
	}
	if (ucol) {
		printf("  %-*s  %10s    %-*s    %-*s    %-*s  %10s\n", w, "Function", "Hit", wt, "Time",
		       wa, "Avg", wv, "s^2", "Untimed");
		printf("  %-*s  %10s    %-*s    %-*s    %-*s  %10s\n", w, "--------", "---", wt, "----",
		       wa, "---", wv, "---", "-------");
	} else {
		printf("  %-*s  %10s    %-*s    %-*s    %s\n", w, "Function", "Hit", wt, "Time", wa, "Avg", "s^2");
		printf("  %-*s  %10s    %-*s    %-*s    %s\n", w, "--------", "---", wt, "----", wa, "---", "---");
	}
	for (size_t i = 0; i < n; i++) {
		const struct fstat *s = &rows[i].st;

		stat_texts(s, total, avg, var, sizeof(total));
		printf("  %-*s  %10" PRIu64 "    %-*s    %-*s    ", w, rows[i].label, s->calls + s->untimed,
		       wt, total, wa, avg);
		if (ucol)
			printf("%-*s  %10" PRIu64 "\n", wv, var, s->untimed);
		else
			printf("%s\n", var);
	}
}

static int count_file(const struct ut_stat_hdr *hdr, const void *payload, void *arg)
{
	(void)hdr;
	(void)payload;
	(void)arg;
	return 0;
}

/* the branch profilers' tables of the recording in @dir: 0, or 1 when it has none */
int report_branch(const char *dir)
{
	static const char *const names[] = { UT_BRANCH_STAT_ANNOTATED, UT_BRANCH_STAT_ALL };
	int have[2], shown = 0;

	for (int i = 0; i < 2; i++)
		have[i] = ut_stat_foreach(dir, names[i], UT_BRANCH_STAT_VERSION, count_file, NULL) > 0;
	if (!have[0] && !have[1]) {
		pr_err("%s has no branch statistics: build the program with <usertrace/branch.h> "
		       "and -DUSERTRACE_PROFILE_BRANCHES (or -DUSERTRACE_PROFILE_ALL_BRANCHES)", dir);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		struct tracer_stat *t = stat_tracer_find(names[i], strlen(names[i]));

		if (!have[i] || !t)
			continue;
		/* two tables: each under its file's name */
		if (have[0] && have[1])
			printf("%s==> trace_stat/%s <==\n", shown++ ? "\n" : "", names[i]);
		if (trace_stat_print(t, dir, stdout) < 0) {
			pr_err("cannot print %s", names[i]);
			return 1;
		}
	}
	return 0;
}

/* a file DIR/stat/NAME.* ? */
static int stat_has_files(const char *dir, const char *name)
{
	char path[4096];
	struct dirent *de;
	size_t n = strlen(name);
	int found = 0;
	DIR *sd;

	snprintf(path, sizeof(path), "%s/" UT_STAT_DIR, dir);
	sd = opendir(path);
	while (sd && !found && (de = readdir(sd)))
		found = !strncmp(de->d_name, name, n) && de->d_name[n] == '.';
	if (sd)
		closedir(sd);
	return found;
}

/*
 * --kmem, --workqueue: the statistics the programs kept (DIR/stat/), as
 * the tracing directory's trace_stat/NAME shows them
 */
int report_statfile(const char *dir, const char *name)
{
	struct tracer_stat *t = stat_tracer_find(name, strlen(name));
	struct ut_data d;
	int ret;

	if (ut_data_open(&d, dir) < 0)
		return 1;
	ut_data_close(&d);
	if (!t) {
		pr_err("no %s statistics in this usertrace", name);
		return 1;
	}
	if (!stat_has_files(dir, name)) {
		pr_err("%s has no %s statistics (%s)", dir, name,
		       !strcmp(name, "kmem") ? "record with -t kmemtrace" :
		       "the program used no work queue");
		return 1;
	}
	ret = trace_stat_print(t, dir, stdout);
	if (ret < 0) {
		pr_err("%s: %s", name, strerror(-ret));
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
