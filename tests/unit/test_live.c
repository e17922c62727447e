// SPDX-License-Identifier: MIT
/*
 * test_live.c - tracefs/live.c on a fake session: a control file and
 * ring buffers written through the real writer (lib/ringbuf), with no maps
 * (the functions print as addresses).  The clock is CLOCK_MONOTONIC ns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "output/tracer.h"
#include "tracefs/live.h"
#include "usertrace/evreg.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "utils/utils.h"

#define T0	1000000000000ull	/* 1000 s */

static char session[64];

struct tw {
	struct rb_writer w;
	struct rb_header *h;
	uint32_t nr_pages;
	uint32_t depth;
};

static struct tw *cur;

/* set: the next page start puts these calls back, as the runtime after a loss */
static const uint64_t *restate;
static uint16_t nr_restate;

static void page_start(struct rb_writer *w, uint64_t ts)
{
	unsigned char *p = rb_reserve(w, 8, &ts);
	uint32_t h = RB_HDR(UT_REC_DEPTH, ts - w->last_ts);

	memcpy(p, &h, 4);
	memcpy(p + 4, &cur->depth, 4);
	rb_commit(w, 8, ts, 0);
	if (restate) {
		p = rb_reserve(w, 6 + 6u * nr_restate, &ts);
		h = RB_HDR(UT_REC_STACK, 0);
		memcpy(p, &h, 4);
		memcpy(p + 4, &nr_restate, 2);
		for (int i = 0; i < nr_restate; i++)
			ut_put48(p + 6 + 6 * i, restate[i]);
		rb_commit(w, 6 + 6u * nr_restate, ts, 0);
		cur->depth = nr_restate;
		restate = NULL;
	}
}

static void make_session(void)
{
	struct ut_session_ctl *ctl = calloc(1, UT_CTL_SIZE);
	char path[128];
	int fd;

	snprintf(session, sizeof(session), "/tmp/utlive.XXXXXX");
	assert_non_null(mkdtemp(session));
	memcpy(ctl->magic, UT_CTL_MAGIC, 8);
	ctl->version = UT_CTL_VERSION;
	ctl->buf_mode = RB_MODE_OVERWRITE;
	ctl->clock = UT_CLOCK_MONO;
	ctl->flags = UT_CTL_LIVE;
	snprintf(path, sizeof(path), "%s/control", session);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, ctl, UT_CTL_SIZE), UT_CTL_SIZE);
	close(fd);
	free(ctl);
}

static void tw_open(struct tw *t, int pid, int tid, uint32_t nr_pages, uint64_t ts)
{
	char path[128];

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/buf.%d.%d.1", session, pid, tid);
	assert_int_equal(rb_create(path, nr_pages, RB_MODE_OVERWRITE, &t->h), 0);
	t->h->pid = pid;
	t->h->tid = tid;
	t->h->image = 1;
	strcpy(t->h->comm, "app");
	t->nr_pages = nr_pages;
	t->w.page_start = page_start;
	cur = t;
	rb_writer_init(&t->w, t->h, ts);
}

static void tw_close(struct tw *t)
{
	munmap(t->h, rb_file_size(t->nr_pages));
}

static void rec(struct tw *t, uint32_t type, uint64_t ip, uint64_t parent, uint64_t ts)
{
	uint32_t len = type == UT_REC_ENTRY ? 10 : type == UT_REC_EXIT ? 4 : 16, h;
	unsigned char *p;

	cur = t;
	p = rb_reserve(&t->w, len, &ts);
	assert_non_null(p);
	h = RB_HDR(type, ts - t->w.last_ts);
	memcpy(p, &h, 4);
	if (len > 4)
		ut_put48(p + 4, ip);
	if (len == 16)
		ut_put48(p + 10, parent);
	rb_commit(&t->w, len, ts, 1);
	if (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT)
		t->depth++;
	else if (type == UT_REC_EXIT)
		t->depth--;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(session);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	make_session();
	return 0;
}

