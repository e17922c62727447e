/* SPDX-License-Identifier: MIT */
/*
 * output.h - the pieces of the kernel's ftrace output formats shared by
 * the tracers (output/output.c, the text: trace_seq.c), and the
 * per-thread state they keep (iter.c).
 *
 * Only the tracers, replay and the unit tests include this; the plugin
 * interface itself is tracer.h.
 */
#ifndef USERTRACE_OUTPUT_H
#define USERTRACE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/tracer.h"
#include "reader/callstack.h"

/* width of a function_graph depth level, as TRACE_GRAPH_INDENT */
#define TRACE_GRAPH_INDENT	2
/* width of the TASK/PID column of function_graph */
#define TRACE_GRAPH_PROCINFO_LENGTH 14
/* deepest frame the per-thread state tracks (deeper ones print, untracked) */
#define TRACE_MAX_TRACKED_DEPTH	(1u << 20)

/*
 * ---- building the text: struct trace_seq (tracer.h) ----
 *
 * Each helper appends to s->buf, writing the buffer to s->out first when
 * it is full; ut_seq_flush() writes what is left.  The number helpers
 * print as the printf conversion named beside them.
 *
 * They are ut_seq_*(), not the kernel's trace_seq_*(): libtraceevent
 * (lib/event/evtab.c) has functions of those names for its own struct
 * trace_seq, and one program cannot link both.
 */
void ut_seq_init(struct trace_seq *s, FILE *out);
/* write the buffered text to s->out (one fwrite) and empty the buffer */
void ut_seq_flush(struct trace_seq *s);
/* ut_seq_putmem() when @n bytes do not fit */
void ut_seq_putmem_slow(struct trace_seq *s, const void *p, size_t n);

