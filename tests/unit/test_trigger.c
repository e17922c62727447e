// SPDX-License-Identifier: MIT
/*
 * test_trigger.c - the text of event triggers (lib/event/trigger.c): what
 * the kernel 6.18 accepts and refuses in events/SYS/EVENT/trigger, and the
 * lines its file shows.  The expectations were taken from writes to the
 * kernel's own trigger files.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/event/trigger.h"

struct good {
	const char *in;
	int remove;
	enum ut_trig_cmd cmd;
	int64_t count;
	const char *system, *event, *filter;
	const char *line;	/* ut_trig_show() with the parsed count and filter */
};

static const struct good goods[] = {
	{ "traceoff:1 if child_pid == 999999", 0, UT_TRIG_TRACEOFF, 1, "", "",
	  "child_pid == 999999", "traceoff:count=1 if child_pid == 999999\n" },
	{ "traceon", 0, UT_TRIG_TRACEON, -1, "", "", NULL, "traceon:unlimited\n" },
	{ "traceon\n", 0, UT_TRIG_TRACEON, -1, "", "", NULL, "traceon:unlimited\n" },
	{ "  stacktrace:5  ", 0, UT_TRIG_STACKTRACE, 5, "", "", NULL, "stacktrace:count=5\n" },
	{ "stacktrace 5", 0, UT_TRIG_STACKTRACE, 5, "", "", NULL, "stacktrace:count=5\n" },
	{ "stacktrace if child_pid==999997", 0, UT_TRIG_STACKTRACE, -1, "", "",
	  "child_pid==999997", "stacktrace:unlimited if child_pid==999997\n" },
	{ "traceoff:", 0, UT_TRIG_TRACEOFF, -1, "", "", NULL, "traceoff:unlimited\n" },
	{ "traceoff:0x10", 0, UT_TRIG_TRACEOFF, 16, "", "", NULL, "traceoff:count=16\n" },
	{ "traceoff:5:junk", 0, UT_TRIG_TRACEOFF, 5, "", "", NULL, "traceoff:count=5\n" },
	{ "traceoff:18446744073709551615", 0, UT_TRIG_TRACEOFF, -1, "", "", NULL,
	  "traceoff:unlimited\n" },
	{ "snapshot:0 if  a > 1", 0, UT_TRIG_SNAPSHOT, 0, "", "", "a > 1",
	  "snapshot:count=0 if a > 1\n" },
	{ "enable_event:sched:sched_switch:2", 0, UT_TRIG_ENABLE_EVENT, 2, "sched",
	  "sched_switch", NULL, "enable_event:sched:sched_switch:count=2\n" },
	{ "enable_event:sched:sched_switch if child_pid == 999999", 0, UT_TRIG_ENABLE_EVENT,
	  -1, "sched", "sched_switch", "child_pid == 999999",
	  "enable_event:sched:sched_switch:unlimited if child_pid == 999999\n" },
	{ "disable_event:myapp:request:3 if id == 7", 0, UT_TRIG_DISABLE_EVENT, 3, "myapp",
	  "request", "id == 7", "disable_event:myapp:request:count=3 if id == 7\n" },
	/* a removal needs no valid count or filter */
	{ "!traceoff", 1, UT_TRIG_TRACEOFF, -1, "", "", NULL, "traceoff:unlimited\n" },
	{ "!stacktrace:5", 1, UT_TRIG_STACKTRACE, -1, "", "", NULL, "stacktrace:unlimited\n" },
	{ "!traceon:x if", 1, UT_TRIG_TRACEON, -1, "", "", NULL, "traceon:unlimited\n" },
	{ "!enable_event:sched:sched_switch", 1, UT_TRIG_ENABLE_EVENT, -1, "sched",
	  "sched_switch", NULL, "enable_event:sched:sched_switch:unlimited\n" },
};

static const char *const bads[] = {
	"", "\n", "   ", "bogus", "traceoffx", "hist", "!", "traceoff:abc", "traceoff:-1",
	"traceoff:5x", "traceoff foo", "traceoff if", "traceoff if  ", "traceoff:1 iff a == 1",
	"traceoff:18446744073709551616", "enable_event", "enable_event:sched",
	"enable_event:sched:", "enable_event::sched_switch", "enable_event:sched:sched_switch:",
	"enable_event:sched:sched_switch:abc", "!enable_event:sched", "disable_event x",
	"enable_event:sched:sched_switch:1 bogus",
};

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];
		struct ut_trig_spec t;
		char buf[256], line[256];

		snprintf(buf, sizeof(buf), "%s", g->in);
		if (ut_trig_parse(buf, &t)) {
			print_error("refused: '%s'\n", g->in);
			fail();
		}
		assert_int_equal(t.remove, g->remove);
		assert_int_equal(t.cmd, g->cmd);
		assert_int_equal(t.count, g->count);
		assert_string_equal(t.system, g->system);
		assert_string_equal(t.event, g->event);
		if (g->filter)
			assert_string_equal(t.filter, g->filter);
		else
			assert_null(t.filter);
		assert_int_equal(ut_trig_show(&t, t.count, t.filter, line, sizeof(line)),
				 strlen(g->line));
		assert_string_equal(line, g->line);
	}
}

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct ut_trig_spec t;
		char buf[256];

		snprintf(buf, sizeof(buf), "%s", bads[i]);
		if (ut_trig_parse(buf, &t) != -EINVAL) {
			print_error("accepted: '%s'\n", bads[i]);
			fail();
		}
	}
}

static void spec(struct ut_trig_spec *t, const char *text)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s", text);
	assert_int_equal(ut_trig_parse(buf, t), 0);
}

/* traceon/traceoff share a place, enable/disable_event one per target */
static void test_places(void **state)
{
	struct ut_trig_spec a, b;

	(void)state;
	spec(&a, "traceon");
	spec(&b, "traceoff:3");
	assert_true(ut_trig_same_place(&a, &b));
	spec(&b, "stacktrace");
	assert_false(ut_trig_same_place(&a, &b));
	spec(&a, "snapshot");
	assert_false(ut_trig_same_place(&a, &b));
	spec(&a, "enable_event:sched:sched_switch");
	spec(&b, "disable_event:sched:sched_switch:3");
	assert_true(ut_trig_same_place(&a, &b));
	spec(&b, "disable_event:sched:sched_wakeup");
	assert_false(ut_trig_same_place(&a, &b));
	spec(&b, "traceon");
	assert_false(ut_trig_same_place(&a, &b));
}

/* a count that goes down shows as it is now; a short buffer says what it needs */
static void test_show(void **state)
{
	struct ut_trig_spec t;
	char line[16];

	(void)state;
	spec(&t, "stacktrace:5");
	assert_int_equal(ut_trig_show(&t, 0, NULL, line, sizeof(line)), strlen("stacktrace:count=0\n"));
	assert_string_equal(line, "stacktrace:coun");
	assert_string_equal(UT_TRIG_AVAILABLE,
			    "# Available triggers:\n"
			    "# traceon traceoff snapshot stacktrace enable_event disable_event\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
