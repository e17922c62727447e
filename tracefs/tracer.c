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
#include <unistd.h>

#include "usertrace/record.h"
#include "usertrace/tracers.h"
#include "output/tracer.h"
#include "output/output.h"
#include "tracefs/tfs_int.h"

const char *tfs_inst_tracer(struct tfs_session *s, struct tfs_inst *in)
{
	(void)s;
	return tfs_tracer_name(in);
}

/* the global options, then the directory's tracer's own, as the kernel lists them */
static void show_trace_options(struct tfs_session *s, struct tfs_inst *in, struct tfs_sbuf *b)
{
	struct trace_array *tr = &in->tr;
	const struct tracer *t = tr->current_trace;
	uint32_t *tw = trace_array_tracer_flags(tr, t);

	(void)s;
	for (int i = 0; i < TRACE_NR_OPTS; i++)
		tfs_sb_printf(b, "%s%s\n", tr->trace_flags & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
	for (const struct trace_opt_info *o = t->opts; o && o->name; o++)
		tfs_sb_printf(b, "%s%s\n", tw && *tw & o->bit ? "" : "no", o->name);
}

int tfs_tracer_index(const char *name)
{
	if (!strcmp(name, "none"))
		name = UT_TRACER_NONE;
	return ut_tracer_index(name);	/* and "ftrace", 2.6.27's name of function */
}

/* what the programs record for tracer @name: enum ut_rec_mode, -1 if unknown */
int tfs_tracer_mode(const char *name)
{
	int i = tfs_tracer_index(name);	/* with "none": not ut_tracer_mode() */

	return i < 0 ? -1 : (int)ut_needs_mode(ut_tracers[i].needs);
}

/* tracer @name's bit in active_tracers; 0 if unknown */
uint32_t tfs_tracer_bit(const char *name)
{
	int i = tfs_tracer_index(name);

	return i < 0 ? 0 : 1u << i;
}

/*
 * Option @o of the directory on or off: a global one (@t NULL) or tracer
 * @t's own.  The current tracer's set_flag may refuse one of its own, as
 * in the kernel.  Context: s->lock held.
 */
static int option_set(struct tfs_session *s, struct tfs_inst *in, const struct tracer *t,
		      const struct trace_opt_info *o, int set)
{
	struct trace_array *tr = &in->tr;
	uint32_t *w = t ? trace_array_tracer_flags(tr, t) : &tr->trace_flags;

	if (!w)
		return -EINVAL;
	if (t && t == tr->current_trace && t->set_flag && !!(*w & o->bit) != set) {
		int ret = t->set_flag(tr, *w, o->bit, set);

		if (ret) {
			tfs_err(s, "The tracer refused the option", o->name);
			return ret < 0 ? ret : -EINVAL;
		}
	}
	if (set)
		*w |= o->bit;
	else
		*w &= ~o->bit;
	if (!t && o->bit == TRACE_ITER_STACKTRACE)
		return tfs_opt_stack_update(s, in);
	/* the -fork options: the programs tell the forks of the listed threads */
	/* and function-trace: whether the latency tracers record calls (UT_CTL_NOFUNC) */
	if (!t && (o->bit & (TRACE_ITER_FUNC_FORK | TRACE_ITER_EVENT_FORK | TRACE_ITER_FUNCTION)))
		return tfs_recording_update(s);
	/* graph-time: the function profiler's (the top's option of the graph tracer) */
	if (t && ut_tracer_mode(t->name) == UT_MODE_GRAPH && in == &s->top)
		tfs_prof_graph_time_update(s);
	return 0;
}

/* a trace option word ("name" or "noname"); Context: s->lock held */
static int set_option(struct tfs_session *s, struct tfs_inst *in, const char *w)
{
	const struct tracer *cur = in->tr.current_trace, *t;
	const struct trace_opt_info *o = trace_opt_find(cur, w, strlen(w), &t);
	int set = 1;

	if (!o && !strncmp(w, "no", 2)) {
		o = trace_opt_find(cur, w + 2, strlen(w + 2), &t);
		set = 0;
	}
	if (!o) {
		tfs_err(s, "Invalid option", w);
		return -EINVAL;
	}
	return option_set(s, in, t, o, set);
}

/* ---- the files ---- */

/* as the kernel's: every registered tracer (tracers.def's, then a test's) */
static int available_tracers_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	const struct tracer *t;
	char why[8];
	int n = 0;

	(void)h;
	for (unsigned i = 0; (t = tracer_at(i)); i++)
		if (tracer_available(t, why, sizeof(why)))
			tfs_sb_printf(b, "%s%s", n++ ? " " : "", t->name);
	tfs_sb_puts(b, "\n");
	return 0;
}

static int current_tracer_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%s\n", tfs_inst_tracer(h->s, h->n.inst));
	return 0;
}

static void max_latency_handover(struct tfs_session *s, struct tfs_inst *in,
				 const struct trace_array *before);

