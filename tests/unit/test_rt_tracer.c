// SPDX-License-Identifier: MIT
/*
 * test_rt_tracer.c - unit tests of the runtime's tracer registry
 * (runtime/tracer.c): a tracer's self-test runs once, at registration,
 * and a tracer whose self-test fails is refused (never inits, logged),
 * as the kernel's register_tracer() refuses one.
 *
 * The runtime parts of tracers.def are defined here: each counts its
 * self-test and init runs; irqsoff's self-test fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/tracers.h"

/* ---- what the runtime around tracer.c provides ---- */

static char logged[512];

void ut_log(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(logged);

	va_start(ap, fmt);
	vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
	va_end(ap);
	strncat(logged, "\n", sizeof(logged) - strlen(logged) - 1);
}

/* ---- the tracers ---- */

static int selftests, inits[UT_NR_TRACERS], resets[UT_NR_TRACERS];

static int test_selftest(const char *name)
{
	selftests++;
	return strcmp(name, "irqsoff") ? 0 : -1;
}

static int test_init(const char *name)
{
	inits[ut_tracer_index(name)]++;
	return 0;
}

static void test_reset(const char *name)
{
	resets[ut_tracer_index(name)]++;
}

#define UT_TRACER(n, needs, help)						\
static int n##_selftest(void) { return test_selftest(#n); }			\
static int n##_init(void) { return test_init(#n); }				\
static void n##_reset(void) { test_reset(#n); }					\
const struct ut_rt_tracer ut_rt_tracer_##n = {					\
	.name = #n, .selftest = n##_selftest, .init = n##_init, .reset = n##_reset, \
};
#define UT_TRACER_NAMED(id, printed, needs, help)				\
static int id##_selftest(void) { return test_selftest(printed); }		\
static int id##_init(void) { return test_init(printed); }			\
static void id##_reset(void) { test_reset(printed); }				\
const struct ut_rt_tracer ut_rt_tracer_##id = {					\
	.name = printed, .selftest = id##_selftest, .init = id##_init, .reset = id##_reset, \
};
#include "usertrace/tracers.def"
#undef UT_TRACER_NAMED
#undef UT_TRACER

#define BIT(name)	(1u << ut_tracer_index(name))

/* the first change of the set registers: every self-test runs, irqsoff is refused */
static void test_failing_selftest_refuses(void **state)
{
	(void)state;
	assert_int_equal(selftests, 0);
	assert_int_equal(ut_tracers_set(BIT("irqsoff") | BIT("function_graph")),
			 BIT("function_graph"));
	assert_int_equal(selftests, UT_NR_TRACERS);
	assert_int_equal(inits[ut_tracer_index("irqsoff")], 0);
	assert_int_equal(inits[ut_tracer_index("function_graph")], 1);
	assert_string_equal(logged,
			    "tracer irqsoff failed its self-test: it cannot run in this process\n");
}

/* registered once: the self-tests do not run again, irqsoff stays refused */
static void test_selftest_runs_once(void **state)
{
	(void)state;
	assert_int_equal(ut_tracers_register(), BIT("irqsoff"));
	assert_int_equal(ut_tracers_set(BIT("irqsoff") | BIT("preemptoff")), BIT("preemptoff"));
	assert_int_equal(selftests, UT_NR_TRACERS);
	assert_int_equal(inits[ut_tracer_index("irqsoff")], 0);
	assert_int_equal(inits[ut_tracer_index("preemptoff")], 1);
	assert_int_equal(resets[ut_tracer_index("function_graph")], 1);
	assert_int_equal(ut_tracers_set(0), 0);
	assert_int_equal(resets[ut_tracer_index("irqsoff")], 0);
	assert_int_equal(resets[ut_tracer_index("preemptoff")], 1);
	assert_int_equal(strchr(logged, '\n') - logged + 1, (long)strlen(logged));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failing_selftest_refuses),
		cmocka_unit_test(test_selftest_runs_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
