// SPDX-License-Identifier: MIT
/*
 * test_lost.c - lost records, from the pages to what replay and report
 * print, byte for byte.
 *
 * Data directories are written here page by page, as the runtime writes
 * them around a loss (doc/design/ring-buffer.md, "The DEPTH record at each
 * page start"): a page with a LOST count, a DEPTH for the calls the reader
 * saw enter that are still open, then a STACK naming those and the calls
 * that began while records were dropped.  They are read by reader/data.c
 * and printed by `usertrace replay` and `usertrace report` themselves
 * (cli/replay.c, cli/report.c), with function names from a symbol file
 * written here too.  The clock is CLOCK_MONOTONIC: times are in ns.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cmds.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "reader/data.h"
#include "utils/utils.h"

/* the functions of the fake program /t/app and their addresses */
#define MAIN	0x401000ull
#define OUTER	0x401100ull
#define MID	0x401200ull
#define LEAF	0x401300ull
#define FIB	0x401400ull
#define WORK	0x401500ull

static const struct { uint64_t addr; const char *name; } syms[] = {
	{ MAIN, "main" }, { OUTER, "outer" }, { MID, "mid" },
	{ LEAF, "leaf" }, { FIB, "fib" }, { WORK, "work" },
};

/* ---- pages ---- */

struct page {
	union {
		struct rb_page page;
		unsigned char bytes[RB_PAGE_SIZE];
	} u;
	uint64_t last;		/* time of the last record */
};

static void pg_init(struct page *p, uint64_t seq, uint64_t ts, uint32_t lost)
{
	memset(p, 0, sizeof(*p));
	p->u.page.seq = seq;
	p->u.page.ts = ts;
	p->u.page.flags = lost;
	p->last = ts;
}

/* a record at time @ts (ns, absolute) */
static void pg_rec(struct page *p, unsigned type, uint64_t ts, const void *payload, uint32_t len)
{
	struct rb_page *rp = &p->u.page;
	uint32_t h;

	assert_true(ts >= p->last && ts - p->last <= RB_DELTA_MAX);
	assert_true(rp->commit + 4 + len <= RB_DATA_SIZE);
	h = RB_HDR(type, ts - p->last);
	memcpy(rp->data + rp->commit, &h, 4);
	if (len)
		memcpy(rp->data + rp->commit + 4, payload, len);
	rp->commit += 4 + len;
	if (ut_rec_counts(type))
		rp->entries++;
	p->last = ts;
}

static void pg_depth(struct page *p, uint32_t depth)
{
	pg_rec(p, UT_REC_DEPTH, p->last, &depth, 4);
}

static void pg_stack(struct page *p, uint16_t n, const uint64_t *ips)
{
	unsigned char b[2 + 6 * UT_STACK_MAX];

	memcpy(b, &n, 2);
	for (int i = 0; i < n; i++)
		ut_put48(b + 2 + 6 * i, ips[i]);
	pg_rec(p, UT_REC_STACK, p->last, b, 2 + 6u * n);
}

static void pg_entry(struct page *p, uint64_t ts, uint64_t ip)
{
	unsigned char b[12];

	ut_put48(b, ip);
	if (ip == MAIN) {
		ut_put48(b + 6, 0x400500);
		pg_rec(p, UT_REC_ENTRY_PARENT, ts, b, 12);
	} else {
		pg_rec(p, UT_REC_ENTRY, ts, b, 6);
	}
}

static void pg_exit(struct page *p, uint64_t ts)
{
	pg_rec(p, UT_REC_EXIT, ts, NULL, 0);
}

/* ---- data directories ---- */

static char root[] = "/tmp/usertrace-test-lost.XXXXXX";
static int root_made;	/* mkdtemp() filled in its XXXXXX (which may end in X) */

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * DIR/info, the maps and symbols of /t/app, and thread 100's file: the
 * header (with @lost records lost in all) and @n pages
 */
