// SPDX-License-Identifier: MIT
/*
 * tracer.c - the tracer of a directory and how it shows: current_tracer,
 * available_tracers, trace_options and options/.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "lib/tracefs/tfs_int.h"

const char *inst_tracer(struct tfs_session *s, struct tfs_inst *in)
{
	(void)s;
	return in->tracer;
}

void show_trace_options(struct tfs_session *s, struct tfs_inst *in, struct sbuf *b)
{
	for (int i = 0; i < TRACE_NR_OPTS; i++) {
		if (trace_opt_hidden(i, inst_tracer(s, in)))
			continue;
		sb_printf(b, "%s%s\n", in->opt_mask & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
	}
}

int tracer_index(const char *name)
{
	if (!strcmp(name, "none"))
		name = "nop";
	return ut_tracer_index(name);	/* and "ftrace", 2.6.27's name of function */
}

/* what the programs record for tracer @name: enum ut_rec_mode, -1 if unknown */
int tracer_mode(const char *name)
{
	int i = tracer_index(name);	/* with "none": not ut_tracer_mode() */

	return i < 0 ? -1 : (int)ut_needs_mode(ut_tracers[i].needs);
}

/* tracer @name's bit in active_tracers; 0 if unknown */
uint32_t tracer_bit(const char *name)
{
	int i = tracer_index(name);

	return i < 0 ? 0 : 1u << i;
}

/* a trace option word ("name" or "noname"); Context: s->lock held */
int set_option(struct tfs_session *s, struct tfs_inst *in, const char *w)
{
	int neg = !strncmp(w, "no", 2), i;

	i = trace_opt_index(w, strlen(w));
	if (i >= 0) {
		neg = 0;
	} else if (neg) {
		i = trace_opt_index(w + 2, strlen(w + 2));
	}
	if (i < 0 || trace_opt_hidden(i, inst_tracer(s, in))) {
		tfs_err(s, "Invalid option", w);
		return -EINVAL;
	}
	if (neg)
		in->opt_mask &= ~trace_opts[i].bit;
	else
		in->opt_mask |= trace_opts[i].bit;
	return 0;
}
