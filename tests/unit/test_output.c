// SPDX-License-Identifier: MIT
/*
 * test_output.c - the ftrace output formats, byte for byte.
 *
 * The formatting helpers are tested directly; the tracers are run over a
 * scripted event list through stand-ins of the merge iterator and the
 * symbol table defined below (so this links with the output/ sources and
 * utils/utils.c, without reader/symtab.c).  Records are decoded into events
 * by reader/decode.c itself, built with its merge functions renamed
 * data_merge_* (tests/tests.mk), over data directories written here.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "output/output.h"
#include "output/tracers/function_graph.h"
#include "output/tracer.h"
#include "usertrace/tracers.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "usertrace/ringbuf.h"
#include "reader/data.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* ---- stand-ins for reader/decode.c's merge and reader/symtab.c ---- */

struct ut_merge {
	struct ut_event *ev;
	int nr, last;
	int *used;
};

static struct ut_event *script;
static int script_len;

struct ut_merge *ut_merge_new(struct ut_data *d, const int *tids, int nr_tids)
{
	struct ut_merge *m = calloc(1, sizeof(*m));
	int i, k, keep;

	(void)d;
	m->ev = calloc((size_t)script_len + 1, sizeof(*m->ev));
	m->used = calloc((size_t)script_len + 1, sizeof(*m->used));
	for (i = 0; i < script_len; i++) {
		keep = !tids;
		for (k = 0; tids && k < nr_tids; k++)
			keep |= tids[k] == script[i].tid;
		if (keep)
			m->ev[m->nr++] = script[i];
	}
	m->last = -1;
	return m;
}

int ut_merge_next(struct ut_merge *m, struct ut_event *ev)
{
	int i;

	for (i = m->last + 1; i < m->nr; i++) {
		if (!m->used[i]) {
			m->used[i] = 1;
			m->last = i;
			*ev = m->ev[i];
			return 1;
		}
	}
	return 0;
}

static int peek_index(struct ut_merge *m)
{
	int i;

	if (m->last < 0)
		return -1;
	for (i = m->last + 1; i < m->nr; i++)
		if (!m->used[i] && m->ev[i].tid == m->ev[m->last].tid)
			return i;
	return -1;
}

int ut_merge_peek_same(struct ut_merge *m, struct ut_event *ev)
{
	int i = peek_index(m);

	if (i < 0)
		return 0;
	*ev = m->ev[i];
	return 1;
}

void ut_merge_skip_same(struct ut_merge *m)
{
	int i = peek_index(m);

	if (i >= 0)
		m->used[i] = 1;
}

void ut_merge_free(struct ut_merge *m)
{
	if (!m)
		return;
	free(m->ev);
	free(m->used);
	free(m);
}

/* reader/decode.c's own merge, renamed (tests/tests.mk) */
struct data_merge;
struct data_merge *data_merge_new(struct ut_data *d, const int *tids, int nr_tids);
int data_merge_next(struct data_merge *m, struct ut_event *ev);
void data_merge_free(struct data_merge *m);

/* never dereferenced: the stand-in ut_symtab_find() ignores it */
static char fake_symtab;

struct ut_symtab *ut_symtab_load(const char *datadir)
{
	(void)datadir;
	return (struct ut_symtab *)&fake_symtab;
}

int ut_symtab_save(const char *datadir)
{
	(void)datadir;
	return -1;
}

void ut_symtab_free(struct ut_symtab *st)
{
	(void)st;
}

void ut_symtab_set_clock(struct ut_symtab *st, uint64_t (*to_ns)(const void *ctx, uint64_t raw),
			 const void *ctx)
{
	(void)st;
	(void)to_ns;
	(void)ctx;
}

static const struct ut_sym syms[] = {
	{ 0x401000, 0x100, "main", "app", NULL },
	{ 0x402000, 0x40, "foo", "app", NULL },
	{ 0x403000, 0x80, "bar", "app", NULL },
	{ 0x404000, 0x20, "baz", "app", NULL },
	{ 0x405000, 0x60, "worker", "app", NULL },
	{ 0x406000, 0x30, "qux", "app", NULL },
};

const struct ut_sym *ut_symtab_find(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr,
				    uint64_t ts)
{
	size_t i;

	(void)st;
	(void)ts;
	(void)pid;
	(void)image;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (addr >= syms[i].addr && addr < syms[i].addr + syms[i].size)
			return &syms[i];
	return NULL;
}

/* ---- helpers ---- */

static char *buf;
static size_t buf_len;

static FILE *mem_open(void)
{
	FILE *f = open_memstream(&buf, &buf_len);

	assert_non_null(f);
	return f;
}

/* close the stream and return its text (valid until the next mem_open) */
static const char *mem_text(FILE *f)
{
	static char *last;

	fclose(f);
	free(last);
	last = buf;
	return buf;
}

/* a trace_seq writing to a new memory stream */
static struct trace_seq seq;

static void seq_open(void)
{
	ut_seq_init(&seq, mem_open());
}

/* flush the trace_seq, close its stream and return the text */
static const char *seq_text(void)
{
	ut_seq_flush(&seq);
	return mem_text(seq.out);
}

static const char *duration_str(uint64_t ns)
{
	seq_open();
	trace_print_graph_duration(&seq, ns);
	return seq_text();
}

static const char *proc_str(const char *comm, int tid)
{
	seq_open();
	trace_print_graph_proc(&seq, comm, tid);
	return seq_text();
}

/* ---- formatting helpers ---- */

static void test_find_mark(void **state)
{
	(void)state;
	assert_int_equal(trace_find_mark(0), ' ');
	assert_int_equal(trace_find_mark(10000), ' ');		/* strictly greater */
	assert_int_equal(trace_find_mark(10001), '+');
	assert_int_equal(trace_find_mark(100000), '+');
	assert_int_equal(trace_find_mark(100001), '!');
	assert_int_equal(trace_find_mark(1000000), '!');
	assert_int_equal(trace_find_mark(1000001), '#');
	assert_int_equal(trace_find_mark(10000001), '*');
	assert_int_equal(trace_find_mark(100000001), '@');
	assert_int_equal(trace_find_mark(1000000000), '@');
	assert_int_equal(trace_find_mark(1000000001), '$');
	assert_int_equal(trace_find_mark(UINT64_MAX), '$');
}

static void test_graph_duration(void **state)
{
	(void)state;
	assert_string_equal(duration_str(0), "0.000 us    ");
	assert_string_equal(duration_str(512), "0.512 us    ");
	assert_string_equal(duration_str(999), "0.999 us    ");
	assert_string_equal(duration_str(1000), "1.000 us    ");
	assert_string_equal(duration_str(1234), "1.234 us    ");
	assert_string_equal(duration_str(12345), "12.345 us   ");
	assert_string_equal(duration_str(123456), "123.456 us  ");
	assert_string_equal(duration_str(1234567), "1234.567 us ");
	/* 5 and 6 digits of us: the nsecs are cut to keep 7 digits */
	assert_string_equal(duration_str(12345678), "12345.67 us ");
	assert_string_equal(duration_str(12345006), "12345.00 us ");
	assert_string_equal(duration_str(123456789), "123456.7 us ");
	assert_string_equal(duration_str(999999999), "999999.9 us ");
	/* 7 digits and more: no nsecs */
	assert_string_equal(duration_str(1000000000), "1000000 us  ");
	assert_string_equal(duration_str(9999999000ull), "9999999 us  ");
	assert_string_equal(duration_str(9999999999ull), "9999999 us  ");
	assert_string_equal(duration_str(12345678000ull), "12345678 us ");
	assert_string_equal(duration_str(123456789000ull), "123456789 us ");
	assert_string_equal(duration_str(UINT64_MAX), "18446744073709551 us ");
}

static void test_graph_proc(void **state)
{
	(void)state;
	assert_string_equal(proc_str("app", 1234), "   app-1234   ");
	assert_string_equal(proc_str("hello", 6515), "  hello-6515  ");
	assert_string_equal(proc_str("ab", 12), "    ab-12     ");	/* odd: one more after */
	assert_string_equal(proc_str("a", 1), "     a-1      ");
	/* comm cut at 7 characters */
	assert_string_equal(proc_str("verylongname", 12345), "verylon-12345 ");
	assert_string_equal(proc_str("abcdefg", 123456), "abcdefg-123456");
	assert_string_equal(proc_str("abcdefgh", 1234567), "abcdefg-1234567");
	assert_string_equal(proc_str(NULL, 5), "   <...>-5    ");
	assert_string_equal(proc_str("a", -1), "     a--1     ");
}

static void test_graph_cpu(void **state)
{
	(void)state;
	seq_open();
	trace_print_graph_cpu(&seq, 1, 0);
	assert_string_equal(seq_text(), " 0) ");
	seq_open();
	trace_print_graph_cpu(&seq, 2, 3);
	assert_string_equal(seq_text(), "  3) ");
	seq_open();
	trace_print_graph_cpu(&seq, 2, 15);
	assert_string_equal(seq_text(), " 15) ");
}

