/* SPDX-License-Identifier: MIT */
/*
 * options.h - the trace options of options.def: their bits and one table
 * for the tools and the tracing directory.
 *
 * Each option's bit is its position in options.def, so the global ones
 * and each tracer's own fit one 32-bit word each however they are mixed.
 */
#ifndef USERTRACE_TRACE_OPTIONS_H
#define USERTRACE_TRACE_OPTIONS_H

#include <stdint.h>
#include <string.h>

enum trace_opt_pos {
#define TRACE_OPT(tracer, name, flag, def)	flag##_POS,
#include "lib/trace/options.def"
#undef TRACE_OPT
	TRACE_NR_OPTS
};

_Static_assert(TRACE_NR_OPTS <= 32, "trace options: one bit each in a 32-bit word");

enum trace_opt_flag {
#define TRACE_OPT(tracer, name, flag, def)	flag = 1u << flag##_POS,
#include "lib/trace/options.def"
#undef TRACE_OPT
};

struct trace_opt_info {
	const char *tracer;	/* "": global */
	const char *name;
	uint32_t bit;
	int def;
};

static const struct trace_opt_info trace_opts[TRACE_NR_OPTS] = {
#define TRACE_OPT(tracer, name, flag, def)	{ tracer, name, flag, def },
#include "lib/trace/options.def"
#undef TRACE_OPT
};

/* the index of option @name (without "no") in trace_opts[], or -1 */
static inline int trace_opt_index(const char *name, size_t len)
{
	for (int i = 0; i < TRACE_NR_OPTS; i++)
		if (!strncmp(trace_opts[i].name, name, len) && !trace_opts[i].name[len])
			return i;
	return -1;
}

/* 1 if option @i is another tracer's than @tracer (hidden and refused with it) */
static inline int trace_opt_hidden(int i, const char *tracer)
{
	return trace_opts[i].tracer[0] && strcmp(trace_opts[i].tracer, tracer);
}

/* the default bits of @tracer's options ("" for the global ones) */
static inline uint32_t trace_opt_defaults(const char *tracer)
{
	uint32_t v = 0;

	for (int i = 0; i < TRACE_NR_OPTS; i++)
		if (trace_opts[i].def && !strcmp(trace_opts[i].tracer, tracer))
			v |= trace_opts[i].bit;
	return v;
}

#endif /* USERTRACE_TRACE_OPTIONS_H */
