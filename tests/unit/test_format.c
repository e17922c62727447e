// SPDX-License-Identifier: MIT
/*
 * test_format.c - lib/event/format.c: the format file of an event, as
 * the kernel writes it, and the ftrace entries (usertrace/ftrace.def)
 * against the kernel's own format files (tests/unit/ftrace-formats.txt).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "usertrace/ftrace.h"
#include "lib/event/builtin.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "sample_event.h"

#ifndef UT_SRCDIR
#define UT_SRCDIR "."
#endif

/* the four common fields of every format, as the kernel prints them */
#define COMMON_FIELDS									\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"		\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"		\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"	\
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* this machine's events/ftrace/print/format (Linux 6.18) */
static const char print_format[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static void test_print(void **state)
{
	const struct ut_event_desc *d = ut_ftrace_event_by_name("print");
	char *t;

	(void)state;
	assert_non_null(d);
	assert_ptr_equal(d, ut_ftrace_event_by_id(UT_EVENT_ID_PRINT));
	assert_int_equal(d->size, sizeof(struct ut_ftrace_print));
	t = ut_event_format(d);
	assert_non_null(t);
	assert_string_equal(t, print_format);
	free(t);
}

static const char sample_format[] =
	"name: request\n"
	"ID: 1000\n"
	"format:\n"
	COMMON_FIELDS
	"\n"
	"\tfield:int id;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] path;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:long delta;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"id=%d comm=%s path=%s delta=%ld\", REC->id, REC->comm, __get_str(path), REC->delta\n";

static void test_sample(void **state)
{
	char *t = ut_event_format(&sample);

	(void)state;
	assert_non_null(t);
	assert_string_equal(t, sample_format);
	free(t);
}

/* ut_event_format_buf() is snprintf: the whole length, a cut and terminated text */
static void test_buf(void **state)
{
	size_t len = strlen(sample_format);
	char buf[64];

	(void)state;
	assert_int_equal(ut_event_format_buf(NULL, 0, &sample), len);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(ut_event_format_buf(buf, sizeof(buf), &sample), len);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_memory_equal(buf, sample_format, sizeof(buf) - 1);
	assert_int_equal(ut_event_format_buf(buf, 1, &sample), len);
	assert_string_equal(buf, "");
}

/*
 * The kernel's text of @name from @file (tests/unit/), malloc'd, or NULL.
 * Long lines (kmalloc's print fmt) come in several reads.
 */
static char *kernel_format_in(const char *file, const char *name)
{
	char line[1024], *text = NULL, path[512];
	FILE *f;
	size_t len = 0;
	int in = 0, bol = 1;
	FILE *m;

	snprintf(path, sizeof(path), "%s/tests/unit/%s", UT_SRCDIR, file);
	if (!(f = fopen(path, "r")))
		return NULL;
	m = open_memstream(&text, &len);
	while (m && fgets(line, sizeof(line), f)) {
		int was_bol = bol;

		bol = line[strlen(line) - 1] == '\n';
		if (was_bol && !strncmp(line, "=== ", 4)) {
			line[strcspn(line, "\n")] = '\0';
			in = !strcmp(line + 4, name);
			continue;
		}
		if (in)
			fputs(line, m);
	}
	fclose(f);
	if (m)
		fclose(m);
	if (text && !*text) {
		free(text);
		text = NULL;
	}
	return text;
}

static char *kernel_format(const char *name)
{
	return kernel_format_in("ftrace-formats.txt", name);
}

/* @text without its "ID: N" line (in place) */
static char *drop_id(char *text)
{
	char *id = strstr(text, "\nID: ");

	if (id) {
		char *end = strchr(id + 1, '\n');

		memmove(id, end, strlen(end) + 1);
	}
	return text;
}

/*
 * The built-in events: each that the kernel has reads as the kernel's
 * (but the ID line); dl (dlopen, dlclose) is ours alone.
 */
static void test_builtin_kernel(void **state)
{
	unsigned compared = 0;

	(void)state;
	for (unsigned i = 0; i < ut_builtin_nr; i++) {
		const struct ut_event_desc *d = ut_builtin_tps[i]->desc;
		char name[128], *want, *got;

		assert_non_null(d);
		snprintf(name, sizeof(name), "%s/%s", d->system, d->name);
		want = kernel_format_in("builtin-formats.txt", name);
		if (!strcmp(d->system, "dl")) {
			assert_null(want);
			continue;
		}
		if (!want)
			fail_msg("no kernel format for %s", name);
		got = ut_event_format(d);
		assert_non_null(got);
		assert_string_equal(drop_id(got), drop_id(want));
		compared++;
		free(want);
		free(got);
	}
	assert_true(compared >= 4);
}

static void test_ftrace_kernel(void **state)
{
	(void)state;
	assert_int_equal(ut_ftrace_nr_events, 10);
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++) {
		const struct ut_event_desc *d = &ut_ftrace_events[i];
		char *want, *got = ut_event_format(d);

		/* hw_branch is gone from today's kernel: 2.6.32's layout and print fmt, our id */
		want = d->id == UT_EVENT_ID_HW_BRANCH ? strdup(
			"name: hw_branch\nID: 32\nformat:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			"\tfield:unsigned long long from;\toffset:8;\tsize:8;\tsigned:0;\n"
			"\tfield:unsigned long long to;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			"print fmt: \"from: %llx to: %llx\", REC->from, REC->to\n") : kernel_format(d->name);

		assert_non_null(want);
		assert_non_null(got);
		assert_string_equal(got, want);
		assert_string_equal(d->system, "ftrace");
		assert_ptr_equal(ut_ftrace_event_by_id(d->id), d);
		assert_ptr_equal(ut_ftrace_event_by_name(d->name), d);
		free(want);
		free(got);
	}
	assert_null(ut_ftrace_event_by_id(2));
	assert_null(ut_ftrace_event_by_name("nosuch"));
	assert_null(ut_ftrace_event_by_name(NULL));
}

/* the header files: the kernel's shape, our page */
static void test_headers(void **state)
{
	(void)state;
	assert_string_equal(ut_event_header_page(),
			    "\tfield: u64 timestamp;\toffset:8;\tsize:8;\tsigned:0;\n"
			    "\tfield: u32 commit;\toffset:16;\tsize:4;\tsigned:0;\n"
			    "\tfield: u32 overwrite;\toffset:28;\tsize:4;\tsigned:0;\n"
			    "\tfield: char data;\toffset:32;\tsize:4064;\tsigned:0;\n");
	assert_non_null(strstr(ut_event_header_event(), "\ttype        :    4 bits\n"
							"\ttime_delta  :   28 bits\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_ftrace_kernel),
		cmocka_unit_test(test_builtin_kernel),
		cmocka_unit_test(test_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
