// SPDX-License-Identifier: MIT
/*
 * test_filter.c - unit tests of the runtime's function lists
 * (runtime/funcfilter.c, lib/funclist/funclist.c): the kernel's syntax as the
 * traced program applies it.
 *
 * funcfilter.c is included, so that the tests see the commands it parsed;
 * what it uses of the rest of the runtime is stubbed below (errors are
 * kept in a buffer, records counted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "runtime/funcfilter.c"

struct ut_session_ctl *ut_ctl;
int ut_rec_mode = UT_MODE_GRAPH;
int ut_use_tsc;
int ut_fast;
int ut_rec_filter;
int ut_ev_filter;
int ut_lat_gate;	/* tracers/irqsoff.c: no latency tracer here */
int ut_extra;	/* profile.c: no stack tracer or profiler here */
int ut_have_rseq;
intptr_t ut_cpu_off;

static char errors[4096];

void ut_session_error(const char *fmt, ...)
{
	size_t len = strlen(errors);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errors + len, sizeof(errors) - len - 1, fmt, ap);
	va_end(ap);
	strcat(errors, "\n");
}

int ut_write(struct ut_thread *t, uint32_t type, uint64_t ts, uint64_t ip, uint64_t parent)
{
	(void)t;
	(void)type;
	(void)ts;
	(void)ip;
	(void)parent;
	return 0;
}

void ut_write_trace(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts)
{
	(void)t;
	(void)ips;
	(void)n;
	(void)ts;
}

void ut_write_trace_dir(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts,
			uint32_t dir)
{
	(void)t;
	(void)ips;
	(void)n;
	(void)ts;
	(void)dir;
}

uint64_t ut_clock_mono(void)
{
	return 0;
}

/* the event registry of enable_event/disable_event: the soft switches made */
static struct ut_evreg *test_reg;
static char switches[256];

/* the top's switch as runtime/triggers.c makes it when no instance records */
int ut_top_switch(struct ut_evreg *r, int on, volatile int64_t *count)
{
	(void)r;
	if ((ut_ctl->tracing_on != 0) == on || (count && !ut_take_run(count)))
		return 0;
	ut_ctl->tracing_on = (uint32_t)on;
	return 1;
}

struct ut_evreg *ut_events_reg(void)
{
	return test_reg;
}

int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
{
	size_t len = strlen(switches);

	(void)r;
	snprintf(switches + len, sizeof(switches) - len, "%s%u:%s", len ? " " : "", target,
		 enable ? "on" : "off");
	if (*count > 0)
		(*count)--;
	return 1;
}

/* an instance's (registry dirs[dir]): "dir/target:on" */
int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count)
{
	size_t len = strlen(switches);

	(void)r;
	snprintf(switches + len, sizeof(switches) - len, "%s%u/%u:%s", len ? " " : "", dir, target,
		 enable ? "on" : "off");
	if (*count > 0)
		(*count)--;
	return 1;
}

int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count)
{
	(void)r;
	(void)dir;
	(void)on;
	(void)count;
	return 0;
}

static struct ut_session_ctl ctl;

/*
 * load @commands as the runtime takes the control page's list; the
 * runtime keeps the arrays it replaces (a hook may read one), the test
 * frees them
 */
static void load_commands(const char *commands)
{
	struct ut_cmd *old = cmds;

	errors[0] = '\0';
	ut_ctl = &ctl;
	snprintf(ctl.commands, sizeof(ctl.commands), "%s", commands);
	ut_filter_load();
	if (old != cmds && old != no_cmds)
		free(old);
}

static int free_commands(void **state)
{
	(void)state;
	if (cmds != no_cmds)
		free(cmds);
	cmds = no_cmds;
	return 0;
}

static void test_pattern_match(void **state)
{
	(void)state;
	assert_true(ut_funclist_pattern("parse_*", "parse_a", "app"));
	assert_false(ut_funclist_pattern("parse_*", "run", "app"));
	assert_true(ut_funclist_pattern("?un", "run", "app"));
	assert_true(ut_funclist_pattern("[a-r]un", "run", "app"));
	/* func:mod:module, and a module alone */
	assert_true(ut_funclist_pattern("foo_*:mod:libfoo.so", "foo_init", "libfoo.so"));
	assert_false(ut_funclist_pattern("foo_*:mod:libfoo.so", "foo_init", "app"));
	assert_true(ut_funclist_pattern(":mod:lib*", "anything", "libfoo.so"));
	assert_false(ut_funclist_pattern(":mod:lib*", "anything", "app"));
}

