// SPDX-License-Identifier: MIT
/*
 * test_callstack.c - reader/callstack.c, the one per-thread call stack of
 * report, folded stacks, the slice exports and the replay output: events
 * as the decoder gives them, and what each did to the stack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "reader/callstack.h"

#define MAIN	0x1000
#define A	0x2000
#define B	0x3000
#define C	0x4000

static struct ut_event ev(enum ut_ev_type type, uint32_t depth, uint64_t ts, uint64_t ip)
{
	return (struct ut_event){ .type = type, .depth = depth, .ts = ts, .ip = ip, .image = 7 };
}

static void entry(struct ut_callstack *cs, uint32_t depth, uint64_t ts, uint64_t ip,
		  struct ut_cs_change *c)
{
	struct ut_event e = ev(UT_EV_ENTRY, depth, ts, ip);

	ut_callstack_event(cs, &e, c);
}

static void exit_(struct ut_callstack *cs, uint32_t depth, uint64_t ts, struct ut_cs_change *c)
{
	struct ut_event e = ev(UT_EV_EXIT, depth, ts, 0);

	ut_callstack_event(cs, &e, c);
}

/* main { a { b } c } : each exit its duration, self time, its caller's child time */
static void test_nesting(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;

	(void)state;
	ut_callstack_init(&cs, 0, 0);
	entry(&cs, 0, 100, MAIN, &c);
	assert_int_equal(c.added, 0);
	assert_int_equal(cs.sp, 1);
	entry(&cs, 1, 110, A, &c);
	entry(&cs, 2, 120, B, &c);
	assert_int_equal(cs.sp, 3);
	assert_int_equal(ut_callstack_top(&cs)->ip, B);
	assert_int_equal(ut_callstack_at(&cs, 1)->ip, A);
	assert_null(ut_callstack_at(&cs, 3));

	exit_(&cs, 2, 150, &c);		/* b: 30 ns, all its own */
	assert_true(c.matched);
	assert_int_equal(c.nended, 1);
	assert_int_equal(c.ended[0].ip, B);
	assert_int_equal(c.dur, 30);
	assert_int_equal(c.self, 30);
	exit_(&cs, 1, 170, &c);		/* a: 60 ns, 30 in b */
	assert_int_equal(c.ended[0].ip, A);
	assert_int_equal(c.dur, 60);
	assert_int_equal(c.self, 30);
	entry(&cs, 1, 180, C, &c);
	assert_int_equal(c.added, 1);
	exit_(&cs, 1, 190, &c);		/* c: 10 */
	exit_(&cs, 0, 200, &c);		/* main: 100, 70 in a and c */
	assert_int_equal(c.ended[0].ip, MAIN);
	assert_int_equal(c.dur, 100);
	assert_int_equal(c.self, 30);
	assert_int_equal(cs.sp, 0);
	assert_int_equal(cs.orphans, 0);
	assert_int_equal(cs.last_ts, 200);
	ut_callstack_free(&cs);
}

/*
 * Tracing began inside main and a (a forked child, a flight recording):
 * the first events are exits with no frame, then an entry deeper than the
 * stack, whose callers are frames not seen (ip 0), running since it.
 */
static void test_exit_without_entry(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;

	(void)state;
	ut_callstack_init(&cs, 0, 0);
	exit_(&cs, 1, 100, &c);
	assert_true(c.orphan);
	assert_false(c.matched);
	assert_int_equal(c.nended, 0);
	assert_int_equal(cs.orphans, 1);

	entry(&cs, 2, 200, B, &c);
	assert_int_equal(c.added, 0);	/* frames 0 and 1 added unseen, then b */
	assert_int_equal(cs.sp, 3);
	assert_false(cs.f[0].seen);
	assert_int_equal(cs.f[0].ip, 0);
	assert_int_equal(cs.f[1].ts, 200);
	assert_true(cs.f[2].seen);
	exit_(&cs, 2, 230, &c);
	assert_int_equal(c.dur, 30);
	exit_(&cs, 1, 260, &c);		/* an unseen frame: known to run since 200 */
	assert_true(c.matched);
	assert_false(c.ended[0].seen);
	assert_int_equal(c.dur, 60);
	assert_int_equal(c.self, 30);
	assert_int_equal(cs.orphans, 1);
	ut_callstack_free(&cs);
}

/*
 * Records lost inside a: the stream restates 1 open call (DEPTH), so a
 * and b ended unseen, their returns lost.  With UT_CS_LOSS_NOT_OWN the
 * lost range (from the event before the loss) and a's time up to the
 * restatement are not main's own time.
 */
