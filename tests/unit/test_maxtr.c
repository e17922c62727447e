// SPDX-License-Identifier: MIT
/*
 * test_maxtr.c - unit tests of the max-latency buffer (runtime/max.c and
 * rb_writer_swap() of lib/ringbuf/ringbuf.c).
 *
 * The test is a test-only latency tracer's runtime part: it gives its
 * thread a ring buffer in a session directory of its own, writes
 * synthetic records, and calls ut_update_max_tr() as a tracer does when a
 * section ends.  What the rest of the runtime would provide (ut_self,
 * ut_ctl, the session directory, the clock) is defined here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"

/* ---- what the runtime around max.c provides ---- */

__thread struct ut_thread ut_self __attribute__((tls_model("initial-exec")));
struct ut_session_ctl *ut_ctl;
int ut_use_tsc;
intptr_t ut_cpu_off;
static char session[256];
static int renew_calls;

uint64_t ut_clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *ut_session_dir(void)
{
	return session;
}

void ut_renew_stack(struct ut_thread *t, uint64_t ts)
{
	(void)t;
	(void)ts;
	renew_calls++;
}

/* ---- the fixture: a session with one traced thread ---- */

#define NR_PAGES	4
#define PID		4242
#define TID		4243
#define IMAGE		77ull

static struct ut_session_ctl ctl;
static char cur_path[512], max_path[512];

static int setup(void **state)
{
	struct rb_header *h;
	struct ut_thread *t = &ut_self;

	(void)state;
	snprintf(session, sizeof(session), "/tmp/ut-maxtr.XXXXXX");
	assert_non_null(mkdtemp(session));
	snprintf(cur_path, sizeof(cur_path), "%s/buf.%d.%d.%llu", session, PID, TID, IMAGE);
	snprintf(max_path, sizeof(max_path), "%s/max/buf.%d.%d.%llu", session, PID, TID, IMAGE);
	memset(&ctl, 0, sizeof(ctl));
	ctl.flags = UT_CTL_LIVE;
	ctl.buf_mode = RB_MODE_OVERWRITE;
	ut_ctl = &ctl;
	assert_int_equal(rb_create(cur_path, NR_PAGES, RB_MODE_OVERWRITE, &h), 0);
	h->pid = PID;
	h->tid = TID;
	h->image = IMAGE;
	memset(t, 0, sizeof(*t));
	rb_writer_init(&t->w, h, 1000);
	t->state = UT_TS_READY;
	renew_calls = 0;
	prctl(PR_SET_NAME, "maxtr-test", 0, 0, 0);
	return 0;
}

