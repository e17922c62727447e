/* SPDX-License-Identifier: MIT */
/*
 * options.h - the trace options: the global ones of options.def (their
 * bits and one table), and the tables of the tracers' own options.
 *
 * A global option's bit is its position in options.def, in the
 * directory's or the iterator's iter_flags word.  A tracer's own options
 * are a TRACER_OPT table in its output part (struct tracer .opts, ended by
 * TRACER_OPTS_END) with bits of its choosing, in a tracer_flags word of
 * their own, as the kernel's struct tracer_flags.
 */
#ifndef USERTRACE_TRACE_OPTIONS_H
#define USERTRACE_TRACE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum trace_opt_pos {
#define TRACE_OPT(name, flag, def)	flag##_POS,
#include "output/options.def"
#undef TRACE_OPT
	TRACE_NR_OPTS
};

_Static_assert(TRACE_NR_OPTS <= 32, "trace options: one bit each in a 32-bit word");

enum trace_opt_flag {
#define TRACE_OPT(name, flag, def)	flag = 1u << flag##_POS,
#include "output/options.def"
#undef TRACE_OPT
};

/* one option: of the global table, or of a tracer's */
struct trace_opt_info {
	const char *name;	/* NULL ends a tracer's table */
	uint32_t bit;
	int def;		/* 1 if set when tracing starts */
};

#define TRACER_OPT(name, bit, def)	{ name, bit, def }
#define TRACER_OPTS_END			{ NULL, 0, 0 }
#define TRACER_MAX_OPTS			32

/* the global options, in options.def's order (output/tracer.c) */
extern const struct trace_opt_info trace_opts[TRACE_NR_OPTS];

/* the option @name (@len bytes, without "no") of table @opts, or NULL */
static inline const struct trace_opt_info *trace_opt_lookup(const struct trace_opt_info *opts,
							      size_t n, const char *name, size_t len)
{
	for (size_t i = 0; opts && i < n && opts[i].name; i++)
		if (!strncmp(opts[i].name, name, len) && !opts[i].name[len])
			return &opts[i];
	return NULL;
}

/* the default bits of an option table (a tracer's, or @n global ones) */
static inline uint32_t trace_opt_defaults(const struct trace_opt_info *opts, size_t n)
{
	uint32_t v = 0;

	for (size_t i = 0; opts && i < n && opts[i].name; i++)
		if (opts[i].def)
			v |= opts[i].bit;
	return v;
}

/* the number of options in a tracer's table */
static inline size_t trace_opt_count(const struct trace_opt_info *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

#endif /* USERTRACE_TRACE_OPTIONS_H */
