// SPDX-License-Identifier: MIT
/*
 * trigger.c - the text of event triggers (see trigger.h): the kernel's
 * grammar, with its answers to odd input.  The command is the first word,
 * ended by ':', a blank or the end; a digit after it starts the count
 * (traceon:5 and traceon 5 alike); what is left must be "if FILTER".
 * enable_event and disable_event need SYS:EVENT, then an optional count.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/trigger.h"

const char *const ut_trig_names[UT_TRIG_NR] = {
	[UT_TRIG_TRACEON] = "traceon",
	[UT_TRIG_TRACEOFF] = "traceoff",
	[UT_TRIG_SNAPSHOT] = "snapshot",
	[UT_TRIG_STACKTRACE] = "stacktrace",
	[UT_TRIG_ENABLE_EVENT] = "enable_event",
	[UT_TRIG_DISABLE_EVENT] = "disable_event",
};

static char *skip_blanks(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return s;
}

/* cut @*s at the first of @delims: the piece before it; *s is NULL at the end */
static char *cut(char **s, const char *delims)
{
	char *start = *s, *e;

	if (!start)
		return NULL;
	e = start + strcspn(start, delims);
	if (*e) {
		*e = 0;
		*s = e + 1;
	} else {
		*s = NULL;
	}
	return start;
}

/* a count as the kernel reads one: unsigned, base 0 (0x.., 0..), the whole text */
static int parse_count(const char *s, int64_t *count)
{
	unsigned long long v;
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	/* the kernel keeps an unsigned long, whose all-ones is "unlimited" */
	*count = v == ULLONG_MAX ? -1 : v > INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

/* "if FILTER": the filter text, or NULL if @s is not that */
static const char *parse_if(char *s)
{
	char *word = cut(&s, " \t");

	if (!word || strcmp(word, "if") || !s)
		return NULL;
	s = skip_blanks(s);
	return *s ? s : NULL;
}

/* remove trailing blanks: the kernel strips the written text at both ends */
static void strip_end(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = 0;
}

static int copy_name(char *dst, const char *src)
{
	size_t n = strlen(src);

	if (!n || n >= UT_TRIG_NAME_MAX)
		return -EINVAL;
	memcpy(dst, src, n + 1);
	return 0;
}

int ut_trig_parse(char *buf, struct ut_trig_spec *t)
{
	char *next, *command, *param = NULL, *rest = NULL;
	int i;

	memset(t, 0, sizeof(*t));
	t->count = -1;
	strip_end(buf);
	next = skip_blanks(buf);
	command = cut(&next, ": \t");
	if (next) {
		next = skip_blanks(next);
		if (!*next)
			next = NULL;
	}
	if (*command == '!') {
		t->remove = 1;
		command++;
	}
	for (i = 0; i < UT_TRIG_NR; i++)
		if (!strcmp(command, ut_trig_names[i]))
			break;
	if (i == UT_TRIG_NR)
		return -EINVAL;
	t->cmd = (enum ut_trig_cmd)i;

	if (t->cmd == UT_TRIG_ENABLE_EVENT || t->cmd == UT_TRIG_DISABLE_EVENT) {
		char *sys, *ev;

		if (!next)
			return -EINVAL;
		/* SYS:EVENT[:N] is required, then the filter */
		param = cut(&next, " \t");
		rest = next ? skip_blanks(next) : NULL;
		sys = cut(&param, ":");
		if (!param)
			return -EINVAL;
		ev = cut(&param, ":");
		if (copy_name(t->system, sys) || copy_name(t->event, ev))
			return -EINVAL;
	} else if (next && isdigit((unsigned char)*next)) {
		param = cut(&next, " \t");
		rest = next ? skip_blanks(next) : NULL;
	} else {
		rest = next;
	}
	if (rest && !*rest)
		rest = NULL;
	if (t->remove)
		return 0;
	if (param && parse_count(cut(&param, ":"), &t->count))
		return -EINVAL;
	if (rest && !(t->filter = parse_if(rest)))
		return -EINVAL;
	return 0;
}

static int place(enum ut_trig_cmd c)
{
	return c == UT_TRIG_TRACEOFF ? UT_TRIG_TRACEON :
	       c == UT_TRIG_DISABLE_EVENT ? UT_TRIG_ENABLE_EVENT : (int)c;
}

int ut_trig_same_place(const struct ut_trig_spec *a, const struct ut_trig_spec *b)
{
	if (place(a->cmd) != place(b->cmd))
		return 0;
	if (place(a->cmd) != UT_TRIG_ENABLE_EVENT)
		return 1;
	return !strcmp(a->system, b->system) && !strcmp(a->event, b->event);
}

size_t ut_trig_show(const struct ut_trig_spec *t, int64_t count, const char *filter,
		    char *out, size_t size)
{
	char target[2 * UT_TRIG_NAME_MAX + 2] = "";
	char num[32];
	int n;

	if (t->cmd == UT_TRIG_ENABLE_EVENT || t->cmd == UT_TRIG_DISABLE_EVENT)
		snprintf(target, sizeof(target), ":%s:%s", t->system, t->event);
	if (count < 0)
		snprintf(num, sizeof(num), "unlimited");
	else
		snprintf(num, sizeof(num), "count=%" PRId64, count);
	n = snprintf(out, size, "%s%s:%s%s%s\n", ut_trig_names[t->cmd], target, num,
		     filter ? " if " : "", filter ? filter : "");
	return n < 0 ? 0 : (size_t)n;
}
