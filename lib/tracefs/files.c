// SPDX-License-Identifier: MIT
/*
 * files.c - the files and directories of the tracing directory: the
 * tables of files, path resolution, stat and readdir, and open, read,
 * write and truncate dispatched to each file's handlers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/tracers.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "lib/trace/tracer.h"
#include "lib/tracefs/tfs_int.h"

static const struct tfs_file files[] = {
	{ "README",			F_README,	0440, W_TOP },
	{ "available_events",		F_AVAIL_EVENTS,	0440, W_TOP },
	{ "available_filter_functions",	F_AVAIL_FUNCS,	0440, W_TOP },
	{ "available_tracers",		F_AVAIL_TRACERS, 0440, W_TOP | W_INST },
	{ "buffer_size_kb",		F_BUFSIZE,	0640, W_TOP | W_INST },
	{ "buffer_total_size_kb",	F_BUFTOTAL,	0440, W_TOP | W_INST },
	{ "current_tracer",		F_CUR_TRACER,	0640, W_TOP | W_INST },
	{ "dyn_ftrace_total_info",	F_DYNINFO,	0440, W_TOP },
	{ "enabled_functions",		F_ENABLED_FUNCS, 0440, W_TOP },
	{ "error_log",			F_ERRLOG,	0640, W_TOP | W_INST },
	{ "ftrace_enabled",		F_FTRACE_ENABLED, 0440, W_TOP },
	{ "iter_ctrl",			F_TRACE_OPTIONS, 0640, W_TOP | W_INST },
	{ "max_graph_depth",		F_MAXDEPTH,	0640, W_TOP },
	{ "saved_cmdlines",		F_CMDLINES,	0440, W_TOP },
	{ "set_event",			F_SET_EVENT,	0640, W_TOP | W_INST },
	{ "set_ftrace_filter",		F_FILTER,	0640, W_TOP | W_INST },
	{ "set_ftrace_notrace",		F_NOTRACE,	0640, W_TOP | W_INST },
	{ "set_ftrace_pid",		F_FTRACE_PID,	0640, W_TOP | W_INST },
	{ "set_graph_function",		F_GFUNC,	0640, W_TOP },
	{ "set_graph_notrace",		F_GNOTRACE,	0640, W_TOP },
	{ "snapshot",			F_SNAPSHOT,	0640, W_TOP | W_INST },
	{ "trace",			F_TRACE,	0640, W_TOP | W_INST },
	{ "trace_clock",		F_CLOCK,	0640, W_TOP | W_INST },
	{ "trace_entries",		F_BUFSIZE,	0640, W_TOP },
	{ "trace_marker",		F_MARKER,	0220, W_TOP | W_INST },
	{ "trace_options",		F_TRACE_OPTIONS, 0640, W_TOP | W_INST },
	{ "trace_pipe",			F_TRACE_PIPE,	0440, W_TOP | W_INST },
	{ "tracing_cpumask",		F_CPUMASK,	0640, W_TOP },
	{ "tracing_enabled",		F_TRACING_ON,	0640, W_TOP | W_INST },
	{ "tracing_max_latency",	F_MAXLAT,	0640, W_TOP },
	{ "tracing_on",			F_TRACING_ON,	0640, W_TOP | W_INST },
	{ "tracing_thresh",		F_THRESH,	0640, W_TOP },
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static const struct tfs_file f_option = { NULL, F_OPTION, 0640, 0 };
/* events/ */
static const struct tfs_file f_ev_top_files[] = {
	{ "enable",		F_EV_ENABLE,	0640, 0 },
	{ "header_event",	F_EV_HDR_EVENT,	0440, 0 },
	{ "header_page",	F_EV_HDR_PAGE,	0440, 0 },
};
/*
 * events/ftrace/NAME, one per entry of usertrace/ftrace.def: as the
 * kernel's, format and id only (the tracers write them; no enable)
 */
