// SPDX-License-Identifier: MIT
/*
 * output.c - the output pieces shared by the tracers: symbols, the
 * context columns, headers, markers, stack traces and events (the
 * kernel's trace_output.c formats).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/evtab.h"
#include "usertrace/ftrace.h"
#include "output/output.h"
#include "output/tracer.h"
#include "reader/data.h"
#include "reader/symtab.h"
#include "utils/utils.h"

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
	char buf[48], *end = buf + 24, *col = ut_seq_digits(end, ns / 1000, 10);
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
	pid = ut_seq_digits(end, tid < 0 ? -(uint64_t)tid : (uint64_t)tid, 10);
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