/* the number helpers against the printf conversions they stand for */
static void test_seq_numbers(void **state)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 99, 100, 12345, 999999, 1000000, 0x7fffffff, 0x80000000ull,
		0xffffffffull, 0x7f0000001234ull, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
	};
	static const int widths[] = { 0, 1, 3, 5, 6, 7, 8, 16, 25, -1, -7, -25 };
	char expect[64];
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (j = 0; j < sizeof(widths) / sizeof(widths[0]); j++) {
			int64_t pos = (int64_t)vals[i], neg = (int64_t)(0 - vals[i]);
			int w = widths[j];

			seq_open();
			ut_seq_dec(&seq, pos, w);
			snprintf(expect, sizeof(expect), "%*lld", w, (long long)pos);
			assert_string_equal(seq_text(), expect);
			seq_open();
			ut_seq_dec(&seq, neg, w);
			snprintf(expect, sizeof(expect), "%*lld", w, (long long)neg);
			assert_string_equal(seq_text(), expect);
			if (w < 0)
				continue;
			seq_open();
			ut_seq_udec(&seq, vals[i], w, ' ');
			snprintf(expect, sizeof(expect), "%*llu", w, (unsigned long long)vals[i]);
			assert_string_equal(seq_text(), expect);
			seq_open();
			ut_seq_udec(&seq, vals[i], w, '0');
			snprintf(expect, sizeof(expect), "%0*llu", w, (unsigned long long)vals[i]);
			assert_string_equal(seq_text(), expect);
			seq_open();
			ut_seq_hex(&seq, vals[i], w);
			snprintf(expect, sizeof(expect), "%0*llx", w, (unsigned long long)vals[i]);
			assert_string_equal(seq_text(), expect);
		}
	}
}

/* text longer than the buffer goes out in pieces, in order */
static void test_seq_long(void **state)
{
	char *expect = malloc(3 * TRACE_SEQ_SIZE + 64), *p = expect;
	const char *text;
	size_t i;

	(void)state;
	seq_open();
	for (i = 0; i < TRACE_SEQ_SIZE / 8; i++) {
		ut_seq_puts(&seq, "ab");
		p += sprintf(p, "ab");
	}
	ut_seq_spaces(&seq, TRACE_SEQ_SIZE + 3);
	p += sprintf(p, "%*s", TRACE_SEQ_SIZE + 3, "");
	for (i = 0; i < TRACE_SEQ_SIZE; i++) {
		ut_seq_putc(&seq, (char)('a' + i % 26));
		*p++ = (char)('a' + i % 26);
	}
	ut_seq_udec(&seq, 42, 10, '0');
	ut_seq_printf(&seq, "|%s|\n", "end");
	p += sprintf(p, "%010d|%s|\n", 42, "end");
	text = seq_text();
	assert_int_equal(strlen(text), (size_t)(p - expect));
	assert_string_equal(text, expect);
	free(expect);
}

/* ---- whole outputs over a scripted trace ---- */

static struct ut_thread_info threads[3] = {
	{ .pid = 100, .tid = 100, .comm = "app", .entries = 30, .written = 40 },
	{ .pid = 100, .tid = 101, .comm = "app", .entries = 5, .written = 5 },
	{ .pid = 100, .tid = 102, .comm = "worker", .entries = 2, .written = 2 },
};

static struct ut_data data = {
	.tracer = "function_graph",
	.symtab = (struct ut_symtab *)&fake_symtab,
	.nr_cpus = 4,
	.threads = threads,
	.nr_threads = 3,
};

#define EV(ty, t, c, d, time, addr) \
	{ .type = (ty), .pid = 100, .tid = (t), .cpu = (c), .depth = (d), .ts = (time), \
	  .ip = (addr), .thread = &threads[(t) - 100] }

static struct ut_event graph_script[] = {
	EV(UT_EV_ENTRY, 100, 0, 0, 1000000000ull, 0x401000),	/* main */
	EV(UT_EV_ENTRY, 100, 0, 1, 1000001000ull, 0x402000),	/* foo (leaf) */
	EV(UT_EV_EXIT, 100, 0, 1, 1000001512ull, 0x402000),
	{ .type = UT_EV_MARKER, .pid = 100, .tid = 100, .cpu = 0, .ts = 1000002000ull,
	  .data = "hello\n", .data_len = 6, .thread = &threads[0] },
	EV(UT_EV_ENTRY, 100, 0, 1, 1000003000ull, 0x403000),	/* bar */
	EV(UT_EV_ENTRY, 100, 0, 2, 1000004000ull, 0x404000),	/* baz */
	{ .type = UT_EV_MARKER, .pid = 100, .tid = 100, .cpu = 0, .ts = 1000004500ull,
	  .data = "in baz", .data_len = 6, .thread = &threads[0] },
	EV(UT_EV_ENTRY, 101, 0, 0, 1000005000ull, 0x405000),	/* worker on cpu 0 */
	EV(UT_EV_EXIT, 101, 0, 0, 1000017345ull, 0x405000),
	EV(UT_EV_EXIT, 100, 0, 2, 1000150000ull, 0x404000),	/* baz: 146 us */
	{ .type = UT_EV_LOST, .pid = 100, .tid = 100, .cpu = 0, .ts = 1000200000ull,
	  .count = 7, .thread = &threads[0] },
	EV(UT_EV_EXIT, 100, 0, 1, 1002237567ull, 0x403000),	/* bar */
	EV(UT_EV_EXIT, 102, 1, 0, 1003000000ull, 0x406000),	/* qux: entry never seen */
	EV(UT_EV_EXIT, 100, 0, 0, 1012345678ull, 0x401000),	/* main */
};

static const char *run_on(struct ut_data *d, struct ut_event *ev, int n, const char *tracer,
			  const char **opts)
{
	struct trace_iter iter;
	FILE *f = mem_open();

	script = ev;
	script_len = n;
	trace_iter_init(&iter, d, tracer_find(tracer), f);
	for (; opts && *opts; opts++)
		assert_int_equal(tracer_set_option(&iter, *opts), 0);
	assert_int_equal(trace_print_all(&iter), 0);
	return mem_text(f);
}

static const char *run(struct ut_event *ev, int n, const char *tracer, const char **opts)
{
	return run_on(&data, ev, n, tracer, opts);
}

static void test_graph_default(void **state)
{
	const char *expect =
		"# tracer: function_graph\n"
		"#\n"
		"# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		"# |     |    |           |   |                     |   |   |   |\n"
		" 0)    app-100     |               |  main() {\n"
		" 0)    app-100     |   0.512 us    |    foo();\n"
		" 0)    app-100     |               |  /* hello */\n"
		" 0)    app-100     |               |    bar() {\n"
		" 0)    app-100     |               |      baz() {\n"
		" 0)    app-100     |               |        /* in baz */\n"
		" ------------------------------------------\n"
		" 0)    app-100     =>    app-101    \n"
		" ------------------------------------------\n"
		"\n"
		" 0)    app-101     | + 12.345 us   |  worker();\n"
		" ------------------------------------------\n"
		" 0)    app-101     =>    app-100    \n"
		" ------------------------------------------\n"
		"\n"
		" 0)    app-100     | ! 146.000 us  |      }\n"
		"CPU:0 [LOST 7 EVENTS]\n"
		" 0)    app-100     | # 2234.567 us |    }\n"
		" 1)   worker-102   |               |  } /* qux */\n"
		" 0)    app-100     | * 12345.67 us |  }\n";

	(void)state;
	assert_string_equal(run(graph_script, (int)(sizeof(graph_script) / sizeof(graph_script[0])),
				"function_graph", NULL), expect);
}

static void test_graph_options(void **state)
{
	static const char *opts[] = { "nofuncgraph-proc", "funcgraph-abstime", "funcgraph-tail",
				      "nofuncgraph-overhead", NULL };
	const char *expect =
		"# tracer: function_graph\n"
		"#\n"
		"#     TIME        CPU  DURATION                  FUNCTION CALLS\n"
		"#      |          |     |   |                     |   |   |   |\n"
		"    1.000000 |   0)               |  main() {\n"
		"    1.000001 |   0)   0.512 us    |    foo();\n"
		"    1.000002 |   0)               |  /* hello */\n"
		"    1.000003 |   0)               |    bar() {\n"
		"    1.000004 |   0)               |      baz() {\n"
		"    1.000004 |   0)               |        /* in baz */\n"
		"    1.000150 |   0)   146.000 us  |      } /* baz */\n"
		"CPU:0 [LOST 7 EVENTS]\n"
		"    1.002237 |   0)   2234.567 us |    } /* bar */\n"
		"    1.012345 |   0)   12345.67 us |  } /* main */\n";

	(void)state;
	/* only thread 100: no context switch */
	script = graph_script;
	{
		struct trace_iter iter;
		static const int tids[] = { 100 };
		FILE *f = mem_open();

		script_len = (int)(sizeof(graph_script) / sizeof(graph_script[0]));
		trace_iter_init(&iter, &data, &function_graph_tracer, f);
		for (const char **o = opts; *o; o++)
			assert_int_equal(tracer_set_option(&iter, *o), 0);
		iter.tids = tids;
		iter.nr_tids = 1;
		assert_int_equal(trace_print_all(&iter), 0);
		assert_string_equal(mem_text(f), expect);
	}
}

