// SPDX-License-Identifier: MIT
/*
 * tracer.c - the tracer registry, trace options, and the output pieces
 * shared by the tracers (the kernel's trace.c/trace_output.c formats).
 */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/event/evtab.h"
#include "usertrace/ftrace.h"
#include "lib/trace/output.h"
#include "lib/trace/tracer.h"
#include "usertrace/tracers.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/progress.h"
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
#include "lib/trace/options.def"
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

void trace_iter_init(struct trace_iter *iter, struct ut_data *d,
		     const struct tracer *t, FILE *out)
{
	memset(iter, 0, sizeof(*iter));
	iter->out = out;
	iter->data = d;
	iter->tracer = t;
	iter->iter_flags = trace_opt_defaults(trace_opts, TRACE_NR_OPTS);
	iter->tracer_flags = t ? trace_opt_defaults(t->opts, TRACER_MAX_OPTS) : 0;
	ut_seq_init(&iter->seq, out);
	if (t && t->open)
		t->open(iter);
}

/* @id minus CLOCK_MONOTONIC now, in ns (the smaller of three tries' gaps) */
static int64_t clock_offset(clockid_t id)
{
	int64_t best = 0, gap = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		struct timespec a, x, b;
		int64_t g;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (clock_gettime(id, &x) < 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &b);
		g = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
		if (g < gap) {
			int64_t mid = a.tv_sec * 1000000000ll + a.tv_nsec + g / 2;

			gap = g;
			best = x.tv_sec * 1000000000ll + x.tv_nsec - mid;
		}
	}
	return best;
}

int trace_iter_set_clock(struct trace_iter *iter, int clock)
{
	if (clock < 0 || clock >= TRACE_NR_CLOCKS)
		return -EINVAL;
	iter->clock = clock;
	iter->clock_off = 0;
	if (clock == TRACE_CLOCK_MONO_RAW)
		iter->clock_off = clock_offset(CLOCK_MONOTONIC_RAW);
	else if (clock == TRACE_CLOCK_BOOT)
		iter->clock_off = clock_offset(CLOCK_BOOTTIME);
	else if (clock == TRACE_CLOCK_TAI)
		iter->clock_off = clock_offset(CLOCK_TAI);
	return 0;
}

uint64_t trace_clock_value(const struct trace_iter *iter, const struct ut_event *ev)
{
	switch (iter->clock) {
	case TRACE_CLOCK_COUNTER:
		return iter->counter;
	case TRACE_CLOCK_X86_TSC:
		return iter->data ? ut_data_raw(iter->data, ev->ts) : ev->ts;
	default:
		return ev->ts + (uint64_t)iter->clock_off;
	}
}

int tracer_set_option(struct trace_iter *iter, const char *opt)
{
	const struct trace_opt_info *o;
	const struct tracer *own;
	const char *name = opt;
	uint32_t *flags;
	int neg = 0;

	if (!opt || !*opt)
		return -EINVAL;
	if (!strncmp(name, "no", 2)) {
		neg = 1;
		name += 2;
	}
	/* like trace_options: the global ones and the current tracer's own */
	o = trace_opt_find(iter->tracer, name, strlen(name), &own);
	if (!o)
		return -EINVAL;
	flags = own ? &iter->tracer_flags : &iter->iter_flags;
	if (neg)
		*flags &= ~o->bit;
	else
		*flags |= o->bit;
	return 0;
}

/* ---- building the text ---- */

void ut_seq_init(struct trace_seq *s, FILE *out)
{
	s->out = out;
	s->len = 0;
}

void ut_seq_flush(struct trace_seq *s)
{
	if (s->len)
		fwrite_unlocked(s->buf, 1, s->len, s->out);
	s->len = 0;
}

void ut_seq_putmem_slow(struct trace_seq *s, const void *p, size_t n)
{
	ut_seq_flush(s);
	if (n >= sizeof(s->buf)) {
		fwrite_unlocked(p, 1, n, s->out);
		return;
	}
	memcpy(s->buf, p, n);
	s->len = n;
}

