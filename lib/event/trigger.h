/* SPDX-License-Identifier: MIT */
/*
 * trigger.h - the text of event triggers (events/SYS/EVENT/trigger), as
 * the kernel's: one command per write,
 *
 *   [!]traceon[:N] [if FILTER]         traceoff, snapshot, stacktrace alike
 *   [!]enable_event:SYS:EVENT[:N] [if FILTER]      disable_event alike
 *
 * and the file's lines: "traceoff:count=1 if id == 7",
 * "enable_event:sched:sched_switch:unlimited".  Parsing knows no events
 * and no filter grammar: the caller checks the target event and compiles
 * the filter text.
 */
#ifndef USERTRACE_LIB_EVENT_TRIGGER_H
#define USERTRACE_LIB_EVENT_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

enum ut_trig_cmd {
	UT_TRIG_TRACEON,
	UT_TRIG_TRACEOFF,
	UT_TRIG_SNAPSHOT,
	UT_TRIG_STACKTRACE,
	UT_TRIG_ENABLE_EVENT,
	UT_TRIG_DISABLE_EVENT,
	UT_TRIG_NR
};

/* the names, in the order the empty file lists them */
extern const char *const ut_trig_names[UT_TRIG_NR];

/* what an event's trigger file reads when it has none */
#define UT_TRIG_AVAILABLE \
	"# Available triggers:\n" \
	"# traceon traceoff snapshot stacktrace enable_event disable_event\n"

#define UT_TRIG_NAME_MAX	64

struct ut_trig_spec {
	int remove;			/* the command began with '!' */
	enum ut_trig_cmd cmd;
	int64_t count;			/* runs left; -1: unlimited */
	char system[UT_TRIG_NAME_MAX];	/* enable_event/disable_event's target */
	char event[UT_TRIG_NAME_MAX];
	const char *filter;		/* the text after "if", in the parsed buffer; NULL: none */
};

/*
 * Parse one command in @buf (changed in place: the filter text stays in
 * it).  0, or -EINVAL for an unknown command, a bad count, a missing or
 * malformed target, or text after the count that is not "if FILTER".
 * A removal ('!') needs only the command (and its target).
 */
int ut_trig_parse(char *buf, struct ut_trig_spec *t);

/*
 * Do @a and @b occupy the same place?  An event has at most one trigger
 * per place: traceon and traceoff share one, and enable_event and
 * disable_event share one per target.  (A second: EEXIST; '!' removes
 * the one in the place.)
 */
int ut_trig_same_place(const struct ut_trig_spec *a, const struct ut_trig_spec *b);

/*
 * The file's line for @t with @count runs left (-1: unlimited) and
 * @filter (NULL: none), newline included, into @out (@size bytes).
 * Returns the length it needs, as snprintf.
 */
size_t ut_trig_show(const struct ut_trig_spec *t, int64_t count, const char *filter,
		    char *out, size_t size);

#endif /* USERTRACE_LIB_EVENT_TRIGGER_H */
