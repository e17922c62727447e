// SPDX-License-Identifier: MIT
/*
 * test_records.c - the wire records of include/usertrace/entries.h.
 *
 * The list in entries.h is the one definition; record.h derives the enum,
 * the structs, the lengths and the "counts as an event" rule from it.  These tests
 * check what it derives against the exact layout the data format
 * documents (the table of doc/design/ring-buffer.md, read from the file),
 * the payload offsets of the structs it generates, and that ut_rec_len()
 * refuses what does not fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/record.h"

#ifndef UT_SRCDIR
#define UT_SRCDIR "."
#endif

/* a record of @type with @n in its u16 count, in @buf */
static void make(unsigned char *buf, uint32_t type, uint16_t n)
{
	uint32_t h = RB_HDR(type, 5);

	memset(buf, 0xaa, 512);
	memcpy(buf, &h, 4);
	memcpy(buf + 4, &n, 2);
}

/* the lengths and counts every type must have: the data format */
static void test_table(void **state)
{
	static const struct {
		uint32_t type;
		const char *name;
		uint32_t len0, unit;	/* the length with n = 0, bytes per n */
		int counts;
	} want[] = {
		{ UT_REC_ENTRY, "ENTRY", 10, 0, 1 },
		{ UT_REC_EXIT, "EXIT", 4, 0, 1 },
		{ UT_REC_FUNC, "FUNC", 16, 0, 1 },
		{ UT_REC_ENTRY_PARENT, "ENTRY_PARENT", 16, 0, 1 },
		{ UT_REC_DEPTH, "DEPTH", 8, 0, 0 },
		{ UT_REC_CPU, "CPU", 8, 0, 0 },
		{ UT_REC_STACK, "STACK", 6, 6, 0 },
		{ UT_REC_DATA, "DATA", 6, 1, 1 },
		{ UT_REC_RETURN, "RETURN", 18, 0, 1 },
		{ UT_REC_TRACE, "TRACE", 6, 6, 1 },
		{ UT_REC_EVENT, "EVENT", 6, 1, 1 },
		{ UT_REC_TRACE_DIR, "TRACE_DIR", 6, 1, 1 },
		{ UT_REC_CTX, "CTX", 6, 1, 0 },
		{ RB_TYPE_TIME_EXTEND, "TIME_EXTEND", 8, 0, 0 },
	};
	unsigned char buf[512];

	(void)state;
	/* the assembly fast path writes these two (runtime/asm-offsets.h) */
	assert_int_equal(UT_REC_ENTRY, 1);
	assert_int_equal(UT_REC_EXIT, 2);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t t = want[i].type;

		assert_string_equal(ut_rec_name(t), want[i].name);
		assert_int_equal(ut_rec_counts(t), want[i].counts);
		make(buf, t, 0);
		assert_int_equal(ut_rec_len(buf, sizeof(buf)), want[i].len0);
		make(buf, t, 3);
		assert_int_equal(ut_rec_len(buf, sizeof(buf)), want[i].len0 + 3 * want[i].unit);
		/* one byte short of the record: not a record */
		assert_int_equal(ut_rec_len(buf, want[i].len0 + 3 * want[i].unit - 1), 0);
	}
	/* the free type and type 0 */
	for (uint32_t t = 14; t <= 14; t++) {
		assert_null(ut_rec_name(t));
		assert_int_equal(ut_rec_counts(t), 0);
		make(buf, t, 7);
		assert_int_equal(ut_rec_len(buf, sizeof(buf)), 13);
		assert_int_equal(ut_rec_len(buf, 12), 0);
		assert_int_equal(ut_rec_len(buf, 5), 0);	/* no room for the count */
	}
	make(buf, 0, 0);
	assert_int_equal(ut_rec_len(buf, sizeof(buf)), 0);
	assert_null(ut_rec_name(0));
	assert_int_equal(ut_rec_counts(0), 0);
	assert_int_equal(ut_rec_counts(16), 0);
	assert_null(ut_rec_name(16));
}

/* counts past a type's maximum are corrupt; the header alone is no record */
static void test_bounds(void **state)
{
	unsigned char buf[512];
	static unsigned char big[6 + 65535];
	uint32_t h = RB_HDR(UT_REC_DATA, 0);
	uint16_t n = 65535;

	(void)state;
	make(buf, UT_REC_STACK, UT_STACK_MAX);
	assert_int_equal(ut_rec_len(buf, sizeof(buf)), 6 + 6 * UT_STACK_MAX);
	make(buf, UT_REC_STACK, UT_STACK_MAX + 1);
	assert_int_equal(ut_rec_len(buf, sizeof(buf)), 0);
	make(buf, UT_REC_TRACE, UT_STACK_MAX + 1);
	assert_int_equal(ut_rec_len(buf, sizeof(buf)), 0);
	make(buf, UT_REC_TRACE, 65535);
	assert_int_equal(ut_rec_len(buf, sizeof(buf)), 0);
	memcpy(big, &h, 4);
	memcpy(big + 4, &n, 2);
	assert_int_equal(ut_rec_len(big, sizeof(big)), sizeof(big));
	assert_int_equal(ut_rec_len(big, sizeof(big) - 1), 0);
	make(buf, UT_REC_ENTRY, 0);
	assert_int_equal(ut_rec_len(buf, 3), 0);
	make(buf, UT_REC_DATA, 0);
	assert_int_equal(ut_rec_len(buf, 4), 0);
	/* an event entry fits in a page: longer is corrupt */
	memcpy(big, &(uint32_t){ RB_HDR(UT_REC_EVENT, 0) }, 4);
	memcpy(big + 4, &(uint16_t){ UT_EVENT_MAX }, 2);
	assert_int_equal(ut_rec_len(big, sizeof(big)), 6 + UT_EVENT_MAX);
	memcpy(big + 4, &(uint16_t){ UT_EVENT_MAX + 1 }, 2);
	assert_int_equal(ut_rec_len(big, sizeof(big)), 0);
	assert_true(6 + UT_EVENT_MAX <= RB_DATA_SIZE);
}