static char *trace(const char *tracer, uint64_t since, int cpu)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = tracer, .options = opts, .cpu = cpu, .since = since };
	char *out;
	size_t len;

	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_non_null(out);
	assert_int_equal(strlen(out), len);
	return out;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* main { a(); b() { c(); } } */
static const char graph_text[] =
	"# tracer: function_graph\n"
	"#\n"
	"# CPU  DURATION                  FUNCTION CALLS\n"
	"# |     |   |                     |   |   |   |\n"
	" 0)               |  0x401000() {\n"
	" 0)   0.500 us    |    0x401100();\n"
	" 0)               |    0x401200() {\n"
	" 0)   0.200 us    |      0x401300();\n"
	" 0)   3.000 us    |    }\n"
	" 0) + 12.000 us   |  }\n";

static void write_graph(struct tw *t)
{
	rec(t, UT_REC_ENTRY_PARENT, 0x401000, 0x400500, T0);
	rec(t, UT_REC_ENTRY, 0x401100, 0, T0 + 1000);
	rec(t, UT_REC_EXIT, 0, 0, T0 + 1500);
	rec(t, UT_REC_ENTRY, 0x401200, 0, T0 + 2000);
	rec(t, UT_REC_ENTRY, 0x401300, 0, T0 + 2100);
	rec(t, UT_REC_EXIT, 0, 0, T0 + 2300);
	rec(t, UT_REC_EXIT, 0, 0, T0 + 5000);
	rec(t, UT_REC_EXIT, 0, 0, T0 + 12000);
}

static void test_graph_trace(void **state)
{
	struct tw t;
	char *out;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	write_graph(&t);
	out = trace("function_graph", 0, -1);
	assert_string_equal(out, graph_text);
	free(out);
	tw_close(&t);
}

/* trace_clock: the same events in the local, counter and mono_raw clocks */
static void test_clocks(void **state)
{
	static const char *const opts[] = { "nocontext-info", NULL };
	static const char *const ctx[] = { NULL };
	struct live_view v = { .tracer = "function", .options = opts, .cpu = -1, .clock = TRACE_CLOCK_COUNTER };
	struct tw t;
	char *out;
	size_t len;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	write_graph(&t);
	/* without the context, the clock changes nothing */
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_string_equal(out,
		"# tracer: function\n"
		"#\n"
		"0x00401000 <-0x00400500\n"
		"0x00401100 <-0x00401000\n"
		"0x00401200 <-0x00401000\n"
		"0x00401300 <-0x00401200\n");
	free(out);
	v.options = ctx;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, ": 0x0040"), 4);
	assert_non_null(strstr(out, "           1: 0x00401000 <-0x00400500\n"));
	assert_non_null(strstr(out, "           4: 0x00401300 <-0x00401200\n"));
	free(out);
	v.clock = TRACE_CLOCK_LOCAL;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_non_null(strstr(out, " 1000.000002: 0x00401200 <-0x00401000\n"));
	free(out);
	v.clock = TRACE_NR_CLOCKS;
	assert_int_equal(live_trace(session, &v, &out, &len), -EINVAL);
	assert_null(out);
	tw_close(&t);
}

static void test_since_hides_older(void **state)
{
	struct tw t;
	char *out;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	write_graph(&t);
	/* after the first leaf: b() and its callee, then the open calls close */
	out = trace("function_graph", T0 + 1500, -1);
	assert_int_equal(count(out, "0x401100"), 0);
	assert_int_equal(count(out, "0x401000() {"), 0);
	assert_int_equal(count(out, "0x401200() {"), 1);
	assert_int_equal(count(out, "0x401300();"), 1);
	/* main's return: its entry is hidden, the brace names it */
	assert_int_equal(count(out, "} /* 0x401000 */"), 1);
	free(out);
	/* everything hidden: the header alone */
	out = trace("function_graph", T0 + 12000, -1);
	assert_int_equal(count(out, ")"), 0);
	free(out);
	tw_close(&t);
}