static const struct tfs_file f_ev_files[] = {
	{ "format",	F_EV_FORMAT,	0440, 0 },
	{ "id",		F_EV_ID,	0440, 0 },
};
/* events/SYS of the programs' events (the session's registry) */
static const struct tfs_file f_evsys_files[] = {
	{ "enable",	F_EVSYS_ENABLE,	0640, 0 },
};
/* events/SYS/NAME of a program's event */
static const struct tfs_file f_evt_files[] = {
	{ "enable",	F_EVT_ENABLE,	0640, 0 },
	{ "format",	F_EV_FORMAT,	0440, 0 },
	{ "id",		F_EV_ID,	0440, 0 },
};
static const struct tfs_file f_cpu_files[] = {
	{ "buffer_size_kb", F_BUFSIZE,	0640, 0 },
	{ "stats",	F_STATS,	0440, 0 },
	{ "trace",	F_TRACE,	0640, 0 },
	{ "trace_pipe",	F_TRACE_PIPE,	0440, 0 },
};

/*
 * trace options: lib/trace/options.def, in the kernel's order; opt_mask
 * holds their bits (trace_opts[i].bit).  A tracer's own option shows and
 * applies with that tracer only (trace_opt_hidden()).
 */

/* the kernel's modes: the top 0700, its directories 0750, eventfs 0755 */
static mode_t dir_mode(int dir, int top)
{
	switch (dir) {
	case D_ROOT:
		return top ? 0700 : 0750;
	case D_EVENTS:
	case D_EVSYS:
	case D_EVENT:
		return 0755;
	default:
		return 0750;
	}
}

/* the next component of *p: its length, *p moved past it */
size_t next_comp(const char **p, const char **comp)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	e = strchrnul(s, '/');
	*comp = s;
	*p = e;
	return (size_t)(e - s);
}

int comp_is(const char *c, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(c, name, len);
}

/* is @name one of the files of events/ (a system of that name would be hidden)? */
static int resolve_top_event_file(const char *name)
{
	for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]); i++)
		if (!strcmp(name, f_ev_top_files[i].name))
			return 1;
	return 0;
}

/* resolve @path.  Context: s->lock held. */
int resolve(struct tfs_session *s, const char *path, struct tfs_node *n)
{
	const char *p = path ? path : "", *c;
	unsigned where = W_TOP;
	size_t len;

	memset(n, 0, sizeof(*n));
	n->cpu = -1;
	n->slot = -1;
	n->inst = &s->top;
	n->dir = D_ROOT;
	len = next_comp(&p, &c);
	if (!len)
		return 0;
	if (comp_is(c, len, "instances")) {
		len = next_comp(&p, &c);
		if (!len) {
			n->dir = D_INSTANCES;
			return 0;
		}
		n->inst = inst_find(s, c, len);
		if (!n->inst)
			return -ENOENT;
		where = W_INST;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
	}
	if (comp_is(c, len, "options")) {
		n->dir = D_OPTIONS;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		n->opt = trace_opt_index(c, len);
		if (n->opt < 0)
			return -ENOENT;
		n->dir = D_NONE;
		n->f = &f_option;
	} else if (comp_is(c, len, "per_cpu")) {
		char *end;
		long cpu;

		n->dir = D_PERCPU;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		if (len < 4 || strncmp(c, "cpu", 3) || !isdigit((unsigned char)c[3]))
			return -ENOENT;
		cpu = strtol(c + 3, &end, 10);
		if (end != c + len || cpu >= s->ncpu)
			return -ENOENT;
		n->cpu = (int)cpu;
		n->dir = D_CPU;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		n->f = NULL;
		for (size_t i = 0; i < sizeof(f_cpu_files) / sizeof(f_cpu_files[0]); i++)
			if (comp_is(c, len, f_cpu_files[i].name))
				n->f = &f_cpu_files[i];
		if (!n->f)
			return -ENOENT;
		n->dir = D_NONE;
	} else if (comp_is(c, len, "events")) {
		n->dir = D_EVENTS;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]); i++)
			if (comp_is(c, len, f_ev_top_files[i].name))
				n->f = &f_ev_top_files[i];
		if (n->f) {
			n->dir = D_NONE;
		} else if (comp_is(c, len, "ftrace")) {
			n->dir = D_EVSYS;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
				if (comp_is(c, len, ut_ftrace_events[i].name))
					n->ev = &ut_ftrace_events[i];
			if (!n->ev)
				return -ENOENT;
			n->dir = D_EVENT;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (size_t i = 0; i < sizeof(f_ev_files) / sizeof(f_ev_files[0]); i++)
				if (comp_is(c, len, f_ev_files[i].name))
					n->f = &f_ev_files[i];
			if (!n->f)
				return -ENOENT;
			n->dir = D_NONE;
		} else {
			/* a system of the programs' events */
			int i = ev_find(s, NULL, c, len);
			const struct tfs_file *tab = f_evsys_files;
			size_t nf = sizeof(f_evsys_files) / sizeof(f_evsys_files[0]);

			if (i < 0)
				return -ENOENT;
			n->evsys = s->evd[i]->system;
			n->dir = D_EVSYS;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (size_t k = 0; k < nf; k++)
				if (comp_is(c, len, tab[k].name))
					n->f = &tab[k];
			if (!n->f) {
				i = ev_find(s, n->evsys, c, len);
				if (i < 0)
					return -ENOENT;
				n->slot = i;
				n->ev = s->evd[i];
				n->dir = D_EVENT;
				len = next_comp(&p, &c);
				if (!len)
					return 0;
				tab = f_evt_files;
				nf = sizeof(f_evt_files) / sizeof(f_evt_files[0]);
				for (size_t k = 0; k < nf; k++)
					if (comp_is(c, len, tab[k].name))
						n->f = &tab[k];
				if (!n->f)
					return -ENOENT;
			}
			n->dir = D_NONE;
		}
	} else {
		for (size_t i = 0; i < NR_FILES; i++)
			if ((files[i].where & where) && comp_is(c, len, files[i].name))
				n->f = &files[i];
		if (!n->f)
			return -ENOENT;
		n->dir = D_NONE;
	}
	len = next_comp(&p, &c);
	if (len)
		return n->dir == D_NONE ? -ENOTDIR : -ENOENT;
	return 0;
}