/*
 * The payload fields entries.h defines, at the offsets of the data
 * format (the files on disk; arch/x86_64's fast paths): the generated
 * structs must give exactly these, whatever the list's order or macros.
 */
static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(UT_REC_LEN(entry), 10);
	assert_int_equal(UT_REC_OFF(entry, ip), 4);
	assert_int_equal(UT_REC_LEN(exit), 4);
	assert_int_equal(UT_REC_LEN(func), 16);
	assert_int_equal(UT_REC_OFF(func, ip), 4);
	assert_int_equal(UT_REC_OFF(func, parent), 10);
	assert_int_equal(UT_REC_LEN(entry_parent), 16);
	assert_int_equal(UT_REC_OFF(entry_parent, ip), 4);
	assert_int_equal(UT_REC_OFF(entry_parent, parent), 10);
	assert_int_equal(UT_REC_LEN(depth), 8);
	assert_int_equal(UT_REC_OFF(depth, depth), 4);
	assert_int_equal(UT_REC_LEN(cpu), 8);
	assert_int_equal(UT_REC_OFF(cpu, cpu), 4);
	assert_int_equal(UT_REC_LEN(return), 18);
	assert_int_equal(UT_REC_OFF(return, ip), 4);
	assert_int_equal(UT_REC_OFF(return, depth), 10);
	assert_int_equal(UT_REC_OFF(return, duration), 12);
	/* sized: n at 4, the variable part after the fixed fields */
	assert_int_equal(UT_REC_SIZED_BASE, 6);
	assert_int_equal(UT_REC_OFF(sized, n), 4);
	assert_int_equal(UT_REC_OFF(stack, n), 4);
	assert_int_equal(UT_REC_OFF(stack, ips), 6);
	assert_int_equal(UT_REC_OFF(data, text), 6);
	assert_int_equal(UT_REC_OFF(trace, ips), 6);
	assert_int_equal(UT_REC_OFF(event, entry), 6);
	assert_int_equal(UT_REC_OFF(trace_dir, dir), 6);
	assert_int_equal(UT_REC_OFF(trace_dir, ips), 8);
	assert_int_equal(UT_REC_LEN(trace_dir), 8);
	assert_int_equal(UT_REC_OFF(ctx, flags), 6);
	assert_int_equal(UT_REC_OFF(ctx, preempt), 7);
	assert_int_equal(UT_REC_OFF(ctx, task), 8);
	assert_int_equal(UT_REC_LEN(ctx), 8);
	/* a sized record's length counts from n's end, whatever its fixed fields */
	for (uint32_t t = 1; t < RB_TYPE_TIME_EXTEND; t++)
		if (ut_rec_info[t].unit)
			assert_int_equal(ut_rec_info[t].base, 6);
}

/*
 * The table of doc/design/ring-buffer.md, "Records": each row's type,
 * name, bytes ("10", "6 + 6n", "6 + n") and "counted" column must say
 * what entries.h says, and every listed type must have its row.
 */
static void test_doc_table(void **state)
{
	char line[512];
	int rows = 0, seen[16] = { 0 };
	FILE *f = fopen(UT_SRCDIR "/doc/design/ring-buffer.md", "r");

	(void)state;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[32], bytes[32], counted[8], *cell[6], *p = line;
		unsigned type, base, unit = 0;
		int k = 0;

		if (line[0] != '|' || !strchr("0123456789", line[2]))
			continue;
		/* | type | name | bytes | payload | counted | */
		while (k < 6 && (p = strchr(p, '|'))) {
			cell[k++] = ++p;
		}
		assert_int_equal(k, 6);
		assert_int_equal(sscanf(cell[0], "%u", &type), 1);
		assert_int_equal(sscanf(cell[1], "%31s", name), 1);
		assert_int_equal(sscanf(cell[4], "%7s", counted), 1);
		assert_true(sscanf(cell[2], "%u", &base) == 1);
		snprintf(bytes, sizeof(bytes), "%.*s", (int)(cell[3] - cell[2] - 1), cell[2]);
		if (strstr(bytes, "+ 6n"))
			unit = 6;
		else if (strstr(bytes, "+ n"))
			unit = 1;
		assert_true(type <= 15);
		assert_non_null(ut_rec_name(type));
		assert_string_equal(name, ut_rec_name(type));
		assert_int_equal(base, ut_rec_info[type].base);
		assert_int_equal(unit, ut_rec_info[type].unit);
		assert_int_equal(!strcmp(counted, "yes"), ut_rec_counts(type));
		seen[type]++;
		rows++;
	}
	fclose(f);
	for (unsigned t = 0; t < 16; t++)
		assert_int_equal(seen[t], ut_rec_name(t) ? 1 : 0);
	assert_int_equal(rows, 14);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_doc_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