static void test_function_trace(void **state)
{
	struct tw t;
	char *out, head[256], want[2048];

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	rec(&t, UT_REC_FUNC, 0x401000, 0x400500, T0 + 1000);
	rec(&t, UT_REC_FUNC, 0x401100, 0x401010, T0 + 2000);
	rec(&t, UT_REC_FUNC, 0x401200, 0x401020, T0 + 3000);
	out = trace("function", 0, -1);
	snprintf(head, sizeof(head), "# tracer: function\n#\n"
		 "# entries-in-buffer/entries-written: 3/3   #P:%ld\n#\n",
		 sysconf(_SC_NPROCESSORS_CONF));
	snprintf(want, sizeof(want), "%s%s", head,
		"#                                _-----=> irqs-off/BH-disabled\n"
		"#                               / _----=> need-resched\n"
		"#                              | / _---=> hardirq/softirq\n"
		"#                              || / _--=> preempt-depth\n"
		"#                              ||| / _-=> migrate-disable\n"
		"#                              |||| /     delay\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"             app-100     [000] .....  1000.000001: 0x00401000 <-0x00400500\n"
		"             app-100     [000] .....  1000.000002: 0x00401100 <-0x00401010\n"
		"             app-100     [000] .....  1000.000003: 0x00401200 <-0x00401020\n");
	assert_string_equal(out, want);
	free(out);
	out = trace("function", T0 + 2000, -1);
	assert_non_null(strstr(out, "# entries-in-buffer/entries-written: 1/1   #P:"));
	assert_int_equal(count(out, "<-"), 1);
	assert_int_equal(count(out, "0x00401200 <-"), 1);
	free(out);
	/* no event on cpu 1 */
	out = trace("function", 0, 1);
	assert_int_equal(count(out, "<-"), 0);
	free(out);
	tw_close(&t);
}

static char *pipe_read(struct live_reader *r)
{
	char *out;
	size_t len;

	assert_int_equal(live_pipe_read(r, &out, &len), 0);
	if (!out)
		return strdup("");
	assert_int_equal(strlen(out), len);
	return out;
}

static void test_pipe_each_once(void **state)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = "function", .options = opts, .cpu = -1 };
	struct live_reader *r;
	struct tw t;
	char *out, name[32];
	uint64_t ts = T0;
	int seen[1000] = { 0 };

	(void)state;
	tw_open(&t, 100, 100, 8, T0);
	r = live_pipe_open(session, &v);
	assert_non_null(r);
	out = pipe_read(r);
	assert_string_equal(out, "");
	free(out);
	/* reads between writes, in the head page and across pages */
	for (int round = 0, n = 0; round < 10; round++) {
		int k = round * 37 % 100 + 1;

		for (int i = 0; i < k && n < 1000; i++, n++)
			rec(&t, UT_REC_FUNC, 0x500000 + (uint64_t)n, 0x400000, ts += 1000);
		out = pipe_read(r);
		assert_int_equal(count(out, "#"), 0);
		for (int i = 0; i < 1000; i++) {
			snprintf(name, sizeof(name), "0x%08x <-", 0x500000 + i);
			seen[i] += count(out, name);
		}
		free(out);
		out = pipe_read(r);
		assert_string_equal(out, "");
		free(out);
	}
	for (int round = 0, n = 0; round < 10; round++)
		for (int i = 0; i < round * 37 % 100 + 1; i++, n++)
			assert_int_equal(seen[n], 1);
	live_pipe_close(r);
	tw_close(&t);
}