static void test_graph_no_context(void **state)
{
	static const char *opts[] = { "nocontext-info", NULL };
	static struct ut_event ev[] = {
		EV(UT_EV_ENTRY, 100, 0, 0, 1000, 0x401000),
		EV(UT_EV_ENTRY, 100, 0, 1, 2000, 0x402000),
		EV(UT_EV_EXIT, 100, 0, 1, 3000, 0x402000),
		EV(UT_EV_EXIT, 100, 0, 0, 4000, 0x401000),
	};

	(void)state;
	assert_string_equal(run(ev, 4, "function_graph", opts),
			    "# tracer: function_graph\n"
			    "#\n"
			    "main() {\n"
			    "  foo();\n"
			    "}\n");
}

static void test_function(void **state)
{
	static struct ut_event ev[] = {
		{ .type = UT_EV_FUNC, .pid = 100, .tid = 100, .cpu = 2, .ts = 17284993652400ull,
		  .ip = 0x402010, .parent = 0x401020, .thread = &threads[0] },
		{ .type = UT_EV_FUNC, .pid = 100, .tid = 101, .cpu = 1, .ts = 17284993652500ull,
		  .ip = 0x405000, .parent = 0x7f0000001234ull, .thread = &threads[1] },
		{ .type = UT_EV_MARKER, .pid = 100, .tid = 100, .cpu = 2, .ts = 17284993653000ull,
		  .data = "mark\n", .data_len = 5, .thread = &threads[0] },
		{ .type = UT_EV_LOST, .cpu = 3, .count = 12 },
	};
	const char *expect =
		"# tracer: function\n"
		"#\n"
		"# entries-in-buffer/entries-written: 37/47   #P:4\n"
		"#\n"
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"             app-100     [002] ..... 17284.993652: foo <-main\n"
		"             app-101     [001] ..... 17284.993653: worker <-0x7f0000001234\n"
		"             app-100     [002] ..... 17284.993653: tracing_mark_write: mark\n"
		"CPU:3 [LOST 12 EVENTS]\n";
	static const char *o1[] = { "sym-offset", "sym-addr", "noirq-info", "record-tgid", NULL };
	const char *expect1 =
		"# tracer: function\n"
		"#\n"
		"# entries-in-buffer/entries-written: 37/47   #P:4\n"
		"#\n"
		"#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
		"#              | |           |       |         |         |\n"
		"             app-100     (    100) [002]  17284.993652: foo+0x10/0x40 <0000000000402010>"
		" <-main+0x20/0x100 <0000000000401020>\n"
		"             app-101     (    100) [001]  17284.993653: worker+0x0/0x60 <0000000000405000>"
		" <-0x7f0000001234 <00007f0000001234>\n"
		"             app-100     (    100) [002]  17284.993653: tracing_mark_write: mark\n"
		"CPU:3 [LOST 12 EVENTS]\n";
	static const char *o2[] = { "noprint-parent", "nocontext-info", "nomarkers", NULL };

	(void)state;
	assert_string_equal(run(ev, 4, "function", NULL), expect);
	assert_string_equal(run(ev, 4, "ftrace", o1), expect1);
	assert_string_equal(run(ev, 4, "function", o2),
			    "# tracer: function\n"
			    "#\n"
			    "foo\n"
			    "worker\n"
			    "CPU:3 [LOST 12 EVENTS]\n");
}

/* a function_graph recording printed by the function tracer */
static void test_function_from_graph(void **state)
{
	static const char *opts[] = { "nocontext-info", NULL };
	static struct ut_event ev[] = {
		EV(UT_EV_ENTRY, 100, 0, 0, 1000, 0x401000),
		EV(UT_EV_ENTRY, 100, 0, 1, 2000, 0x402000),
		EV(UT_EV_EXIT, 100, 0, 1, 3000, 0x402000),
		EV(UT_EV_ENTRY, 100, 0, 1, 3500, 0x403000),
		EV(UT_EV_EXIT, 100, 0, 1, 3600, 0x403000),
		EV(UT_EV_EXIT, 100, 0, 0, 4000, 0x401000),
	};

	(void)state;
	ev[0].parent = 0x7f0000000010ull;
	assert_string_equal(run(ev, 6, "function", opts),
			    "# tracer: function\n"
			    "#\n"
			    "main <-0x7f0000000010\n"
			    "foo <-main\n"
			    "bar <-main\n");
}

/* latency-format: the kernel's latency header and context columns (output/latency.c) */
static void test_latency_format(void **state)
{
	static const char *opts[] = { "latency-format", NULL };
	static struct ut_event ev[] = {
		EV(UT_EV_ENTRY, 100, 1, 0, 5000000, 0x401000),
		EV(UT_EV_ENTRY, 100, 1, 1, 5000400, 0x402000),
		EV(UT_EV_EXIT, 100, 1, 1, 5150000, 0x402000),
		EV(UT_EV_ENTRY, 100, 1, 1, 5150600, 0x403000),
		EV(UT_EV_EXIT, 100, 1, 1, 5160000, 0x403000),
		EV(UT_EV_EXIT, 100, 1, 0, 5200000, 0x401000),
	};
	static const struct trace_lat_info lat = {
		.latency_ns = 200999, .pid = 100, .tid = 100, .cpu = 1, .comm = "app",
		.start_ip = 0x401000, .end_ip = 0x403000, .time_start = 5000000,
	};
	struct trace_iter iter;
	struct utsname u;
	char want[4096];
	FILE *f;

	(void)state;
	ev[0].parent = 0x7f0000000010ull;
	assert_int_equal(uname(&u), 0);
	snprintf(want, sizeof(want),
		 "# tracer: function\n"
		 "#\n"
		 "# function latency trace v1.1.5 on %s\n"
		 "# --------------------------------------------------------------------\n"
		 "# latency: 200 us, #37/47, CPU#1 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)\n"
		 "#    -----------------\n"
		 "#    | task: app-100 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		 "#    -----------------\n"
		 "#  => started at: main\n"
		 "#  => ended at:   bar\n"
		 "#\n"
		 "#\n"
		 "#                    _------=> CPU#            \n"
		 "#                   / _-----=> irqs-off/BH-disabled\n"
		 "#                  | / _----=> need-resched    \n"
		 "#                  || / _---=> hardirq/softirq \n"
		 "#                  ||| / _--=> preempt-depth   \n"
		 "#                  |||| / _-=> migrate-disable \n"
		 "#                  ||||| /     delay           \n"
		 "#  cmd     pid     |||||| time  |   caller     \n"
		 "#     \\   /        ||||||  \\    |    /       \n"
		 "     app-100       1.....    0us : main <-0x7f0000000010\n"
		 "     app-100       1.....    0us!: foo <-main\n"
		 "     app-100       1.....  151us : bar <-main\n",
		 u.release);
	f = mem_open();
	script = ev;
	script_len = 6;
	trace_iter_init(&iter, &data, tracer_find("function"), f);
	iter.lat = &lat;
	assert_int_equal(tracer_set_option(&iter, "latency-format"), 0);
	assert_int_equal(trace_print_all(&iter), 0);
	assert_string_equal(mem_text(f), want);

	/* time_start 0: from the first event shown, as the kernel's max buffer */
	{
		struct trace_lat_info lat0 = lat;

		lat0.time_start = 0;
		f = mem_open();
		trace_iter_init(&iter, &data, tracer_find("function"), f);
		iter.lat = &lat0;
		assert_int_equal(tracer_set_option(&iter, "latency-format"), 0);
		assert_int_equal(trace_print_all(&iter), 0);
		assert_string_equal(mem_text(f), want);
	}

	/* no maximum: the kernel's header of a buffer without one; times from 0 */
	assert_non_null(strstr(run(ev, 6, "function", opts),
			       "# latency: 0 us, #37/47, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:4)\n"
			       "#    -----------------\n"
			       "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
			       "#    -----------------\n"
			       "#\n"
			       "#                    _------=> CPU#"));
	assert_non_null(strstr(run(ev, 6, "function", opts),
			       "     app-100       1..... 5000us : main <-0x7f0000000010\n"));
}

static void test_nop(void **state)
{
	static const char *opts[] = { "nocontext-info", NULL };

	(void)state;
	assert_string_equal(run(graph_script, 4, "nop", opts),
			    "# tracer: nop\n"
			    "#\n"
			    "tracing_mark_write: hello\n");
}


/* ---- calls recorded at their return (tracing_thresh) and stack traces ---- */