static void node_stat(struct tfs_session *s, const struct tfs_node *n, struct tfs_stat *st)
{
	st->is_dir = n->dir != D_NONE;
	st->mode = st->is_dir ? dir_mode(n->dir, n->inst == &s->top) : n->f->mode;
}

int tfs_stat(struct tfs_session *s, const char *path, struct tfs_stat *st)
{
	struct tfs_node n;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	pthread_mutex_unlock(&s->lock);
	if (!ret)
		node_stat(s, &n, st);
	return ret;
}

int tfs_readdir(struct tfs_session *s, const char *path,
		int (*fill)(void *ctx, const char *name, const struct tfs_stat *st), void *ctx)
{
	struct tfs_stat dir = { 1, 0750 }, evdir = { 1, 0755 };
	struct tfs_node n;
	struct words names = { 0 };
	int ret, top;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (ret || n.dir == D_NONE) {
		pthread_mutex_unlock(&s->lock);
		return ret ? ret : -ENOTDIR;
	}
	top = n.inst == &s->top;
	if (n.dir == D_INSTANCES)
		for (struct tfs_inst *in = s->insts; in; in = in->next)
			words_add(&names, in->name, strlen(in->name));
	if (n.dir == D_EVENTS || (n.dir == D_EVSYS && n.evsys)) {
		/* the programs' systems, or the events of one */
		ev_refresh(s);
		for (uint32_t i = 0; i < s->nr_evd; i++) {
			const char *w;

			if (!ev_is(s, i, n.evsys, NULL))
				continue;
			w = n.evsys ? s->evd[i]->name : s->evd[i]->system;
			if (words_find(&names, w) >= 0 || !strcmp(w, "ftrace"))
				continue;
			if (!n.evsys && resolve_top_event_file(w))
				continue;
			if (n.evsys && !strcmp(w, "enable"))
				continue;
			words_add(&names, w, strlen(w));
		}
	}
	pthread_mutex_unlock(&s->lock);

	switch (n.dir) {
	case D_ROOT:
		for (size_t i = 0; i < NR_FILES && !ret; i++) {
			struct tfs_stat st = { 0, files[i].mode };

			if (files[i].where & (top ? W_TOP : W_INST))
				ret = fill(ctx, files[i].name, &st);
		}
		if (!ret)
			ret = fill(ctx, "options", &dir);
		if (!ret)
			ret = fill(ctx, "per_cpu", &dir);
		if (!ret)
			ret = fill(ctx, "events", &evdir);
		if (!ret && top)
			ret = fill(ctx, "instances", &dir);
		break;
	case D_OPTIONS:
		for (int i = 0; i < TRACE_NR_OPTS && !ret; i++) {
			struct tfs_stat st = { 0, 0640 };

			ret = fill(ctx, trace_opts[i].name, &st);
		}
		break;
	case D_PERCPU:
		for (int i = 0; i < s->ncpu && !ret; i++) {
			char name[16];

			snprintf(name, sizeof(name), "cpu%d", i);
			ret = fill(ctx, name, &dir);
		}
		break;
	case D_CPU:
		for (size_t i = 0; i < sizeof(f_cpu_files) / sizeof(f_cpu_files[0]) && !ret; i++) {
			struct tfs_stat st = { 0, f_cpu_files[i].mode };

			ret = fill(ctx, f_cpu_files[i].name, &st);
		}
		break;
	case D_INSTANCES:
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &dir);
		break;
	case D_EVENTS:
		for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]) && !ret; i++) {
			struct tfs_stat st = { 0, f_ev_top_files[i].mode };

			ret = fill(ctx, f_ev_top_files[i].name, &st);
		}
		if (!ret)
			ret = fill(ctx, "ftrace", &evdir);
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &evdir);
		break;
	case D_EVSYS:
		if (n.evsys) {
			for (size_t i = 0; i < sizeof(f_evsys_files) / sizeof(f_evsys_files[0]) && !ret; i++) {
				struct tfs_stat st = { 0, f_evsys_files[i].mode };

				ret = fill(ctx, f_evsys_files[i].name, &st);
			}
			for (int i = 0; i < names.n && !ret; i++)
				ret = fill(ctx, names.w[i], &evdir);
			break;
		}
		for (unsigned i = 0; i < ut_ftrace_nr_events && !ret; i++)
			ret = fill(ctx, ut_ftrace_events[i].name, &evdir);
		break;
	case D_EVENT: {
		const struct tfs_file *tab = n.slot >= 0 ? f_evt_files : f_ev_files;
		size_t nf = n.slot >= 0 ? sizeof(f_evt_files) / sizeof(f_evt_files[0]) :
			    sizeof(f_ev_files) / sizeof(f_ev_files[0]);

		for (size_t i = 0; i < nf && !ret; i++) {
			struct tfs_stat st = { 0, tab[i].mode };

			ret = fill(ctx, tab[i].name, &st);
		}
		break;
	}
	}
	words_free(&names);
	return ret > 0 ? 0 : ret;
}