static int current_tracer_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	const struct tracer *t;
	const struct trace_array *before;
	char why[256];
	char *w = tfs_strip_dup(buf, size);
	int ret, err;

	if (!w)
		return -ENOMEM;
	/* "none": nop; "ftrace": function (tracer_find()) */
	t = tracer_find(strcmp(w, "none") ? w : UT_TRACER_NONE);
	if (!t)
		tfs_err(s, "No such tracer", w);
	else if (!tracer_available(t, why, sizeof(why))) {
		/* as an unknown one: -EINVAL, the reason said */
		char *msg = NULL;

		if (asprintf(&msg, "No such tracer (not available: %s)", why) >= 0)
			tfs_err(s, msg, w);
		free(msg);
		t = NULL;
	}
	free(w);
	if (!t)
		return -EINVAL;
	if (t == in->tr.current_trace)
		return 0;
	tfs_inst_pump(in);
	tfs_top_sync(s);
	before = trace_max_owner();
	/* the old tracer's reset, the new one's init: one that refuses leaves nop */
	err = tracer_switch(&in->tr, t);
	max_latency_handover(s, in, before);
	if (err)
		tfs_err(s, "The tracer failed to initialize", t->name);
	/* the events the tracer shows are recorded while it is the directory's */
	tfs_tracer_events(s, in);
	ret = tfs_ev_publish(s) | tfs_recording_update(s);
	/* as the kernel, a new tracer starts with an empty buffer */
	tfs_trace_clear(s, in);
	in->tr.tracer_gen++;
	pthread_cond_broadcast(&s->cond);
	if (err) {
		s->ev_apply |= ret;	/* what the programs record changed all the same */
		return err;
	}
	return ret;
}

static int tracing_on_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	/* an instance's: what its triggers and commands switched until now */
	if (h->n.inst != &h->s->top)
		tfs_inst_pump(h->n.inst);
	tfs_sb_printf(b, "%d\n", tfs_inst_on(h->s, h->n.inst));
	return 0;
}

static int tracing_on_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	const struct tracer *t = in->tr.current_trace;
	unsigned long long v;
	int perr, was;

	/* as the kernel: any number, nonzero is on */
	if ((perr = tfs_parse_ull(buf, size, &v))) {
		tfs_err(s, "Invalid argument", h->n.f->name);
		return perr;
	}
	v = !!v;
	was = tfs_inst_on(s, in);
	tfs_inst_set_on(s, in, (int)v);
	/* the tracer's start or stop */
	if (v && !was && t->start)
		t->start(&in->tr);
	else if (!v && was && t->stop)
		t->stop(&in->tr);
	return tfs_recording_update(s);
}

static int trace_options_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	show_trace_options(h->s, h->n.inst, b);
	return 0;
}

static int trace_options_write(struct tfs_handle *h, const char *buf, size_t size)
{
	/* as the kernel: one option a write, blanks around it */
	char *w = tfs_strip_dup(buf, size);
	int ret;

	if (!w)
		return -ENOMEM;
	ret = set_option(h->s, h->n.inst, w);
	free(w);
	return ret;
}

/* options/NAME: h->n.opt is the option, h->n.opt_tracer its tracer (NULL: global) */
static int option_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct trace_array *tr = &h->n.inst->tr;
	uint32_t *w = h->n.opt_tracer ? trace_array_tracer_flags(tr, h->n.opt_tracer) : &tr->trace_flags;

	tfs_sb_printf(b, "%d\n", w && (*w & h->n.opt->bit) ? 1 : 0);
	return 0;
}

static int option_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_inst *in = h->n.inst;
	unsigned long long v;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)) || v > 1) {
		tfs_err(h->s, "Invalid argument", h->n.opt->name);
		return perr ? perr : -EINVAL;
	}
	return option_set(h->s, in, h->n.opt_tracer, h->n.opt, (int)v);
}

static int trace_clock_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	for (int i = 0; i < TRACE_NR_CLOCKS; i++)
		tfs_sb_printf(b, i == h->n.inst->tr.clock_id ? "%s[%s]" : "%s%s", i ? " " : "",
			      trace_clock_names[i]);
	tfs_sb_puts(b, "\n");
	return 0;
}

static int trace_clock_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_inst *in = h->n.inst;
	int id = tfs_word_index(h->s, buf, size, trace_clock_find, "No such clock");

	if (id < 0)
		return id;
	/* as the kernel: a new clock clears the buffer and the snapshot */
	in->tr.clock_id = id;
	tfs_trace_clear(h->s, in);
	tfs_snap_empty(in);
	return 0;
}

static int tracing_thresh_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%llu\n", h->s->thresh_us);
	return 0;
}

static int tracing_thresh_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)) || v > UINT64_MAX / 1000000) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr ? perr : -EINVAL;
	}
	h->s->thresh_us = v;
	h->s->ctl->tracing_thresh = 0;		/* computed by tfs_write(), unlocked */
	/* as the kernel: the top directory's tracer is told */
	if (h->s->top.tr.current_trace->update_thresh)
		h->s->top.tr.current_trace->update_thresh(&h->s->top.tr);
	return TFS_WR_THRESH;
}