static void test_pipe_graph_partial(void **state)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = "function_graph", .options = opts, .cpu = -1 };
	struct live_reader *r;
	struct tw t;
	char *out;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	r = live_pipe_open(session, &v);
	rec(&t, UT_REC_ENTRY_PARENT, 0x401000, 0x400500, T0);
	rec(&t, UT_REC_ENTRY, 0x401100, 0, T0 + 1000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 1500);
	out = pipe_read(r);
	assert_string_equal(out,
		" 0)               |  0x401000() {\n"
		" 0)   0.500 us    |    0x401100();\n");
	free(out);
	rec(&t, UT_REC_ENTRY, 0x401200, 0, T0 + 2000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2250);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 3000);
	out = pipe_read(r);
	/* main's entry was in the last read: its brace names it */
	assert_string_equal(out,
		" 0)   0.250 us    |    0x401200();\n"
		" 0)               |  } /* 0x401000 */\n");
	free(out);
	out = pipe_read(r);
	assert_string_equal(out, "");
	free(out);
	live_pipe_close(r);
	tw_close(&t);
}

static void test_pipe_lost(void **state)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = "function", .options = opts, .cpu = -1 };
	struct live_reader *r;
	struct tw t;
	char *out, lost[64];
	uint64_t ts = T0;
	int n = 0, shown;

	(void)state;
	tw_open(&t, 100, 100, 2, T0);
	r = live_pipe_open(session, &v);
	rec(&t, UT_REC_FUNC, 0x500000, 0x400000, ts += 1000);
	out = pipe_read(r);
	assert_int_equal(count(out, "<-"), 1);
	free(out);
	/* 5 pages of 253 records: pages 0..2 are overwritten, 3 and 4 held */
	for (n = 1; n < 5 * 253; n++)
		rec(&t, UT_REC_FUNC, 0x500000 + (uint64_t)n, 0x400000, ts += 1000);
	assert_int_equal(t.h->head, 4);
	out = pipe_read(r);
	shown = count(out, "<-");
	assert_int_equal(shown, 2 * 253);
	snprintf(lost, sizeof(lost), "CPU:0 [LOST %d EVENTS]\n", 5 * 253 - 1 - shown);
	assert_non_null(strstr(out, lost));
	assert_true(strstr(out, lost) == out);
	free(out);
	out = pipe_read(r);
	assert_string_equal(out, "");
	free(out);
	live_pipe_close(r);
	tw_close(&t);
}

static void test_stats_and_now(void **state)
{
	struct live_stats st;
	struct tw t;
	uint64_t now;

	(void)state;
	tw_open(&t, 100, 100, 2, T0);
	for (int n = 0; n < 3 * 253; n++)
		rec(&t, UT_REC_FUNC, 0x500000 + (uint64_t)n, 0x400000, T0 + 1000 * (uint64_t)n);
	assert_int_equal(live_stats(session, NULL, -1, &st), 0);
	assert_int_equal(st.entries, 2 * 253);
	assert_int_equal(st.overrun, 253);
	assert_int_equal(st.written, 3 * 253);
	assert_int_equal(st.bytes, 2 * 253 * 16);
	assert_true(st.oldest_event_ts > 1000.0002529 && st.oldest_event_ts < 1000.0002531);
	assert_int_equal(live_stats(session, NULL, 3, &st), 0);
	assert_int_equal(st.entries, 0);
	now = live_now(session);
	assert_true(now > 0 && now <= live_now(session));
	tw_close(&t);
}

/*
 * The max-latency buffers (runtime/max.c): after the exchange of names
 * and rb_writer_swap(), trace shows what the thread writes now and the
 * view of SESSION/max/ the trace that led to the maximum, with the
 * latency header (latency-format) of the maximum.
 */
