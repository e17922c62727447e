// SPDX-License-Identifier: MIT
/*
 * tracer.c - the tracer of a directory and how it shows: current_tracer,
 * available_tracers, tracing_on, trace_options and options/, trace_clock,
 * tracing_thresh, tracing_max_latency, max_graph_depth, ftrace_enabled.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "lib/trace/tracer.h"
#include "lib/tracefs/tfs_int.h"

const char *inst_tracer(struct tfs_session *s, struct tfs_inst *in)
{
	(void)s;
	return in->tracer;
}

static void show_trace_options(struct tfs_session *s, struct tfs_inst *in, struct sbuf *b)
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
static int set_option(struct tfs_session *s, struct tfs_inst *in, const char *w)
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

/* ---- the files ---- */

static int available_tracers_show(struct tfs_handle *h, struct sbuf *b)
{
	(void)h;
	sb_printf(b, "%s\n", UT_TRACER_NAMES);
	return 0;
}

static int current_tracer_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%s\n", inst_tracer(h->s, h->n.inst));
	return 0;
}

static int current_tracer_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	int t = word_index(s, buf, size, tracer_index, "No such tracer"), ret;

	if (t < 0)
		return t;
	if (!strcmp(inst_tracer(s, in), ut_tracers[t].name))
		return 0;
	inst_pump(in);
	top_sync(s);
	snprintf(in->tracer, sizeof(in->tracer), "%s", ut_tracers[t].name);
	ret = recording_update(s);
	/* as the kernel, a new tracer starts with an empty buffer */
	trace_clear(s, in);
	in->tracer_gen++;
	pthread_cond_broadcast(&s->cond);
	return ret;
}

static int tracing_on_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%d\n", inst_on(h->s, h->n.inst));
	return 0;
}

static int tracing_on_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	unsigned long long v;
	int perr;

	/* as the kernel: any number, nonzero is on */
	if ((perr = parse_ull(buf, size, &v))) {
		tfs_err(s, "Invalid argument", h->n.f->name);
		return perr;
	}
	v = !!v;
	/* what was recorded before the switch is the buffer's */
	inst_pump(in);
	if (in == &s->top)
		top_set_on(s, (int)v);
	else
		in->on = (int)v;
	return recording_update(s);
}

static int trace_options_show(struct tfs_handle *h, struct sbuf *b)
{
	show_trace_options(h->s, h->n.inst, b);
	return 0;
}

static int trace_options_write(struct tfs_handle *h, const char *buf, size_t size)
{
	/* as the kernel: one option a write, blanks around it */
	char *w = strip_dup(buf, size);
	int ret;

	if (!w)
		return -ENOMEM;
	ret = set_option(h->s, h->n.inst, w);
	free(w);
	return ret;
}

/* options/NAME: h->n.opt is the option */
static int option_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%d\n", !!(h->n.inst->opt_mask & trace_opts[h->n.opt].bit));
	return 0;
}

static int option_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_inst *in = h->n.inst;
	unsigned long long v;
	int perr;

	if ((perr = parse_ull(buf, size, &v)) || v > 1) {
		tfs_err(h->s, "Invalid argument", trace_opts[h->n.opt].name);
		return perr ? perr : -EINVAL;
	}
	if (v)
		in->opt_mask |= trace_opts[h->n.opt].bit;
	else
		in->opt_mask &= ~trace_opts[h->n.opt].bit;
	return 0;
}

static int trace_clock_show(struct tfs_handle *h, struct sbuf *b)
{
	for (int i = 0; i < TRACE_NR_CLOCKS; i++)
		sb_printf(b, i == h->n.inst->clock ? "%s[%s]" : "%s%s", i ? " " : "",
			  trace_clock_names[i]);
	sb_puts(b, "\n");
	return 0;
}

static int trace_clock_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_inst *in = h->n.inst;
	int id = word_index(h->s, buf, size, trace_clock_find, "No such clock");

	if (id < 0)
		return id;
	/* as the kernel: a new clock clears the buffer and the snapshot */
	in->clock = id;
	trace_clear(h->s, in);
	snap_empty(in);
	return 0;
}

static int tracing_thresh_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%llu\n", h->s->thresh_us);
	return 0;
}

static int tracing_thresh_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = parse_ull(buf, size, &v)) || v > UINT64_MAX / 1000000) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr ? perr : -EINVAL;
	}
	h->s->thresh_us = v;
	h->s->ctl->tracing_thresh = 0;		/* computed by tfs_write(), unlocked */
	return TFS_WR_THRESH;
}

static int max_latency_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%llu\n", h->s->max_latency);
	return 0;
}

static int max_latency_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = parse_ull(buf, size, &v))) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr;
	}
	h->s->max_latency = v;
	return 0;
}

static int max_graph_depth_show(struct tfs_handle *h, struct sbuf *b)
{
	sb_printf(b, "%u\n", h->s->ctl->max_graph_depth);
	return 0;
}

static int max_graph_depth_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = parse_ull(buf, size, &v)) || v > UINT32_MAX) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr ? perr : -ERANGE;
	}
	h->s->ctl->max_graph_depth = (uint32_t)v;
	return TFS_WR_APPLY;
}

static int ftrace_enabled_show(struct tfs_handle *h, struct sbuf *b)
{
	(void)h;
	sb_puts(b, "1\n");
	return 0;
}

const struct tfs_file tfs_tracer_files[] = {
	TFS_FILE("available_tracers", 0440, W_TOP | W_INST, .show = available_tracers_show),
	TFS_FILE("current_tracer", 0640, W_TOP | W_INST,
		 .show = current_tracer_show, .write = current_tracer_write),
	TFS_FILE("tracing_on", 0640, W_TOP | W_INST, .show = tracing_on_show, .write = tracing_on_write),
	/* 2.6.27's name of tracing_on */
	TFS_FILE("tracing_enabled", 0640, W_TOP | W_INST,
		 .show = tracing_on_show, .write = tracing_on_write),
	TFS_FILE("trace_options", 0640, W_TOP | W_INST,
		 .show = trace_options_show, .write = trace_options_write),
	/* 2.6.27's name of trace_options */
	TFS_FILE("iter_ctrl", 0640, W_TOP | W_INST,
		 .show = trace_options_show, .write = trace_options_write),
	/* options/NAME: this file for every option of options.def */
	TFS_FILE("options", 0640, W_OPTIONS, .show = option_show, .write = option_write),
	TFS_FILE("trace_clock", 0640, W_TOP | W_INST, .show = trace_clock_show, .write = trace_clock_write),
	TFS_FILE("tracing_thresh", 0640, W_TOP, .show = tracing_thresh_show, .write = tracing_thresh_write),
	TFS_FILE("tracing_max_latency", 0640, W_TOP, .show = max_latency_show, .write = max_latency_write),
	TFS_FILE("max_graph_depth", 0640, W_TOP,
		 .show = max_graph_depth_show, .write = max_graph_depth_write),
	TFS_FILE("ftrace_enabled", 0440, W_TOP, .show = ftrace_enabled_show),
	TFS_FILES_END
};