static void test_list_match(void **state)
{
	(void)state;
	assert_int_equal(ut_funclist_match(NULL, "run", "app"), -1);
	assert_int_equal(ut_funclist_match("", "run", "app"), -1);
	assert_int_equal(ut_funclist_match("run parse_*", "run", "app"), 1);
	assert_int_equal(ut_funclist_match("run,parse_*", "parse_b", "app"), 1);
	assert_int_equal(ut_funclist_match("run parse_*", "main", "app"), 0);
	/* in order: a later !pattern removes, a later pattern adds back */
	assert_int_equal(ut_funclist_match("parse_* !parse_b", "parse_b", "app"), 0);
	assert_int_equal(ut_funclist_match("parse_* !parse_b", "parse_a", "app"), 1);
	assert_int_equal(ut_funclist_match("!parse_b parse_*", "parse_b", "app"), 1);
	/* removals only: no filter at all, as the kernel's empty list */
	assert_int_equal(ut_funclist_match("!parse_b", "parse_b", "app"), -1);
}

static void test_next_word(void **state)
{
	const char *list = " a,,b\t\nccc ";
	char buf[4];

	(void)state;
	assert_int_equal(ut_funclist_word(&list, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "a");
	assert_int_equal(ut_funclist_word(&list, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "b");
	assert_int_equal(ut_funclist_word(&list, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "ccc");
	assert_int_equal(ut_funclist_word(&list, buf, sizeof(buf)), 0);
	/* a word that does not fit is skipped */
	list = "toolong ab";
	assert_int_equal(ut_funclist_word(&list, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "ab");
}

static void test_commands(void **state)
{
	(void)state;
	load_commands("run:traceoff:2 main:stacktrace foo_*:mod:libfoo.so:traceon");
	assert_string_equal(errors, "");
	assert_int_equal(ncmds, 3);
	assert_string_equal(cmds[0].pat, "run");
	assert_int_equal(cmds[0].type, UT_CMD_TRACEOFF);
	assert_int_equal(cmds[0].count, 2);
	assert_string_equal(cmds[1].pat, "main");
	assert_int_equal(cmds[1].type, UT_CMD_STACKTRACE);
	assert_int_equal(cmds[1].count, -1);
	assert_string_equal(cmds[2].pat, "foo_*:mod:libfoo.so");
	assert_int_equal(cmds[2].type, UT_CMD_TRACEON);
	/* !func:cmd removes what came before */
	load_commands("run:traceoff:2 main:traceoff !run:traceoff");
	assert_string_equal(errors, "");
	assert_int_equal(ncmds, 1);
	assert_string_equal(cmds[0].pat, "main");
}

static const struct ut_event_desc ev_a = { UT_TP_ABI, 0, 8, "app", "a", "\"\"", NULL, 0, 0 };
static const struct ut_event_desc ev_b = { UT_TP_ABI, 0, 8, "app", "b", "\"\"", NULL, 0, 0 };
static const struct ut_event_desc ev_a2 = { UT_TP_ABI, 0, 12, "app", "a", "\"\"", NULL, 0, 0 };

/* func:enable_event:sys:event[:N]: every layout of the event, looked up again after dlopen */
static void test_commands_event(void **state)
{
	(void)state;
	test_reg = calloc(1, sizeof(*test_reg));
	assert_non_null(test_reg);
	assert_int_equal(ut_evreg_init(test_reg), 0);
	assert_int_equal(ut_evreg_register(test_reg, &ev_b), 0);
	assert_int_equal(ut_evreg_register(test_reg, &ev_a), 1);
	load_commands("run:enable_event:app:a:2 ns::f:disable_event:app:b main:traceoff");
	assert_string_equal(errors, "");
	assert_int_equal(ncmds, 3);
	assert_string_equal(cmds[0].pat, "run");
	assert_int_equal(cmds[0].type, UT_CMD_ENABLE_EVENT);
	assert_int_equal(cmds[0].count, 2);
	assert_string_equal(cmds[1].pat, "ns::f");
	assert_int_equal(cmds[1].type, UT_CMD_DISABLE_EVENT);
	assert_int_equal(cmds[1].count, -1);
	switches[0] = 0;
	cmd_event(&cmds[0], 1);
	cmd_event(&cmds[1], 0);
	assert_string_equal(switches, "1:on 0:off");
	/* a second layout of app:a registers: both are switched */
	assert_int_equal(ut_evreg_register(test_reg, &ev_a2), 2);
	switches[0] = 0;
	cmd_event(&cmds[0], 1);
	assert_string_equal(switches, "1:on 2:on");
	/* removal names the event */
	load_commands("run:enable_event:app:a run:enable_event:app:b !run:enable_event:app:a");
	assert_string_equal(errors, "");
	assert_int_equal(ncmds, 1);
	assert_string_equal(cmds[0].event, "app");
	assert_string_equal(cmds[0].event + 4, "b");
	load_commands("run:enable_event run:enable_event:app run:disable_event::b run:enable_event:app:");
	assert_int_equal(ncmds, 0);
	assert_string_equal(errors,
			    "set_ftrace_filter: 'run:enable_event': expected "
			    "func:enable_event:system:event[:count]\n"
			    "set_ftrace_filter: 'run:enable_event:app': expected "
			    "func:enable_event:system:event[:count]\n"
			    "set_ftrace_filter: 'run:disable_event::b': expected "
			    "func:disable_event:system:event[:count]\n"
			    "set_ftrace_filter: 'run:enable_event:app:': expected "
			    "func:enable_event:system:event[:count]\n");
	/* an instance's, after its registry index: its own words, removed apart from the top's */
	load_commands("run:enable_event:app:a 3|run:enable_event:app:a 3|main:traceoff:1");
	assert_string_equal(errors, "");
	assert_int_equal(ncmds, 3);
	assert_int_equal(cmds[0].dir, 0);
	assert_int_equal(cmds[1].dir, 3);
	assert_string_equal(cmds[1].pat, "run");
	assert_int_equal(cmds[2].dir, 3);
	assert_int_equal(cmds[2].type, UT_CMD_TRACEOFF);
	assert_int_equal(cmds[2].count, 1);
	switches[0] = 0;
	cmd_event(&cmds[1], 1);
	cmd_event(&cmds[0], 0);
	assert_string_equal(switches, "3/1:on 3/2:on 1:off 2:off");
	load_commands("run:enable_event:app:a 3|run:enable_event:app:a !3|run:enable_event:app:a");
	assert_int_equal(ncmds, 1);
	assert_int_equal(cmds[0].dir, 0);
	/* no such directory in the registry */
	load_commands("32|run:traceon 0|run:traceon");
	assert_int_equal(ncmds, 0);
	assert_string_equal(errors, "set_ftrace_filter: 'run:traceon': no such instance\n"
				    "set_ftrace_filter: 'run:traceon': no such instance\n");
	free(test_reg);
	test_reg = NULL;
}

static void test_commands_bad(void **state)
{
	(void)state;
	/* a count with no command or no function: the first word read before itself */
	load_commands(":2 run:5 !:3 :traceon x:bogus:1 x:");
	assert_int_equal(ncmds, 0);
	assert_string_equal(errors,
			    "set_ftrace_filter: ':2': expected func:command[:count]\n"
			    "set_ftrace_filter: 'run:5': expected func:command[:count]\n"
			    "set_ftrace_filter: ':3': expected func:command[:count]\n"
			    "set_ftrace_filter: ':traceon': expected func:command[:count]\n"
			    "set_ftrace_filter: 'x:bogus:1': unknown command 'bogus'\n"
			    "set_ftrace_filter: 'x:': unknown command ''\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_match),
		cmocka_unit_test(test_list_match),
		cmocka_unit_test(test_next_word),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_commands_bad),
		cmocka_unit_test(test_commands_event),
	};

	return cmocka_run_group_tests(tests, NULL, free_commands);
}