static void test_max_buffers(void **state)
{
	static const char *const plain[] = { NULL };
	static const char *const lat_opts[] = { "latency-format", NULL };
	static const struct trace_lat_info lat = {
		.latency_ns = 2999, .pid = 100, .tid = 100, .cpu = 0, .comm = "app",
		.image = 1, .start_ip = 0x500000, .end_ip = 0x500001,
	};
	struct live_view v = { .tracer = "function", .options = plain, .cpu = -1 };
	char cur_path[128], max_path[256], dir[128], *out, want[4096];
	struct rb_header *spare, *old;
	struct utsname u;
	size_t len;
	struct tw t;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	rec(&t, UT_REC_FUNC, 0x500000, 0x400000, T0 + 1000);
	rec(&t, UT_REC_FUNC, 0x500001, 0x400000, T0 + 2000);
	/* the swap, as max.c does it */
	snprintf(dir, sizeof(dir), "%s/" UT_MAX_DIR, session);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(cur_path, sizeof(cur_path), "%s/buf.100.100.1", session);
	snprintf(max_path, sizeof(max_path), "%s/buf.100.100.1", dir);
	assert_int_equal(rb_create(max_path, 4, RB_MODE_OVERWRITE, &spare), 0);
	spare->pid = spare->tid = 100;
	spare->image = 1;
	strcpy(spare->comm, "app");
	assert_int_equal(syscall(SYS_renameat2, AT_FDCWD, cur_path, AT_FDCWD, max_path, 2 /* RENAME_EXCHANGE */), 0);
	cur = &t;
	old = rb_writer_swap(&t.w, spare, T0 + 3000);
	assert_ptr_equal(old, t.h);
	t.h = spare;
	rec(&t, UT_REC_FUNC, 0x500009, 0x400000, T0 + 4000);

	/* trace: the buffer written now */
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "<-"), 1);
	assert_non_null(strstr(out, "0x00500009 <-0x00400000"));
	free(out);

	/* the max view: the trace of the maximum, with its header */
	v.bufdir = dir;
	v.pids = "100";
	v.options = lat_opts;
	v.lat = &lat;
	assert_int_equal(uname(&u), 0);
	snprintf(want, sizeof(want),
		 "# tracer: function\n"
		 "#\n"
		 "# function latency trace v1.1.5 on %s\n"
		 "# --------------------------------------------------------------------\n"
		 "# latency: 2 us, #2/2, CPU#0 | (M:preempt VP:0, KP:0, SP:0 HP:0 #P:%ld)\n"
		 "#    -----------------\n"
		 "#    | task: app-100 (uid:0 nice:0 policy:0 rt_prio:0)\n"
		 "#    -----------------\n"
		 "#  => started at: 0x00500000\n"
		 "#  => ended at:   0x00500001\n"
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
		 "     app-100       0.....    0us : 0x00500000 <-0x00400000\n"
		 "     app-100       0.....    1us : 0x00500001 <-0x00400000\n",
		 u.release, sysconf(_SC_NPROCESSORS_CONF));
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_string_equal(out, want);
	free(out);
	/* another thread's view of max/: nothing */
	v.pids = "0";
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_null(strstr(out, "<-"));
	free(out);
	munmap(old, rb_file_size(4));
	tw_close(&t);
}

/* an instance's pump: its own buffers, filled while on, kept when the session's wrap */
static void test_pump(void **state)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = "function_graph", .options = opts, .cpu = -1 };
	struct live_pump *p;
	struct live_stats st;
	char dir[128], *out;
	struct tw t;
	size_t len;
	uint64_t sess;

	(void)state;
	tw_open(&t, 100, 100, 2, T0);
	snprintf(dir, sizeof(dir), "%s/inst.foo", session);
	assert_null(live_pump_open(session, dir, 1, 0));
	p = live_pump_open(session, dir, 4, 0);
	assert_non_null(p);
	write_graph(&t);
	assert_int_equal(live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	v.bufdir = dir;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_string_equal(out, graph_text);
	free(out);
	assert_int_equal(live_pump_buffers(p), 1);
	/* off: what comes is dropped, what was taken stays */
	rec(&t, UT_REC_ENTRY_PARENT, 0x402000, 0x400500, T0 + 20000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 21000);
	assert_int_equal(live_pump_run(p, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "0x402000"), 0);
	assert_int_equal(count(out, "0x401300();"), 1);
	free(out);
	/* on again, for another thread only: pid 100 is not taken */
	rec(&t, UT_REC_ENTRY_PARENT, 0x403000, 0x400500, T0 + 30000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 31000);
	assert_int_equal(live_pump_run(p, NULL, 1, "7", NULL, NULL, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "0x403000"), 0);
	free(out);
	/* the session's buffer wraps (2 pages); the instance's 4 pages keep more */
	for (int n = 0; n < 3 * 253; n++)
		rec(&t, UT_REC_FUNC, 0x500000 + (uint64_t)n, 0x400000, T0 + 40000 + 1000 * (uint64_t)n);
	assert_int_equal(live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	/* the instance holds what the session holds, and the 8 events before */
	assert_int_equal(live_stats(session, NULL, -1, &st), 0);
	sess = st.entries;
	assert_true(st.overrun > 0);
	assert_int_equal(live_stats(session, dir, -1, &st), 0);
	assert_int_equal(st.entries, sess + 8);
	assert_int_equal(st.overrun, 0);
	/* what the session lost before the pump took it shows as lost */
	v.tracer = "function";
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "[LOST "), 1);
	free(out);
	/* resize: new rings from now on, the old ones stay readable */
	live_pump_resize(p, 8);
	rec(&t, UT_REC_FUNC, 0x600000, 0x400000, T0 + 2000000);
	assert_int_equal(live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "0x00600000 <-"), 1);
	assert_int_equal(count(out, "0x00401300 <-"), 1);
	free(out);
	assert_int_equal(live_pump_buffers(p), 1);
	live_pump_close(p, 1);
	assert_int_equal(access(dir, F_OK), -1);
	tw_close(&t);
}