static inline void ut_seq_putmem(struct trace_seq *s, const void *p, size_t n)
{
	if (n > sizeof(s->buf) - s->len) {
		ut_seq_putmem_slow(s, p, n);
		return;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static inline void ut_seq_puts(struct trace_seq *s, const char *str)
{
	ut_seq_putmem(s, str, strlen(str));
}

static inline void ut_seq_putc(struct trace_seq *s, char c)
{
	if (s->len == sizeof(s->buf))
		ut_seq_flush(s);
	s->buf[s->len++] = c;
}

/* for the rare lines (headers): as fprintf */
void ut_seq_printf(struct trace_seq *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ut_seq_fill() when @n bytes do not fit */
void ut_seq_fill_slow(struct trace_seq *s, char c, uint64_t n);

/* @n times @c */
static inline void ut_seq_fill(struct trace_seq *s, char c, uint64_t n)
{
	if (n > sizeof(s->buf) - s->len) {
		ut_seq_fill_slow(s, c, n);
		return;
	}
	memset(s->buf + s->len, c, (size_t)n);
	s->len += (size_t)n;
}
/* @n spaces */
static inline void ut_seq_spaces(struct trace_seq *s, uint64_t n)
{
	ut_seq_fill(s, ' ', n);
}
/* "%*lld": right-aligned in @width columns, or left-aligned if @width < 0 */
void ut_seq_dec(struct trace_seq *s, int64_t v, int width);
/* "%*.*s-%-7d": the @len bytes of @comm right-aligned in @width columns, then the pid */
void ut_seq_comm_pid(struct trace_seq *s, const char *comm, size_t len, size_t width, int pid);
/* "%*llu" (@pad ' ') or "%0*llu" (@pad '0') */
void ut_seq_udec(struct trace_seq *s, uint64_t v, int width, char pad);
/* "%0*llx" */
void ut_seq_hex(struct trace_seq *s, uint64_t v, int width);

/*
 * the digits of @v in @base, written backwards to end at @end: where they
 * start (trace_seq.c's number helpers, output.c's columns)
 */
static inline char *ut_seq_digits(char *end, uint64_t v, unsigned base)
{
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

/* ---- the pieces of the formats ---- */

/* overhead mark of a duration: '$' > 1 s, '@' > 100 ms, ... ' ' <= 10 us */
char trace_find_mark(uint64_t ns);
/*
 * the number part of the graph duration column: "0.512 us    ",
 * "1234.567 us ", "12345678 us " (at least 8 characters before " us ")
 */
void trace_print_graph_duration(struct trace_seq *s, uint64_t ns);
/* "comm-tid" centred in 14 columns, comm cut at 7 characters */
void trace_print_graph_proc(struct trace_seq *s, const char *comm, int tid);
/* " %*d) " */
void trace_print_graph_cpu(struct trace_seq *s, int width, int cpu);

/* the comm of @ev's thread, "<...>" if unknown (as trace_find_cmdline) */
const char *trace_comm(const struct ut_event *ev);
/* the marker text without its trailing newline (and cut at a NUL) */
void trace_print_marker_text(struct trace_seq *s, const struct ut_event *ev);

/* a trace_marker write as nop and function print it: "<context>tracing_mark_write: text" */
void trace_print_marker_line(struct trace_iter *iter, const struct ut_event *ev);
/*
 * a stack trace event as trace_stack_print() prints it, without its final
 * newline: "<stack trace>" then "\n => sym" per ip, innermost first
 */
void trace_print_stack_text(struct trace_iter *iter, const struct ut_event *ev);
/* a stack trace as nop and function print it: "<context><stack trace>\n => sym...\n" */
void trace_print_stack_line(struct trace_iter *iter, const struct ut_event *ev);
/*
 * an event after the context: "name: info" from its print fmt;
 * trace_printk's "func: text", or with @msg_only (a graph comment) the text
 */
void trace_print_event_text(struct trace_iter *iter, const struct ut_event *ev, int msg_only);
/* the events' formats of the recording, loaded once (iter->events; NULL if none load) */
void trace_events_load(struct trace_iter *iter);
/* @ev is an event SYSTEM:NAME (by its id in the recording's formats) */
int trace_event_is(struct trace_iter *iter, const struct ut_event *ev, const char *system,
		   const char *name);
/*
 * The sched events' fields (usertrace/events/sched.h, the kernel's
 * layout): what the sched_switch tracer and function_graph's context
 * switch lines read.  0 if @ev is too short.
 */
struct trace_sched_switch {
	const char *prev_comm, *next_comm;	/* 16 bytes, maybe without a NUL */
	int prev_pid, prev_prio, next_pid, next_prio;
	long prev_state;
};
int trace_sched_switch_fields(const struct ut_event *ev, struct trace_sched_switch *sw);
struct trace_sched_wakeup {
	const char *comm;
	int pid, prio, target_cpu;
};
int trace_sched_wakeup_fields(const struct ut_event *ev, struct trace_sched_wakeup *wk);
/* the kernel's ctx and wake lines (sched_switch.c; the wakeup tracers print them too) */
#define PRIO_SLOTS 256
struct sw_state {		/* the last prio seen of the few threads the wake-ups name as wakers */
	int pid[PRIO_SLOTS];
	int prio[PRIO_SLOTS];
};
void trace_sched_prio_seen(struct sw_state *st, int pid, int prio);
/* @pid's prio last seen in @st (NULL: none): 120 if never, 140 for the idle task */
int trace_sched_prio_of(const struct sw_state *st, int pid);
/* task_index_to_char() of a sched_switch prev_state */
char trace_sched_state_char(long state);
/* " %7d:%3d:%c %s [%03d] %7d:%3d:%c %s\n" after the context (trace_ctxwake_print) */
void trace_sched_ctxwake(struct trace_seq *s, int ppid, int pprio, char pst, const char *delim,
			 int cpu, int npid, int nprio, char nst, const char *ncomm);
/* a sched_switch event's ctx line (context, then the above); its prios noted in @st (NULL: none) */
void trace_sched_switch_print(struct trace_iter *iter, const struct ut_event *ev,
			      const struct trace_sched_switch *sw, struct sw_state *st);
/* print_trace_fmt() of an event: context, text, newline */
void trace_print_event_line(struct trace_iter *iter, const struct ut_event *ev);
/* the column header of nop and function (trace_default_header) */
void trace_default_header(struct trace_iter *iter);
/* "            bash-1977    [000] .....    17284.993652: " per the flags */
void trace_print_context(struct trace_iter *iter, const struct ut_event *ev);
/* latency-format (latency.c): the header with its maximum, and the context columns */
void trace_latency_header(struct trace_iter *iter);
void trace_lat_flags(struct trace_seq *s, const struct ut_event *ev);
/*
 * The one max-latency record of a session: one latency tracer at a time
 * (of every directory), -EBUSY for another, as the kernel's
 * irqsoff_busy and wakeup_busy (but shared: the record is one).
 */
int trace_max_claim(const struct trace_array *tr);
void trace_max_release(const struct trace_array *tr);
/* the directory whose latency tracer holds the max record now; NULL: none */
const struct trace_array *trace_max_owner(void);
/* a latency tracer's directory hooks: the claim, and latency-format on while it runs */
int trace_lat_tracer_init(struct trace_array *tr);
void trace_lat_tracer_reset(struct trace_array *tr);
void trace_lat_tracer_open(struct trace_iter *iter);
/* does tracer @t measure the wake-ups of real-time threads alone (wakeup_rt; tracers/wakeup.c)? */
int trace_wakeup_rt_only(const struct tracer *t);
/*
 * A latency tracer's output part: the sections it reads (struct tracer
 * .lat_sections), the max buffer, the latency format, the function lines
 */
#define LATENCY_TRACER(tname, sections)					\
	const struct tracer tname##_tracer = {				\
		.name		= #tname,				\
		.lat_sections	= sections,				\
		.use_max_tr	= 1,					\
		.print_max	= 1,					\
		.init		= trace_lat_tracer_init,		\
		.reset		= trace_lat_tracer_reset,		\
		.open		= trace_lat_tracer_open,		\
		.print_header	= trace_default_header,			\
		.print_line	= trace_fn_print_line,			\
	}
/*
 * A recording of a latency tracer (t->lat_sections): find its sections
 * and keep the longest, or with @thresh_ns each of at least that; set
 * @iter's windows, header (@lat) and counts.  0, or -1 if the data
 * cannot be read.  @iter->win is NULL when it has no section.
 */
int trace_lat_select(struct trace_iter *iter, uint64_t thresh_ns, struct trace_lat_info *lat);
/* is @ev in one of @iter's windows? */
int trace_in_window(const struct trace_iter *iter, const struct ut_event *ev);
/* the function tracer's lines (trace_fn_trace()), for the tracers that record calls too */
enum print_line_t trace_fn_print_line(struct trace_iter *iter, struct ut_event *ev);
void trace_lat_context(struct trace_iter *iter, const struct ut_event *ev);
/*
 * a symbol: @sym_flags are the TRACE_ITER_SYM_OFFSET/TRACE_ITER_SYM_ADDR
 * bits to honour, or TRACE_SYM_PS alone for the kernel's "%ps" (the name
 * only, "0x%lx" if unknown), which function_graph prints
 */
#define TRACE_SYM_PS		(1u << 31)
void trace_print_sym_flags(struct trace_iter *iter, const struct ut_event *ev,
			   uint64_t addr, uint32_t sym_flags);

/* per-thread state of the tracers, keyed by (tid, image), freed by trace_print_all */
struct trace_thread {
	int tid;
	uint64_t image;
	int used;
	struct ut_callstack cs;	/* the open calls printed (an ip of 0: not seen) */
	int comment_depth;	/* function_graph: fgraph_cpu_data.depth */
};

struct trace_thread *trace_thread_get(struct trace_iter *iter, const struct ut_event *ev);
void trace_threads_free(struct trace_iter *iter);

#endif