static const char *write_dir(const char *name, const struct page *pages, int n, uint64_t lost)
{
	static char dir[256];
	char path[512], sym[2048], file[64];
	union {
		struct rb_header h;
		unsigned char bytes[RB_PAGE_SIZE];
	} hdr;
	size_t len;
	FILE *f;

	static int serial;

	if (!root_made) {
		assert_non_null(mkdtemp(root));
		root_made = 1;
	}
	snprintf(dir, sizeof(dir), "%s/%s.%d", root, name, ++serial);
	assert_int_equal(mkdir(dir, 0755), 0);
	put_file(dir, "info", "version=1\ntracer=function_graph\nclock=mono\nnr_cpus=1\n");
	put_file(dir, "maps.100.1.0", "00400000-00402000 r-xp 00000000 00:00 1    /t/app\n");
	snprintf(path, sizeof(path), "%s/sym", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	len = (size_t)snprintf(sym, sizeof(sym), "# usertrace sym 1\n# path /t/app\n# type 2\n"
			       "# load 400000 0 2000 2000 5\n");
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		len += (size_t)snprintf(sym + len, sizeof(sym) - len, "%" PRIx64 " 100 %s\n",
					syms[i].addr, syms[i].name);
	snprintf(sym + len, sizeof(sym) - len, "# end %zu\n", sizeof(syms) / sizeof(syms[0]));
	snprintf(file, sizeof(file), "sym/%016" PRIx64 ".sym", fnv1a("/t/app"));
	put_file(dir, file, sym);

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.h.magic, RB_MAGIC, 8);
	hdr.h.version = RB_VERSION;
	hdr.h.page_size = RB_PAGE_SIZE;
	hdr.h.nr_pages = 2;
	hdr.h.pid = 100;
	hdr.h.tid = 100;
	memcpy(hdr.h.comm, "app", 4);
	hdr.h.image = 1;
	hdr.h.head = (uint64_t)n - 1;
	hdr.h.lost = lost;
	hdr.h.state = RB_STATE_CLOSED;
	snprintf(path, sizeof(path), "%s/100.100.1.dat", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(hdr.bytes, 1, RB_PAGE_SIZE, f), RB_PAGE_SIZE);
	for (int i = 0; i < n; i++)
		assert_int_equal(fwrite(pages[i].u.bytes, 1, RB_PAGE_SIZE, f), RB_PAGE_SIZE);
	assert_int_equal(fclose(f), 0);
	return dir;
}

static int cleanup(void **state)
{
	(void)state;
	if (root_made)
		remove_tree(root);
	return 0;
}

/* ---- running the commands ---- */

static char out[16384], err[4096];