static void test_lost(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;
	struct ut_event e;

	(void)state;
	ut_callstack_init(&cs, 0, UT_CS_LOSS_NOT_OWN);
	entry(&cs, 0, 100, MAIN, &c);
	entry(&cs, 1, 200, A, &c);
	entry(&cs, 2, 250, B, &c);
	e = ev(UT_EV_LOST, 0, 300, 0);
	e.count = 42;
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(cs.lost_events, 42);
	assert_int_equal(cs.lost_ranges, 1);
	assert_int_equal(cs.lost_time, 50);	/* from b's entry, the event before */
	assert_int_equal(cs.sp, 3);		/* nothing known ended yet */

	e = ev(UT_EV_DEPTH, 1, 400, 0);
	e.count = 3;
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.nended, 2);		/* a, then b */
	assert_int_equal(c.ended[0].ip, A);
	assert_int_equal(c.ended[1].ip, B);
	assert_true(c.ended[0].seen);
	assert_int_equal(cs.sp, 1);
	/* main's time from a's entry to the restatement is not its own */
	assert_int_equal(cs.f[0].child, 200);

	exit_(&cs, 0, 500, &c);
	assert_int_equal(c.dur, 400);
	assert_int_equal(c.self, 200);
	ut_callstack_free(&cs);

	/* without the flag the range is main's but a's time is not */
	ut_callstack_init(&cs, 0, 0);
	entry(&cs, 0, 100, MAIN, &c);
	e = ev(UT_EV_LOST, 0, 300, 0);
	e.count = 1;
	ut_callstack_event(&cs, &e, &c);
	entry(&cs, 1, 350, A, &c);
	exit_(&cs, 0, 500, &c);			/* a's return lost: it ends here unseen */
	assert_int_equal(c.nended, 2);
	assert_int_equal(c.ended[1].ip, A);
	assert_int_equal(c.dur, 400);
	assert_int_equal(c.self, 400 - 150);
	assert_int_equal(cs.lost_time, 200);
	ut_callstack_free(&cs);
}

/*
 * tracing_thresh: whole calls at their return, innermost first.  b
 * (depth 2) is a callee of a (depth 1): a's self time leaves it out; a
 * is a callee of the open entry of main below it.
 */
static void test_threshold(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;
	struct ut_event e;

	(void)state;
	ut_callstack_init(&cs, 0, 0);
	entry(&cs, 0, 100, MAIN, &c);
	e = ev(UT_EV_RETURN, 2, 300, B);
	e.duration = 50;			/* 250..300 */
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.dur, 50);
	assert_int_equal(c.self, 50);
	assert_int_equal(cs.sp, 1);		/* no frame opened */
	assert_int_equal(cs.f[0].child, 0);	/* not main's callee: a is */
	e = ev(UT_EV_RETURN, 1, 400, A);
	e.duration = 200;			/* 200..400 */
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.dur, 200);
	assert_int_equal(c.self, 150);
	assert_int_equal(cs.f[0].child, 200);
	exit_(&cs, 0, 500, &c);
	assert_int_equal(c.self, 200);

	/* a callee that began before the caller's entry is an earlier call's (lost return) */
	e = ev(UT_EV_RETURN, 2, 1100, B);
	e.duration = 100;			/* 1000..1100 */
	ut_callstack_event(&cs, &e, &c);
	e = ev(UT_EV_RETURN, 1, 1300, A);
	e.duration = 100;			/* 1200..1300 */
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.self, 100);

	/* a loss in between: the callees before it are not told apart */
	e = ev(UT_EV_RETURN, 2, 2100, B);
	e.duration = 10;
	ut_callstack_event(&cs, &e, &c);
	e = ev(UT_EV_LOST, 0, 2150, 0);
	ut_callstack_event(&cs, &e, &c);
	e = ev(UT_EV_RETURN, 1, 2200, A);
	e.duration = 1000;
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.self, 1000);
	ut_callstack_free(&cs);
}

/*
 * longjmp from c (depth 3) back into main: the runtime writes one EXIT
 * per frame left, innermost first; an EXIT of an outer frame whose inner
 * ones' EXITs did not come closes them too, innermost last in the list.
 */
static void test_longjmp(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;

	(void)state;
	ut_callstack_init(&cs, 0, 0);
	entry(&cs, 0, 100, MAIN, &c);
	entry(&cs, 1, 110, A, &c);
	entry(&cs, 2, 120, B, &c);
	entry(&cs, 3, 130, C, &c);
	/* the unwind as written: c, b, a at the same time */
	exit_(&cs, 3, 200, &c);
	assert_int_equal(c.ended[0].ip, C);
	exit_(&cs, 2, 200, &c);
	assert_int_equal(c.ended[0].ip, B);
	assert_int_equal(c.self, 80 - 70);
	exit_(&cs, 1, 200, &c);
	assert_int_equal(c.ended[0].ip, A);
	assert_int_equal(c.dur, 90);
	assert_int_equal(cs.sp, 1);
	/* the next call is at main's depth + 1 */
	entry(&cs, 1, 210, B, &c);
	assert_int_equal(c.nended, 0);
	assert_int_equal(cs.sp, 2);

	/* an exception past three frames whose EXITs are missing: one EXIT closes them */
	entry(&cs, 2, 220, C, &c);
	entry(&cs, 3, 230, A, &c);
	exit_(&cs, 1, 300, &c);
	assert_true(c.matched);
	assert_int_equal(c.nended, 3);
	assert_int_equal(c.ended[0].ip, B);	/* its own frame first */
	assert_int_equal(c.ended[1].ip, C);
	assert_int_equal(c.ended[2].ip, A);
	assert_int_equal(c.dur, 90);
	assert_int_equal(c.self, 10);		/* 80 in c and a, ended unseen */
	assert_int_equal(cs.sp, 1);
	assert_int_equal(cs.f[0].child, 90 + 90);
	ut_callstack_free(&cs);
}