#define RET(t, c, d, time, dur, addr) \
	{ .type = UT_EV_RETURN, .pid = 100, .tid = (t), .cpu = (c), .depth = (d), .ts = (time), \
	  .duration = (dur), .ip = (addr), .thread = &threads[(t) - 100] }
#define TRACE(t, c, d, time, ips, n) \
	{ .type = UT_EV_TRACE, .pid = 100, .tid = (t), .cpu = (c), .depth = (d), .ts = (time), \
	  .data = (const char *)(ips), .data_len = 6 * (n), .count = (n), \
	  .thread = &threads[(t) - 100] }

/* foo+0x10, main+0x20, innermost first, as a TRACE record stores them */
static const unsigned char stack_ips[] = {
	0x10, 0x20, 0x40, 0, 0, 0,	/* 0x402010 */
	0x20, 0x10, 0x40, 0, 0, 0,	/* 0x401020 */
};

/* what a thresh recording gives: returns only, innermost first */
static struct ut_event thresh_script[] = {
	RET(100, 0, 2, 1000200000ull, 123456, 0x402000),		/* foo */
	TRACE(100, 0, 1, 1000300000ull, stack_ips, 2),
	RET(100, 0, 1, 1002237567ull, 2234567, 0x403000),		/* bar */
	RET(100, 0, 0, 1012345678ull, 12345678, 0x401000),		/* main */
	TRACE(100, 0, 0, 1012400000ull, stack_ips, 0),
};
#define THRESH_N ((int)(sizeof(thresh_script) / sizeof(thresh_script[0])))

static void test_graph_return(void **state)
{
	static const char *plain[] = { "nofuncgraph-proc", NULL };
	static const char *abs_proc[] = { "funcgraph-abstime", "funcgraph-proc", NULL };
	static const char *no_cpu_overhead[] = { "nofuncgraph-proc", "nofuncgraph-cpu",
						 "nofuncgraph-overhead", NULL };
	static const char *no_duration[] = { "nofuncgraph-proc", "nofuncgraph-duration", NULL };
	static const char *no_context[] = { "nocontext-info", NULL };
	/* funcgraph-tail changes nothing: such a brace always names its function */
	static const char *tail[] = { "nofuncgraph-proc", "funcgraph-tail", NULL };
	const char *expect =
		"# tracer: function_graph\n"
		"#\n"
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n"
		" 0) ! 123.456 us  |      } /* foo */\n"
		" 0)               |      /* <stack trace>\n"
		" => foo\n"
		" => main */\n"
		" 0) # 2234.567 us |    } /* bar */\n"
		" 0) * 12345.67 us |  } /* main */\n"
		" 0)               |  /* <stack trace> */\n";

	(void)state;
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", plain), expect);
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", tail), expect);
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", abs_proc),
			    "# tracer: function_graph\n"
			    "#\n"
			    "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
			    "#      |          |     |    |           |   |                     |   |   |   |\n"
			    "    1.000200 |   0)    app-100     | ! 123.456 us  |      } /* foo */\n"
			    "    1.000300 |   0)    app-100     |               |      /* <stack trace>\n"
			    " => foo\n"
			    " => main */\n"
			    "    1.002237 |   0)    app-100     | # 2234.567 us |    } /* bar */\n"
			    "    1.012345 |   0)    app-100     | * 12345.67 us |  } /* main */\n"
			    "    1.012400 |   0)    app-100     |               |  /* <stack trace> */\n");
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", no_cpu_overhead),
			    "# tracer: function_graph\n"
			    "#\n"
			    "#  DURATION                  FUNCTION CALLS\n"
			    "#   |   |                     |   |   |   |\n"
			    "  123.456 us  |      } /* foo */\n"
			    "              |      /* <stack trace>\n"
			    " => foo\n"
			    " => main */\n"
			    "  2234.567 us |    } /* bar */\n"
			    "  12345.67 us |  } /* main */\n"
			    "              |  /* <stack trace> */\n");
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", no_duration),
			    "# tracer: function_graph\n"
			    "#\n"
			    "# CPU               FUNCTION CALLS\n"
			    "# |                 |   |   |   |\n"
			    " 0)     } /* foo */\n"
			    " 0)     /* <stack trace>\n"
			    " => foo\n"
			    " => main */\n"
			    " 0)   } /* bar */\n"
			    " 0) } /* main */\n"
			    " 0) /* <stack trace> */\n");
	assert_string_equal(run(thresh_script, THRESH_N, "function_graph", no_context),
			    "# tracer: function_graph\n"
			    "#\n"
			    "    } /* foo */\n"
			    "    /* <stack trace>\n"
			    " => foo\n"
			    " => main */\n"
			    "  } /* bar */\n"
			    "} /* main */\n"
			    "/* <stack trace> */\n");
}

/* returns among entries and exits: the pairs still match, comments follow the braces */
static void test_graph_return_mixed(void **state)
{
	static const char *opts[] = { "nofuncgraph-proc", "sym-offset", NULL };
	static struct ut_event ev[] = {
		EV(UT_EV_ENTRY, 100, 0, 0, 1000000000ull, 0x401000),	/* main */
		RET(100, 0, 1, 1000005000ull, 4000, 0x402000),		/* foo */
		EV(UT_EV_ENTRY, 100, 0, 1, 1000006000ull, 0x403000),	/* bar */
		RET(100, 0, 2, 1000009000ull, 2500, 0x404000),		/* baz */
		TRACE(100, 0, 2, 1000009500ull, stack_ips, 2),
		EV(UT_EV_EXIT, 100, 0, 1, 1000010000ull, 0x403000),
		EV(UT_EV_EXIT, 100, 0, 0, 1000020000ull, 0x401000),
		RET(100, 0, 0, 1000030000ull, 1000, 0),		/* no address: still named */
	};

	(void)state;
	/* the graph's names are %ps: sym-offset is for the stack trace only */
	assert_string_equal(run(ev, 8, "function_graph", opts),
			    "# tracer: function_graph\n"
			    "#\n"
			    "# CPU  DURATION                  FUNCTION CALLS\n"
			    "# |     |   |                     |   |   |   |\n"
			    " 0)               |  main() {\n"
			    " 0)   4.000 us    |    } /* foo */\n"
			    " 0)               |    bar() {\n"
			    " 0)   2.500 us    |      } /* baz */\n"
			    " 0)               |      /* <stack trace>\n"
			    " => foo+0x10/0x40\n"
			    " => main+0x20/0x100 */\n"
			    " 0)   4.000 us    |    }\n"
			    " 0) + 20.000 us   |  }\n"
			    " 0)   1.000 us    |  } /* 0x0 */\n");
}

static void test_function_return_trace(void **state)
{
	static const char *o1[] = { "sym-offset", "noirq-info", NULL };
	static const char *o2[] = { "nocontext-info", NULL };
	static struct ut_event mixed[] = {
		EV(UT_EV_ENTRY, 100, 0, 0, 1000000000ull, 0x401000),	/* main */
		RET(100, 0, 1, 1000005000ull, 4000, 0x402000),		/* foo <-main */
		EV(UT_EV_EXIT, 100, 0, 0, 1000020000ull, 0x401000),
		RET(100, 0, 0, 1000030000ull, 5000, 0x403000),		/* bar */
	};

	(void)state;
	/* a call at its entry time, in its return's place; the stack trace as the kernel's */
	assert_string_equal(run(thresh_script, THRESH_N, "function", NULL),
			    "# tracer: function\n"
			    "#\n"
			    "# entries-in-buffer/entries-written: 37/47   #P:4\n"
			    "#\n"
			    "#                                _-----=> irqs-off/BH-disabled\n"
			    "#                               / _----=> need-resched\n"
			    "#                              | / _---=> hardirq/softirq\n"
			    "#                              || / _--=> preempt-depth\n"
			    "#                              ||| / _-=> migrate-disable\n"
			    "#                              |||| /     delay\n"
			    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			    "#              | |         |   |||||     |         |\n"
			    "             app-100     [000] .....     1.000077: foo\n"
			    "             app-100     [000] .....     1.000300: <stack trace>\n"
			    " => foo\n"
			    " => main\n"
			    "             app-100     [000] .....     1.000003: bar\n"
			    "             app-100     [000] .....     1.000000: main\n"
			    "             app-100     [000] .....     1.012400: <stack trace>\n");
	assert_string_equal(run(thresh_script, 2, "function", o1),
			    "# tracer: function\n"
			    "#\n"
			    "# entries-in-buffer/entries-written: 37/47   #P:4\n"
			    "#\n"
			    "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
			    "#              | |         |         |         |\n"
			    "             app-100     [000]      1.000077: foo+0x0/0x40\n"
			    "             app-100     [000]      1.000300: <stack trace>\n"
			    " => foo+0x10/0x40\n"
			    " => main+0x20/0x100\n");
	/* the caller of a return is the open entry below it */
	assert_string_equal(run(mixed, 4, "function", o2),
			    "# tracer: function\n"
			    "#\n"
			    "main\n"
			    "foo <-main\n"
			    "bar\n");
	/* the nop tracer shows stack traces too, as the kernel's */
	assert_string_equal(run(thresh_script, THRESH_N, "nop", o2),
			    "# tracer: nop\n"
			    "#\n"
			    "<stack trace>\n"
			    " => foo\n"
			    " => main\n"
			    "<stack trace>\n");
}

