// SPDX-License-Identifier: MIT
/*
 * test_branch.c - trace_stat/branch_annotated and branch_all as the
 * tools print them (output/tracers/branch.c) from the programs'
 * statistics files (usertrace/branchstat.h): the kernel's columns, its
 * order, the sums over processes, names cut as the kernel cuts them,
 * the constant column, broken files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/stat.h"
#include "usertrace/branchstat.h"
#include "usertrace/statarea.h"

static char dir[64];

struct row {
	uint64_t correct, incorrect, constant;
	uint32_t line;
	const char *func, *file;
};

/* DIR/stat/NAME.PID.1: @n rows in a file with room for @cap (@nr: the count it claims) */
static void put(const char *name, int pid, const struct row *rows, uint32_t n, uint32_t cap,
		uint32_t nr)
{
	char path[256];
	size_t size = sizeof(struct ut_branch_stat) + cap * sizeof(struct ut_branch_row);
	struct ut_stat_hdr h = { .version = UT_BRANCH_STAT_VERSION, .hdr_size = sizeof(h),
				 .size = size, .pid = pid, .img = 1 };
	char *buf = calloc(1, sizeof(h) + size);
	struct ut_branch_stat *st = (void *)(buf + sizeof(h));
	FILE *f;

	memcpy(h.magic, UT_STAT_MAGIC, 8);
	strncpy(h.name, name, sizeof(h.name) - 1);
	memcpy(buf, &h, sizeof(h));
	st->nr = nr;
	st->cap = cap;
	for (uint32_t i = 0; i < n; i++) {
		st->rows[i].correct = rows[i].correct;
		st->rows[i].incorrect = rows[i].incorrect;
		st->rows[i].constant = rows[i].constant;
		st->rows[i].line = rows[i].line;
		strncpy(st->rows[i].func, rows[i].func, UT_BRANCH_NAME_MAX - 1);
		strncpy(st->rows[i].file, rows[i].file, UT_BRANCH_NAME_MAX - 1);
	}
	snprintf(path, sizeof(path), "%s/stat/%s.%d.1", dir, name, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, sizeof(h) + size, f), sizeof(h) + size);
	fclose(f);
	free(buf);
}

static char *text(const char *name)
{
	struct tracer_stat *t = stat_tracer_find(name, strlen(name));
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(t);
	assert_int_equal(trace_stat_print(t, dir, f), 0);
	fclose(f);
	return s;
}

static int setup(void **state)
{
	char p[128];

	(void)state;
	strcpy(dir, "/tmp/ut-branch.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/stat", dir);
	return mkdir(p, 0700);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

#define HDR_ANN " correct incorrect  %        Function                  File              Line\n" \
		" ------- ---------  -        --------                  ----              ----\n"
#define HDR_ALL "   miss      hit    %        Function                  File              Line\n" \
		" ------- ---------  -        --------                  ----              ----\n"

static void test_annotated(void **state)
{
	static const struct row p1[] = {
		{ 9, 1, 0, 23, "check", "s.c" },
		{ 0, 0, 0, 42, "never", "s.c" },
		{ 7, 3, 0, 30, "rare", "s.c" },
		{ 0, 5, 0, 50, "wrong", "s.c" },
		{ 10, 0, 0, 60, "right", "s.c" },
		{ 1, 1, 0, 70, "a_function_name_longer_than_thirty_chars", "a_file_name_longer_than_20.c" },
	};
	/* the child: the same sites, and one of its own */
	static const struct row p2[] = {
		{ 5, 0, 0, 23, "check", "s.c" },
		{ 3, 1, 0, 80, "child", "k.c" },
		{ 20, 0, 0, 61, "righter", "s.c" },
	};
	char *s;

	(void)state;
	/* no file: the headers alone */
	s = text(UT_BRANCH_STAT_ANNOTATED);
	assert_string_equal(s, HDR_ANN);
	free(s);
	put(UT_BRANCH_STAT_ANNOTATED, 100, p1, 6, 8, 6);
	put(UT_BRANCH_STAT_ANNOTATED, 101, p2, 3, 64, 3);
	s = text(UT_BRANCH_STAT_ANNOTATED);
	/* percent incorrect first, then incorrect, then the fewest correct */
	assert_string_equal(s, HDR_ANN
		"       0        5 100 wrong                          s.c                  50\n"
		"       1        1  50 a_function_name_longer_than_th a_file_name_longer_t 70\n"
		"       7        3  30 rare                           s.c                  30\n"
		"       3        1  25 child                          k.c                  80\n"
		"      14        1   6 check                          s.c                  23\n"
		"      10        0   0 right                          s.c                  60\n"
		"      20        0   0 righter                        s.c                  61\n"
		"       0        0   X never                          s.c                  42\n");
	free(s);
}

static void test_constant(void **state)
{
	static const struct row p[] = {
		{ 12, 2, 3, 5, "c", "c.c" },
		{ 1, 0, 123456789, 6, "big", "c.c" },
	};
	char path[128], *s;

	(void)state;
	put(UT_BRANCH_STAT_ANNOTATED, 200, p, 2, 2, 2);
	s = text(UT_BRANCH_STAT_ANNOTATED);
	/* the kernel's correct/constant, incorrect padded to keep the column */
	assert_non_null(strstr(s, "      12/3      2  14 c                              c.c                  5\n"));
	assert_non_null(strstr(s, "       1/123456789 0   0 big                            c.c                  6\n"));
	free(s);
	snprintf(path, sizeof(path), "%s/stat/branch_annotated.200.1", dir);
	unlink(path);
}

static void test_all(void **state)
{
	static const struct row p[] = {
		{ 1, 14, 0, 23, "check", "s.c" },
		{ 7, 3, 0, 30, "rare", "s.c" },
		{ 0, 0, 0, 55, "main", "s.c" },
	};
	char *s;

	(void)state;
	put(UT_BRANCH_STAT_ALL, 100, p, 3, 3, 3);
	s = text(UT_BRANCH_STAT_ALL);
	/* the sites' order; hit percent */
	assert_string_equal(s, HDR_ALL
		"       1       14  93 check                          s.c                  23\n"
		"       7        3  30 rare                           s.c                  30\n"
		"       0        0   X main                           s.c                  55\n");
	free(s);
}

static void test_broken(void **state)
{
	static const struct row p[] = { { 1, 1, 0, 1, "x", "x.c" } };
	char *s;

	(void)state;
	/* more rows claimed than room, or room past the payload: skipped */
	put(UT_BRANCH_STAT_ALL, 300, p, 1, 1, 2);
	s = text(UT_BRANCH_STAT_ALL);
	assert_null(strstr(s, " x "));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_annotated),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_broken),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