/*
 * produce - the whole text of an ordinary file.  Context: s->lock held,
 * except around live_trace() (it reads the buffers; see below).
 */
static int produce(struct tfs_handle *h, struct sbuf *b)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_session_ctl *c = s->ctl;
	int ret = 0;

	switch (h->n.f->id) {
	case F_README:
		sb_puts(b, readme_text);
		break;
	case F_AVAIL_TRACERS:
		sb_printf(b, "%s\n", UT_TRACER_NAMES);
		break;
	case F_CUR_TRACER:
		sb_printf(b, "%s\n", inst_tracer(s, in));
		break;
	case F_TRACING_ON:
		sb_printf(b, "%d\n", inst_on(s, in));
		break;
	case F_TRACE: {
		struct view_buf vb;

		inst_pump(in);
		view_make(s, in, h->n.cpu, &vb);
		/* what trace_pipe consumed is gone from the buffers (pipe_lock: see view_print) */
		vb.v.consumed = in->pipes ? in->pipes[0] : NULL;
		ret = view_print(s, &vb, b);
		break;
	}
	case F_TRACE_OPTIONS:
		show_trace_options(s, in, b);
		break;
	case F_OPTION:
		sb_printf(b, "%d\n", !!(in->opt_mask & trace_opts[h->n.opt].bit));
		break;
	case F_BUFSIZE: {
		uint32_t pages;

		/* as the kernel: one CPU's size, the common size, or X when they differ */
		if (h->n.cpu >= 0)
			sb_printf(b, "%u\n", in->cpu_pages[h->n.cpu] * 4);
		else if (cpu_pages_same(s, in, &pages))
			sb_printf(b, "%u\n", pages * 4);
		else
			sb_puts(b, "X\n");
		break;
	}
	case F_BUFTOTAL: {
		int nb = in->pump ? live_pump_buffers(in->pump) : count_buffers(s);

		sb_printf(b, "%llu\n", (unsigned long long)(in->pump ? in->nr_pages : c->nr_pages) *
					  4 * (nb ? nb : 1));
		break;
	}
	case F_CPUMASK:
		show_cpumask(s, b);
		break;
	case F_FTRACE_PID: {
		struct words ws = { 0 };

		words_split(&ws, in->pids, strlen(in->pids));
		for (int i = 0; i < ws.n; i++)
			sb_printf(b, "%s\n", ws.w[i]);
		words_free(&ws);
		break;
	}
	case F_CLOCK:
		for (int i = 0; i < TRACE_NR_CLOCKS; i++)
			sb_printf(b, i == h->n.inst->clock ? "%s[%s]" : "%s%s", i ? " " : "",
				  trace_clock_names[i]);
		sb_puts(b, "\n");
		break;
	case F_THRESH:
		sb_printf(b, "%llu\n", s->thresh_us);
		break;
	case F_MAXLAT:
		sb_printf(b, "%llu\n", s->max_latency);
		break;
	case F_STATS:
		inst_pump(in);
		show_stats(s, in, h->n.cpu, b);
		break;
	case F_CMDLINES:
		show_cmdlines(s, b);
		break;
	case F_ERRLOG:
		for (int i = 0; i < in->nr_err; i++)
			sb_puts(b, in->errlog[i]);
		break;
	case F_SNAPSHOT:
		if (in->snap_taken) {
			struct view_buf vb;
			struct sbuf t = { 0 };

			/* the copy, in the format of now (tracer, options, clock) */
			view_make(s, in, -1, &vb);
			vb.v.bufdir = in->snapdir;
			vb.v.since = in->snap_since;
			ret = view_print(s, &vb, &t);
			/* as the kernel: a snapshot that holds no event shows the help */
			if (!ret && !t.err && has_event_line(t.p, t.len)) {
				sb_add(b, t.p, t.len);
				free(t.p);
				break;
			}
			free(t.p);
			if (ret)
				break;
		}
		sb_printf(b, "# tracer: %s\n#\n", inst_tracer(s, in));
		sb_puts(b, in->snap_alloc ? "#\n# * Snapshot is allocated *\n#\n"
					  : "#\n# * Snapshot is freed *\n#\n");
		sb_puts(b, snapshot_help);
		break;
	case F_EV_ENABLE:
	case F_EVSYS_ENABLE:
		/*
		 * as the kernel's: 0 or 1 when the events (of the system) all
		 * are, else X; the ftrace system's cannot be enabled
		 */
		sb_printf(b, "%c\n", ev_state(s, in, h->n.evsys));
		break;
	case F_EVT_ENABLE:
		sb_printf(b, "%d\n", ev_bit(in->ev_on, (uint32_t)h->n.slot));
		break;
	case F_SET_EVENT:
		ev_list(s, in, b);
		break;
	case F_AVAIL_EVENTS:
		ev_list(s, NULL, b);
		break;
	case F_EV_FORMAT: {
		char *t = ut_event_format(h->n.ev);

		if (!t) {
			ret = -ENOMEM;
			break;
		}
		sb_puts(b, t);
		free(t);
		break;
	}
	case F_EV_ID:
		sb_printf(b, "%u\n", (unsigned)h->n.ev->id);
		break;
	case F_EV_HDR_PAGE:
		sb_puts(b, ut_event_header_page());
		break;
	case F_EV_HDR_EVENT:
		sb_puts(b, ut_event_header_event());
		break;
	case F_AVAIL_FUNCS:
	case F_ENABLED_FUNCS:
	case F_DYNINFO:
		show_funcs(s, h->n.f->id, b);
		break;
	case F_FILTER:
	case F_NOTRACE:
	case F_GFUNC:
	case F_GNOTRACE:
		list_show(s, in, h->n.f->id, b);
		break;
	case F_MAXDEPTH:
		sb_printf(b, "%u\n", c->max_graph_depth);
		break;
	case F_FTRACE_ENABLED:
		sb_puts(b, "1\n");
		break;
	case F_MARKER:
	case F_TRACE_PIPE:
		ret = -EINVAL;
		break;
	}
	if (!ret && b->err)
		ret = -ENOMEM;
	return ret;
}