/* the session's event registry with two events: myapp:request (id 1000), myapp:response (1001) */
struct ev_entry {
	struct ut_trace_entry ent;
	int32_t id;
	int32_t status;
};

static void make_registry(void)
{
	static const struct ut_event_field fields[] = {
		{ "int", "id", offsetof(struct ev_entry, id), 4, 1, UT_FIELD_SCALAR, 0 },
		{ "int", "status", offsetof(struct ev_entry, status), 4, 1, UT_FIELD_SCALAR, 0 },
	};
	const struct ut_event_desc req = { UT_TP_ABI, 0, offsetof(struct ev_entry, status), "myapp",
					   "request", "\"id=%d\", REC->id", fields, 1, 0 };
	const struct ut_event_desc resp = { UT_TP_ABI, 0, sizeof(struct ev_entry), "myapp",
					    "response", "\"id=%d status=%d\", REC->id, REC->status",
					    fields, 2, 0 };
	struct ut_evreg *r;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, sizeof(*r)), 0);
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(r != MAP_FAILED);
	assert_int_equal(ut_evreg_init(r), 0);
	assert_int_equal(ut_evreg_register(r, &req), 0);
	assert_int_equal(ut_evreg_register(r, &resp), 1);
	munmap(r, sizeof(*r));
}

/* an EVENT record of event @type (request: no status) */
static void ev_rec(struct tw *t, uint16_t type, int32_t id, uint64_t ts)
{
	struct ev_entry e = { { type, 0, 0, t->h->tid }, id, 200 };
	uint16_t n = type == 1000 ? offsetof(struct ev_entry, status) : sizeof(e);
	unsigned char *p;
	uint32_t h;

	cur = t;
	p = rb_reserve(&t->w, 6u + n, &ts);
	assert_non_null(p);
	h = RB_HDR(UT_REC_EVENT, ts - t->w.last_ts);
	memcpy(p, &h, 4);
	memcpy(p + 4, &n, 2);
	memcpy(p + 6, &e, n);
	rb_commit(&t->w, 6u + n, ts, 1);
}