/*
 * sysprof_sample_period: the sysprof tracer's period in microseconds of
 * each thread's CPU time, as the kernel's trace_sysprof.c: 1000 at
 * first, a smaller value than 100 is taken as 100 (shown so), anything
 * but a decimal number is EINVAL (ERANGE past 2^64; EINVAL past 2^32 - 1,
 * which the control page cannot hold).  The programs re-arm their timers.
 */
static int sysprof_period_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	uint32_t us = h->s->ctl->sysprof_period_us;

	tfs_sb_printf(b, "%u\n", us ? us : 1000u);
	return 0;
}

static int sysprof_period_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)) || v > UINT32_MAX) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr ? perr : -EINVAL;
	}
	h->s->ctl->sysprof_period_us = v < 100 ? 100 : (uint32_t)v;
	return TFS_WR_APPLY;
}

/*
 * tracing_max_latency: the control page's max_latency (clock units), set
 * by the programs' latency tracers (runtime/max.c), in microseconds as
 * the kernel's tracing_nsecs_read().  A write sets it (the next maximum
 * must be larger) and forgets the record; as the kernel's
 * tracing_nsecs_write(), a bad number is -EINVAL (-ERANGE if too large)
 * with no line in error_log.
 */
/*
 * Each directory has its tracing_max_latency, as each kernel trace_array:
 * the session's record is the one of the directory whose latency tracer
 * runs (the top when none does); another directory's keeps what was
 * written to it.
 */
static int max_latency_own(struct tfs_handle *h)
{
	const struct trace_array *o = trace_max_owner();

	return o ? o == &h->n.inst->tr : h->n.inst == &h->s->top;
}

/* the session's record as tracing_max_latency reads it (us) */
static unsigned long long max_latency_now(struct tfs_session *s)
{
	uint64_t v = __atomic_load_n(&s->ctl->max_latency, __ATOMIC_RELAXED);

	return v == s->maxlat_ticks ? s->maxlat_us : tfs_ticks_to_us(s, v);
}

/* the session's record set to @v us, the trace of the last maximum forgotten */
static void max_latency_set(struct tfs_session *s, unsigned long long v)
{
	uint64_t t = tfs_us_to_ticks(s, v > UINT64_MAX / 1000000 ? UINT64_MAX / 1000000 : v);

	ut_max_lock(s->ctl, (int32_t)gettid());
	s->ctl->max_latency = t;
	s->ctl->max_rec.latency = 0;
	s->ctl->max_rec.swapped = 0;
	ut_max_unlock(s->ctl);
	s->maxlat_ticks = t;
	s->maxlat_us = v;
}

/*
 * Directory @in changed its tracer from the holder of the max record
 * @before: as the kernel's __irqsoff_tracer_init() (tr->max_latency = 0),
 * a latency tracer starts from 0; the record is each directory's own
 * (the top's when no latency tracer runs), so it is handed over.
 */
static void max_latency_handover(struct tfs_session *s, struct tfs_inst *in,
				 const struct trace_array *before)
{
	const struct trace_array *after = trace_max_owner();

	if (before == after)
		return;
	if (before == &in->tr && in != &s->top) {
		/* released: the instance keeps its last maximum, the top gets its own back */
		in->tr.max_latency = max_latency_now(s);
		max_latency_set(s, s->top.tr.max_latency);
	}
	if (after == &in->tr) {
		if (in != &s->top)
			s->top.tr.max_latency = max_latency_now(s);
		max_latency_set(s, 0);
	}
}

static int max_latency_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%llu\n", max_latency_own(h) ? max_latency_now(h->s) : h->n.inst->tr.max_latency);
	return 0;
}

static int max_latency_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	unsigned long long v;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)))
		return perr;
	if (!max_latency_own(h)) {
		h->n.inst->tr.max_latency = v;
		return 0;
	}
	max_latency_set(s, v);
	return 0;
}

static int max_graph_depth_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%u\n", h->s->ctl->max_graph_depth);
	return 0;
}

static int max_graph_depth_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)) || v > UINT32_MAX) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return perr ? perr : -ERANGE;
	}
	h->s->ctl->max_graph_depth = (uint32_t)v;
	return TFS_WR_APPLY;
}

static int ftrace_enabled_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	(void)h;
	tfs_sb_puts(b, "1\n");
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
	/* options/NAME: this file for every global option and the tracer's own */
	TFS_FILE("options", 0640, W_OPTIONS, .show = option_show, .write = option_write),
	TFS_FILE("trace_clock", 0640, W_TOP | W_INST, .show = trace_clock_show, .write = trace_clock_write),
	TFS_FILE("tracing_thresh", 0640, W_TOP, .show = tracing_thresh_show, .write = tracing_thresh_write),
	TFS_FILE("sysprof_sample_period", 0640, W_TOP,
		 .show = sysprof_period_show, .write = sysprof_period_write),
	TFS_FILE("tracing_max_latency", 0640, W_TOP | W_INST, .show = max_latency_show, .write = max_latency_write),
	TFS_FILE("max_graph_depth", 0640, W_TOP,
		 .show = max_graph_depth_show, .write = max_graph_depth_write),
	TFS_FILE("ftrace_enabled", 0440, W_TOP, .show = ftrace_enabled_show),
	TFS_FILES_END
};