void ut_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		pr_err("out of memory");
		exit(1);
	}
	ut_seq_putmem(s, text, (size_t)n);
	free(text);
}

void ut_seq_fill_slow(struct trace_seq *s, char c, uint64_t n)
{
	size_t room, k;

	while (n) {
		if (s->len == sizeof(s->buf))
			ut_seq_flush(s);
		room = sizeof(s->buf) - s->len;
		k = n < room ? (size_t)n : room;
		memset(s->buf + s->len, c, k);
		s->len += k;
		n -= k;
	}
}

/* the digits of @v in @base, written backwards to end at @end: where they start */
static inline char *u64_digits(char *end, uint64_t v, unsigned base)
{
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

/*
 * @v in @base, after a '-' if @neg, in @width columns as printf pads it:
 * with @pad on the left, or with spaces on the right if @width < 0.  The
 * number and its usual padding go out in one piece.
 */
static inline void put_num(struct trace_seq *s, uint64_t v, int neg, unsigned base,
			   int width, char pad)
{
	char buf[48], *end = buf + sizeof(buf), *p = u64_digits(end, v, base);
	size_t n, w = width < 0 ? -(size_t)width : (size_t)width;

	if (neg)
		*--p = '-';
	n = (size_t)(end - p);
	if (width > 0) {
		while (n < w && p > buf) {
			*--p = pad;
			n++;
		}
		if (n < w)	/* wider than buf: the rest of the padding first */
			ut_seq_fill(s, pad, w - n);
	}
	ut_seq_putmem(s, p, n);
	if (width < 0 && n < w)
		ut_seq_spaces(s, w - n);
}

void ut_seq_dec(struct trace_seq *s, int64_t v, int width)
{
	put_num(s, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, width, ' ');
}

void ut_seq_comm_pid(struct trace_seq *s, const char *comm, size_t len, size_t width, int pid)
{
	if (len < width)
		ut_seq_spaces(s, width - len);
	ut_seq_putmem(s, comm, len);
	ut_seq_putc(s, '-');
	ut_seq_dec(s, pid, -7);
}

void ut_seq_udec(struct trace_seq *s, uint64_t v, int width, char pad)
{
	put_num(s, v, 0, 10, width, pad);
}

void ut_seq_hex(struct trace_seq *s, uint64_t v, int width)
{
	put_num(s, v, 0, 16, width, '0');
}

/* ---- symbols ---- */

void trace_print_sym_flags(struct trace_iter *iter, const struct ut_event *ev,
			   uint64_t addr, uint32_t sym_flags)
{
	const struct ut_sym *sym = NULL;
	struct trace_seq *s = &iter->seq;

	/* seq_print_ip_sym(): a zero address is "0", without sym-addr */
	if (!addr && !(sym_flags & TRACE_SYM_PS)) {
		ut_seq_putc(s, '0');
		return;
	}
	if (iter->data && iter->data->symtab)
		sym = ut_symtab_find(iter->data->symtab, ev->pid, ev->image, addr, ev->ts);
	if (sym && sym->name && *sym->name) {
		ut_seq_puts(s, sym->name);
		/* sprint_symbol(): "%s+%#lx/%#lx", the kernel's %#lx of 0 being 0x0 */
		if (sym_flags & TRACE_ITER_SYM_OFFSET) {
			ut_seq_puts(s, "+0x");
			ut_seq_hex(s, addr - sym->addr, 0);
			ut_seq_puts(s, "/0x");
			ut_seq_hex(s, sym->size, 0);
		}
	} else if (sym_flags & (TRACE_ITER_SYM_OFFSET | TRACE_SYM_PS)) {
		ut_seq_puts(s, "0x");	/* sprint_symbol(), %ps: "0x%lx" */
		ut_seq_hex(s, addr, 0);
	} else {
		ut_seq_puts(s, "0x");	/* trace_seq_print_sym(): "0x%08lx" */
		ut_seq_hex(s, addr, 8);
	}
	if (sym_flags & TRACE_ITER_SYM_ADDR) {
		ut_seq_puts(s, " <");	/* " <%016lx>" */
		ut_seq_hex(s, addr, 16);
		ut_seq_putc(s, '>');
	}
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

void trace_print_graph_duration(struct trace_seq *s, uint64_t ns)
{
	static const char us_pad[] = " us        ";	/* " us " and up to 7 spaces */
	char buf[48], *end = buf + 24, *col = u64_digits(end, ns / 1000, 10);
	size_t len = (size_t)(end - col), nlen, pad;
	unsigned nsecs = (unsigned)(ns % 1000);

	/* at most 7 digits in all: the three nsec digits ("%03u") cut to fit */
	if (len < 7) {
		nlen = 7 - len < 3 ? 7 - len : 3;
		end[0] = '.';
		end[1] = (char)('0' + nsecs / 100);
		end[2] = (char)('0' + nsecs / 10 % 10);
		end[3] = (char)('0' + nsecs % 10);
		len += nlen + 1;
	}
	/* then " us ", and spaces up to 8 characters before it */
	pad = len < 8 ? 8 - len : 0;
	memcpy(col + len, us_pad, 4 + pad);
	ut_seq_putmem(s, col, len + 4 + pad);
}

void trace_print_graph_cpu(struct trace_seq *s, int width, int cpu)
{
	ut_seq_putc(s, ' ');
	ut_seq_dec(s, cpu, width);
	ut_seq_puts(s, ") ");
}

void trace_print_graph_proc(struct trace_seq *s, const char *comm, int tid)
{
	char buf[24], *end = buf + sizeof(buf), *pid;
	size_t name_len, pid_len, len, spaces = 0;

	if (!comm)
		comm = "<...>";
	name_len = strnlen(comm, 7);
	pid = u64_digits(end, tid < 0 ? -(uint64_t)tid : (uint64_t)tid, 10);
	if (tid < 0)
		*--pid = '-';
	pid_len = (size_t)(end - pid);
	len = name_len + pid_len + 1;
	if (len < TRACE_GRAPH_PROCINFO_LENGTH)
		spaces = TRACE_GRAPH_PROCINFO_LENGTH - len;
	ut_seq_spaces(s, spaces / 2);
	ut_seq_putmem(s, comm, name_len);
	ut_seq_putc(s, '-');
	ut_seq_putmem(s, pid, pid_len);
	ut_seq_spaces(s, spaces - spaces / 2);
}

const char *trace_comm(const struct ut_event *ev)
{
	if (ev->thread && ev->thread->comm[0])
		return ev->thread->comm;
	return "<...>";
}

void trace_print_marker_text(struct trace_seq *s, const struct ut_event *ev)
{
	size_t len;

	if (!ev->data)
		return;
	len = strnlen(ev->data, ev->data_len);
	if (len && ev->data[len - 1] == '\n')
		len--;
	ut_seq_putmem(s, ev->data, len);
}

/* print_event_info() and print_func_help_header[_irq]() */
void trace_default_header(struct trace_iter *iter)
{
	uint32_t fl = iter->iter_flags;
	int tgid = !!(fl & TRACE_ITER_RECORD_TGID);
	const char *pad = tgid ? "            " : "  ";
	struct trace_seq *s = &iter->seq;

	if (fl & TRACE_ITER_LATENCY_FMT) {
		trace_latency_header(iter);
		return;
	}
	if (!(fl & TRACE_ITER_CONTEXT_INFO))
		return;
	ut_seq_printf(s, "# entries-in-buffer/entries-written: %" PRIu64 "/%" PRIu64 "   #P:%d\n",
			 iter->entries, iter->written, iter->data ? iter->data->nr_cpus : 1);
	ut_seq_puts(s, "#\n");
	if (fl & TRACE_ITER_IRQ_INFO) {
		ut_seq_printf(s, "#                            %s  _-----=> irqs-off/BH-disabled\n", pad);
		ut_seq_printf(s, "#                            %s / _----=> need-resched\n", pad);
		ut_seq_printf(s, "#                            %s| / _---=> hardirq/softirq\n", pad);
		ut_seq_printf(s, "#                            %s|| / _--=> preempt-depth\n", pad);
		ut_seq_printf(s, "#                            %s||| / _-=> migrate-disable\n", pad);
		ut_seq_printf(s, "#                            %s|||| /     delay\n", pad);
		ut_seq_puts(s, tgid ? "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
				       : "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n");
		ut_seq_puts(s, tgid ? "#              | |           |       |   |||||     |         |\n"
				       : "#              | |         |   |||||     |         |\n");
	} else {
		ut_seq_puts(s, tgid ? "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
				       : "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
		ut_seq_puts(s, tgid ? "#              | |           |       |         |         |\n"
				       : "#              | |         |         |         |\n");
	}
}

/* trace_print_context(): the time rounds to the microsecond (ns2usecs) */
void trace_print_context(struct trace_iter *iter, const struct ut_event *ev)
{
	struct trace_seq *s = &iter->seq;
	const char *comm = trace_comm(ev);
	size_t len = strlen(comm);
	uint64_t us, t = trace_clock_value(iter, ev);

	if (iter->iter_flags & TRACE_ITER_LATENCY_FMT) {
		trace_lat_context(iter, ev);
		return;
	}
	/* "%16s-%-7d " */
	ut_seq_comm_pid(s, comm, len, 16, ev->tid);
	ut_seq_putc(s, ' ');
	if (iter->iter_flags & TRACE_ITER_RECORD_TGID) {
		ut_seq_putc(s, '(');		/* "(%7d) " */
		ut_seq_dec(s, ev->pid, 7);
		ut_seq_puts(s, ") ");
	}
	ut_seq_putc(s, '[');			/* "[%03u] " */
	ut_seq_udec(s, ev->cpu, 3, '0');
	ut_seq_puts(s, "] ");
	if (iter->iter_flags & TRACE_ITER_IRQ_INFO)
		trace_lat_flags(s, ev);
	ut_seq_putc(s, ' ');
	if (!trace_clock_in_ns(iter->clock)) {
		ut_seq_udec(s, t, 12, ' ');	/* " %12llu: " */
	} else {
		us = (t + 500) / 1000;		/* " %5llu.%06llu: " */
		ut_seq_udec(s, us / 1000000, 5, ' ');
		ut_seq_putc(s, '.');
		ut_seq_udec(s, us % 1000000, 6, '0');
	}
	ut_seq_puts(s, ": ");
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
	ut_seq_puts(&iter->seq, "tracing_mark_write: ");
	trace_print_marker_text(&iter->seq, ev);
	ut_seq_putc(&iter->seq, '\n');
}

/*
 * trace_stack_print(): each ip as seq_print_ip_sym() prints it, so that
 * sym-offset and sym-addr apply.  The lines are joined rather than ended
 * by newlines: function_graph closes its comment where the last one would
 * be, as print_graph_comment() strips it.
 */
void trace_print_stack_text(struct trace_iter *iter, const struct ut_event *ev)
{
	uint64_t i, n = ut_event_trace_len(ev);

	ut_seq_puts(&iter->seq, "<stack trace>");
	for (i = 0; i < n; i++) {
		ut_seq_puts(&iter->seq, "\n => ");
		trace_print_sym(iter, ev, ut_event_trace_ip(ev, i));
	}
}

void trace_print_event_text(struct trace_iter *iter, const struct ut_event *ev, int msg_only)
{
	char buf[TRACE_SEQ_SIZE];
	size_t n;

	/*
	 * trace_printk's print event, as the kernel's own output function
	 * prints it: "func: text", or the text alone in a graph comment
	 */
	if (ev->id == UT_EVENT_ID_PRINT && ev->data_len > offsetof(struct ut_ftrace_print, buf)) {
		const struct ut_ftrace_print *p = (const void *)ev->data;
		size_t len = strnlen(p->buf, ev->data_len - offsetof(struct ut_ftrace_print, buf));

		if (!msg_only) {
			trace_print_sym(iter, ev, p->ip);
			ut_seq_puts(&iter->seq, ": ");
		}
		while (len && p->buf[len - 1] == '\n')
			len--;
		ut_seq_putmem(&iter->seq, p->buf, len);
		return;
	}
	/* the branch tracer's entry, as the kernel's trace_branch_print() */
	if (ev->id == UT_EVENT_ID_BRANCH && ev->data_len >= sizeof(struct ut_ftrace_branch)) {
		const struct ut_ftrace_branch *b = (const void *)ev->data;

		ut_seq_printf(&iter->seq, "[%s] %.*s:%.*s:%d", b->correct ? "  ok  " : " MISS ",
			      (int)sizeof(b->func), b->func, (int)sizeof(b->file), b->file,
			      (int)b->line);
		return;
	}
	trace_events_load(iter);
	if (!iter->events) {
		ut_seq_printf(&iter->seq, "id %u", ev->id);
		return;
	}
	n = ut_evtab_print(iter->events, ev->data, ev->data_len, ev->pid, ev->image, ev->ts,
			   buf, sizeof(buf));
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	/* the line is ended by the caller */
	while (n && buf[n - 1] == '\n')
		n--;
	ut_seq_putmem(&iter->seq, buf, n);
}

void trace_events_load(struct trace_iter *iter)
{
	if (iter->events_loaded)
		return;
	iter->events_loaded = 1;
	iter->events = ut_evtab_new();
	if (iter->events && iter->data) {
		ut_evtab_set_symtab(iter->events, iter->data->symtab);
		ut_evtab_load_dir(iter->events, iter->data->dir);
	}
}

int trace_event_is(struct trace_iter *iter, const struct ut_event *ev, const char *system,
		   const char *name)
{
	const char *sys = NULL, *n;

	if (ev->type != UT_EV_EVENT)
		return 0;
	trace_events_load(iter);
	if (!iter->events || !(n = ut_evtab_name(iter->events, ev->id, &sys)))
		return 0;
	return !strcmp(n, name) && sys && !strcmp(sys, system);
}

void trace_print_event_line(struct trace_iter *iter, const struct ut_event *ev)
{
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	trace_print_event_text(iter, ev, 0);
	ut_seq_putc(&iter->seq, '\n');
}

/* print_trace_fmt() of a stack event */
void trace_print_stack_line(struct trace_iter *iter, const struct ut_event *ev)
{
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	trace_print_stack_text(iter, ev);
	ut_seq_putc(&iter->seq, '\n');
}

/* ---- per-thread state ---- */

struct trace_threads {
	struct trace_thread *slots;
	size_t cap, used;
	struct trace_thread *last;	/* the last one returned: events come in runs */
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
	t = ts->last;
	if (t && t->tid == ev->tid && t->image == ev->image)
		return t;
	t = thread_slot(ts->slots, ts->cap, ev->tid, ev->image);
	if (t->used)
		return ts->last = t;
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
	ut_callstack_init(&t->cs, TRACE_MAX_TRACKED_DEPTH, 0);
	ts->used++;
	return ts->last = t;
}

void trace_threads_free(struct trace_iter *iter)
{
	struct trace_threads *ts = iter->threads;
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->cap; i++)
		ut_callstack_free(&ts->slots[i].cs);
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
		ut_seq_printf(&iter->seq, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->count);
	else
		ut_seq_printf(&iter->seq, "CPU:%u [LOST EVENTS]\n", ev->cpu);
}

/* the lines every tracer shows alike (the kernel's print_trace_fmt() fallback) */
void trace_print_generic(struct trace_iter *iter, struct ut_event *ev)
{
	switch (ev->type) {
	case UT_EV_MARKER:
		trace_print_marker_line(iter, ev);
		break;
	case UT_EV_TRACE:
		trace_print_stack_line(iter, ev);
		break;
	case UT_EV_EVENT:
		trace_print_event_line(iter, ev);
		break;
	default:
		break;
	}
}

/* the tracer's line for @ev, or the generic one when it has none */
static void print_line(struct trace_iter *iter, struct ut_event *ev)
{
	const struct tracer *t = iter->tracer;

	if (!t->print_line || t->print_line(iter, ev) == TRACE_TYPE_UNHANDLED)
		trace_print_generic(iter, ev);
}

int trace_print_all(struct trace_iter *iter)
{
	struct ut_data *d = iter->data;
	const struct tracer *t = iter->tracer;
	struct ut_event ev;
	int i, r, flat;

	if (!d || !t)
		return -1;
	/* calls shown alone (the function tracer): their returns are no entries */
	flat = !!(ut_tracer_needs(t->name) & UT_NEED_CALLS_FLAT);
	/* calls alone, no returns (the function tracer's): nothing for function_graph to pair */
	if (ut_tracer_mode(t->name) == UT_MODE_GRAPH && (ut_tracer_needs(d->tracer) & UT_NEED_CALLS_FLAT)) {
		pr_err("trace was recorded with the function tracer; use -t function");
		return -1;
	}

	/* trace_lat_select() counted the events of its sections */
	if (!iter->win) {
		iter->entries = iter->written = 0;
		for (i = 0; i < d->nr_threads; i++) {
			if (!thread_selected(iter, d->threads[i].tid))
				continue;
			iter->entries += d->threads[i].entries;
			iter->written += d->threads[i].written;
		}
	}

	/* a merge set up by the caller (live buffers: ut_merge_new_src()) is read as it is */
	if (!iter->merge)
		iter->merge = ut_merge_new(d, iter->tids, iter->tids ? iter->nr_tids : 0);
	if (!iter->merge) {
		pr_err("%s: cannot read the recorded events", d->dir);
		return -1;
	}

	/* s_show(): the tracer's name, then its header */
	ut_seq_init(&iter->seq, iter->out);
	ut_seq_printf(&iter->seq, "# tracer: %s\n#\n", t->name);
	if (t->print_header)
		t->print_header(iter);
	ut_seq_flush(&iter->seq);

	if (iter->progress && !iter->progress->where) {
		iter->progress->where = ut_merge_progress;
		iter->progress->arg = iter->merge;
	}
	/* each event's lines go out in one write */
	while ((r = ut_merge_next(iter->merge, &ev)) > 0) {
		if (iter->win && !trace_in_window(iter, &ev))
			continue;
		if (ev.type == UT_EV_LOST)
			print_lost(iter, &ev);
		/* not an event of the trace: the tracers only mend their state */
		else if (ev.type == UT_EV_DEPTH)
			print_line(iter, &ev);
		/* markers off: the kernel refuses the writes, so none are shown */
		else if (ev.type != UT_EV_MARKER || (iter->iter_flags & TRACE_ITER_MARKERS)) {
			/* the counter clock numbers what the kernel would record */
			if (!flat || ev.type != UT_EV_EXIT)
				iter->counter++;
			print_line(iter, &ev);
		}
		ut_seq_flush(&iter->seq);
		if (iter->progress)
			ut_progress_add(iter->progress, 1);
	}
	if (iter->progress)
		ut_progress_end(iter->progress);

	if (t->close)
		t->close(iter);
	ut_seq_flush(&iter->seq);
	trace_threads_free(iter);
	ut_evtab_free(iter->events);
	iter->events = NULL;
	iter->events_loaded = 0;
	ut_merge_free(iter->merge);
	iter->merge = NULL;
	fflush(iter->out);
	return r < 0 ? -1 : 0;
}