/* events print from the registry's descriptors; a view shows the ones it enabled */
static void test_events(void **state)
{
	static const char *const opts[] = { NULL };
	uint64_t on[LIVE_EV_WORDS] = { 0 };
	struct live_view v = { .tracer = "nop", .options = opts, .cpu = -1 };
	struct live_pump *p;
	char dir[128], *out;
	struct tw t;
	size_t len;

	(void)state;
	make_registry();
	tw_open(&t, 100, 100, 4, T0);
	rec(&t, UT_REC_ENTRY_PARENT, 0x401000, 0x400500, T0);
	ev_rec(&t, 1000, 7, T0 + 1000);
	ev_rec(&t, 1001, 7, T0 + 2000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 3000);
	ev_rec(&t, 1000, 8, T0 + 4000);
	out = trace("nop", 0, -1);
	assert_non_null(strstr(out, "             app-100     [000] .....  1000.000001: request: id=7\n"
				    "             app-100     [000] .....  1000.000002: response: id=7 status=200\n"
				    "             app-100     [000] .....  1000.000004: request: id=8\n"));
	free(out);
	/* the view of a directory that enabled myapp:response only */
	on[0] = 2;
	v.ev_on = on;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "request:"), 0);
	assert_int_equal(count(out, "response: id=7 status=200"), 1);
	free(out);
	/* in function_graph, as comments */
	v.tracer = "function_graph";
	v.ev_on = NULL;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_non_null(strstr(out, "|  0x401000() {\n"));
	assert_non_null(strstr(out, "/* request: id=7 */\n"));
	free(out);
	/* a pump of the nop tracer takes the events it is given, and no call */
	snprintf(dir, sizeof(dir), "%s/inst.ev", session);
	p = live_pump_open(session, dir, 4, 0);
	assert_non_null(p);
	on[0] = 1;
	assert_int_equal(live_pump_run(p, "nop", 1, NULL, NULL, NULL, NULL, on, NULL, NULL), 0);
	v.bufdir = dir;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_int_equal(count(out, "request: id="), 2);
	assert_int_equal(count(out, "response:"), 0);
	assert_int_equal(count(out, "0x401000"), 0);
	free(out);
	live_pump_close(p, 1);
	tw_close(&t);
}