/* an event claiming more ips than it holds prints those it holds */
static void test_trace_bounds(void **state)
{
	static const char *opts[] = { "nocontext-info", NULL };
	static struct ut_event ev[] = {
		TRACE(100, 0, 0, 1000, stack_ips, 1),
	};

	(void)state;
	ev[0].count = 1000;
	assert_string_equal(run(ev, 1, "function", opts),
			    "# tracer: function\n"
			    "#\n"
			    "<stack trace>\n"
			    " => foo\n");
	ev[0].data = NULL;
	assert_string_equal(run(ev, 1, "function", opts),
			    "# tracer: function\n"
			    "#\n"
			    "<stack trace>\n");
}


/* ---- the tracer registry (usertrace/tracers.def) ---- */

static void test_registry(void **state)
{
	static const struct {
		const char *name;
		enum ut_rec_mode mode;
	} want[] = {
		{ "function_graph", UT_MODE_GRAPH },
		{ "wakeup_rt", UT_MODE_FUNC },
		{ "wakeup", UT_MODE_FUNC },
		{ "preemptirqsoff", UT_MODE_FUNC },
		{ "preemptoff", UT_MODE_FUNC },
		{ "irqsoff", UT_MODE_FUNC },
		{ "function", UT_MODE_FUNC },
		{ "sched_switch", UT_MODE_NONE },
		{ "branch", UT_MODE_NONE },
		{ "kmemtrace", UT_MODE_NONE },
		{ "sysprof", UT_MODE_NONE },
		{ "initcall", UT_MODE_NONE },
		{ "power", UT_MODE_NONE },
		{ "mmiotrace", UT_MODE_NONE },
		{ "hw-branch", UT_MODE_NONE },
		{ "nop", UT_MODE_NONE },
	};
	FILE *f;

	(void)state;
	assert_int_equal(UT_NR_TRACERS, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < UT_NR_TRACERS; i++) {
		const struct tracer *t = tracer_find(want[i].name);

		assert_non_null(t);
		assert_string_equal(t->name, want[i].name);
		assert_string_equal(ut_tracers[i].name, want[i].name);
		assert_int_equal(ut_tracer_index(want[i].name), (int)i);
		assert_int_equal(ut_tracer_mode(t->name), want[i].mode);
		assert_int_equal(ut_needs_mode(ut_tracers[i].needs), want[i].mode);
		assert_non_null(ut_tracers[i].help);
	}
	assert_ptr_equal(tracer_find("ftrace"), tracer_find("function"));
	assert_ptr_equal(tracer_find(UT_TRACER_DEFAULT), &function_graph_tracer);
	assert_null(tracer_find("bogus"));
	assert_null(tracer_find(""));
	assert_null(tracer_find(NULL));
	assert_int_equal(ut_tracer_index("function_graph "), -1);
	assert_string_equal(UT_TRACER_NAMES, "function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace hw-branch nop");
	/* hw-branch is turned off (main()): as on a machine without branch records */
	f = mem_open();
	tracer_list(f);
	assert_string_equal(mem_text(f), "function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace nop\n");
	f = mem_open();
	tracer_help(f, "  ");
	assert_string_equal(mem_text(f),
			    "  function_graph  every call and return, with durations\n"
			    "  wakeup_rt       longest wake-up of a SCHED_FIFO/RR thread, wake to run\n"
			    "  wakeup          longest wake-up of any thread, wake to run\n"
			    "  preemptirqsoff  longest section with signals blocked or preemption off\n"
			    "  preemptoff      longest section with preemption off (preempt_disable)\n"
			    "  irqsoff         longest section with signals blocked, or in a handler\n"
			    "  function        every call, with its caller\n"
			    "  sched_switch    context switches and wake-ups of the traced threads\n"
			    "  branch          likely/unlikely outcomes, [  ok  ] or [ MISS ] (usertrace/branch.h)\n"
			    "  kmemtrace       malloc, new, mmap as kmem events; call sites in trace_stat/kmem\n"
			    "  sysprof         samples the user stack every N us of thread CPU time\n"
			    "  initcall        constructors and destructors of the program and its libraries, timed\n"
			    "  power           frequency and idle states of the CPUs the program ran on\n"
			    "  mmiotrace       reads and writes of device memory mapped into the program\n"
			    "  nop             no tracer: markers only\n");
}

/* ---- the records, decoded by reader/decode.c ---- */

/* one data page of a thread's buffer file, built record by record */
struct page_builder {
	union {
		struct rb_page page;
		unsigned char bytes[RB_PAGE_SIZE];
	} u;
	uint32_t off;
};

static void pb_init(struct page_builder *b, uint64_t ts)
{
	memset(b, 0, sizeof(*b));
	b->u.page.ts = ts;
}

static void pb_rec(struct page_builder *b, unsigned type, uint32_t delta, const void *payload,
		   uint32_t len)
{
	uint32_t h = RB_HDR(type, delta);

	assert_true(b->off + 4 + len <= RB_DATA_SIZE);
	memcpy(b->u.page.data + b->off, &h, 4);
	if (len)
		memcpy(b->u.page.data + b->off + 4, payload, len);
	b->off += 4 + len;
	b->u.page.commit = b->off;
	b->u.page.entries++;
}

static void pb_ip(struct page_builder *b, unsigned type, uint32_t delta, uint64_t ip)
{
	unsigned char p[6];

	ut_put48(p, ip);
	pb_rec(b, type, delta, p, 6);
}

static void pb_depth(struct page_builder *b, uint32_t depth)
{
	pb_rec(b, UT_REC_DEPTH, 0, &depth, 4);
}

static void pb_return(struct page_builder *b, uint32_t delta, uint64_t ip, uint16_t depth,
		      uint64_t dur)
{
	unsigned char p[14];

	ut_put48(p, ip);
	memcpy(p + 6, &depth, 2);
	ut_put48(p + 8, dur);
	pb_rec(b, UT_REC_RETURN, delta, p, 14);
}

/* a TRACE claiming @n ips, of which the first @have are given */
static void pb_trace(struct page_builder *b, uint32_t delta, uint16_t n, const uint64_t *ips,
		     int have)
{
	unsigned char p[2 + 6 * UT_STACK_MAX];

	assert_true(have <= UT_STACK_MAX);
	memcpy(p, &n, 2);
	for (int i = 0; i < have; i++)
		ut_put48(p + 2 + 6 * i, ips[i]);
	pb_rec(b, UT_REC_TRACE, delta, p, 2 + 6 * (uint32_t)have);
}

static char data_root[] = "/tmp/usertrace-test-output.XXXXXX";
static int data_root_made;	/* mkdtemp() filled in its XXXXXX (which may end in X) */

/*
 * DIR/info (the TSC clock at 3 ticks per ns: t ns = t ticks * mult >> 32,
 * mult = 2^32 / 3 rounded down) and one thread's file with page @b.
 */
static const char *write_dir(const char *name, const struct page_builder *b)
{
	static char dir[256];
	char path[512];
	union {
		struct rb_header h;
		unsigned char bytes[RB_PAGE_SIZE];
	} hdr;
	FILE *f;

	if (!data_root_made) {
		assert_non_null(mkdtemp(data_root));
		data_root_made = 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s", data_root, name);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("version=1\ntracer=function_graph\nclock=tsc\ntsc0=0\nmono0=0\n"
	      "tsc1=3000000000\nmono1=1000000000\nnr_cpus=1\n", f);
	assert_int_equal(fclose(f), 0);

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.h.magic, RB_MAGIC, 8);
	hdr.h.version = RB_VERSION;
	hdr.h.page_size = RB_PAGE_SIZE;
	hdr.h.nr_pages = 1;
	hdr.h.pid = 100;
	hdr.h.tid = 100;
	memcpy(hdr.h.comm, "app", 4);
	hdr.h.image = 1;
	hdr.h.state = RB_STATE_CLOSED;
	snprintf(path, sizeof(path), "%s/100.100.1.dat", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(hdr.bytes, 1, RB_PAGE_SIZE, f), RB_PAGE_SIZE);
	assert_int_equal(fwrite(b->u.bytes, 1, RB_PAGE_SIZE, f), RB_PAGE_SIZE);
	assert_int_equal(fclose(f), 0);
	return dir;
}

static int data_cleanup(void **state)
{
	(void)state;
	if (data_root_made)
		remove_tree(data_root);
	return 0;
}

#define MAX_DECODED 16

/* what reader/data.c and decode.c made of a directory */
struct decoded {
	struct ut_data d;
	struct data_merge *m;
	struct ut_event ev[MAX_DECODED];
	int n;
	int ret;		/* of the last data_merge_next() */
	char err[1024];		/* its messages */
};

