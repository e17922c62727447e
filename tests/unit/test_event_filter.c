// SPDX-License-Identifier: MIT
/*
 * test_event_filter.c - event filters (lib/event/evfilter.c): expressions
 * against a sample event with the expected result on two entries; bad
 * expressions with the kernel's texts; system filters; the glob; the
 * registry's programs (lib/event/registry.c).
 *
 * The error table was made on a 6.18 kernel: each expression written to
 * events/sched/sched_switch/filter, then the filter file, error_log (its
 * timestamp cut) and the write's errno read back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "lib/event/evfilter.h"
#include "usertrace/evreg.h"

/* ---- the kernel's sched_switch, for the error texts ---- */

static const struct ut_event_field ss_fields[] = {
	{ "char[16]", "prev_comm", 8, 16, 0, UT_FIELD_ARRAY, 16 },
	{ "pid_t", "prev_pid", 24, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "prev_prio", 28, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "long", "prev_state", 32, 8, 1, UT_FIELD_SCALAR, 0 },
	{ "char[16]", "next_comm", 40, 16, 0, UT_FIELD_ARRAY, 16 },
	{ "pid_t", "next_pid", 56, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "next_prio", 60, 4, 1, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_desc sched_switch = {
	UT_TP_ABI, 372, 64, "sched", "sched_switch", "\"\"", ss_fields, 7, 0,
};

/* sched_wakeup has no prev_pid */
static const struct ut_event_field sw_fields[] = {
	{ "char[16]", "comm", 8, 16, 0, UT_FIELD_ARRAY, 16 },
	{ "pid_t", "pid", 24, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "prio", 28, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "target_cpu", 32, 4, 1, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_desc sched_wakeup = {
	UT_TP_ABI, 370, 36, "sched", "sched_wakeup", "\"\"", sw_fields, 4, 0,
};

/* what the kernel answered: errno of the write, the filter file, error_log */
static const struct {
	const char *expr;
	int ret;
	const char *show, *errlog;
} kernel_errors[] = {
	{ "foo == 1", -22,
	  "foo == 1\n"
	  "    ^\n"
	  "parse_error: Field not found\n"
	  "\n",
	  "event filter parse error: error: Field not found\n"
	  "  Command: foo == 1\n"
	  "               ^\n" },
	{ "prev_pid = 1", -22,
	  "prev_pid = 1\n"
	  "          ^\n"
	  "parse_error: Invalid operator\n"
	  "\n",
	  "event filter parse error: error: Invalid operator\n"
	  "  Command: prev_pid = 1\n"
	  "                     ^\n" },
	{ "prev_pid == abc", -22,
	  "prev_pid == abc\n"
	  "             ^\n"
	  "parse_error: Invalid value (did you forget quotes)?\n"
	  "\n",
	  "event filter parse error: error: Invalid value (did you forget quotes)?\n"
	  "  Command: prev_pid == abc\n"
	  "                        ^\n" },
	{ "prev_pid == \"x\"", -22,
	  "prev_pid == \"x\"\n"
	  "             ^\n"
	  "parse_error: Expecting numeric field\n"
	  "\n",
	  "event filter parse error: error: Expecting numeric field\n"
	  "  Command: prev_pid == \"x\"\n"
	  "                        ^\n" },
	{ "prev_comm == 1", -22,
	  "prev_comm == 1\n"
	  "              ^\n"
	  "parse_error: Expecting string field\n"
	  "\n",
	  "event filter parse error: error: Expecting string field\n"
	  "  Command: prev_comm == 1\n"
	  "                         ^\n" },
	{ "prev_comm < \"a\"", -22,
	  "prev_comm < \"a\"\n"
	  "             ^\n"
	  "parse_error: Illegal operation for field type\n"
	  "\n",
	  "event filter parse error: error: Illegal operation for field type\n"
	  "  Command: prev_comm < \"a\"\n"
	  "                        ^\n" },
	{ "prev_pid ~ 1", -22,
	  "prev_pid ~ 1\n"
	  "            ^\n"
	  "parse_error: Illegal operation for field type\n"
	  "\n",
	  "event filter parse error: error: Illegal operation for field type\n"
	  "  Command: prev_pid ~ 1\n"
	  "                       ^\n" },
	{ "(prev_pid == 1", -2,
	  "(prev_pid == 1\n"
	  "^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: (prev_pid == 1\n"
	  "           ^\n" },
	{ "prev_pid == 1)", -1,
	  "prev_pid == 1)\n"
	  "             ^\n"
	  "parse_error: Too few '('\n"
	  "\n",
	  "event filter parse error: error: Too few '('\n"
	  "  Command: prev_pid == 1)\n"
	  "                        ^\n" },
	{ "prev_comm == \"abc", -3,
	  "prev_comm == \"abc\n"
	  "             ^\n"
	  "parse_error: Missing matching quote\n"
	  "\n",
	  "event filter parse error: error: Missing matching quote\n"
	  "  Command: prev_comm == \"abc\n"
	  "                        ^\n" },
	{ "()", -22,
	  "()\n"
	  "Error: (0)\n"
	  "\n",
	  "event filter parse error: error: Error\n"
	  "  Command: ()\n"
	  "           ^\n" },
	{ "&& prev_pid == 1", -1,
	  "&& prev_pid == 1\n"
	  "Error: (0)\n"
	  "\n",
	  "event filter parse error: error: Error\n"
	  "  Command: && prev_pid == 1\n"
	  "           ^\n" },
	{ "prev_pid == 1 || || next_pid == 2", -1,
	  "prev_pid == 1 || || next_pid == 2\n"
	  "Error: (0)\n"
	  "\n",
	  "event filter parse error: error: Error\n"
	  "  Command: prev_pid == 1 || || next_pid == 2\n"
	  "           ^\n" },
	{ "prev_pid == 1 next_pid == 2", -1,
	  "prev_pid == 1 next_pid == 2\n"
	  "              ^\n"
	  "parse_error: Too many terms in predicate expression\n"
	  "\n",
	  "event filter parse error: error: Too many terms in predicate expression\n"
	  "  Command: prev_pid == 1 next_pid == 2\n"
	  "                         ^\n" },
	{ "prev_pid == 1 & next_pid == 2", -1,
	  "prev_pid == 1 & next_pid == 2\n"
	  "              ^\n"
	  "parse_error: Too many terms in predicate expression\n"
	  "\n",
	  "event filter parse error: error: Too many terms in predicate expression\n"
	  "  Command: prev_pid == 1 & next_pid == 2\n"
	  "                         ^\n" },
	{ "prev_pid == 99999999999999999999", -22,
	  "prev_pid == 99999999999999999999\n"
	  "             ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_pid == 99999999999999999999\n"
	  "                        ^\n" },
	{ "common_type == -1", -22,
	  "common_type == -1\n"
	  "                ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: common_type == -1\n"
	  "                           ^\n" },
	{ "prev_pid == 1234567890123456789012345", -22,
	  "prev_pid == 1234567890123456789012345\n"
	  "                                     ^\n"
	  "parse_error: Operand too long\n"
	  "\n",
	  "event filter parse error: error: Operand too long\n"
	  "  Command: prev_pid == 1234567890123456789012345\n"
	  "                                                 ^\n" },
	{ "prev_pid", -22,
	  "prev_pid\n"
	  "        ^\n"
	  "parse_error: Invalid operator\n"
	  "\n",
	  "event filter parse error: error: Invalid operator\n"
	  "  Command: prev_pid\n"
	  "                    ^\n" },
	{ "prev_pid ==", -22,
	  "prev_pid ==\n"
	  "           ^\n"
	  "parse_error: Invalid value (did you forget quotes)?\n"
	  "\n",
	  "event filter parse error: error: Invalid value (did you forget quotes)?\n"
	  "  Command: prev_pid ==\n"
	  "                       ^\n" },
	{ "a == 1 && ( b == 2 )", -22,
	  "a == 1 && ( b == 2 )\n"
	  "  ^\n"
	  "parse_error: Field not found\n"
	  "\n",
	  "event filter parse error: error: Field not found\n"
	  "  Command: a == 1 && ( b == 2 )\n"
	  "             ^\n" },
	{ "prev_pid == 1 && ((next_pid == 2)", -2,
	  "prev_pid == 1 && ((next_pid == 2)\n"
	  "                 ^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: prev_pid == 1 && ((next_pid == 2)\n"
	  "                            ^\n" },
	{ "prev_pid == 1 && (next_pid == 2))", -1,
	  "prev_pid == 1 && (next_pid == 2))\n"
	  "                                ^\n"
	  "parse_error: Too few '('\n"
	  "\n",
	  "event filter parse error: error: Too few '('\n"
	  "  Command: prev_pid == 1 && (next_pid == 2))\n"
	  "                                           ^\n" },
	{ "prev_pid == 08", -22,
	  "prev_pid == 08\n"
	  "             ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_pid == 08\n"
	  "                        ^\n" },
	{ "prev_pid == 1a", -22,
	  "prev_pid == 1a\n"
	  "             ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_pid == 1a\n"
	  "                        ^\n" },
	{ "prev_pid == +1", -22,
	  "prev_pid == +1\n"
	  "             ^\n"
	  "parse_error: Invalid value (did you forget quotes)?\n"
	  "\n",
	  "event filter parse error: error: Invalid value (did you forget quotes)?\n"
	  "  Command: prev_pid == +1\n"
	  "                        ^\n" },
	{ "!=", -1,
	  "!=\n"
	  "Error: (0)\n"
	  "\n",
	  "event filter parse error: error: Error\n"
	  "  Command: !=\n"
	  "           ^\n" },
	{ "prev_pid == 1 ) || (", -1,
	  "prev_pid == 1 ) || (\n"
	  "              ^\n"
	  "parse_error: Too few '('\n"
	  "\n",
	  "event filter parse error: error: Too few '('\n"
	  "  Command: prev_pid == 1 ) || (\n"
	  "                         ^\n" },
	{ "prev_comm == \"x\" \"y\"", -1,
	  "prev_comm == \"x\" \"y\"\n"
	  "                 ^\n"
	  "parse_error: Too many terms in predicate expression\n"
	  "\n",
	  "event filter parse error: error: Too many terms in predicate expression\n"
	  "  Command: prev_comm == \"x\" \"y\"\n"
	  "                            ^\n" },
	{ "!", -22,
	  "!\n"
	  " ^\n"
	  "parse_error: No filter found\n"
	  "\n",
	  "event filter parse error: error: No filter found\n"
	  "  Command: !\n"
	  "            ^\n" },
	{ "((prev_pid == 1) || (next_pid == 2)) && (prev_prio < 0", -2,
	  "((prev_pid == 1) || (next_pid == 2)) && (prev_prio < 0\n"
	  "                                        ^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: ((prev_pid == 1) || (next_pid == 2)) && (prev_prio < 0\n"
	  "                                                   ^\n" },
	{ "prev_comm == \"a)\" && (next_pid == 1", -2,
	  "prev_comm == \"a)\" && (next_pid == 1\n"
	  "                     ^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: prev_comm == \"a)\" && (next_pid == 1\n"
	  "                                ^\n" },
	{ "prev_comm ~ \"x", -3,
	  "prev_comm ~ \"x\n"
	  "            ^\n"
	  "parse_error: Missing matching quote\n"
	  "\n",
	  "event filter parse error: error: Missing matching quote\n"
	  "  Command: prev_comm ~ \"x\n"
	  "                       ^\n" },
	{ "prev_pid == -", -22,
	  "prev_pid == -\n"
	  "             ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_pid == -\n"
	  "                        ^\n" },
	{ "prev_pid == 0x", -22,
	  "prev_pid == 0x\n"
	  "             ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_pid == 0x\n"
	  "                        ^\n" },
	{ "prev_state < -9223372036854775809", -22,
	  "prev_state < -9223372036854775809\n"
	  "              ^\n"
	  "parse_error: Illegal integer value\n"
	  "\n",
	  "event filter parse error: error: Illegal integer value\n"
	  "  Command: prev_state < -9223372036854775809\n"
	  "                         ^\n" },
	{ "prev_pid <> 1", -22,
	  "prev_pid <> 1\n"
	  "           ^\n"
	  "parse_error: Invalid value (did you forget quotes)?\n"
	  "\n",
	  "event filter parse error: error: Invalid value (did you forget quotes)?\n"
	  "  Command: prev_pid <> 1\n"
	  "                      ^\n" },
	{ "prev_pid =! 1", -22,
	  "prev_pid =! 1\n"
	  "          ^\n"
	  "parse_error: Invalid operator\n"
	  "\n",
	  "event filter parse error: error: Invalid operator\n"
	  "  Command: prev_pid =! 1\n"
	  "                     ^\n" },
	{ "(prev_pid == 1) next_pid == 2", -1,
	  "(prev_pid == 1) next_pid == 2\n"
	  "                ^\n"
	  "parse_error: Too many terms in predicate expression\n"
	  "\n",
	  "event filter parse error: error: Too many terms in predicate expression\n"
	  "  Command: (prev_pid == 1) next_pid == 2\n"
	  "                           ^\n" },
	{ "prev_pid == 1 && (", -2,
	  "prev_pid == 1 && (\n"
	  "                 ^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: prev_pid == 1 && (\n"
	  "                            ^\n" },
	{ "common_pid == 1 (", -2,
	  "common_pid == 1 (\n"
	  "                ^\n"
	  "parse_error: Too many '('\n"
	  "\n",
	  "event filter parse error: error: Too many '('\n"
	  "  Command: common_pid == 1 (\n"
	  "                           ^\n" },
	{ "x", -22,
	  "x\n"
	  " ^\n"
	  "parse_error: Field not found\n"
	  "\n",
	  "event filter parse error: error: Field not found\n"
	  "  Command: x\n"
	  "             ^\n" },
	{ "prev_pid == '1'", -22,
	  "prev_pid == '1'\n"
	  "             ^\n"
	  "parse_error: Expecting numeric field\n"
	  "\n",
	  "event filter parse error: error: Expecting numeric field\n"
	  "  Command: prev_pid == '1'\n"
	  "                        ^\n" },
	{ "prev_comm == 'it''s'", -1,
	  "prev_comm == 'it''s'\n"
	  "                 ^\n"
	  "parse_error: Too many terms in predicate expression\n"
	  "\n",
	  "event filter parse error: error: Too many terms in predicate expression\n"
	  "  Command: prev_comm == 'it''s'\n"
	  "                            ^\n" },
};

/* expressions the kernel took (the filter file then reads them back) */
static const char *const kernel_good[] = {
	"prev_pid == 1",
	"prev_pid  ==  1 && next_pid == 2",
	"prev_pid == 1 &&",
	"prev_pid == 0x10",
	"prev_pid == -5",
	"!prev_pid == 1",
	"!(prev_pid == 1 || next_pid == 2)",
	"prev_pid != 1 && !(next_pid == 2)",
	"prev_comm ~ \"*sh\"",
	"prev_comm ~ \"!bash\"",
	"cpu == 0",
	"comm == \"bash\"",
	"COMM ~ \"ba*\"",
	"CPU & 1",
	"stacktrace == 1",
	"common_cpu < 2",
	"prev_pid==1||next_pid==2&&prev_prio>3",
	"! prev_pid == 1",
	"prev_pid>=1&&prev_pid<=2",
	"prev_state & 2",
	"prev_comm == 'x'",
	"prev_pid == 1 && !",
	"prev_pid == 1 ||",
	"prev_pid == -9223372036854775808",
	"common_pid >= 0xffffffff",
	"common_flags == 0777",
	"prev_comm ~ \"a[b\"",
	"prev_comm == \"\"",
	"prev_pid == 1 && next_pid == 2 || prev_prio == 3 && next_prio == 4 || !(prev_state & 1)",
};

static struct ut_evfilter prog;

static void test_kernel_errors(void **state)
{
	char buf[2 * UT_EVF_TEXT_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(kernel_errors) / sizeof(kernel_errors[0]); i++) {
		struct ut_evf_error err;
		int ret = ut_evfilter_compile(&prog, kernel_errors[i].expr, &sched_switch, &err);

		if (ret != kernel_errors[i].ret)
			fail_msg("'%s': %d, expected %d", kernel_errors[i].expr, ret, kernel_errors[i].ret);
		assert_int_equal(err.ret, ret);
		ut_evfilter_show(buf, sizeof(buf), kernel_errors[i].expr, &err);
		assert_string_equal(buf, kernel_errors[i].show);
		ut_evfilter_errlog(buf, sizeof(buf), kernel_errors[i].expr, &err);
		assert_string_equal(buf, kernel_errors[i].errlog);
		/* a failed compile leaves no program: everything passes */
		assert_int_equal(ut_evfilter_match(&prog, buf, 64, NULL), 1);
	}
}

static void test_kernel_good(void **state)
{
	char buf[UT_EVF_TEXT_MAX + 2], want[UT_EVF_TEXT_MAX + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(kernel_good) / sizeof(kernel_good[0]); i++) {
		struct ut_evf_error err;

		if (ut_evfilter_compile(&prog, kernel_good[i], &sched_switch, &err))
			fail_msg("'%s': %s at %d", kernel_good[i], ut_evfilter_errmsg(err.code), err.pos);
		ut_evfilter_show(buf, sizeof(buf), kernel_good[i], NULL);
		snprintf(want, sizeof(want), "%s\n", kernel_good[i]);
		assert_string_equal(buf, want);
	}
	ut_evfilter_show(buf, sizeof(buf), NULL, NULL);
	assert_string_equal(buf, "none\n");
}

/* ---- a sample event with every kind of field ---- */

struct raw_mix {
	struct ut_trace_entry ent;
	int i;				/* 8 */
	unsigned short us;		/* 12 */
	char c;				/* 14: signed */
	unsigned char uc;		/* 15 */
	unsigned long ul;		/* 16 */
	long l;				/* 24 */
	char name[16];			/* 32 */
	uint32_t path;			/* 48: __data_loc char[] */
	unsigned int u;			/* 52 */
	const char *ptr;		/* 56 */
	void *vp;			/* 64 */
	char data[32];			/* 72: the dynamic part */
};

static const struct ut_event_field mix_fields[] = {
	{ "int", "i", offsetof(struct raw_mix, i), 4, 1, UT_FIELD_SCALAR, 0 },
	{ "unsigned short", "us", offsetof(struct raw_mix, us), 2, 0, UT_FIELD_SCALAR, 0 },
	{ "char", "c", offsetof(struct raw_mix, c), 1, 1, UT_FIELD_SCALAR, 0 },
	{ "unsigned char", "uc", offsetof(struct raw_mix, uc), 1, 0, UT_FIELD_SCALAR, 0 },
	{ "unsigned long", "ul", offsetof(struct raw_mix, ul), 8, 0, UT_FIELD_SCALAR, 0 },
	{ "long", "l", offsetof(struct raw_mix, l), 8, 1, UT_FIELD_SCALAR, 0 },
	{ "char[16]", "name", offsetof(struct raw_mix, name), 16, 0, UT_FIELD_ARRAY, 16 },
	{ "__data_loc char[]", "path", offsetof(struct raw_mix, path), 4, 0, UT_FIELD_DATA_LOC, 0 },
	{ "unsigned int", "u", offsetof(struct raw_mix, u), 4, 0, UT_FIELD_SCALAR, 0 },
	{ "const char *", "ptr", offsetof(struct raw_mix, ptr), 8, 0, UT_FIELD_SCALAR, 0 },
	{ "void *", "vp", offsetof(struct raw_mix, vp), 8, 0, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_desc mix = {
	UT_TP_ABI, 0, offsetof(struct raw_mix, data), "sample", "mix", "\"\"", mix_fields, 11, 0,
};

static const char hello[] = "hello world";

static void make_entry(struct raw_mix *e, int pid, const char *name, const char *path)
{
	size_t n = strlen(path) + 1;

	memset(e, 0, sizeof(*e));
	e->ent.type = 1000;
	e->ent.pid = pid;
	strcpy(e->name, name);
	memcpy(e->data, path, n);
	e->path = (uint32_t)(n << 16 | offsetof(struct raw_mix, data));
}

/* the string at @addr: only `hello` can be read */
static long read_str(uint64_t addr, char *buf, size_t size)
{
	if (addr != (uintptr_t)hello || size <= strlen(hello))
		return -1;
	strcpy(buf, hello);
	return (long)strlen(hello);
}

static const struct {
	const char *expr;
	int a, b;		/* the result on entry A, on entry B */
} mix_table[] = {
	{ "i == -5", 1, 0 },
	{ "i < 0", 1, 0 },
	{ "i >= 42", 0, 1 },
	{ "i != -5", 0, 1 },
	{ "us == 65535", 1, 0 },
	{ "us > 1000", 1, 0 },
	{ "us <= 1", 0, 1 },
	{ "c < 0", 1, 0 },
	{ "c == 65", 0, 1 },
	{ "uc > 100", 1, 0 },
	{ "ul & 0x1000", 1, 1 },
	{ "ul == 0xffffffffffffffff", 0, 1 },
	{ "ul > 010", 1, 1 },
	{ "l < -1000", 1, 0 },
	{ "l == -9000000000000000000", 1, 0 },
	{ "u & 1", 1, 0 },
	{ "u == 7 && us == 65535", 1, 0 },
	{ "u == 7 || i == 42", 1, 1 },
	{ "!(u == 7)", 0, 1 },
	{ "!u == 7", 0, 1 },
	{ "!!(u == 7)", 1, 0 },
	/* && binds tighter than || */
	{ "i == 42 || u == 7 && us == 65535", 1, 1 },
	{ "(i == 42 || u == 7) && us == 65535", 1, 0 },
	{ "!(i == 42 || u == 7) || c == 65", 0, 1 },
	{ "u == 7 && (i == 1 || (us == 65535 && !(c == 65)))", 1, 0 },
	/* a trailing operator is ignored, as the kernel does */
	{ "u == 7 &&", 1, 0 },
	{ "u == 7 ||", 1, 0 },
	/* char arrays */
	{ "name == \"swapper/0\"", 1, 0 },
	{ "name == 'bash'", 0, 1 },
	{ "name != \"bash\"", 1, 0 },
	{ "name == \"swapper/0*\"", 0, 0 },
	{ "name ~ \"swap*\"", 1, 0 },
	{ "name ~ \"*wapper/0*\"", 1, 0 },
	/* the kernel compares "*x" with the end of the array, not of the string */
	{ "name ~ \"*per/0\"", 0, 0 },
	{ "name ~ \"swap?er/0\"", 1, 0 },
	{ "name ~ \"swap[a-q]er/0\"", 1, 0 },
	{ "name ~ \"swap[!a-q]er/0\"", 0, 0 },
	{ "name ~ \"!bash\"", 1, 0 },
	{ "name ~ \"*\"", 1, 1 },
	/* __data_loc strings */
	{ "path ~ \"*bash\"", 1, 0 },
	{ "path ~ \"/tmp/*\"", 0, 1 },
	{ "path == \"/tmp/x\"", 0, 1 },
	{ "path ~ \"*bin*\"", 1, 0 },
	{ "path ~ \"/usr/[a-c]in/*\"", 1, 0 },
	{ "path ~ \"/usr/\\bin/b?sh\"", 1, 0 },
	/* char *, read through the context; void * is a number */
	{ "ptr == \"hello world\"", 1, 0 },
	{ "ptr ~ \"hello*\"", 1, 0 },
	{ "vp == 0xdeadbeef", 1, 0 },
	/* common and generic fields */
	{ "common_pid == 100", 1, 0 },
	{ "common_pid > 150", 0, 1 },
	{ "common_type == 1000 && common_flags == 0", 1, 1 },
	{ "cpu == 3", 1, 0 },
	{ "CPU >= 1", 1, 1 },
	{ "common_cpu & 1", 0, 0 },
	{ "comm == \"bash\"", 1, 0 },
	{ "COMM ~ \"w*\"", 0, 1 },
	{ "stacktrace == 0", 0, 0 },
};

static void test_mix(void **state)
{
	struct raw_mix a, b;
	struct ut_evf_ctx ca = { 3, "bash", read_str }, cb = { 1, "worker", read_str };

	(void)state;
	make_entry(&a, 100, "swapper/0", "/usr/bin/bash");
	a.i = -5;
	a.us = 65535;
	a.c = -1;
	a.uc = 200;
	a.ul = 0x1000;
	a.l = -9000000000000000000;
	a.u = 7;
	a.ptr = hello;
	a.vp = (void *)0xdeadbeef;
	make_entry(&b, 200, "bash", "/tmp/x");
	b.i = 42;
	b.us = 1;
	b.c = 65;
	b.uc = 1;
	b.ul = ~0ul;
	b.l = 5;
	for (size_t i = 0; i < sizeof(mix_table) / sizeof(mix_table[0]); i++) {
		struct ut_evf_error err;
		int ra, rb;

		if (ut_evfilter_compile(&prog, mix_table[i].expr, &mix, &err))
			fail_msg("'%s': %s at %d", mix_table[i].expr, ut_evfilter_errmsg(err.code), err.pos);
		ra = ut_evfilter_match(&prog, &a, sizeof(a), &ca);
		rb = ut_evfilter_match(&prog, &b, sizeof(b), &cb);
		if (ra != mix_table[i].a || rb != mix_table[i].b)
			fail_msg("'%s': %d %d, expected %d %d", mix_table[i].expr, ra, rb,
				 mix_table[i].a, mix_table[i].b);
	}
	/* an entry too short for the field: the predicate is false */
	assert_int_equal(ut_evfilter_compile(&prog, "u == 7", &mix, &(struct ut_evf_error){ 0 }), 0);
	assert_int_equal(ut_evfilter_match(&prog, &a, offsetof(struct raw_mix, u), &ca), 0);
	/* a data_loc past the entry: false */
	assert_int_equal(ut_evfilter_compile(&prog, "path ~ \"*\"", &mix, &(struct ut_evf_error){ 0 }), 0);
	a.path = 0xffff0048;
	assert_int_equal(ut_evfilter_match(&prog, &a, sizeof(a), &ca), 0);
	/* without a context, context fields are false */
	assert_int_equal(ut_evfilter_compile(&prog, "comm ~ \"*\"", &mix, &(struct ut_evf_error){ 0 }), 0);
	assert_int_equal(prog.needs, UT_EVF_NEED_COMM);
	assert_int_equal(ut_evfilter_match(&prog, &a, sizeof(a), NULL), 0);
}

/* errors that need field types sched_switch has not */
static void test_mix_errors(void **state)
{
	static const struct {
		const char *expr;
		int code, pos;
	} t[] = {
		{ "us == -1", UT_EVF_ERR_ILLEGAL_INTVAL, 7 },
		{ "uc == 0x", UT_EVF_ERR_ILLEGAL_INTVAL, 7 },
		{ "l == 9223372036854775808", UT_EVF_ERR_ILLEGAL_INTVAL, 6 },
		{ "vp ~ \"x\"", UT_EVF_ERR_EXPECT_DIGIT, 6 },
		{ "ptr > \"x\"", UT_EVF_ERR_ILLEGAL_FIELD_OP, 7 },
		{ "path == 1", UT_EVF_ERR_EXPECT_STRING, 9 },
		{ "comm & 1", UT_EVF_ERR_EXPECT_STRING, 8 },
		{ "i.function == 1", UT_EVF_ERR_INVALID_OP, 2 },
		{ "cpu == CPUS{1}", UT_EVF_ERR_INVALID_VALUE, 8 },
	};
	struct ut_evf_error err;
	char text[UT_EVF_TEXT_MAX + 8];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(ut_evfilter_compile(&prog, t[i].expr, &mix, &err), -EINVAL);
		if (err.code != t[i].code || err.pos != t[i].pos)
			fail_msg("'%s': %s at %d", t[i].expr, ut_evfilter_errmsg(err.code), err.pos);
	}
	/* a string operand of 256 bytes is too long; 255 is not */
	snprintf(text, sizeof(text), "name == \"%0255d\"", 0);
	assert_int_equal(ut_evfilter_compile(&prog, text, &mix, &err), 0);
	snprintf(text, sizeof(text), "name == \"%0256d\"", 0);
	assert_int_equal(ut_evfilter_compile(&prog, text, &mix, &err), -EINVAL);
	assert_int_equal(err.code, UT_EVF_ERR_OPERAND_TOO_LONG);
	/* the longest text: as many terms as it holds */
	text[0] = 0;
	while (strlen(text) + 5 < UT_EVF_TEXT_MAX)
		strcat(text, text[0] ? "||u<1" : "u<1");
	assert_int_equal(ut_evfilter_compile(&prog, text, &mix, &err), 0);
	assert_true(prog.n > 800);
	strcat(text, "||u<1");
	assert_int_equal(ut_evfilter_compile(&prog, text, &mix, &err), -EINVAL);
}

/* the program of the header's example */
static void test_program(void **state)
{
	static const struct ut_event_field f[] = {
		{ "int", "a", 8, 4, 1, UT_FIELD_SCALAR, 0 },
		{ "int", "b", 12, 4, 1, UT_FIELD_SCALAR, 0 },
		{ "int", "c", 16, 4, 1, UT_FIELD_SCALAR, 0 },
	};
	static const struct ut_event_desc d = { UT_TP_ABI, 0, 20, "s", "abc", "\"\"", f, 3, 0 };
	struct ut_evf_error err;

	(void)state;
	assert_int_equal(ut_evfilter_compile(&prog, "a == 1 || b == 2 && !(c == 3)", &d, &err), 0);
	assert_int_equal(prog.n, 3);
	assert_int_equal(prog.preds[0].next[0], 1);
	assert_int_equal(prog.preds[0].next[1], 3);
	assert_int_equal(prog.preds[1].next[0], 4);
	assert_int_equal(prog.preds[1].next[1], 2);
	assert_int_equal(prog.preds[2].next[0], 3);
	assert_int_equal(prog.preds[2].next[1], 4);
	/* a backward jump (a corrupt program) lets entries pass */
	prog.preds[1].next[0] = 0;
	assert_int_equal(ut_evfilter_match(&prog, (char[20]){ 0 }, 20, NULL), 1);
}

static void test_glob(void **state)
{
	(void)state;
	assert_true(ut_evf_glob("a*c", "abbbc", 5));
	assert_true(ut_evf_glob("a*c", "ac", 2));
	assert_false(ut_evf_glob("a*c", "abcd", 4));
	assert_true(ut_evf_glob("*a*b*", "xxaxxbxx", 8));
	assert_true(ut_evf_glob("[]]x", "]x", 2));
	assert_true(ut_evf_glob("[!a-c]x", "dx", 2));
	assert_false(ut_evf_glob("[!a-c]x", "bx", 2));
	assert_true(ut_evf_glob("a[b", "a[b", 3));		/* no ']': a '[' */
	assert_true(ut_evf_glob("\\*", "*", 1));
	assert_false(ut_evf_glob("\\*", "x", 1));
	assert_false(ut_evf_glob("?", "", 0));
	assert_true(ut_evf_glob("ab*", "abcdef", 2));		/* the string ends at @len */
	assert_false(ut_evf_glob("abc", "abcdef", 2));
}

static void test_system(void **state)
{
	const struct ut_event_desc *descs[] = { &sched_switch, &sched_wakeup };
	struct ut_evfilter *progs = calloc(2, sizeof(*progs));
	struct ut_evf_error errs[2], sys;
	int ok[2];
	char buf[512];

	(void)state;
	assert_int_equal(ut_evfilter_compile_system("prev_pid == 1", descs, 2, progs, errs, ok, &sys), 0);
	assert_int_equal(ok[0], 1);
	assert_int_equal(ok[1], 0);
	ut_evfilter_show(buf, sizeof(buf), "prev_pid == 1", &errs[1]);
	assert_string_equal(buf, "prev_pid == 1\n^\n"
			    "parse_error: Couldn't find or set field in one of a subsystem's events\n\n");
	ut_evfilter_errlog(buf, sizeof(buf), "prev_pid == 1", &errs[1]);
	assert_string_equal(buf, "event filter parse error: error: Couldn't find or set field in one "
			    "of a subsystem's events\n  Command: prev_pid == 1\n           ^\n");
	/* a syntax error: every event fails, the write still succeeds */
	assert_int_equal(ut_evfilter_compile_system("(common_pid == 1", descs, 2, progs, errs, ok, &sys), 0);
	assert_int_equal(ok[0] + ok[1], 0);
	assert_int_equal(errs[0].code, UT_EVF_ERR_BAD_SUBSYS_FILTER);
	assert_int_equal(errs[0].pos, 0);
	assert_int_equal(ut_evfilter_compile_system("common_pid == 1", descs, 2, progs, errs, ok, &sys), 0);
	assert_int_equal(ok[0] + ok[1], 2);
	/* a system without events */
	assert_int_equal(ut_evfilter_compile_system("common_pid == 1", descs, 0, progs, errs, ok, &sys),
			 -EINVAL);
	assert_int_equal(sys.code, UT_EVF_ERR_BAD_SUBSYS_FILTER);
	assert_string_equal(ut_evfilter_system_default,
			    "### global filter ###\n"
			    "# Use this to set filters for multiple events.\n"
			    "# Only events with the given fields will be affected.\n"
			    "# If no events are modified, an error message will be displayed here\n");
	free(progs);
}

/* record -f before the events are known: the expression alone */
static void test_alone(void **state)
{
	struct ut_evf_error err;
	char t1[] = "  0 \n", t2[] = "a == 1 \n";

	(void)state;
	assert_int_equal(ut_evfilter_compile(&prog, "foo == 1 && bar ~ \"x*\" || !(baz & 4)", NULL, &err), 0);
	assert_int_equal(ut_evfilter_compile(&prog, "common_pid == \"x\"", NULL, &err), -EINVAL);
	assert_int_equal(err.code, UT_EVF_ERR_EXPECT_DIGIT);
	assert_int_equal(ut_evfilter_compile(&prog, "foo == abc", NULL, &err), -EINVAL);
	assert_int_equal(err.code, UT_EVF_ERR_INVALID_VALUE);
	assert_int_equal(ut_evfilter_compile(&prog, "foo < \"x\"", NULL, &err), -EINVAL);
	assert_int_equal(err.code, UT_EVF_ERR_ILLEGAL_FIELD_OP);
	assert_int_equal(ut_evfilter_compile(&prog, "foo ~ 1", NULL, &err), -EINVAL);
	assert_int_equal(err.code, UT_EVF_ERR_ILLEGAL_FIELD_OP);
	/* what the tracing directory does with a write first */
	assert_int_equal(ut_evfilter_prepare(t1), 1);
	assert_int_equal(ut_evfilter_prepare(t2), 0);
	assert_string_equal(t2, "a == 1");
}

/* ---- the registry's programs ---- */

struct raw_req {
	struct ut_trace_entry ent;
	int id;
};

static const struct ut_event_field req_fields[] = {
	{ "int", "id", offsetof(struct raw_req, id), 4, 1, UT_FIELD_SCALAR, 0 },
};

static struct ut_evreg *new_reg(void)
{
	struct ut_evreg *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(r != MAP_FAILED);
	assert_int_equal(ut_evreg_init(r), 0);
	return r;
}

static void test_registry(void **state)
{
	struct ut_evreg *r = new_reg();
	struct ut_event_desc req = { UT_TP_ABI, 0, sizeof(struct raw_req), "app", "req", "\"\"",
				     req_fields, 1, 0 };
	struct ut_event_desc tick = { UT_TP_ABI, 0, 8, "app", "tick", "\"\"", NULL, 0, 0 };
	struct raw_req e7 = { { 1000, 0, 0, 1 }, 7 }, e8 = { { 1000, 0, 0, 1 }, 8 };
	struct ut_evf_ctx ctx = { 0, NULL, NULL };
	struct ut_evf_error err;
	char names[UT_EVREG_PROGS + 1][16];
	int s;

	(void)state;
	strcpy(r->patterns, "app:*");
	assert_int_equal(ut_evreg_add_filter(r, "app:*", "id == 8"), 0);
	assert_string_equal(ut_evreg_filter_text(r, "app", "req"), "id == 8");
	assert_null(ut_evreg_filter_text(r, "other", "req"));
	/* registration compiles it; an event without the field is not recorded */
	assert_int_equal(ut_evreg_register(r, &req), 0);
	assert_int_equal(r->slots[0].state, UT_EVS_RECORD);
	assert_int_not_equal(r->slots[0].filter, 0);
	assert_int_equal(ut_evreg_filter_match(r, 0, &e7, sizeof(e7), &ctx, NULL), 0);
	assert_int_equal(ut_evreg_filter_match(r, 0, &e8, sizeof(e8), &ctx, NULL), 1);
	assert_int_equal(ut_evreg_register(r, &tick), 1);
	assert_int_equal(r->slots[1].state, UT_EVS_FILTER_ERR);
	assert_int_equal(r->slots[1].filter, 0);
	/* set, replace, clear */
	assert_int_equal(ut_evfilter_compile(&prog, "id < 8", &req, &err), 0);
	assert_int_equal(ut_evreg_set_filter(r, 0, &prog), 0);
	assert_int_equal(ut_evreg_filter_match(r, 0, &e7, sizeof(e7), &ctx, NULL), 1);
	assert_int_equal(ut_evreg_filter_match(r, 0, &e8, sizeof(e8), &ctx, NULL), 0);
	assert_int_equal(ut_evreg_set_filter(r, 0, NULL), 0);
	assert_int_equal(r->slots[0].filter, 0);
	assert_int_equal(ut_evreg_filter_match(r, 0, &e8, sizeof(e8), &ctx, NULL), 1);
	assert_int_equal(ut_evreg_set_filter(r, 5, &prog), -EINVAL);
	/* a program being written (odd count): entries pass */
	assert_int_equal(ut_evreg_set_filter(r, 0, &prog), 0);
	r->progs[r->slots[0].filter - 1].seq |= 1;
	assert_int_equal(ut_evreg_filter_match(r, 0, &e8, sizeof(e8), &ctx, NULL), 1);
	r->progs[r->slots[0].filter - 1].seq++;
	assert_int_equal(ut_evreg_filter_match(r, 0, &e8, sizeof(e8), &ctx, NULL), 0);
	/* every program in use */
	for (int i = 0; i <= UT_EVREG_PROGS; i++) {
		struct ut_event_desc d = req;

		snprintf(names[i], sizeof(names[i]), "e%d", i);
		d.system = "other";
		d.name = names[i];
		s = ut_evreg_register(r, &d);
		assert_true(s >= 2);
		if (i < UT_EVREG_PROGS - 1)
			assert_int_equal(ut_evreg_set_filter(r, (uint32_t)s, &prog), 0);
	}
	assert_int_equal(ut_evreg_set_filter(r, (uint32_t)s, &prog), -ENOSPC);
	munmap(r, sizeof(*r));
}

/*
 * A flexible char[] at the entry's end (ftrace:print's buf, whose size
 * the format gives as 0): a string to the end of the entry, as the
 * kernel's print trigger filter reads it.
 */
static void test_flex_string(void **state)
{
	static const struct ut_event_field fields[] = {
		{ "unsigned long", "ip", 8, 8, 0, UT_FIELD_SCALAR, 0 },
		{ "char[]", "buf", 16, 0, 1, UT_FIELD_ARRAY, 0 },
	};
	static const struct ut_event_desc print = {
		UT_TP_ABI, 5, 16, "ftrace", "print", "\"%s\", REC->buf", fields, 2, 0,
	};
	struct ut_evf_error err = { 0, 0, 0 };
	struct ut_evfilter prog;
	unsigned char e[64];

	(void)state;
	memset(e, 0, sizeof(e));
	strcpy((char *)e + 16, "please stop now");
	assert_int_equal(ut_evfilter_compile(&prog, "buf ~ \"*stop*\"", &print, &err), 0);
	assert_true(ut_evfilter_match(&prog, e, 16 + 16, NULL));
	assert_false(ut_evfilter_match(&prog, e, 16 + 7, NULL));	/* cut before "stop" */
	strcpy((char *)e + 16, "go on");
	assert_false(ut_evfilter_match(&prog, e, 16 + 6, NULL));
	assert_int_equal(ut_evfilter_compile(&prog, "buf == \"go on\"", &print, &err), 0);
	assert_true(ut_evfilter_match(&prog, e, 16 + 6, NULL));
	/* no text at all */
	assert_false(ut_evfilter_match(&prog, e, 16, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_errors),
		cmocka_unit_test(test_kernel_good),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_mix_errors),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_system),
		cmocka_unit_test(test_alone),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_flex_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
