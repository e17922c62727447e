// SPDX-License-Identifier: MIT
/*
 * tracer.c - the tracer registry, trace options, and the output pieces
 * shared by the tracers (the kernel's trace.c/trace_output.c formats).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/trace/output.h"
#include "lib/trace/tracer.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/utils.h"

static const struct tracer *const tracers[] = {
	&function_graph_tracer,
	&function_tracer,
	&nop_tracer,
};

const struct tracer *tracer_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	if (!strcmp(name, "ftrace"))
		return &function_tracer;
	for (i = 0; i < ARRAY_SIZE(tracers); i++)
		if (!strcmp(tracers[i]->name, name))
			return tracers[i];
	return NULL;
}

/* as available_tracers: names on one line, separated by spaces */
void tracer_list(FILE *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracers); i++)
		fprintf(out, "%s%s", i ? " " : "", tracers[i]->name);
	fputc('\n', out);
}

/* the global options (trace_options) usertrace implements */
static const struct tracer_opt global_opts[] = {
	{ "print-parent",	TRACE_ITER_PRINT_PARENT },
	{ "sym-offset",		TRACE_ITER_SYM_OFFSET },
	{ "sym-addr",		TRACE_ITER_SYM_ADDR },
	{ "irq-info",		TRACE_ITER_IRQ_INFO },
	{ "context-info",	TRACE_ITER_CONTEXT_INFO },
	{ "record-tgid",	TRACE_ITER_RECORD_TGID },
	{ "markers",		TRACE_ITER_MARKERS },
	{ NULL, 0 },
};