/* run @cmd with @args (NULL-terminated) on @dir; stdout to out[], stderr to err[] */
static int run(int (*cmd)(int, char **), const char *dir, ...)
{
	char *argv[16], path[512], epath[512];
	int argc = 0, fd, efd, so, se, ret;
	const char *a;
	va_list ap;
	ssize_t n;

	argv[argc++] = "cmd";
	argv[argc++] = "-i";
	argv[argc++] = (char *)dir;
	va_start(ap, dir);
	while ((a = va_arg(ap, const char *)) && argc < 15)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	snprintf(path, sizeof(path), "%s/stdout", root);
	snprintf(epath, sizeof(epath), "%s/stderr", root);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	efd = open(epath, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (so < 0 || se < 0 || fd < 0 || efd < 0 || dup2(fd, 1) < 0 || dup2(efd, 2) < 0)
		fail_msg("cannot redirect the output");
	ret = cmd(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	n = pread(fd, out, sizeof(out) - 1, 0);
	out[n > 0 ? n : 0] = 0;
	n = pread(efd, err, sizeof(err) - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	close(efd);
	return ret;
}

#define GRAPH_HEADER							\
	"# tracer: function_graph\n"					\
	"#\n"								\
	"# CPU  DURATION                  FUNCTION CALLS\n"		\
	"# |     |   |                     |   |   |   |\n"

#define REPORT_UNTIMED							\
	"# untimed: calls whose entry or return is not in the trace (no duration)\n" \
	"  Total time   Self time       Calls     Untimed     Average         Min         Max  Function\n" \
	"  ==========  ==========  ==========  ==========  ==========  ==========  ==========  ====================\n"

/*
 * main -> outer -> mid -> leaf, leaf, and records lost while the second
 * leaf runs: its return, mid's return, and the entry of another mid (and
 * of a leaf it calls, and that leaf's return: 5 records).  After the loss
 * 2 calls the reader saw are open (main, outer), then the new mid, named.
 *
 *   1000 main { 1100 outer { 1200 mid { 1300 leaf 1310; 1400 leaf {
 *   ---- lost ----
 *   2000 leaf 2020; } 2100 (the second mid) } 2200 (outer); 2300 outer 2350; } 3000
 */
static const char *scenario_loss(void)
{
	static const uint64_t open[] = { MAIN, OUTER, MID };
	static char dir[256];
	struct page p[2];

	pg_init(&p[0], 0, 1000, 0);
	pg_depth(&p[0], 0);
	pg_entry(&p[0], 1000, MAIN);
	pg_entry(&p[0], 1100, OUTER);
	pg_entry(&p[0], 1200, MID);
	pg_entry(&p[0], 1300, LEAF);
	pg_exit(&p[0], 1310);
	pg_entry(&p[0], 1400, LEAF);

	pg_init(&p[1], 1, 2000, 5);
	pg_depth(&p[1], 2);
	pg_stack(&p[1], 3, open);
	pg_entry(&p[1], 2000, LEAF);
	pg_exit(&p[1], 2020);
	pg_exit(&p[1], 2100);
	pg_exit(&p[1], 2200);
	pg_entry(&p[1], 2300, OUTER);
	pg_exit(&p[1], 2350);
	pg_exit(&p[1], 3000);
	snprintf(dir, sizeof(dir), "%s", write_dir("loss", p, 2, 5));
	return dir;
}

/* what reader/data.c makes of it: the open calls after the loss, twice restated */
static void test_events(void **state)
{
	static const struct { enum ut_ev_type type; uint32_t depth; uint64_t ts, ip, count; } want[] = {
		{ UT_EV_ENTRY, 0, 1000, MAIN, 0 },
		{ UT_EV_ENTRY, 1, 1100, OUTER, 0 },
		{ UT_EV_ENTRY, 2, 1200, MID, 0 },
		{ UT_EV_ENTRY, 3, 1300, LEAF, 0 },
		{ UT_EV_EXIT, 3, 1310, LEAF, 0 },
		{ UT_EV_ENTRY, 3, 1400, LEAF, 0 },
		{ UT_EV_LOST, 0, 2000, 0, 5 },
		{ UT_EV_DEPTH, 2, 2000, 0, 4 },		/* mid and leaf ended unseen */
		{ UT_EV_DEPTH, 3, 2000, 0, 2 },		/* a mid began unseen */
		{ UT_EV_ENTRY, 3, 2000, LEAF, 0 },
		{ UT_EV_EXIT, 3, 2020, LEAF, 0 },
		{ UT_EV_EXIT, 2, 2100, MID, 0 },	/* named by the STACK */
		{ UT_EV_EXIT, 1, 2200, OUTER, 0 },
		{ UT_EV_ENTRY, 1, 2300, OUTER, 0 },
		{ UT_EV_EXIT, 1, 2350, OUTER, 0 },
		{ UT_EV_EXIT, 0, 3000, MAIN, 0 },
	};
	const char *dir = scenario_loss();
	struct ut_merge *m;
	struct ut_event ev;
	struct ut_data d;
	size_t i = 0;

	(void)state;
	assert_int_equal(ut_data_open(&d, dir), 0);
	m = ut_merge_new(&d, NULL, 0);
	while (ut_merge_next(m, &ev) > 0) {
		assert_true(i < sizeof(want) / sizeof(want[0]));
		if (ev.type != want[i].type || ev.depth != want[i].depth || ev.ts != want[i].ts ||
		    ev.ip != want[i].ip || ev.count != want[i].count)
			fail_msg("event %zu: type %d depth %u ts %" PRIu64 " ip %#" PRIx64 " count %" PRIu64,
				 i, ev.type, ev.depth, ev.ts, ev.ip, ev.count);
		if (ev.type == UT_EV_ENTRY && ev.ip == LEAF)
			assert_int_equal(ev.parent, MID);
		i++;
	}
	assert_int_equal(i, sizeof(want) / sizeof(want[0]));
	ut_merge_free(m);
	ut_data_close(&d);
}

/*
 * replay: the calls spanning the loss keep their durations; the leaf whose
 * return was lost stays open, as in the kernel; the mid whose entry was
 * lost closes with its name and no duration
 */
static void test_replay(void **state)
{
	const char *dir = scenario_loss();

	(void)state;
	assert_int_equal(run(command_replay, dir, NULL), 0);
	assert_string_equal(err, "");
	assert_string_equal(out, GRAPH_HEADER
			    " 0)               |  main() {\n"
			    " 0)               |    outer() {\n"
			    " 0)               |      mid() {\n"
			    " 0)   0.010 us    |        leaf();\n"
			    " 0)               |        leaf() {\n"
			    "CPU:0 [LOST 5 EVENTS]\n"
			    " 0)   0.020 us    |        leaf();\n"
			    " 0)               |      } /* mid */\n"
			    " 0)   1.100 us    |    }\n"
			    " 0)   0.050 us    |    outer();\n"
			    " 0)   2.000 us    |  }\n");

	/* funcgraph-tail: every closing brace is named, the untimed one too */
	assert_int_equal(run(command_replay, dir, "-O", "funcgraph-tail", "-O", "nofuncgraph-cpu", NULL), 0);
	assert_string_equal(out,
			    "# tracer: function_graph\n"
			    "#\n"
			    "#  DURATION                  FUNCTION CALLS\n"
			    "#   |   |                     |   |   |   |\n"
			    "              |  main() {\n"
			    "              |    outer() {\n"
			    "              |      mid() {\n"
			    "  0.010 us    |        leaf();\n"
			    "              |        leaf() {\n"
			    "CPU:0 [LOST 5 EVENTS]\n"
			    "  0.020 us    |        leaf();\n"
			    "              |      } /* mid */\n"
			    "  1.100 us    |    } /* outer */\n"
			    "  0.050 us    |    outer();\n"
			    "  2.000 us    |  } /* main */\n");

	/* the function tracer: each call's caller, the one that began unseen too */
	assert_int_equal(run(command_replay, dir, "-t", "function", "-O", "nocontext-info", NULL), 0);
	assert_string_equal(out,
			    "# tracer: function\n"
			    "#\n"
			    "main <-0x00400500\n"
			    "outer <-main\n"
			    "mid <-outer\n"
			    "leaf <-mid\n"
			    "leaf <-mid\n"
			    "CPU:0 [LOST 5 EVENTS]\n"
			    "leaf <-mid\n"
			    "outer <-main\n");
}

/*
 * report: main and outer keep their time; the calls with no duration are
 * counted apart; self times leave out what the loss hides: outer's own
 * time is 1100-1200 and 2100-2200, main's is 2000 - 1100 - 50
 */
static void test_report(void **state)
{
	const char *dir = scenario_loss();

	(void)state;
	assert_int_equal(run(command_report, dir, NULL), 0);
	assert_string_equal(err, "");
	assert_string_equal(out,
			    "# lost: 5 events in 1 range over 600.000 ns (left out of self times)\n"
			    REPORT_UNTIMED
			    "    2.000 us  850.000 ns           1           0    2.000 us    2.000 us    2.000 us  main\n"
			    "    1.150 us  250.000 ns           2           0  575.000 ns   50.000 ns    1.100 us  outer\n"
			    "   30.000 ns   30.000 ns           3           1   15.000 ns   10.000 ns   20.000 ns  leaf\n"
			    "           -           -           2           2           -           -           -  mid\n");

	assert_int_equal(run(command_report, dir, "-s", "calls", NULL), 0);
	assert_string_equal(out,
			    "# lost: 5 events in 1 range over 600.000 ns (left out of self times)\n"
			    REPORT_UNTIMED
			    "   30.000 ns   30.000 ns           3           1   15.000 ns   10.000 ns   20.000 ns  leaf\n"
			    "           -           -           2           2           -           -           -  mid\n"
			    "    1.150 us  250.000 ns           2           0  575.000 ns   50.000 ns    1.100 us  outer\n"
			    "    2.000 us  850.000 ns           1           0    2.000 us    2.000 us    2.000 us  main\n");

	assert_int_equal(run(command_report, dir, "-s", "self", NULL), 0);
	assert_non_null(strstr(out, "  main\n    1.150 us  250.000 ns"));

	assert_int_equal(run(command_report, dir, "--stat", NULL), 0);
	assert_string_equal(out,
			    "# lost: 5 events in 1 range over 600.000 ns (left out of self times)\n"
			    "# untimed: calls whose entry or return is not in the trace (no duration)\n"
			    "  Function                               Hit    Time            Avg             s^2          Untimed\n"
			    "  --------                               ---    ----            ---             ---          -------\n"
			    "  main                                     1    2.000 us        2.000 us        0.000 us           0\n"
			    "  outer                                    2    1.150 us        0.575 us        0.551 us           0\n"
			    "  leaf                                     3    0.030 us        0.015 us        0.000 us           1\n"
			    "  mid                                      2    -               -               -                  2\n");
}

/*
 * The records lost at the end (the buffer was still full when the thread
 * ended): the returns of main and of the outermost fib.  Recursion whose
 * outermost call has no return keeps the time of the calls within it.
 *
 *   1000 main { 1100 fib { 1200 fib { 1300 fib 1350; } 1500 ---- lost ----
 */
static void test_lost_at_end(void **state)
{
	struct page p;
	const char *dir;

	(void)state;
	pg_init(&p, 0, 1000, 0);
	pg_depth(&p, 0);
	pg_entry(&p, 1000, MAIN);
	pg_entry(&p, 1100, FIB);
	pg_entry(&p, 1200, FIB);
	pg_entry(&p, 1300, FIB);
	pg_exit(&p, 1350);
	pg_exit(&p, 1500);
	dir = write_dir("end", &p, 1, 2);

	assert_int_equal(run(command_report, dir, NULL), 0);
	assert_string_equal(out,
			    "# lost: 2 events in 1 range\n"
			    REPORT_UNTIMED
			    "  300.000 ns  300.000 ns           3           1  175.000 ns   50.000 ns  300.000 ns  fib\n"
			    "           -           -           1           1           -           -           -  main\n");
	assert_int_equal(run(command_replay, dir, NULL), 0);
	assert_string_equal(out, GRAPH_HEADER
			    " 0)               |  main() {\n"
			    " 0)               |    fib() {\n"
			    " 0)               |      fib() {\n"
			    " 0)   0.050 us    |        fib();\n"
			    " 0)   0.300 us    |      }\n"
			    "CPU:0 [LOST 2 EVENTS]\n");
}

/*
 * A forked child starts with the calls it inherits (a STACK, no loss):
 * their returns have no entry in its trace.  They are counted untimed by
 * name, printed as the kernel prints a return it saw no entry of, and the
 * depth is not "restated" as after a loss (no UT_EV_DEPTH).
 */
static void test_inherited(void **state)
{
	static const uint64_t open[] = { MAIN, WORK };
	struct ut_merge *m;
	struct ut_event ev;
	struct ut_data d;
	struct page p;
	const char *dir;

	(void)state;
	pg_init(&p, 0, 1000, 0);
	pg_depth(&p, 0);
	pg_stack(&p, 2, open);
	pg_entry(&p, 1100, LEAF);
	pg_exit(&p, 1150);
	pg_exit(&p, 1300);
	pg_exit(&p, 1400);
	dir = write_dir("child", &p, 1, 0);

	assert_int_equal(ut_data_open(&d, dir), 0);
	m = ut_merge_new(&d, NULL, 0);
	while (ut_merge_next(m, &ev) > 0)
		assert_int_not_equal(ev.type, UT_EV_DEPTH);
	ut_merge_free(m);
	ut_data_close(&d);

	assert_int_equal(run(command_report, dir, "-s", "name", NULL), 0);
	assert_string_equal(out, REPORT_UNTIMED
			    "   50.000 ns   50.000 ns           1           0   50.000 ns   50.000 ns   50.000 ns  leaf\n"
			    "           -           -           1           1           -           -           -  main\n"
			    "           -           -           1           1           -           -           -  work\n");
	assert_int_equal(run(command_replay, dir, NULL), 0);
	assert_string_equal(out, GRAPH_HEADER
			    " 0)   0.050 us    |      leaf();\n"
			    " 0)               |    } /* work */\n"
			    " 0)               |  } /* main */\n");
}

/*
 * A flight recording's first page: calls open whose names nobody knows.
 * Their returns are counted as such, never as calls of no time.
 */
static void test_unknown(void **state)
{
	struct page p;
	const char *dir;

	(void)state;
	pg_init(&p, 7, 1000, 0);
	pg_depth(&p, 2);
	pg_entry(&p, 1100, LEAF);
	pg_exit(&p, 1150);
	pg_exit(&p, 1300);
	pg_exit(&p, 1400);
	dir = write_dir("flight", &p, 1, 0);

	assert_int_equal(run(command_report, dir, NULL), 0);
	assert_string_equal(out,
			    "# unknown: 2 returns of calls whose entry and function are not in the trace\n"
			    "  Total time   Self time       Calls     Average         Min         Max  Function\n"
			    "  ==========  ==========  ==========  ==========  ==========  ==========  ====================\n"
			    "   50.000 ns   50.000 ns           1   50.000 ns   50.000 ns   50.000 ns  leaf\n");
	assert_int_equal(run(command_replay, dir, NULL), 0);
	assert_string_equal(out, GRAPH_HEADER
			    " 0)   0.050 us    |      leaf();\n"
			    " 0)               |    }\n"
			    " 0)               |  }\n");
}

/* no loss, no call without time: the report is as it always was */
static void test_no_loss(void **state)
{
	struct page p;
	const char *dir;

	(void)state;
	pg_init(&p, 0, 1000, 0);
	pg_depth(&p, 0);
	pg_entry(&p, 1000, MAIN);
	pg_entry(&p, 1100, LEAF);
	pg_exit(&p, 1200);
	pg_exit(&p, 1500);
	dir = write_dir("clean", &p, 1, 0);

	assert_int_equal(run(command_report, dir, NULL), 0);
	assert_string_equal(out,
			    "  Total time   Self time       Calls     Average         Min         Max  Function\n"
			    "  ==========  ==========  ==========  ==========  ==========  ==========  ====================\n"
			    "  500.000 ns  400.000 ns           1  500.000 ns  500.000 ns  500.000 ns  main\n"
			    "  100.000 ns  100.000 ns           1  100.000 ns  100.000 ns  100.000 ns  leaf\n");
	assert_int_equal(run(command_report, dir, "--stat", NULL), 0);
	assert_string_equal(out,
			    "  Function                               Hit    Time            Avg             s^2\n"
			    "  --------                               ---    ----            ---             ---\n"
			    "  main                                     1    0.500 us        0.500 us        0.000 us\n"
			    "  leaf                                     1    0.100 us        0.100 us        0.000 us\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_lost_at_end),
		cmocka_unit_test(test_inherited),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_no_loss),
	};

	return cmocka_run_group_tests(tests, NULL, cleanup);
}
