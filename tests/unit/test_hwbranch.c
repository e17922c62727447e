// SPDX-License-Identifier: MIT
/*
 * test_hwbranch.c - the hw-branch tracer's machine side (output/
 * hwbranch.c) on synthetic perf records: the decoder of samples with a
 * branch stack, the kernel's lines, the probe turned off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

#include "output/hwbranch.h"
#include "output/output.h"
#include "output/tracer.h"
#include "reader/data.h"

/* a perf ring's data, built record by record */
struct recs {
	uint64_t w[512];
	size_t n;	/* words */
};

/* a record of @type with @nw words of body */
static void rec(struct recs *r, uint32_t type, const uint64_t *body, size_t nw)
{
	struct perf_event_header h = { .type = type, .misc = PERF_RECORD_MISC_USER,
				       .size = (uint16_t)(sizeof(h) + nw * 8) };

	memcpy(&r->w[r->n++], &h, sizeof(h));
	memcpy(&r->w[r->n], body, nw * 8);
	r->n += nw;
}

#define MAXB 16
struct got {
	struct hwb_branch b[MAXB];
	int n, stop_at;
};

static int collect(const struct hwb_branch *b, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < MAXB);
	g->b[g->n++] = *b;
	return g->stop_at && g->n == g->stop_at;
}

static const uint64_t ST = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_BRANCH_STACK;

/* tid/pid, time, cpu, then a stack of 3, the newest first */
static void sample3(struct recs *r, uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu,
		    uint64_t base)
{
	uint64_t body[] = {
		(uint64_t)tid << 32 | pid, time, cpu,
		3,
		base + 0x30, base + 0x300, 0,	/* newest */
		base + 0x20, base + 0x200, 0,
		base + 0x10, base + 0x100, 0,	/* oldest */
	};

	rec(r, PERF_RECORD_SAMPLE, body, sizeof(body) / 8);
}

static void test_decode(void **state)
{
	struct recs r = { .n = 0 };
	struct got g = { .n = 0 };
	uint64_t comm[] = { 0x0000000700000007ull, 0x6f6f66 };

	(void)state;
	sample3(&r, 7, 8, 1000, 1, 0x1000);
	rec(&r, PERF_RECORD_COMM, comm, 2);	/* skipped */
	sample3(&r, 7, 9, 2000, 0, 0x2000);
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST, PERF_SAMPLE_BRANCH_ANY, collect, &g), 6);
	assert_int_equal(g.n, 6);
	/* oldest first, each sample's fields on its branches */
	assert_int_equal(g.b[0].from, 0x1010);
	assert_int_equal(g.b[0].to, 0x1100);
	assert_int_equal(g.b[2].from, 0x1030);
	assert_int_equal(g.b[2].to, 0x1300);
	assert_int_equal(g.b[0].pid, 7);
	assert_int_equal(g.b[0].tid, 8);
	assert_int_equal(g.b[0].time, 1000);
	assert_int_equal(g.b[0].cpu, 1);
	assert_int_equal(g.b[3].from, 0x2010);
	assert_int_equal(g.b[3].tid, 9);
	assert_int_equal(g.b[5].to, 0x2300);
	assert_int_equal(g.b[5].cpu, 0);
	assert_int_equal(g.b[5].time, 2000);

	/* the callback stops it */
	memset(&g, 0, sizeof(g));
	g.stop_at = 2;
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST, 0, collect, &g), 2);
	assert_int_equal(g.n, 2);

	/* nothing: 0 */
	memset(&g, 0, sizeof(g));
	assert_int_equal(hwb_decode(r.w, 0, ST, 0, collect, &g), 0);
}

/* the words before the branch stack: identifier, ip, callchain, raw; hw_idx after nr */
static void test_decode_layout(void **state)
{
	struct recs r = { .n = 0 };
	struct got g = { .n = 0 };
	uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
		      PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		      PERF_SAMPLE_BRANCH_STACK;
	/* raw: u32 size 12, 12 bytes: 16 bytes, 2 words */
	uint64_t body[] = {
		42, 0x4000, (uint64_t)5 << 32 | 5, 0xdead, 42, 100003,
		2, 0xaaaa, 0xbbbb,		/* callchain */
		12, 0,				/* raw: size 12 in the low half, then 12 bytes */
		1, 77,				/* nr 1, hw_idx */
		0x5010, 0x5100, 0,
	};

	(void)state;
	rec(&r, PERF_RECORD_SAMPLE, body, sizeof(body) / 8);
	assert_int_equal(hwb_decode(r.w, r.n * 8, st, PERF_SAMPLE_BRANCH_HW_INDEX, collect, &g), 1);
	assert_int_equal(g.b[0].from, 0x5010);
	assert_int_equal(g.b[0].to, 0x5100);
	assert_int_equal(g.b[0].tid, 5);
	assert_int_equal(g.b[0].time, 0);
}

