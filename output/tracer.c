// SPDX-License-Identifier: MIT
/*
 * tracer.c - the tracer registry and the trace options: which tracers
 * there are, finding and switching them, their options and help.  The
 * output run is iter.c, the text trace_seq.c, the shared pieces of the
 * formats output.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/tracer.h"
#include "usertrace/tracers.h"
#include "utils/utils.h"

/* the output parts, in the order of usertrace/tracers.def */
static const struct tracer *const tracers[] = {
#define UT_TRACER(name, needs, help)	&name##_tracer,
#include "usertrace/tracers.def"
#undef UT_TRACER
};

int tracer_available(const struct tracer *t, char *why, size_t len)
{
	if (len)
		why[0] = 0;
	return !t->available || t->available(why, len);
}

static pthread_once_t names_once = PTHREAD_ONCE_INIT;
static char names[UT_NR_TRACERS * TRACER_NAME_MAX];

static void names_make(void)
{
	size_t n = 0;
	char why[8];

	for (size_t i = 0; i < UT_NR_TRACERS; i++)
		if (tracer_available(tracers[i], why, sizeof(why)))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? " " : "",
					      tracers[i]->name);
}

/* tracers.def's (a test's registered ones are not for the messages that use this) */
const char *tracer_available_names(void)
{
	pthread_once(&names_once, names_make);
	return names;
}

_Static_assert(ARRAY_SIZE(tracers) == UT_NR_TRACERS, "tracers.def");

/* tracers registered at run time (register_tracer()): a test's */
#define TRACER_EXTRA_MAX	8
static const struct tracer *extra[TRACER_EXTRA_MAX];
static unsigned nr_extra;

/* accepts "ftrace" for function (ut_tracer_index()) */
const struct tracer *tracer_find(const char *name)
{
	int i = ut_tracer_index(name);

	if (i >= 0)
		return tracers[i];
	for (unsigned k = 0; name && k < nr_extra; k++)
		if (!strcmp(extra[k]->name, name))
			return extra[k];
	return NULL;
}

const struct tracer *tracer_at(unsigned i)
{
	if (i < UT_NR_TRACERS)
		return tracers[i];
	i -= UT_NR_TRACERS;
	return i < nr_extra ? extra[i] : NULL;
}

const struct trace_opt_info trace_opts[TRACE_NR_OPTS] = {
#define TRACE_OPT(name, flag, def)	{ name, flag, def },
#include "output/options.def"
#undef TRACE_OPT
};

_Static_assert(UT_NR_TRACERS + TRACER_EXTRA_MAX <= TRACE_ARRAY_TRACERS, "trace_array.tracer_flags");

uint32_t *trace_array_tracer_flags(struct trace_array *tr, const struct tracer *t)
{
	const struct tracer *e;
	unsigned i;

	for (i = 0; (e = tracer_at(i)) && e != t; i++)
		;
	if (!e)
		return NULL;
	if (!(tr->tracer_flags_set & (1u << i))) {
		tr->tracer_flags[i] = trace_opt_defaults(t->opts, TRACER_MAX_OPTS);
		tr->tracer_flags_set |= 1u << i;
	}
	return &tr->tracer_flags[i];
}

const struct trace_opt_info *trace_opt_find(const struct tracer *t, const char *name, size_t len,
					    const struct tracer **t_out)
{
	const struct trace_opt_info *o = trace_opt_lookup(trace_opts, TRACE_NR_OPTS, name, len);

	*t_out = NULL;
	if (o || !t)
		return o;
	o = trace_opt_lookup(t->opts, TRACER_MAX_OPTS, name, len);
	if (o)
		*t_out = t;
	return o;
}

int register_tracer(const struct tracer *t)
{
	if (!t || !t->name || !t->name[0] || strlen(t->name) >= TRACER_NAME_MAX ||
	    trace_opt_count(t->opts) > TRACER_MAX_OPTS)
		return -EINVAL;
	if (tracer_find(t->name))
		return -EEXIST;
	if (nr_extra == TRACER_EXTRA_MAX)
		return -ENOSPC;
	extra[nr_extra++] = t;
	return 0;
}

/*
 * As the kernel's tracing_set_tracer(): the old tracer is reset and the
 * directory has nop while the new one starts; an init that refuses leaves
 * it so.
 */
int tracer_switch(struct trace_array *tr, const struct tracer *t)
{
	int ret;

	if (tr->current_trace && tr->current_trace->reset)
		tr->current_trace->reset(tr);
	tr->current_trace = &nop_tracer;
	tr->priv = NULL;
	if (t->init) {
		ret = t->init(tr);
		if (ret)
			return ret < 0 ? ret : -EINVAL;
	}
	tr->current_trace = t;
	return 0;
}

/* one line per tracer, "name  help", for the help texts */
void tracer_help(FILE *out, const char *indent)
{
	char why[8];

	for (size_t i = 0; i < UT_NR_TRACERS; i++)
		if (tracer_available(tracers[i], why, sizeof(why)))
			fprintf(out, "%s%-16s%s\n", indent, ut_tracers[i].name, ut_tracers[i].help);
}

/* one line of options for the help texts, at most 72 columns, "(default)" after those set */
static void options_help_line(FILE *out, const char *indent, const char *who,
			      const struct trace_opt_info *opts, size_t n)
{
	int col = fprintf(out, "%s%s:", indent, who);

	for (size_t i = 0; i < n && opts[i].name; i++) {
		int len = (int)strlen(opts[i].name) + (opts[i].def ? 10 : 0);

		if (col + 1 + len > 72)
			col = fprintf(out, "\n%s ", indent) - 1;
		col += fprintf(out, " %s%s", opts[i].name, opts[i].def ? " (default)" : "");
	}
	fputc('\n', out);
}

/* the options, for the help texts: the global ones, then each tracer's */
void trace_options_help(FILE *out, const char *indent)
{
	const struct tracer *t;

	options_help_line(out, indent, "all tracers", trace_opts, TRACE_NR_OPTS);
	for (unsigned i = 0; (t = tracer_at(i)); i++)
		if (trace_opt_count(t->opts))
			options_help_line(out, indent, t->name, t->opts, TRACER_MAX_OPTS);
}

/* as available_tracers: the available ones' names on one line, separated by spaces */
void tracer_list(FILE *out)
{
	const struct tracer *t;
	char why[8];
	int n = 0;

	for (unsigned i = 0; (t = tracer_at(i)); i++)
		if (tracer_available(t, why, sizeof(why)))
			fprintf(out, "%s%s", n++ ? " " : "", t->name);
	fputc('\n', out);
}