/*
 * do_write - one write(2).  Returns 0, 1 (the control page changed: apply
 * it once the lock is dropped) or -errno.  Context: s->lock held.
 */
static int do_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_session_ctl *c = s->ctl;
	const char *fname = h->n.f->name ? h->n.f->name : "options";
	unsigned long long v;
	int ret = 0, trunc, perr;

	switch (h->n.f->id) {
	case F_CUR_TRACER: {
		int t = word_index(s, buf, size, tracer_index, "No such tracer");

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
	case F_TRACING_ON:
		/* as the kernel: any number, nonzero is on */
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		v = !!v;
		/* what was recorded before the switch is the buffer's */
		inst_pump(in);
		if (in == &s->top)
			top_set_on(s, (int)v);
		else
			in->on = (int)v;
		return recording_update(s);
	case F_TRACE:
		/* as the kernel: opening with O_TRUNC clears it (tfs_open); a write does nothing */
		return 0;
	case F_TRACE_OPTIONS: {
		/* as the kernel: one option a write, blanks around it */
		char *w = strip_dup(buf, size);

		if (!w)
			return -ENOMEM;
		ret = set_option(s, in, w);
		free(w);
		return ret;
	}
	case F_OPTION:
		if ((perr = parse_ull(buf, size, &v)) || v > 1) {
			tfs_err(s, "Invalid argument", trace_opts[h->n.opt].name);
			return perr ? perr : -EINVAL;
		}
		if (v)
			in->opt_mask |= trace_opts[h->n.opt].bit;
		else
			in->opt_mask &= ~trace_opts[h->n.opt].bit;
		return 0;
	case F_BUFSIZE:
		if ((perr = parse_ull(buf, size, &v)) || !v) {
			tfs_err(s, "Invalid buffer size", fname);
			return perr ? perr : -EINVAL;
		}
		/* the smallest ring: two pages */
		if (v < 8)
			v = 8;
		if (v > phys_kb() || v / 4 >= UINT32_MAX) {
			tfs_err(s, "Buffer larger than the machine's memory", fname);
			return -ENOMEM;
		}
		{
			uint32_t pages = (uint32_t)((v + 3) / 4), max;

			/* per_cpu/cpuN: that CPU's; the top file: every CPU's */
			if (h->n.cpu >= 0)
				in->cpu_pages[h->n.cpu] = pages;
			else
				cpu_pages_init(in, pages);
			cpu_pages_same(s, in, &max);
			pages = max;
			live_marker_resize(in->marker, pages);
			if (in->pump) {
				inst_pump(in);
				live_pump_resize(in->pump, pages);
				in->nr_pages = pages;
			} else if (pages != c->nr_pages) {
				drop_replaced_buffers(s);
				__atomic_store_n(&c->nr_pages, pages, __ATOMIC_RELEASE);
			}
		}
		return 0;
	case F_CPUMASK:
		ret = write_cpumask(s, buf, size);
		if (ret)
			tfs_err(s, ret == -EOVERFLOW ? "CPU mask beyond the CPUs" : "Invalid CPU mask",
				fname);
		return ret ? ret : recording_update(s);
	case F_FTRACE_PID:
		trunc = h->trunc_pending;
		h->trunc_pending = 0;
		/* an instance's buffers take the new choice from now on */
		inst_pump(in);
		ret = write_pids(s, in, buf, size, trunc);
		return ret ? ret : recording_update(s);
	case F_MARKER:
		/* as the kernel: the markers option off refuses them */
		if (!(in->opt_mask & TRACE_ITER_MARKERS))
			return -EINVAL;
		/* a buffer that is off takes no marker */
		if (!inst_on(s, in))
			return -EBADF;
		return write_marker(in, buf, size);
	case F_CLOCK: {
		int id = word_index(s, buf, size, trace_clock_find, "No such clock");

		if (id < 0)
			return id;
		/* as the kernel: a new clock clears the buffer and the snapshot */
		in->clock = id;
		trace_clear(s, in);
		snap_empty(in);
		return 0;
	}
	case F_THRESH:
		if ((perr = parse_ull(buf, size, &v)) || v > UINT64_MAX / 1000000) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		s->thresh_us = v;
		c->tracing_thresh = 0;		/* computed by the caller, unlocked */
		return 2;
	case F_MAXLAT:
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		s->max_latency = v;
		return 0;
	case F_MAXDEPTH:
		if ((perr = parse_ull(buf, size, &v)) || v > UINT32_MAX) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -ERANGE;
		}
		c->max_graph_depth = (uint32_t)v;
		return 1;
	case F_ERRLOG:
		/* as the kernel: opening with O_TRUNC clears it (tfs_open); a write does nothing */
		return 0;
	case F_SNAPSHOT: {
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		if (v == 0) {
			snap_empty(in);
			in->snap_alloc = 0;
		} else if (v == 1) {
			/* a copy of the buffers as they are now: the kernel swaps them */
			inst_pump(in);
			snap_empty(in);
			snprintf(in->snapdir, sizeof(in->snapdir), "%s/snap%s%s", s->dir,
				 in == &s->top ? "" : ".", in->name);
			ret = live_snapshot(s->dir, in->pump ? in->bufdir : NULL, in->snapdir,
					    in->since);
			if (ret) {
				tfs_err(s, "Cannot take the snapshot", fname);
				return ret;
			}
			in->snap_taken = 1;
			in->snap_since = in->since;
			in->snap_alloc = 1;
		} else {
			snap_empty(in);
		}
		return 0;
	}
	case F_EV_ENABLE:
	case F_EVSYS_ENABLE:
	case F_EVT_ENABLE:
		return write_ev_enable(h, buf, size);
	case F_SET_EVENT:
		/* opening with O_TRUNC cleared the set (tfs_open) */
		return write_set_event(s, in, buf, size);
	case F_FILTER:
	case F_NOTRACE:
	case F_GFUNC:
	case F_GNOTRACE:
		trunc = h->trunc_pending;
		ret = list_write(s, in, h->n.f->id, buf, size, trunc);
		if (ret >= 0)
			h->trunc_pending = 0;
		return ret;
	default:
		return -EINVAL;
	}
}

