// SPDX-License-Identifier: MIT
/*
 * test_statarea.c - the statistics files as the tools read them
 * (reader/statarea.c): order, layout checks, broken files, saving.
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

#include "reader/statarea.h"
#include "utils/utils.h"

static char dir[64];

/* DIR/stat/FILE: a header for @name, @version, @size bytes of payload, cut to @len (0: whole) */
static void put(const char *file, const char *name, uint32_t version, uint64_t size,
		uint64_t fill, size_t len)
{
	char path[256];
	struct ut_stat_hdr h = { .version = version, .hdr_size = sizeof(h), .size = size, .pid = 1 };
	char *buf = calloc(1, sizeof(h) + size);
	FILE *f;

	memcpy(h.magic, UT_STAT_MAGIC, 8);
	strncpy(h.name, name, sizeof(h.name) - 1);
	strcpy(h.comm, "prog");
	memcpy(buf, &h, sizeof(h));
	for (uint64_t i = 0; i + 8 <= size; i += 8)
		memcpy(buf + sizeof(h) + i, &fill, 8);
	snprintf(path, sizeof(path), "%s/stat/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len ? len : sizeof(h) + size, f), len ? len : sizeof(h) + size);
	fclose(f);
	free(buf);
}

struct seen {
	int n;
	uint64_t fills[8];
	char comms[8][16];
};

static int collect(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	struct seen *s = arg;
	uint64_t v;

	assert_int_equal(h->size, 16);
	memcpy(&v, payload, 8);
	strcpy(s->comms[s->n], h->comm);
	s->fills[s->n++] = v;
	return 0;
}

static int stop_first(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	(void)h;
	(void)payload;
	++*(int *)arg;
	return 1;
}

static int setup(void **state)
{
	char path[96];

	(void)state;
	strcpy(dir, "/tmp/ut-statarea.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/stat", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(dir);
	return 0;
}

/* by pid then image, whatever the directory's order; other names ignored */
static void test_order(void **state)
{
	struct seen s = { 0 };
	int stops = 0;

	(void)state;
	put("prof.20.5", "prof", 1, 16, 205, 0);
	put("prof.3.9", "prof", 1, 16, 39, 0);
	put("prof.20.1", "prof", 1, 16, 201, 0);
	put("profile.3.1", "profile", 1, 16, 999, 0);
	put("prof.x.1", "prof", 1, 16, 998, 0);
	assert_int_equal(ut_stat_foreach(dir, "prof", 1, collect, &s), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.fills[0], 39);
	assert_int_equal(s.fills[1], 201);
	assert_int_equal(s.fills[2], 205);
	assert_string_equal(s.comms[0], "prog");
	/* the walk stops when asked */
	assert_int_equal(ut_stat_foreach(dir, "prof", 1, stop_first, &stops), 1);
	assert_int_equal(stops, 1);
	/* none of that name, or no directory at all */
	assert_int_equal(ut_stat_foreach(dir, "branch_all", 1, collect, &s), 0);
	assert_int_equal(ut_stat_foreach("/nonexistent", "prof", 1, collect, &s), 0);
}

/* cut short, another layout, not one, another name inside: skipped, never read past */
static void test_broken(void **state)
{
	struct seen s = { 0 };
	char path[128];
	FILE *f;

	(void)state;
	put("kmem.1.1", "kmem", 1, 16, 11, 0);
	put("kmem.2.1", "kmem", 1, 16, 21, sizeof(struct ut_stat_hdr) + 8);
	put("kmem.3.1", "kmem", 2, 16, 31, 0);
	put("kmem.4.1", "stack", 1, 16, 41, 0);
	put("kmem.5.1", "kmem", 1, 16, 51, 10);
	snprintf(path, sizeof(path), "%s/stat/kmem.6.1", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("UTSTAT but not really a header of the right size at all, no", f);
	fclose(f);
	assert_int_equal(ut_stat_foreach(dir, "kmem", 1, collect, &s), 1);
	assert_int_equal(s.fills[0], 11);
}

/* record's copy: every file, read back the same */
static void test_save(void **state)
{
	char out[96];
	struct seen s = { 0 };

	(void)state;
	put("wq.7.1", "wq", 1, 16, 71, 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(ut_stat_save(dir, out), 0);
	assert_int_equal(ut_stat_foreach(out, "wq", 1, collect, &s), 1);
	assert_int_equal(s.fills[0], 71);
	/* a session without statistics saves nothing, and that is fine */
	assert_int_equal(ut_stat_save(out, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
