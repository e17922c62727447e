/* SPDX-License-Identifier: MIT */
/*
 * tracers.h - the list of tracers (tracers.def), for every part that
 * names them: the tools, the tracing directory, the help texts.
 */
#ifndef USERTRACE_TRACERS_H
#define USERTRACE_TRACERS_H

#include <string.h>
#include "record.h"

struct ut_tracer_info {
	const char *name;
	uint32_t needs;		/* enum ut_need */
	const char *help;
};

static const struct ut_tracer_info ut_tracers[] = {
#define UT_TRACER(name, needs, help)	{ #name, needs, help },
#define UT_TRACER_NAMED(id, printed, needs, help)	{ printed, needs, help },
#include "tracers.def"
#undef UT_TRACER_NAMED
#undef UT_TRACER
};

#define UT_NR_TRACERS	(sizeof(ut_tracers) / sizeof(ut_tracers[0]))

/* a set of tracers (the control page's active_tracers) has a bit per id */
_Static_assert(sizeof(ut_tracers) / sizeof(ut_tracers[0]) <= 32, "active_tracers has 32 bits");

/* the tracer of a recording that names none, and of `record` without -t */
#define UT_TRACER_DEFAULT	"function_graph"
/* the tracer that records nothing: a directory's first, `record -e` without -t */
#define UT_TRACER_NONE		"nop"

/*
 * every name of tracers.def: "function_graph function nop".  What
 * available_tracers lists is the tracers available on this machine
 * (tracer_available(), output/tracer.h).
 */
#define UT_TRACER_NAMES	(ut_tracer_names_ + 1)
static const char ut_tracer_names_[] =
#define UT_TRACER(name, needs, help)	" " #name
#define UT_TRACER_NAMED(id, printed, needs, help)	" " printed
#include "tracers.def"
#undef UT_TRACER_NAMED
#undef UT_TRACER
	;

/*
 * The index of tracer @name in ut_tracers[], or -1.  "ftrace" is the
 * function tracer's name before Linux 2.6.28, as the kernel still accepts.
 */
static inline int ut_tracer_index(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "ftrace"))
		name = "function";
	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if (!strcmp(ut_tracers[i].name, name))
			return (int)i;
	return -1;
}

/* what the programs record for tracer @name: enum ut_rec_mode, -1 if unknown */
static inline int ut_tracer_mode(const char *name)
{
	int i = ut_tracer_index(name);

	return i < 0 ? -1 : (int)ut_needs_mode(ut_tracers[i].needs);
}

/* what tracer @name needs (enum ut_need); 0 if unknown */
static inline uint32_t ut_tracer_needs(const char *name)
{
	int i = ut_tracer_index(name);

	return i < 0 ? 0 : ut_tracers[i].needs;
}

/* what the tracers of @set (a bit per id) need together */
static inline uint32_t ut_tracers_needs(uint32_t set)
{
	uint32_t needs = 0;

	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if (set & (1u << i))
			needs |= ut_tracers[i].needs;
	return needs;
}

/* the first tracer of @set (a session's starting tracer); nop if none */
static inline const char *ut_tracers_first(uint32_t set)
{
	for (unsigned i = 0; i < UT_NR_TRACERS; i++)
		if (set & (1u << i))
			return ut_tracers[i].name;
	return UT_TRACER_NONE;
}

#endif /* USERTRACE_TRACERS_H */
