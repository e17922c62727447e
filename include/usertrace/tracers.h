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
	enum ut_rec_mode mode;
	const char *help;
};

static const struct ut_tracer_info ut_tracers[] = {
#define UT_TRACER(name, mode, help)	{ #name, mode, help },
#include "tracers.def"
#undef UT_TRACER
};

#define UT_NR_TRACERS	(sizeof(ut_tracers) / sizeof(ut_tracers[0]))

/* the tracer of a recording that names none, and of `record` without -t */
#define UT_TRACER_DEFAULT	"function_graph"

/* the names, as available_tracers lists them: "function_graph function nop" */
#define UT_TRACER_NAMES	(ut_tracer_names_ + 1)
static const char ut_tracer_names_[] =
#define UT_TRACER(name, mode, help)	" " #name
#include "tracers.def"
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

	return i < 0 ? -1 : (int)ut_tracers[i].mode;
}

#endif /* USERTRACE_TRACERS_H */