static int is_list(enum tfs_id id)
{
	return id == F_FILTER || id == F_NOTRACE || id == F_GFUNC || id == F_GNOTRACE ||
	       id == F_FTRACE_PID || id == F_SET_EVENT;
}

/* a list emptied (O_TRUNC with nothing written, or truncate(2)): 1 if changed */
static int list_truncate(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id)
{
	char *l = list_of(s, in, id);

	if (id == F_FTRACE_PID) {
		inst_pump(in);
		in->pids[0] = '\0';
		return recording_update(s);
	}
	if (id == F_SET_EVENT) {
		/* as the kernel: every event of the directory is disabled */
		ev_set(s, in, NULL, NULL, NULL, 0);
		return ev_changed(s);
	}
	if (!l || !l[0])
		return 0;
	if (in != &s->top)
		inst_pump(in);
	l[0] = '\0';
	return id == F_FILTER || id == F_NOTRACE ? lists_update(s) : 1;
}

int tfs_open(struct tfs_session *s, const char *path, int flags, struct tfs_handle **hp)
{
	int acc = flags & O_ACCMODE, wr = acc != O_RDONLY, rd = acc != O_WRONLY;
	struct tfs_handle *h;
	struct tfs_node n;
	int ret, apply = 0;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (ret)
		goto out;
	ret = -EISDIR;
	if (n.dir != D_NONE)
		goto out;
	/*
	 * No mode check: as in the kernel, the owner opens any file; a write
	 * to a file that takes none, or a read of trace_marker, is EINVAL
	 * (the FUSE mount lets the kernel check the modes for other users)
	 */
	(void)rd;
	ret = -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		goto out;
	h->s = s;
	h->n = n;
	h->flags = flags;
	n.inst->refs++;
	ret = 0;
	if (wr && (flags & O_TRUNC)) {
		switch (n.f->id) {
		case F_TRACE:
			trace_clear_cpu(s, n.inst, n.cpu);
			break;
		case F_ERRLOG:
			errlog_clear(n.inst);
			break;
		case F_SET_EVENT:
			/* as the kernel's: the open disables the directory's events */
			apply = list_truncate(s, n.inst, F_SET_EVENT);
			break;
		default:
			/* lists: replaced by the first write, emptied at release without one */
			h->trunc_pending = is_list(n.f->id) && !(flags & O_APPEND);
			break;
		}
	}
	if (n.f->id == F_TRACE_PIPE) {
		struct view_buf vb;
		int k = n.cpu + 1;

		view_make(s, n.inst, n.cpu, &vb);
		h->tracer_gen = n.inst->tracer_gen;
		pthread_mutex_lock(&n.inst->pipe_lock);
		if (!n.inst->pipes)
			n.inst->pipes = calloc(TFS_MAX_CPUS + 1, sizeof(*n.inst->pipes));
		if (n.inst->pipes && !n.inst->pipes[k])
			n.inst->pipes[k] = live_pipe_open(s->dir, &vb.v);
		h->rd = n.inst->pipes ? n.inst->pipes[k] : NULL;
		pthread_mutex_unlock(&n.inst->pipe_lock);
		if (!h->rd) {
			n.inst->refs--;
			free(h);
			ret = -EIO;
			goto out;
		}
	}
	*hp = h;
out:
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	return ret;
}