/* frames past the limit are not kept: counted, and they pair with nothing */
static void test_depth_overflow(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;
	struct ut_event e;

	(void)state;
	ut_callstack_init(&cs, 4, 0);
	for (uint32_t d = 0; d < 6; d++)
		entry(&cs, d, 100 + d, A + d, &c);
	assert_int_equal(cs.sp, 4);
	assert_int_equal(cs.too_deep, 2);
	exit_(&cs, 5, 200, &c);
	exit_(&cs, 4, 201, &c);
	assert_false(c.matched);
	assert_false(c.orphan);
	assert_int_equal(cs.too_deep, 4);
	exit_(&cs, 3, 202, &c);
	assert_true(c.matched);
	assert_int_equal(c.ended[0].ip, A + 3);
	assert_int_equal(c.dur, 99);
	/* a restatement past the limit keeps the limit */
	e = ev(UT_EV_DEPTH, 1000000, 300, 0);
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(cs.sp, 4);
	assert_int_equal(c.added, 3);
	ut_callstack_free(&cs);

	/* the default limit is the decoder's */
	ut_callstack_init(&cs, 0, 0);
	assert_int_equal(cs.max, UT_STREAM_MAX_OPEN);
	entry(&cs, UT_STREAM_MAX_OPEN, 1, A, &c);
	assert_int_equal(cs.sp, 0);
	assert_int_equal(cs.too_deep, 1);
	ut_callstack_free(&cs);
}

/* input no recording should give: no crash, no time below zero, nothing invented */
static void test_bad_input(void **state)
{
	struct ut_callstack cs;
	struct ut_cs_change c;
	struct ut_event e;

	(void)state;
	ut_callstack_init(&cs, 0, UT_CS_LOSS_NOT_OWN);
	/* an exit before its entry's time: 0, not 2^64 - 50 */
	entry(&cs, 0, 100, MAIN, &c);
	exit_(&cs, 0, 50, &c);
	assert_int_equal(c.dur, 0);
	assert_int_equal(c.self, 0);
	/* a callee longer than its caller: self 0 */
	entry(&cs, 0, 100, MAIN, &c);
	entry(&cs, 1, 100, A, &c);
	exit_(&cs, 1, 300, &c);
	exit_(&cs, 0, 200, &c);
	assert_int_equal(c.dur, 100);
	assert_int_equal(c.self, 0);
	/* a RETURN longer than its time since 0, and one at depth 0 */
	e = ev(UT_EV_RETURN, 3, 10, A);
	e.duration = 1000;
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.dur, 1000);
	e = ev(UT_EV_RETURN, 0, 2000, A);
	e.duration = 5;
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.self, 5);
	/* an exit at a depth no stack reaches; a restatement of 0 on an empty stack */
	exit_(&cs, UINT32_MAX, 3000, &c);
	assert_false(c.matched);
	e = ev(UT_EV_DEPTH, 0, 3000, 0);
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.nended, 0);
	assert_int_equal(cs.sp, 0);
	/* an entry shallower than the stack: the frames above ended unseen */
	entry(&cs, 0, 4000, MAIN, &c);
	entry(&cs, 1, 4010, A, &c);
	entry(&cs, 2, 4020, B, &c);
	entry(&cs, 1, 4100, C, &c);
	assert_int_equal(c.nended, 2);
	assert_int_equal(c.ended[0].ip, A);
	assert_int_equal(c.ended[1].ip, B);
	assert_int_equal(cs.sp, 2);
	assert_int_equal(ut_callstack_top(&cs)->ip, C);
	assert_int_equal(cs.f[0].child, 90);
	/* events that are not calls change nothing */
	e = ev(UT_EV_MARKER, 9, 4200, 0);
	ut_callstack_event(&cs, &e, &c);
	assert_int_equal(c.nended, 0);
	assert_int_equal(cs.sp, 2);
	assert_int_equal(cs.last_ts, 4200);
	/* the end: every frame ends unseen at the last event */
	ut_callstack_end(&cs, &c);
	assert_int_equal(c.nended, 2);
	assert_int_equal(c.ended_at, 4200);
	assert_int_equal(cs.sp, 0);
	ut_callstack_free(&cs);
	ut_callstack_free(&cs);		/* twice: harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_exit_without_entry),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_longjmp),
		cmocka_unit_test(test_depth_overflow),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