/* decode every event of @dir, stderr going to dec->err */
static void decode_dir(struct decoded *dec, const char *dir)
{
	char path[512];
	int saved, fd;
	ssize_t len;

	memset(dec, 0, sizeof(*dec));
	snprintf(path, sizeof(path), "%s/stderr", data_root);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
		fail_msg("cannot redirect stderr");
	dec->ret = ut_data_open(&dec->d, dir);
	if (dec->ret == 0) {
		dec->m = data_merge_new(&dec->d, NULL, 0);
		while (dec->n < MAX_DECODED && (dec->ret = data_merge_next(dec->m, &dec->ev[dec->n])) > 0)
			dec->n++;
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = pread(fd, dec->err, sizeof(dec->err) - 1, 0);
	dec->err[len > 0 ? len : 0] = 0;
	close(fd);
}

static void decoded_free(struct decoded *dec)
{
	data_merge_free(dec->m);
	dec->m = NULL;
	ut_data_close(&dec->d);
}

static void test_data_return_trace(void **state)
{
	static const uint64_t ips[] = { 0x402010, 0x401020 };
	struct page_builder b;
	struct decoded dec;
	const struct ut_event *ev = dec.ev;

	(void)state;
	/*
	 * In ticks: main enters at 3000000; baz (called by an unrecorded
	 * callee of main) runs 5250000-5400000, a stack trace is taken at
	 * 5400003, foo runs 5700000-6000000; main returns at 9000000.
	 */
	pb_init(&b, 3000000);
	pb_depth(&b, 0);
	pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
	pb_return(&b, 2400000, 0x404000, 2, 150000);
	pb_trace(&b, 3, 2, ips, 2);
	pb_return(&b, 599997, 0x402000, 1, 300000);
	pb_rec(&b, UT_REC_EXIT, 3000000, NULL, 0);
	decode_dir(&dec, write_dir("good", &b));
	assert_string_equal(dec.err, "");
	assert_int_equal(dec.ret, 0);
	assert_int_equal(dec.n, 5);

	assert_int_equal(ev[0].type, UT_EV_ENTRY);
	assert_int_equal(ev[0].ts, 999999);
	assert_int_equal(ev[1].type, UT_EV_RETURN);
	assert_int_equal(ev[1].ip, 0x404000);
	assert_int_equal(ev[1].depth, 2);
	assert_int_equal(ev[1].ts, 1799999);
	/* the entry converted as a timestamp (1749999 ns): not 150000 ticks' 49999 ns */
	assert_int_equal(ev[1].duration, 50000);
	/* the stack trace is at the depth of the open entries: the RETURN changed nothing */
	assert_int_equal(ev[2].type, UT_EV_TRACE);
	assert_int_equal(ev[2].ts, 1800000);
	assert_int_equal(ev[2].depth, 1);
	assert_int_equal(ev[2].count, 2);
	assert_int_equal(ut_event_trace_len(&ev[2]), 2);
	assert_int_equal(ut_event_trace_ip(&ev[2], 0), 0x402010);
	assert_int_equal(ut_event_trace_ip(&ev[2], 1), 0x401020);
	assert_int_equal(ut_event_trace_ip(&ev[2], 2), 0);
	assert_int_equal(ev[3].type, UT_EV_RETURN);
	assert_int_equal(ev[3].ip, 0x402000);
	assert_int_equal(ev[3].depth, 1);
	assert_int_equal(ev[3].ts, 1999999);
	assert_int_equal(ev[3].duration, 100000);
	/* main is still open: the EXIT closes it */
	assert_int_equal(ev[4].type, UT_EV_EXIT);
	assert_int_equal(ev[4].ip, 0x401000);
	assert_int_equal(ev[4].depth, 0);
	assert_int_equal(ev[4].ts, 2999999);

	/* and as the tracers print them */
	assert_string_equal(run_on(&dec.d, dec.ev, dec.n, "function_graph", NULL),
			    "# tracer: function_graph\n"
			    "#\n"
			    "# CPU  DURATION                  FUNCTION CALLS\n"
			    "# |     |   |                     |   |   |   |\n"
			    " 0)               |  main() {\n"
			    " 0) + 50.000 us   |      } /* baz */\n"
			    " 0)               |      /* <stack trace>\n"
			    " => foo\n"
			    " => main */\n"
			    " 0) + 100.000 us  |    } /* foo */\n"
			    " 0) # 2000.000 us |  }\n");
	assert_string_equal(run_on(&dec.d, dec.ev, dec.n, "function", NULL),
			    "# tracer: function\n"
			    "#\n"
			    "# entries-in-buffer/entries-written: 6/6   #P:1\n"
			    "#\n"
			    "#                                _-----=> irqs-off/BH-disabled\n"
			    "#                               / _----=> need-resched\n"
			    "#                              | / _---=> hardirq/softirq\n"
			    "#                              || / _--=> preempt-depth\n"
			    "#                              ||| / _-=> migrate-disable\n"
			    "#                              |||| /     delay\n"
			    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			    "#              | |         |   |||||     |         |\n"
			    "             app-100     [000] .....     0.001000: main\n"
			    "             app-100     [000] .....     0.001750: baz\n"
			    "             app-100     [000] .....     0.001800: <stack trace>\n"
			    " => foo\n"
			    " => main\n"
			    "             app-100     [000] .....     0.001900: foo <-main\n");
	decoded_free(&dec);
}

/*
 * A bad RETURN or TRACE: the events before it, the rest of the page
 * skipped (a hole: a LOST event of an unknown count) and said, an error
 * at the end; never a crash.
 */
static void test_data_corrupt(void **state)
{
	static const uint64_t ips[UT_STACK_MAX] = { 0x402010, 0x401020 };
	static const struct {
		const char *name;
		int cut;		/* bytes of the last record cut off the page */
		const char *err;
	} cases[] = {
		{ "return-cut", 1, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "return-header-only", 14, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "return-too-long", 0, "page 0 (bytes 4096-8191): a record damaged (a call of 9000001 clock units" },
		{ "trace-cut", 1, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "trace-no-count", 1 + 6 * 2, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "trace-n-65", 0, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "trace-n-65535", 0, "page 0 (bytes 4096-8191): a record damaged (" },
		{ "trace-n-past-page", 0, "page 0 (bytes 4096-8191): a record damaged (" },
	};
	struct page_builder b;
	struct decoded dec;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = cases[i].name;

		pb_init(&b, 3000000);
		pb_depth(&b, 0);
		pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
		if (!strncmp(name, "return", 6))
			pb_return(&b, 6000000, 0x402000, 1, !strcmp(name, "return-too-long") ? 9000001 : 300000);
		else if (!strcmp(name, "trace-n-65"))
			pb_trace(&b, 3, UT_STACK_MAX + 1, ips, UT_STACK_MAX);
		else if (!strcmp(name, "trace-n-65535"))
			pb_trace(&b, 3, 65535, ips, 2);
		else if (!strcmp(name, "trace-n-past-page"))
			pb_trace(&b, 3, UT_STACK_MAX, ips, 2);	/* 64 claimed, 2 written */
		else
			pb_trace(&b, 3, 2, ips, 2);
		b.off -= (uint32_t)cases[i].cut;
		b.u.page.commit = b.off;
		decode_dir(&dec, write_dir(name, &b));
		if (dec.ret != -1 || dec.n != 2 || dec.ev[0].type != UT_EV_ENTRY ||
		    dec.ev[1].type != UT_EV_LOST || dec.ev[1].count ||
		    !strstr(dec.err, cases[i].err) || !strstr(dec.err, "the rest of the page skipped"))
			fail_msg("%s: ret %d, %d events, message '%s'", name, dec.ret, dec.n, dec.err);
		decoded_free(&dec);
	}
}

/*
 * Samples and their weights (record.h's ut_sample_dir()): dir 0xffff one
 * period, 0xe000 | (W - 1) W periods; a stacktrace trigger's dir is a
 * directory, and an initcall's stays an initcall.
 */