static int teardown(void **state)
{
	struct ut_thread *t = &ut_self;
	char cmd[600];

	(void)state;
	ut_max_release(t, 1);
	munmap(t->w.hdr, rb_file_size(t->w.hdr->nr_pages));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", session);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* @n records of 8 bytes, type 1, value @tag + i */
static void write_recs(int n, uint32_t tag)
{
	struct rb_writer *w = &ut_self.w;

	for (int i = 0; i < n; i++) {
		uint64_t ts = w->last_ts + 10;
		unsigned char *p = rb_reserve(w, 8, &ts);
		uint32_t hdr = RB_HDR(1, ts - w->last_ts), v = tag + (uint32_t)i;

		assert_non_null(p);
		memcpy(p, &hdr, 4);
		memcpy(p + 4, &v, 4);
		rb_commit(w, 8, ts, 1);
	}
}

static ino_t ino(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	return st.st_ino;
}

/* the @i-th record's value in page @seq of @h */
static uint32_t rec_val(struct rb_header *h, uint64_t seq, int i)
{
	struct rb_page *p = rb_page_slot(h, seq);
	uint32_t v;

	memcpy(&v, p->data + 8 * i + 4, 4);
	return v;
}

static void test_not_a_maximum(void **state)
{
	struct rb_header *h = ut_self.w.hdr;

	(void)state;
	ctl.max_latency = 500;
	write_recs(3, 100);
	assert_int_equal(ut_update_max_tr(499, 0, 1, 2), 0);
	assert_int_equal(ut_update_max_tr(500, 0, 1, 2), 0);
	/* nothing moved, nothing made, nothing stored */
	assert_ptr_equal(ut_self.w.hdr, h);
	assert_null(ut_self.max_hdr);
	assert_int_equal(ctl.max_latency, 500);
	assert_int_equal(ctl.max_rec.count, 0);
	assert_int_equal(ino(max_path), 0);
	assert_int_equal(ctl.max_lock, 0);
}

static void test_swap_keeps_the_pages(void **state)
{
	struct rb_header *first = ut_self.w.hdr, *second;
	ino_t first_ino = ino(cur_path);
	int32_t tid = (int32_t)syscall(SYS_gettid);

	(void)state;
	/* more than a page: the trace is several pages */
	write_recs(600, 1000);
	assert_int_equal(first->head, 1);
	assert_int_equal(ut_update_max_tr(200, 0, 0x1111, 0x2222), 1);
	/* the buffer written is now the max one, pages and counters untouched */
	assert_ptr_equal(ut_self.max_hdr, first);
	assert_int_equal(first->head, 1);
	assert_int_equal(rb_page_slot(first, 0)->entries, 507);
	assert_int_equal(rec_val(first, 0, 0), 1000);
	assert_int_equal(rec_val(first, 0, 506), 1506);
	assert_int_equal(rec_val(first, 1, 0), 1507);
	assert_int_equal(rb_page_slot(first, 1)->entries, 93);
	/* its name too: max/ holds the inode that was buf.* */
	assert_int_equal(ino(max_path), first_ino);
	assert_int_not_equal(ino(cur_path), first_ino);
	/* the writer goes on in the other buffer, empty */
	second = ut_self.w.hdr;
	assert_ptr_not_equal(second, first);
	assert_int_equal(second->head, 0);
	assert_int_equal(rb_page_slot(second, 0)->commit, 0);
	assert_int_equal(second->pid, PID);
	assert_int_equal(second->tid, TID);
	assert_int_equal(second->image, IMAGE);
	assert_int_equal(renew_calls, 1);
	/* the record */
	assert_int_equal(ctl.max_latency, 200);
	assert_int_equal(ctl.max_rec.latency, 200);
	assert_int_equal(ctl.max_rec.start_ip, 0x1111);
	assert_int_equal(ctl.max_rec.end_ip, 0x2222);
	assert_int_equal(ctl.max_rec.tid, tid);
	assert_int_equal(ctl.max_rec.pid, getpid());
	assert_int_equal(ctl.max_rec.image, IMAGE);
	assert_int_equal(ctl.max_rec.swapped, 1);
	assert_int_equal(ctl.max_rec.count, 1);
	assert_string_equal(ctl.max_rec.comm, "maxtr-test");
	assert_true(ctl.max_rec.ts > 0);
	assert_int_equal(ctl.max_lock, 0);

	/* a smaller one: no swap */
	write_recs(5, 2000);
	assert_int_equal(ut_update_max_tr(150, 0, 3, 4), 0);
	assert_ptr_equal(ut_self.w.hdr, second);
	assert_int_equal(ctl.max_rec.latency, 200);

	/* a larger one: swapped back, the first buffer emptied for writing */
	first->lost = 3;
	first->overrun = 9;
	assert_int_equal(ut_update_max_tr(300, 0, 5, 6), 1);
	assert_ptr_equal(ut_self.max_hdr, second);
	assert_ptr_equal(ut_self.w.hdr, first);
	assert_int_equal(ino(cur_path), first_ino);
	assert_int_not_equal(ino(max_path), first_ino);
	assert_int_equal(rec_val(second, 0, 0), 2000);
	assert_int_equal(rb_page_slot(second, 0)->entries, 5);
	assert_int_equal(first->head, 0);
	assert_int_equal(first->lost, 0);
	assert_int_equal(first->overrun, 0);
	assert_int_equal(rb_page_slot(first, 0)->commit, 0);
	assert_int_equal(ctl.max_rec.latency, 300);
	assert_int_equal(ctl.max_rec.start_ip, 5);
	assert_int_equal(ctl.max_rec.count, 2);
	/* and the writer writes on */
	write_recs(2, 3000);
	assert_int_equal(rec_val(first, 0, 0), 3000);
}

static void test_larger_record_first(void **state)
{
	(void)state;
	/* another thread won a larger CAS and stored its record first */
	ctl.max_latency = 10;
	ctl.max_rec.latency = 900;
	ctl.max_rec.count = 1;
	assert_int_equal(ut_update_max_tr(50, 0, 1, 2), 0);
	assert_null(ut_self.max_hdr);
	assert_int_equal(ctl.max_rec.latency, 900);
	assert_int_equal(ctl.max_rec.count, 1);
	assert_int_equal(ctl.max_lock, 0);
}

static void test_no_swap_when_recording(void **state)
{
	struct rb_header *h = ut_self.w.hdr;

	(void)state;
	/* record's consumer drains buf.* by name: the record alone */
	ctl.flags = 0;
	assert_int_equal(ut_update_max_tr(70, 0, 7, 8), 1);
	assert_ptr_equal(ut_self.w.hdr, h);
	assert_null(ut_self.max_hdr);
	assert_int_equal(ctl.max_rec.latency, 70);
	assert_int_equal(ctl.max_rec.swapped, 0);
	assert_int_equal(ino(max_path), 0);
}

static void test_busy_writer(void **state)
{
	struct rb_header *h = ut_self.w.hdr;

	(void)state;
	/* called from a signal handler that interrupted a write */
	ut_self.busy = 1;
	assert_int_equal(ut_update_max_tr(70, 0, 7, 8), -1);
	ut_self.busy = 0;
	assert_ptr_equal(ut_self.w.hdr, h);
	assert_int_equal(ctl.max_rec.latency, 70);
	assert_int_equal(ctl.max_rec.swapped, 0);
}

static void test_dead_lock_holder(void **state)
{
	(void)state;
	/* a process died holding max_lock: it is taken over */
	ctl.max_lock = 999999;
	assert_int_equal(ut_update_max_tr(80, 0, 7, 8), 1);
	assert_int_equal(ctl.max_rec.latency, 80);
	assert_int_equal(ctl.max_lock, 0);
}

static void test_no_session(void **state)
{
	(void)state;
	ut_ctl = NULL;
	assert_int_equal(ut_update_max_tr(80, 0, 7, 8), 0);
	ut_ctl = &ctl;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_a_maximum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_keeps_the_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_larger_record_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_swap_when_recording, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_lock_holder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_session, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