/* a cut or inconsistent record: -1, after what came before it */
static void test_decode_bad(void **state)
{
	struct recs r = { .n = 0 };
	struct got g = { .n = 0 };
	struct perf_event_header *h;
	size_t first;

	(void)state;
	sample3(&r, 1, 1, 1, 0, 0x1000);
	first = r.n;
	sample3(&r, 1, 1, 2, 0, 0x2000);
	/* cut in the middle of the second */
	assert_int_equal(hwb_decode(r.w, r.n * 8 - 8, ST, 0, collect, &g), -1);
	assert_int_equal(g.n, 3);
	/* a header cut */
	memset(&g, 0, sizeof(g));
	assert_int_equal(hwb_decode(r.w, first * 8 + 4, ST, 0, collect, &g), -1);
	/* a size not a multiple of 8, or smaller than the header */
	h = (struct perf_event_header *)&r.w[first];
	h->size = 20;
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST, 0, collect, &g), -1);
	h->size = 4;
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST, 0, collect, &g), -1);
	h->size = (uint16_t)((r.n - first) * 8);
	/* a branch count beyond the record */
	r.w[first + 4] = 1000;
	memset(&g, 0, sizeof(g));
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST, 0, collect, &g), -1);
	assert_int_equal(g.n, 3);
	r.w[first + 4] = 3;
	/* the sample type: no branch stack, or READ (which needs read_format) */
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST & ~(uint64_t)PERF_SAMPLE_BRANCH_STACK, 0,
				    collect, &g), -1);
	assert_int_equal(hwb_decode(r.w, r.n * 8, ST | PERF_SAMPLE_READ, 0, collect, &g), -1);
	/* more fields said than the record has */
	memset(&g, 0, sizeof(g));
	assert_int_equal(hwb_decode(r.w, first * 8, ST | PERF_SAMPLE_CALLCHAIN, 0, collect, &g), -1);
	assert_int_equal(g.n, 0);
}

/* the kernel's lines: header, "%4d  0x%016llx -> 0x%016llx SYM" */
static void test_print(void **state)
{
	struct trace_iter iter;
	struct ut_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	trace_iter_init(&iter, NULL, &hw_branch_tracer, f);
	memset(&ev, 0, sizeof(ev));
	hwb_print_header(&iter);
	hwb_print_branch(&iter, &ev, 1, 0x5555555551a9, 0x555555555139);
	hwb_print_branch(&iter, &ev, 12, 0, 0x401000);
	ut_seq_flush(&iter.seq);
	fclose(f);
	assert_string_equal(text,
		"# CPU#        FROM                   TO         FUNCTION\n"
		"#  |           |                     |             |\n"
		"   1  0x00005555555551a9 -> 0x0000555555555139 0x5555555551a9\n"
		"  12  0x0000000000000000 -> 0x0000000000401000 \n");
	free(text);
}

/* turned off (as on a machine without them): unavailable, with the reason */
static void test_probe_off(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(hwb_probe(why, sizeof(why)), HWB_NONE);
	assert_string_equal(why, "turned off by USERTRACE_HW_BRANCH=off");
	assert_int_equal(tracer_available(&hw_branch_tracer, why, sizeof(why)), 0);
	assert_string_equal(why, "turned off by USERTRACE_HW_BRANCH=off");
	assert_int_equal(tracer_available(&mmiotrace_tracer, why, sizeof(why)), 1);
	assert_string_equal(why, "");
	assert_string_equal(hwb_source_name(HWB_NONE), "none");
	assert_string_equal(hwb_source_name(HWB_BRANCH_STACK), "branch-stack");
	assert_string_equal(hwb_source_name(HWB_FILE), "file");
	assert_non_null(strstr(tracer_available_names(), "mmiotrace nop"));
	assert_null(strstr(tracer_available_names(), "hw-branch"));
	/* still found by name: a recording made elsewhere replays */
	assert_ptr_equal(tracer_find("hw-branch"), &hw_branch_tracer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_decode_layout),
		cmocka_unit_test(test_decode_bad),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_probe_off),
	};

	setenv(UT_HWB_ENV, "off", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