static void test_data_sample_weight(void **state)
{
	static const struct {
		uint16_t dir;
		enum ut_ev_type type;
		uint32_t weight, ev_dir;
	} cases[] = {
		{ UT_TRACE_DIR_SAMPLE, UT_EV_SAMPLE, 1, 0 },
		{ 0xe001, UT_EV_SAMPLE, 2, 0 },
		{ 0xe003, UT_EV_SAMPLE, 4, 0 },
		{ 0xefff, UT_EV_SAMPLE, 4096, 0 },
		{ 2, UT_EV_TRACE, 0, 2 },
		{ 0xdfff, UT_EV_TRACE, 0, 0xdfff },
		{ 0xf000, UT_EV_TRACE, 0, 0xf000 },
		{ UT_TRACE_DIR_ICALL, UT_EV_INITCALL, 0, UT_TRACE_DIR_ICALL },
	};
	const size_t nr = sizeof(cases) / sizeof(cases[0]);
	struct page_builder b;
	struct decoded dec;

	(void)state;
	assert_int_equal(ut_sample_dir(0), UT_TRACE_DIR_SAMPLE);
	assert_int_equal(ut_sample_dir(1), UT_TRACE_DIR_SAMPLE);
	assert_int_equal(ut_sample_dir(4), 0xe003);
	assert_int_equal(ut_sample_dir(4096), 0xefff);
	assert_int_equal(ut_sample_dir(100000), 0xefff);	/* at most UT_SAMPLE_WEIGHT_MAX */
	pb_init(&b, 3000000);
	for (size_t i = 0; i < nr; i++) {
		unsigned char p[4 + 6];
		uint16_t n = 2 + 6;

		memcpy(p, &n, 2);
		memcpy(p + 2, &cases[i].dir, 2);
		ut_put48(p + 4, 0x401000 + i);
		pb_rec(&b, UT_REC_TRACE_DIR, 3, p, sizeof(p));
	}
	decode_dir(&dec, write_dir("sample-weight", &b));
	assert_string_equal(dec.err, "");
	assert_int_equal(dec.n, (int)nr);
	for (size_t i = 0; i < nr; i++) {
		const struct ut_event *ev = &dec.ev[i];

		if (ev->type != cases[i].type || ev->weight != cases[i].weight ||
		    ev->dir != cases[i].ev_dir || ut_event_trace_ip(ev, 0) != 0x401000 + i)
			fail_msg("dir %#x: type %d weight %u dir %#x", cases[i].dir, ev->type,
				 ev->weight, ev->dir);
	}
	decoded_free(&dec);
}

/*
 * Times outside the recording's (the info file's 1 s, from a minute before
 * to a minute after twice its length): a page or a record there is damage,
 * skipped with the rest of its page, the events before it kept; a time at
 * the window's edge is good.
 */
static void test_data_time_window(void **state)
{
	static const struct {
		const char *name;
		uint64_t page_ts;	/* ticks: 3 per ns */
		uint64_t extend;	/* a TIME_EXTEND of this many ticks after the entry */
		int events;		/* decoded before the error and a LOST for the hole, or all */
		int ret;
		const char *err;
	} cases[] = {
		{ "time-page-2^63", 1ull << 63, 0, 1, -1, "page 0 (bytes 4096-8191) damaged (time 9223372036854775808 outside" },
		{ "time-page-after", 3ull * 62000001000, 0, 1, -1, "page 0 (bytes 4096-8191) damaged (time" },
		{ "time-record-2^59", 3000000, 1ull << 59, 2, -1, "page 0 (bytes 4096-8191): a record damaged (time" },
		{ "time-record-late", 3000000, 3ull * 70000000000, 2, -1, "page 0 (bytes 4096-8191): a record damaged (time" },
		{ "time-page-edge", 3ull * 61999999999, 0, 2, 0, "" },
	};
	struct page_builder b;
	struct decoded dec;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pb_init(&b, cases[i].page_ts);
		pb_depth(&b, 0);
		pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
		if (cases[i].extend) {
			uint32_t h = RB_HDR(RB_TYPE_TIME_EXTEND, cases[i].extend & RB_DELTA_MAX);
			uint32_t hi = (uint32_t)(cases[i].extend >> RB_DELTA_BITS);

			memcpy(b.u.page.data + b.off, &h, 4);
			memcpy(b.u.page.data + b.off + 4, &hi, 4);
			b.off += 8;
		}
		pb_rec(&b, UT_REC_EXIT, 3, NULL, 0);
		decode_dir(&dec, write_dir(cases[i].name, &b));
		if (dec.ret != cases[i].ret || dec.n != cases[i].events ||
		    (*cases[i].err ? !strstr(dec.err, cases[i].err) : *dec.err != 0))
			fail_msg("%s: ret %d, %d events, message '%s'", cases[i].name, dec.ret, dec.n,
				 dec.err);
		decoded_free(&dec);
	}
}

/*
 * A record of a free type (14, entries.h) is skipped: data from a
 * newer writer reads without it.  Type 0, or a free type whose length
 * runs past the page's commit, is corrupt.
 */
static void test_data_free_type(void **state)
{
	static const struct {
		const char *name;
		uint32_t type;
		uint16_t n;
		int cut;
	} cases[] = {
		{ "free-14", 14, 3, 0 },
		{ "free-14-empty", 14, 0, 0 },
		{ "free-14-big", 14, 200, 0 },
		{ "free-14-cut", 14, 3, 1 },
		{ "type-0", 0, 3, 0 },
	};
	unsigned char payload[2 + 200];
	struct page_builder b;
	struct decoded dec;

	(void)state;
	memset(payload, 0x5a, sizeof(payload));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *name = cases[i].name;
		int good = cases[i].type && !cases[i].cut;

		pb_init(&b, 3000000);
		pb_depth(&b, 0);
		pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
		memcpy(payload, &cases[i].n, 2);
		pb_rec(&b, cases[i].type, 3, payload, 2 + cases[i].n);
		if (cases[i].cut) {
			b.off -= (uint32_t)cases[i].cut;
			b.u.page.commit = b.off;
		} else {
			pb_rec(&b, UT_REC_EXIT, 6, NULL, 0);
		}
		decode_dir(&dec, write_dir(name, &b));
		if (good) {
			if (dec.ret != 0 || dec.n != 2 || dec.ev[0].type != UT_EV_ENTRY ||
			    dec.ev[1].type != UT_EV_EXIT || dec.err[0])
				fail_msg("%s: ret %d, %d events, message '%s'", name, dec.ret, dec.n,
					 dec.err);
		} else if (dec.ret != -1 || dec.n != 2 || dec.ev[1].type != UT_EV_LOST ||
			   !strstr(dec.err, "page 0 (bytes 4096-8191): a record damaged")) {
			fail_msg("%s: ret %d, %d events, message '%s'", name, dec.ret, dec.n, dec.err);
		}
		decoded_free(&dec);
	}
}

/*
 * A stacktrace trigger's stack for one directory (TRACE_DIR): a TRACE
 * event that names its directory.  A length that is not the directory's
 * two bytes and whole ips is corrupt.
 */
static void test_data_trace_dir(void **state)
{
	unsigned char p[2 + 2 + 12];
	uint16_t n = 2 + 12, dir = 3;
	struct page_builder b;
	struct decoded dec;

	(void)state;
	memcpy(p, &n, 2);
	memcpy(p + 2, &dir, 2);
	ut_put48(p + 4, 0x402010);
	ut_put48(p + 10, 0x401020);
	pb_init(&b, 3000000);
	pb_depth(&b, 0);
	pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
	pb_rec(&b, UT_REC_TRACE_DIR, 3, p, sizeof(p));
	pb_rec(&b, UT_REC_EXIT, 6, NULL, 0);
	decode_dir(&dec, write_dir("trace-dir", &b));
	assert_string_equal(dec.err, "");
	assert_int_equal(dec.n, 3);
	assert_int_equal(dec.ev[1].type, UT_EV_TRACE);
	assert_int_equal(dec.ev[1].dir, 3);
	assert_int_equal(dec.ev[1].depth, 1);
	assert_int_equal(ut_event_trace_len(&dec.ev[1]), 2);
	assert_int_equal(ut_event_trace_ip(&dec.ev[1], 0), 0x402010);
	assert_int_equal(ut_event_trace_ip(&dec.ev[1], 1), 0x401020);
	/* the other records name no directory */
	assert_int_equal(dec.ev[0].dir, 0);
	decoded_free(&dec);

	/* 7 bytes: not the dir and whole ips */
	n = 7;
	memcpy(p, &n, 2);
	pb_init(&b, 3000000);
	pb_depth(&b, 0);
	pb_ip(&b, UT_REC_ENTRY, 0, 0x401000);
	pb_rec(&b, UT_REC_TRACE_DIR, 3, p, 2 + 7);
	decode_dir(&dec, write_dir("trace-dir-bad", &b));
	assert_int_equal(dec.ret, -1);
	assert_int_equal(dec.n, 2);
	assert_int_equal(dec.ev[1].type, UT_EV_LOST);
	assert_non_null(strstr(dec.err, "a stack trace of 7 bytes"));
	decoded_free(&dec);
}

/*
 * A DEPTH right after lost records restates the open calls (UT_EV_DEPTH);
 * a corrupt one of 2^32 - 1 gives the depth the reader keeps, as every
 * other event: report pushed that many unknown frames (the data fuzzer's
 * find: out of memory).
 */
static void test_data_depth_bound(void **state)
{
	struct page_builder b;
	struct decoded dec;

	(void)state;
	pb_init(&b, 3000000);
	b.u.page.flags = 3;
	pb_depth(&b, UINT32_MAX);
	pb_rec(&b, UT_REC_EXIT, 3, NULL, 0);
	decode_dir(&dec, write_dir("depth-bound", &b));
	assert_int_equal(dec.ret, 0);
	assert_int_equal(dec.n, 3);
	assert_int_equal(dec.ev[0].type, UT_EV_LOST);
	assert_int_equal(dec.ev[0].count, 3);
	assert_int_equal(dec.ev[1].type, UT_EV_DEPTH);
	assert_int_equal(dec.ev[1].count, 0);
	assert_int_equal(dec.ev[1].depth, 4096);
	assert_int_equal(dec.ev[2].type, UT_EV_EXIT);
	assert_int_equal(dec.ev[2].depth, 4095);
	decoded_free(&dec);
}