static const struct tracer_opt *find_opt(const struct tracer_opt *opts, const char *name)
{
	for (; opts && opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts;
	return NULL;
}

void trace_iter_init(struct trace_iter *iter, struct ut_data *d,
		     const struct tracer *t, FILE *out)
{
	memset(iter, 0, sizeof(*iter));
	iter->out = out;
	iter->data = d;
	iter->tracer = t;
	iter->iter_flags = TRACE_ITER_DEFAULT;
	iter->tracer_flags = t ? t->default_flags : 0;
	if (t && t->init)
		t->init(iter);
}

int tracer_set_option(struct trace_iter *iter, const char *opt)
{
	const struct tracer_opt *o;
	const char *name = opt;
	int neg = 0;

	if (!opt || !*opt)
		return -EINVAL;
	if (!strncmp(name, "no", 2)) {
		neg = 1;
		name += 2;
	}
	o = find_opt(global_opts, name);
	if (o) {
		if (neg)
			iter->iter_flags &= ~o->bit;
		else
			iter->iter_flags |= o->bit;
		return 0;
	}
	/* like trace_options: only the current tracer's own options */
	o = iter->tracer ? find_opt(iter->tracer->opts, name) : NULL;
	if (o) {
		if (neg)
			iter->tracer_flags &= ~o->bit;
		else
			iter->tracer_flags |= o->bit;
		return 0;
	}
	return -EINVAL;
}

/* ---- symbols ---- */

void trace_print_sym_flags(struct trace_iter *iter, const struct ut_event *ev,
			   uint64_t addr, uint32_t sym_flags)
{
	const struct ut_sym *sym = NULL;
	FILE *out = iter->out;

	/* seq_print_ip_sym(): a zero address is "0", without sym-addr */
	if (!addr && !(sym_flags & TRACE_SYM_PS)) {
		fputc('0', out);
		return;
	}
	if (iter->data && iter->data->symtab)
		sym = ut_symtab_find(iter->data->symtab, ev->pid, ev->image, addr);
	if (sym && sym->name && *sym->name) {
		fputs(sym->name, out);
		/* sprint_symbol(): "%s+%#lx/%#lx", the kernel's %#lx of 0 being 0x0 */
		if (sym_flags & TRACE_ITER_SYM_OFFSET)
			fprintf(out, "+0x%" PRIx64 "/0x%" PRIx64, addr - sym->addr, sym->size);
	} else if (sym_flags & (TRACE_ITER_SYM_OFFSET | TRACE_SYM_PS)) {
		fprintf(out, "0x%" PRIx64, addr);	/* sprint_symbol(), %ps */
	} else {
		fprintf(out, "0x%08" PRIx64, addr);	/* trace_seq_print_sym() */
	}
	if (sym_flags & TRACE_ITER_SYM_ADDR)
		fprintf(out, " <%016" PRIx64 ">", addr);
}

void trace_print_sym(struct trace_iter *iter, const struct ut_event *ev, uint64_t addr)
{
	trace_print_sym_flags(iter, ev, addr,
			      iter->iter_flags & (TRACE_ITER_SYM_OFFSET | TRACE_ITER_SYM_ADDR));
}

/* ---- shared output pieces ---- */

char trace_find_mark(uint64_t ns)
{
	static const struct {
		uint64_t ns;
		char mark;
	} marks[] = {
		{ 1000000000ull, '$' },	/* 1 s */
		{ 100000000ull, '@' },	/* 100 ms */
		{ 10000000ull, '*' },	/* 10 ms */
		{ 1000000ull, '#' },	/* 1 ms */
		{ 100000ull, '!' },	/* 100 us */
		{ 10000ull, '+' },	/* 10 us */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(marks); i++)
		if (ns > marks[i].ns)
			return marks[i].mark;
	return ' ';
}

void trace_print_spaces(FILE *out, uint64_t n)
{
	static const char sp[] = "                                                                ";

	while (n >= sizeof(sp) - 1) {
		fputs(sp, out);
		n -= sizeof(sp) - 1;
	}
	if (n)
		fwrite(sp, 1, (size_t)n, out);
}

void trace_print_graph_duration(FILE *out, uint64_t ns)
{
	char usecs[24], nsecs[8];
	size_t len, nlen;

	snprintf(usecs, sizeof(usecs), "%" PRIu64, ns / 1000);
	fputs(usecs, out);
	len = strlen(usecs);
	/* at most 7 digits in all: cut the three nsec digits to fit */
	if (len < 7) {
		/* a buffer of min(5, 8 - len) bytes: 7 - len digits at most */
		nlen = 8 - len;
		if (nlen > 5)
			nlen = 5;
		snprintf(nsecs, nlen, "%03u", (unsigned)(ns % 1000));
		fprintf(out, ".%s", nsecs);
		len += strlen(nsecs) + 1;
	}
	fputs(" us ", out);
	if (len < 8)
		trace_print_spaces(out, 8 - len);
}

void trace_print_graph_cpu(FILE *out, int width, int cpu)
{
	fprintf(out, " %*d) ", width, cpu);
}

void trace_print_graph_proc(FILE *out, const char *comm, int tid)
{
	char name[8], pid[16];
	int len, spaces = 0;

	snprintf(name, sizeof(name), "%s", comm ? comm : "<...>");
	snprintf(pid, sizeof(pid), "%d", tid);
	len = (int)(strlen(name) + strlen(pid) + 1);
	if (len < TRACE_GRAPH_PROCINFO_LENGTH)
		spaces = TRACE_GRAPH_PROCINFO_LENGTH - len;
	trace_print_spaces(out, (uint64_t)(spaces / 2));
	fprintf(out, "%s-%s", name, pid);
	trace_print_spaces(out, (uint64_t)(spaces - spaces / 2));
}

const char *trace_comm(const struct ut_event *ev)
{
	if (ev->thread && ev->thread->comm[0])
		return ev->thread->comm;
	return "<...>";
}

void trace_print_marker_text(FILE *out, const struct ut_event *ev)
{
	size_t len;

	if (!ev->data)
		return;
	len = strnlen(ev->data, ev->data_len);
	if (len && ev->data[len - 1] == '\n')
		len--;
	fwrite(ev->data, 1, len, out);
}

/* print_event_info() and print_func_help_header[_irq]() */
void trace_default_header(struct trace_iter *iter)
{
	uint32_t fl = iter->iter_flags;
	int tgid = !!(fl & TRACE_ITER_RECORD_TGID);
	const char *pad = tgid ? "            " : "  ";
	FILE *out = iter->out;

	if (!(fl & TRACE_ITER_CONTEXT_INFO))
		return;
	fprintf(out, "# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%d\n",
		iter->entries, iter->written, iter->data ? iter->data->nr_cpus : 1);
	fputs("#\n", out);
	if (fl & TRACE_ITER_IRQ_INFO) {
		fprintf(out, "#                            %s  _-----=> irqs-off/BH-disabled\n", pad);
		fprintf(out, "#                            %s / _----=> need-resched\n", pad);
		fprintf(out, "#                            %s| / _---=> hardirq/softirq\n", pad);
		fprintf(out, "#                            %s|| / _--=> preempt-depth\n", pad);
		fprintf(out, "#                            %s||| / _-=> migrate-disable\n", pad);
		fprintf(out, "#                            %s|||| /     delay\n", pad);
		fputs(tgid ? "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
			   : "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n", out);
		fputs(tgid ? "#              | |           |       |   |||||     |         |\n"
			   : "#              | |         |   |||||     |         |\n", out);
	} else {
		fputs(tgid ? "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
			   : "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n", out);
		fputs(tgid ? "#              | |           |       |         |         |\n"
			   : "#              | |         |         |         |\n", out);
	}
}

/* trace_print_context(): the time rounds to the microsecond (ns2usecs) */
void trace_print_context(struct trace_iter *iter, const struct ut_event *ev)
{
	FILE *out = iter->out;
	uint64_t us;

	fprintf(out, "%16s-%-7d ", trace_comm(ev), ev->tid);
	if (iter->iter_flags & TRACE_ITER_RECORD_TGID)
		fprintf(out, "(%7d) ", ev->pid);
	fprintf(out, "[%03u] ", ev->cpu);
	/* user space: irqs on, no resched, no irq context, preemptible */
	if (iter->iter_flags & TRACE_ITER_IRQ_INFO)
		fputs(".....", out);
	us = (ev->ts + 500) / 1000;
	fprintf(out, " %5" PRIu64 ".%06" PRIu64 ": ", us / 1000000, us % 1000000);
}

/*
 * print_trace_fmt() + trace_print_print(): the marker's ip is the kernel's
 * tracing_mark_write(); usertrace has no address for it, so sym-offset and
 * sym-addr add nothing.
 */
void trace_print_marker_line(struct trace_iter *iter, const struct ut_event *ev)
{
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	fputs("tracing_mark_write: ", iter->out);
	trace_print_marker_text(iter->out, ev);
	fputc('\n', iter->out);
}

/* ---- per-thread state ---- */

struct trace_threads {
	struct trace_thread *slots;
	size_t cap, used;
};

static size_t thread_hash(int tid, uint64_t image, size_t cap)
{
	uint64_t h = ((uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ull) ^ (image * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static struct trace_thread *thread_slot(struct trace_thread *slots, size_t cap,
					int tid, uint64_t image)
{
	size_t i = thread_hash(tid, image, cap);

	while (slots[i].used && (slots[i].tid != tid || slots[i].image != image))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

struct trace_thread *trace_thread_get(struct trace_iter *iter, const struct ut_event *ev)
{
	struct trace_threads *ts = iter->threads;
	struct trace_thread *t;
	size_t i;

	if (!ts) {
		ts = iter->threads = xcalloc(1, sizeof(*ts));
		ts->cap = 64;
		ts->slots = xcalloc(ts->cap, sizeof(*ts->slots));
	}
	t = thread_slot(ts->slots, ts->cap, ev->tid, ev->image);
	if (t->used)
		return t;
	if ((ts->used + 1) * 2 > ts->cap) {
		struct trace_thread *old = ts->slots;
		size_t oldcap = ts->cap;

		ts->cap *= 2;
		ts->slots = xcalloc(ts->cap, sizeof(*ts->slots));
		for (i = 0; i < oldcap; i++)
			if (old[i].used)
				*thread_slot(ts->slots, ts->cap, old[i].tid, old[i].image) = old[i];
		free(old);
		t = thread_slot(ts->slots, ts->cap, ev->tid, ev->image);
	}
	t->used = 1;
	t->tid = ev->tid;
	t->image = ev->image;
	ts->used++;
	return t;
}

struct trace_frame *trace_thread_frame(struct trace_thread *t, uint32_t depth)
{
	uint32_t n;

	if (depth >= TRACE_MAX_TRACKED_DEPTH)
		return NULL;
	if (depth >= t->nr_frames) {
		n = t->nr_frames ? t->nr_frames : 16;
		while (n <= depth)
			n *= 2;
		t->frames = xrealloc(t->frames, n * sizeof(*t->frames));
		memset(t->frames + t->nr_frames, 0, (n - t->nr_frames) * sizeof(*t->frames));
		t->nr_frames = n;
	}
	return &t->frames[depth];
}

void trace_threads_free(struct trace_iter *iter)
{
	struct trace_threads *ts = iter->threads;
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->cap; i++)
		free(ts->slots[i].frames);
	free(ts->slots);
	free(ts);
	iter->threads = NULL;
}

/* ---- the whole output ---- */

static int thread_selected(const struct trace_iter *iter, int tid)
{
	int i;

	if (!iter->tids || iter->nr_tids <= 0)
		return 1;
	for (i = 0; i < iter->nr_tids; i++)
		if (iter->tids[i] == tid)
			return 1;
	return 0;
}

/* print_trace_line(): lost events are reported before the next line */
static void print_lost(struct trace_iter *iter, const struct ut_event *ev)
{
	if (ev->count && ev->count != UINT64_MAX)
		fprintf(iter->out, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->count);
	else
		fprintf(iter->out, "CPU:%u [LOST EVENTS]\n", ev->cpu);
}

int trace_print_all(struct trace_iter *iter)
{
	struct ut_data *d = iter->data;
	const struct tracer *t = iter->tracer;
	struct ut_event ev;
	int i, r;

	if (!d || !t)
		return -1;
	if (t == &function_graph_tracer && !strcmp(d->tracer, "function")) {
		pr_err("trace was recorded with the function tracer; use -t function");
		return -1;
	}

	iter->entries = iter->written = 0;
	for (i = 0; i < d->nr_threads; i++) {
		if (!thread_selected(iter, d->threads[i].tid))
			continue;
		iter->entries += d->threads[i].entries;
		iter->written += d->threads[i].written;
	}

	iter->merge = ut_merge_new(d, iter->tids, iter->tids ? iter->nr_tids : 0);
	if (!iter->merge) {
		pr_err("%s: cannot read the recorded events", d->dir);
		return -1;
	}

	/* s_show(): the tracer's name, then its header */
	fprintf(iter->out, "# tracer: %s\n#\n", t->name);
	if (t->print_header)
		t->print_header(iter);

	while ((r = ut_merge_next(iter->merge, &ev)) > 0) {
		if (ev.type == UT_EV_LOST) {
			print_lost(iter, &ev);
			continue;
		}
		/* markers off: the kernel refuses the writes, so none are shown */
		if (ev.type == UT_EV_MARKER && !(iter->iter_flags & TRACE_ITER_MARKERS))
			continue;
		t->print_event(iter, &ev);
	}

	if (t->finish)
		t->finish(iter);
	trace_threads_free(iter);
	ut_merge_free(iter->merge);
	iter->merge = NULL;
	fflush(iter->out);
	return r < 0 ? -1 : 0;
}