/* calls entered while an instance was off still close in the right place */
static void test_pump_off_on(void **state)
{
	static const char *const opts[] = { NULL };
	struct live_view v = { .tracer = "function_graph", .options = opts, .cpu = -1 };
	struct live_pump *p;
	char dir[128], *out;
	struct tw t;
	size_t len;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	snprintf(dir, sizeof(dir), "%s/inst.g", session);
	p = live_pump_open(session, dir, 4, 0);
	assert_non_null(p);
	rec(&t, UT_REC_ENTRY_PARENT, 0x401000, 0x400500, T0);
	assert_int_equal(live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	rec(&t, UT_REC_ENTRY, 0x401100, 0, T0 + 1000);
	assert_int_equal(live_pump_run(p, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	rec(&t, UT_REC_ENTRY, 0x401200, 0, T0 + 2000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2500);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 3000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 9000);
	assert_int_equal(live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
	v.bufdir = dir;
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	/* 0x401100 was entered while off: its callee is one deeper, its brace named */
	assert_string_equal(out,
		"# tracer: function_graph\n"
		"#\n"
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n"
		" 0)               |  0x401000() {\n"
		" 0)   0.500 us    |      0x401200();\n"
		" 0)               |    } /* 0x401100 */\n"
		" 0)   9.000 us    |  }\n");
	free(out);
	live_pump_close(p, 1);
	tw_close(&t);
}

/* hidden time ranges (the top instance off while an instance records) */
static void test_hide(void **state)
{
	static const char *const opts[] = { "nocontext-info", NULL };
	uint64_t hide[2] = { T0 + 1500, T0 + 3000 };
	struct live_view v = { .tracer = "function", .options = opts, .cpu = -1,
			       .hide = hide, .nr_hide = 1 };
	struct tw t;
	char *out;
	size_t len;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	for (int n = 0; n < 5; n++)
		rec(&t, UT_REC_FUNC, 0x500000 + (uint64_t)n, 0x400000, T0 + 1000 * (uint64_t)n);
	assert_int_equal(live_trace(session, &v, &out, &len), 0);
	assert_string_equal(out,
		"# tracer: function\n"
		"#\n"
		"0x00500000 <-0x00400000\n"
		"0x00500001 <-0x00400000\n"
		"0x00500003 <-0x00400000\n"
		"0x00500004 <-0x00400000\n");
	free(out);
	tw_close(&t);
}

/*
 * Records lost (the return of a leaf and of its caller, the entry of
 * another call of that caller): the runtime's next page says which calls
 * the reader saw are still open (DEPTH 2), then names them and the caller
 * that began meanwhile (STACK 3).  The view copies the records into pages
 * of its own and must say both, or the new caller's return would be
 * paired with the entry of the old one.
 */
static void test_restated(void **state)
{
	static const uint64_t open[] = { 0x401000, 0x401100, 0x401200 };
	struct tw t;
	char *out;

	(void)state;
	tw_open(&t, 100, 100, 4, T0);
	rec(&t, UT_REC_ENTRY_PARENT, 0x401000, 0x400500, T0 + 1000);
	rec(&t, UT_REC_ENTRY, 0x401100, 0, T0 + 1100);
	rec(&t, UT_REC_ENTRY, 0x401200, 0, T0 + 1200);
	rec(&t, UT_REC_ENTRY, 0x401300, 0, T0 + 1300);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 1310);
	rec(&t, UT_REC_ENTRY, 0x401300, 0, T0 + 1400);
	/* lost: 2 returns, then a call of 0x401200 and a call of 0x401300 in it */
	t.depth = 2;
	t.w.lost_pending = 5;
	t.h->lost = 5;
	restate = open;
	nr_restate = 3;
	assert_int_equal(rb_writer_next_page(&t.w, T0 + 2000), 0);
	rec(&t, UT_REC_ENTRY, 0x401300, 0, T0 + 2000);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2020);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2100);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2200);
	rec(&t, UT_REC_ENTRY, 0x401100, 0, T0 + 2300);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 2350);
	rec(&t, UT_REC_EXIT, 0, 0, T0 + 3000);
	out = trace("function_graph", 0, -1);
	assert_string_equal(out,
		"# tracer: function_graph\n"
		"#\n"
		"# CPU  DURATION                  FUNCTION CALLS\n"
		"# |     |   |                     |   |   |   |\n"
		" 0)               |  0x401000() {\n"
		" 0)               |    0x401100() {\n"
		" 0)               |      0x401200() {\n"
		" 0)   0.010 us    |        0x401300();\n"
		" 0)               |        0x401300() {\n"
		"CPU:0 [LOST 5 EVENTS]\n"
		" 0)   0.020 us    |        0x401300();\n"
		" 0)               |      } /* 0x401200 */\n"
		" 0)   1.100 us    |    }\n"
		" 0)   0.050 us    |    0x401100();\n"
		" 0)   2.000 us    |  }\n");
	free(out);
	tw_close(&t);
}

/*
 * The session removed under a reader (usertrace umount destroys it while
 * the daemon's pump thread still runs): its cached symbols stay, nothing
 * is said (it said "cannot read SESSION/.live.XXXXXX: No such file").
 */
static void test_session_gone(void **state)
{
	char path[128], err[] = "/tmp/usertrace-test-live-err.XXXXXX";
	int efd, saved;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/maps.100.1.0", session);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("00400000-00402000 r-xp 00000000 00:00 1    /t/app\n", f);
	assert_int_equal(fclose(f), 0);
	(void)live_now(session);	/* the cache, with the maps */
	efd = mkstemp(err);
	assert_true(efd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	remove_tree(session);
	(void)live_now(session);
	(void)live_ns(session, 1000);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	{
		char said[512] = "";
		ssize_t n = pread(efd, said, sizeof(said) - 1, 0);

		if (n > 0)
			print_message("said: %s", said);
		assert_int_equal(n, 0);
	}
	close(efd);
	unlink(err);
	mkdir(session, 0700);	/* for the teardown */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_graph_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_since_hides_older, setup, teardown),
		cmocka_unit_test_setup_teardown(test_function_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_each_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_graph_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_and_now, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pump_off_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_buffers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_gone, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