/* TSC ticks and ns both ways, times before the calibration point included */
static void test_data_clock(void **state)
{
	struct ut_data d;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.clock = UT_CLOCK_TSC;
	d.tsc0 = 30000;
	d.mono0 = 5000000;
	d.mult = (1ull << 32) / 3;	/* 3 ticks per ns */
	assert_int_equal(ut_data_ns(&d, 30000), 5000000);
	assert_int_equal(ut_data_ns(&d, 30003), 5000000);	/* 0.99999... ns, rounded down */
	assert_int_equal(ut_data_ns(&d, 30006), 5000001);
	assert_int_equal(ut_data_raw(&d, 5000000), 30000);
	assert_int_equal(ut_data_raw(&d, 5001000), 33000);
	/* before mono0 (an event older than the calibration): the fuzzer's first find */
	assert_int_equal(ut_data_raw(&d, 4999000), 27000);
	assert_int_equal(ut_data_raw(&d, 4990000), 0);
	assert_int_equal(ut_data_ns(&d, 27000), 4999000);	/* -999.99... ns, rounded down */
	/* CLOCK_MONOTONIC recordings are ns already */
	d.clock = UT_CLOCK_MONO;
	assert_int_equal(ut_data_raw(&d, 4990000), 4990000);
	assert_int_equal(ut_data_ns(&d, 12), 12);
}

static void test_options(void **state)
{
	struct trace_iter iter;

	(void)state;
	trace_iter_init(&iter, &data, &function_graph_tracer, stdout);
	assert_int_equal(tracer_set_option(&iter, "bogus"), -EINVAL);
	assert_int_equal(tracer_set_option(&iter, "no"), -EINVAL);
	assert_int_equal(tracer_set_option(&iter, ""), -EINVAL);
	assert_int_equal(tracer_set_option(&iter, "funcgraph-irqs"), 0);
	assert_int_equal(tracer_set_option(&iter, "nofuncgraph-overrun"), 0);
	assert_int_equal(tracer_set_option(&iter, "noprint-parent"), 0);
	assert_false(iter.iter_flags & TRACE_ITER_PRINT_PARENT);
	trace_iter_init(&iter, &data, &function_tracer, stdout);
	assert_int_equal(tracer_set_option(&iter, "funcgraph-proc"), -EINVAL);
	assert_ptr_equal(tracer_find("ftrace"), &function_tracer);
	assert_ptr_equal(tracer_find("function_graph"), &function_graph_tracer);
	assert_ptr_equal(tracer_find("nop"), &nop_tracer);
	assert_null(tracer_find("graph"));
	assert_null(tracer_find(NULL));
	/* the defaults, as the kernel's: output/options.def */
	trace_iter_init(&iter, &data, &function_graph_tracer, stdout);
	assert_int_equal(iter.iter_flags, TRACE_ITER_PRINT_PARENT | TRACE_ITER_IRQ_INFO |
			 TRACE_ITER_CONTEXT_INFO | TRACE_ITER_MARKERS | TRACE_ITER_FUNCTION);
	/* (its init() adds funcgraph-proc for data of several threads) */
	assert_int_equal(trace_opt_defaults(function_graph_tracer.opts, TRACER_MAX_OPTS),
			 GRAPH_CPU | GRAPH_OVERHEAD | GRAPH_DURATION | GRAPH_IRQS | GRAPH_GRAPH_TIME);
	assert_int_equal(tracer_set_option(&iter, "nofuncgraph-proc"), 0);
	assert_false(iter.tracer_flags & GRAPH_PROC);
	assert_int_equal(tracer_set_option(&iter, "funcgraph-proc"), 0);
	assert_true(iter.tracer_flags & GRAPH_PROC);
	assert_int_equal(tracer_set_option(&iter, "nofuncgraph-cpu"), 0);
	assert_false(iter.tracer_flags & GRAPH_CPU);
	assert_int_equal(tracer_set_option(&iter, "funcgraph-"), -EINVAL);
	assert_int_equal(tracer_set_option(&iter, "sym-addrx"), -EINVAL);
	trace_iter_init(&iter, &data, &nop_tracer, stdout);
	assert_int_equal(iter.tracer_flags, 0);
	assert_int_equal(tracer_set_option(&iter, "nofuncgraph-tail"), -EINVAL);
	assert_int_equal(tracer_set_option(&iter, "sym-offset"), 0);
	assert_true(iter.iter_flags & TRACE_ITER_SYM_OFFSET);
	/* the global table, in the kernel's trace_options order; a tracer's own in its table */
	assert_int_equal(TRACE_NR_OPTS, 12);
	assert_string_equal(trace_opts[TRACE_ITER_STACKTRACE_POS].name, "stacktrace");
	assert_int_equal(TRACE_ITER_STACKTRACE_POS, TRACE_ITER_FUNC_FORK_POS + 1);
	assert_string_equal(trace_opts[0].name, "print-parent");
	assert_string_equal(trace_opts[TRACE_ITER_MARKERS_POS].name, "markers");
	assert_string_equal(trace_opts[TRACE_ITER_EVENT_FORK_POS].name, "event-fork");
	assert_string_equal(trace_opts[TRACE_ITER_FUNCTION_POS].name, "function-trace");
	assert_string_equal(trace_opts[TRACE_ITER_FUNC_FORK_POS].name, "function-fork");
	assert_int_equal(trace_opt_defaults(trace_opts, TRACE_NR_OPTS) &
			 (TRACE_ITER_EVENT_FORK | TRACE_ITER_FUNC_FORK), 0);
	{
		const struct tracer *own = &nop_tracer;

		assert_ptr_equal(trace_opt_find(&function_graph_tracer, "funcgraph-tail", 14, &own),
				 &function_graph_tracer.opts[7]);
		assert_ptr_equal(own, &function_graph_tracer);
		assert_null(trace_opt_find(&function_graph_tracer, "funcgraph-tail", 13, &own));
		assert_null(trace_opt_find(&function_tracer, "funcgraph-tail", 14, &own));
		assert_ptr_equal(trace_opt_find(&function_tracer, "markers", 7, &own),
				 &trace_opts[TRACE_ITER_MARKERS_POS]);
		assert_null(own);
		assert_int_equal(trace_opt_count(function_graph_tracer.opts), 9);
		assert_int_equal(trace_opt_count(nop_tracer.opts), 0);
	}
}

/* replay -h lists the options from the table */
static void test_options_help(void **state)
{
	FILE *f = mem_open();

	(void)state;
	trace_options_help(f, "  ");
	assert_string_equal(mem_text(f),
		"  all tracers: print-parent (default) sym-offset sym-addr\n"
		"    context-info (default) latency-format record-tgid irq-info (default)\n"
		"    markers (default) event-fork function-trace (default) function-fork\n"
		"    stacktrace\n"
		"  function_graph: funcgraph-overrun funcgraph-cpu (default)\n"
		"    funcgraph-overhead (default) funcgraph-proc\n"
		"    funcgraph-duration (default) funcgraph-abstime\n"
		"    funcgraph-irqs (default) funcgraph-tail graph-time (default)\n"
		"  sysprof: sysprof-raw\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_find_mark),
		cmocka_unit_test(test_graph_duration),
		cmocka_unit_test(test_graph_proc),
		cmocka_unit_test(test_graph_cpu),
		cmocka_unit_test(test_seq_numbers),
		cmocka_unit_test(test_seq_long),
		cmocka_unit_test(test_graph_default),
		cmocka_unit_test(test_graph_options),
		cmocka_unit_test(test_graph_no_context),
		cmocka_unit_test(test_function),
		cmocka_unit_test(test_function_from_graph),
		cmocka_unit_test(test_nop),
		cmocka_unit_test(test_latency_format),
		cmocka_unit_test(test_graph_return),
		cmocka_unit_test(test_graph_return_mixed),
		cmocka_unit_test(test_function_return_trace),
		cmocka_unit_test(test_trace_bounds),
		cmocka_unit_test(test_data_return_trace),
		cmocka_unit_test(test_data_corrupt),
		cmocka_unit_test(test_data_time_window),
		cmocka_unit_test(test_data_sample_weight),
		cmocka_unit_test(test_data_free_type),
		cmocka_unit_test(test_data_trace_dir),
		cmocka_unit_test(test_data_clock),
		cmocka_unit_test(test_data_depth_bound),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_options_help),
	};

	setenv("USERTRACE_HW_BRANCH", "off", 1);	/* the same lists on every machine */
	return cmocka_run_group_tests(tests, NULL, data_cleanup);
}