ssize_t tfs_read(struct tfs_handle *h, char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	int ret = 0;

	if ((h->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (h->n.f->id == F_TRACE_PIPE)
		return pipe_read(h, buf, size);
	if (off < 0)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (!h->have_text) {
		struct sbuf b = { 0 };

		ret = produce(h, &b);
		if (ret) {
			free(b.p);
		} else {
			h->text = b.p;
			h->len = b.len;
			h->have_text = 1;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (ret)
		return ret;
	if ((size_t)off >= h->len)
		return 0;
	if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->text + off, size);
	return (ssize_t)size;
}

ssize_t tfs_write(struct tfs_handle *h, const char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	int ret, apply;

	(void)off;
	if ((h->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	/* as the kernel, a marker longer than an event can hold is cut: the write is short */
	if (h->n.f->id == F_MARKER && size > LIVE_MARKER_MAX)
		size = LIVE_MARKER_MAX;
	pthread_mutex_lock(&s->lock);
	s->err_inst = h->n.inst;
	s->ev_apply = 0;
	ret = do_write(h, buf, size);
	/* a write that failed after it changed the events: they are applied */
	apply = ret < 0 && s->ev_apply;
	s->err_inst = NULL;
	pthread_mutex_unlock(&s->lock);
	if (ret == 2) {
		/* tracing_thresh: the TSC rate is measured without the lock */
		uint64_t t = us_to_ticks(s, s->thresh_us);

		pthread_mutex_lock(&s->lock);
		s->ctl->tracing_thresh = t;
		pthread_mutex_unlock(&s->lock);
		ret = 1;
	}
	if (ret == 1 || apply)
		ctl_apply(s);
	return ret < 0 ? ret : (ssize_t)size;
}

int tfs_truncate(struct tfs_session *s, const char *path)
{
	struct tfs_node n;
	int ret, apply = 0;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (!ret && n.dir != D_NONE)
		ret = -EISDIR;
	if (!ret && !(n.f->mode & 0222))
		ret = -EINVAL;
	if (!ret) {
		if (n.f->id == F_TRACE)
			trace_clear_cpu(s, n.inst, n.cpu);
		else if (n.f->id == F_ERRLOG)
			errlog_clear(n.inst);
		else if (is_list(n.f->id))
			apply = list_truncate(s, n.inst, n.f->id);
	}
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	return ret;
}

void tfs_interrupt(struct tfs_handle *h)
{
	pthread_mutex_lock(&h->s->lock);
	h->intr = 1;
	pthread_cond_broadcast(&h->s->cond);
	pthread_mutex_unlock(&h->s->lock);
}

void tfs_release(struct tfs_handle *h)
{
	struct tfs_session *s;
	int apply = 0;

	if (!h)
		return;
	s = h->s;
	pthread_mutex_lock(&s->lock);
	if (h->trunc_pending)
		apply = list_truncate(s, h->n.inst, h->n.f->id);
	h->n.inst->refs--;
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	/* h->rd is the directory's: it stays */
	free(h->pend);
	free(h->text);
	free(h);
}
