// SPDX-License-Identifier: MIT
/*
 * test_ringbuf.c - unit tests of lib/ringbuf/ringbuf.c.
 *
 * The tests write records the way runtime/graph.c does (rb_reserve, the
 * header built from the clamped time, rb_commit; a page_start callback
 * that writes a DEPTH record) and read them back the way cli/record.c and
 * reader/data.c do (rb_copy_page of the pages below head, a store-release
 * of tail, rb_iter_next with ut_rec_len).  Every expected value is exact:
 * with RB_DATA_SIZE = 4056 bytes a page holds 405 ENTRY records (4050
 * bytes), or 404 after an 8-byte DEPTH record (4048 bytes).
 *
 * The last tests run a writer and a reader at the same time, in two
 * threads and in two processes, and several writers with one consumer as
 * the recorder drains them, and check that no record is read twice, read
 * out of order or lost without being counted.
 *
 * `make tsan` builds this file with ThreadSanitizer too (UT_TSAN below):
 * the threaded tests then check the consumer-mode protocol for data
 * races.  The overwrite-mode reader is left out there: its copy is a
 * seqlock read, racing with the writer by design and thrown away when
 * the seq changed (doc/design/ring-buffer.md), which TSan cannot know.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "usertrace/record.h"
#include "usertrace/ringbuf.h"

#define ENTRY_LEN	10u
#define EXIT_LEN	4u
#define DEPTH_LEN	8u
#define PER_PAGE	405u	/* ENTRY records in a page without DEPTH */
#define PER_PAGE_DEPTH	404u	/* ... and in a page that starts with DEPTH */

#if defined(__SANITIZE_THREAD__)
#define UT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UT_TSAN 1
#endif
#endif

#ifdef UT_TSAN
#define STRESS_N	1000000ull	/* ThreadSanitizer is ten times slower */
#else
#define STRESS_N	5000000ull
#endif
#define STRESS_PAGES	16u
#define STRESS_WRITERS	4

#define PAGE_BUF(name) unsigned char name[RB_PAGE_SIZE] __attribute__((aligned(64)))

/*
 * A buffer file in a fresh temporary directory.
 */
struct tbuf {
	char dir[64];
	char path[96];
	struct rb_header *h;
};

static void tbuf_dir(struct tbuf *b)
{
	snprintf(b->dir, sizeof(b->dir), "/dev/shm/ut-rbtest-XXXXXX");
	if (!mkdtemp(b->dir)) {
		snprintf(b->dir, sizeof(b->dir), "/tmp/ut-rbtest-XXXXXX");
		assert_non_null(mkdtemp(b->dir));
	}
	snprintf(b->path, sizeof(b->path), "%s/buf", b->dir);
	b->h = NULL;
}

static void tbuf_new(struct tbuf *b, uint32_t nr_pages, enum rb_mode mode)
{
	tbuf_dir(b);
	assert_int_equal(rb_create(b->path, nr_pages, mode, &b->h), 0);
	assert_non_null(b->h);
}

static void tbuf_free(struct tbuf *b)
{
	if (b->h)
		assert_int_equal(munmap(b->h, rb_file_size(b->h->nr_pages)), 0);
	unlink(b->path);
	assert_int_equal(rmdir(b->dir), 0);
}

/*
 * Writer side, as runtime/graph.c's __ut_put() does it.
 */
static int put_rec(struct rb_writer *w, uint32_t type, uint64_t *ts, uint64_t val)
{
	uint32_t len = type == UT_REC_ENTRY ? ENTRY_LEN : type == UT_REC_EXIT ? EXIT_LEN : 8;
	unsigned char *p = rb_reserve(w, len, ts);
	uint32_t h;

	if (!p)
		return 0;
	h = RB_HDR(type, *ts - w->last_ts);
	memcpy(p, &h, 4);
	if (type == UT_REC_ENTRY) {
		ut_put48(p + 4, val);
	} else if (len == 8) {
		uint32_t v = (uint32_t)val;

		memcpy(p + 4, &v, 4);
	}
	/* DEPTH and CPU describe the stream; they are not events */
	rb_commit(w, len, *ts, ut_rec_counts(type));
	return 1;
}

static int put_entry(struct rb_writer *w, uint64_t ts, uint64_t ip)
{
	return put_rec(w, UT_REC_ENTRY, &ts, ip);
}

static int put_exit(struct rb_writer *w, uint64_t ts)
{
	return put_rec(w, UT_REC_EXIT, &ts, 0);
}

/* like ut_page_start(), but the "depth" is the page's seq: tests can check it */
static void depth_page_start(struct rb_writer *w, uint64_t ts)
{
	uint64_t t = ts;

	put_rec(w, UT_REC_DEPTH, &t, w->hdr->head);
}

static int wakes;

static void count_wake(struct rb_writer *w)
{
	(void)w;
	wakes++;
}

/*
 * Reader side.
 */
struct rec {
	uint32_t type, len, off, delta;
	uint64_t ts, val;
};

/* decode a copied page; returns the number of records or -1 on corruption */
static int decode_page(const struct rb_page *p, struct rec *out, int max)
{
	const unsigned char *r;
	struct rb_iter it;
	uint32_t len, h;
	uint64_t ts;
	int n = 0, ret;

	rb_iter_init(&it, p, ut_rec_len);
	while ((ret = rb_iter_next(&it, &r, &len, &ts)) > 0) {
		if (n == max)
			return -1;
		memcpy(&h, r, 4);
		out[n].type = RB_HDR_TYPE(h);
		out[n].delta = RB_HDR_DELTA(h);
		out[n].len = len;
		out[n].off = (uint32_t)(r - p->data);
		out[n].ts = ts;
		out[n].val = 0;
		if (out[n].type == UT_REC_ENTRY) {
			out[n].val = ut_get48(r + 4);
		} else if (out[n].type == UT_REC_DEPTH || out[n].type == UT_REC_CPU) {
			uint32_t v;

			memcpy(&v, r + 4, 4);
			out[n].val = v;
		}
		n++;
	}
	return ret < 0 ? -1 : n;
}

typedef void (*page_fn)(void *arg, const struct rb_page *p, int n, uint64_t seq);

/*
 * cli/record.c's drain_buffer(), without the output file: pages below
 * head (and head itself when @final) are copied, then tail is advanced
 * with a store-release so the writer may reuse their slots.
 */
static void drain(struct rb_header *h, uint64_t *next, int final, page_fn fn, void *arg)
{
	PAGE_BUF(page);
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	uint64_t upto = final ? head + 1 : head;

	if (h->mode == RB_MODE_OVERWRITE) {
		if (!final)
			return;
		if (head + 1 > h->nr_pages && *next < head + 1 - h->nr_pages)
			*next = head + 1 - h->nr_pages;
	}
	while (*next < upto) {
		int n = rb_copy_page(h, *next, page);

		if (n < 0)
			fn(arg, NULL, -1, *next);
		else if (n > 0 || *next != head)
			fn(arg, (const struct rb_page *)page, n, *next);
		(*next)++;
		if (h->mode == RB_MODE_CONSUMER)
			__atomic_store_n(&h->tail, *next, __ATOMIC_RELEASE);
	}
}

/* a page_fn that keeps every ENTRY's ip and counts the rest */
struct collect {
	uint64_t ips[8192];
	uint64_t ts[8192];
	int n;
	int pages, bad;
	uint64_t lost_flags;
};

static void collect_page(void *arg, const struct rb_page *p, int n, uint64_t seq)
{
	struct collect *c = arg;
	struct rec recs[512];
	int k;

	if (n < 0 || p->seq != seq) {
		c->bad++;
		return;
	}
	c->pages++;
	c->lost_flags += p->flags & RB_PAGE_LOST_MASK;
	k = decode_page(p, recs, 512);
	if (k < 0) {
		c->bad++;
		return;
	}
	for (int i = 0; i < k; i++) {
		if (recs[i].type != UT_REC_ENTRY)
			continue;
		assert_true(c->n < 8192);
		c->ips[c->n] = recs[i].val;
		c->ts[c->n] = recs[i].ts;
		c->n++;
	}
}

/* ------------------------------------------------------------------ */

static void test_constants(void **state)
{
	(void)state;
	/* the page arithmetic of the tests below */
	assert_int_equal(sizeof(struct rb_page), RB_PAGE_HDR);
	assert_true(sizeof(struct rb_header) <= RB_PAGE_SIZE);
	assert_int_equal(RB_DATA_SIZE, 4056);
	assert_int_equal(RB_DATA_SIZE / ENTRY_LEN, PER_PAGE);
	assert_int_equal((RB_DATA_SIZE - DEPTH_LEN) / ENTRY_LEN, PER_PAGE_DEPTH);
	assert_int_equal(RB_HDR(UT_REC_ENTRY, 5), 0x51);
	assert_int_equal(RB_HDR_TYPE(RB_HDR(RB_TYPE_TIME_EXTEND, RB_DELTA_MAX)), 15);
	assert_int_equal(RB_HDR_DELTA(RB_HDR(RB_TYPE_TIME_EXTEND, RB_DELTA_MAX)), RB_DELTA_MAX);
	assert_int_equal(rb_file_size(2), 3 * 4096);
	/* no wrap-around in the size of a huge (corrupt) nr_pages */
	assert_true(rb_file_size(UINT32_MAX) > rb_file_size(2));
}

static void test_create(void **state)
{
	struct rb_header *h = NULL;
	struct tbuf b;
	struct stat st;

	(void)state;
	tbuf_dir(&b);
	assert_int_equal(rb_create(b.path, 0, RB_MODE_CONSUMER, &h), -EINVAL);
	assert_int_equal(rb_create(b.path, 1, RB_MODE_CONSUMER, &h), -EINVAL);
	assert_null(h);
	assert_int_equal(access(b.path, F_OK), -1);	/* nothing left behind */

	assert_int_equal(rb_create(b.path, 2, RB_MODE_OVERWRITE, &b.h), 0);
	assert_int_equal(stat(b.path, &st), 0);
	assert_int_equal(st.st_size, 3 * RB_PAGE_SIZE);
	assert_memory_equal(b.h->magic, RB_MAGIC, 8);
	assert_int_equal(b.h->version, RB_VERSION);
	assert_int_equal(b.h->page_size, RB_PAGE_SIZE);
	assert_int_equal(b.h->nr_pages, 2);
	assert_int_equal(b.h->mode, RB_MODE_OVERWRITE);
	assert_int_equal(b.h->state, RB_STATE_ACTIVE);
	assert_int_equal(b.h->head, 0);
	assert_int_equal(b.h->tail, 0);
	assert_int_equal(b.h->lost, 0);
	assert_int_equal(b.h->overrun, 0);

	/* the file must not exist yet */
	assert_int_equal(rb_create(b.path, 2, RB_MODE_CONSUMER, &h), -EEXIST);
	assert_int_equal(rb_create("/nonexistent-dir/buf", 2, RB_MODE_CONSUMER, &h), -ENOENT);
	assert_null(h);
	tbuf_free(&b);
}

/*
 * The writers that are not a traced thread (the recorder's sources, the
 * tracing directory's marker, the reaper) write their CPU, EVENT and DATA
 * records with record.h's helpers: the bytes of entries.h's layout, a CPU
 * record only when the CPU changes.
 */
static void test_rec_helpers(void **state)
{
	static const unsigned char ent[8] = { 7, 0, 1, 2, 0x10, 0x20, 0, 0 };
	static const unsigned char want[] = {
		/* CPU 3 at 1006 */
		0x66, 0x00, 0x00, 0x00, 3, 0, 0, 0,
		/* EVENT of 8 bytes at 1007 */
		0x1b, 0x00, 0x00, 0x00, 8, 0, 7, 0, 1, 2, 0x10, 0x20, 0, 0,
		/* DATA "hi" at 1007 */
		0x08, 0x00, 0x00, 0x00, 2, 0, 'h', 'i',
	};
	struct rb_writer w = { 0 };
	struct rb_page *p;
	struct tbuf b;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 1000);
	p = rb_page_slot(b.h, 0);
	ut_rec_write_cpu(&w, 1005, w.cpu);		/* the same CPU: nothing */
	assert_int_equal(p->commit, 0);
	ut_rec_write_cpu(&w, 1006, 3);
	assert_int_equal(w.cpu, 3);
	ut_rec_write_cpu(&w, 1007, 3);
	assert_int_equal(ut_rec_write_event(&w, 1007, ent, sizeof(ent)), 1);
	assert_int_equal(ut_rec_write_bytes(&w, UT_REC_DATA, 1007, "hi", 2), 1);
	assert_int_equal(p->commit, sizeof(want));
	assert_memory_equal(p->data, want, sizeof(want));
	assert_int_equal(p->entries, 2);	/* EVENT and DATA: CPU is not an event */
	rb_writer_close(&w);
	tbuf_free(&b);
}

static void test_write_read(void **state)
{
	struct rb_writer w = { 0 };
	struct rec r[8];
	struct rb_page *p;
	PAGE_BUF(buf);
	struct tbuf b;
	uint64_t t = 1020;
	uint32_t h;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 1000);
	p = rb_page_slot(b.h, 0);
	assert_ptr_equal(w.page, p);
	assert_int_equal(p->seq, 0);
	assert_int_equal(p->ts, 1000);
	assert_int_equal(p->commit, 0);
	assert_int_equal(p->entries, 0);
	assert_int_equal(p->flags, 0);

	assert_true(put_entry(&w, 1005, 0x7fff12345678ull));
	assert_true(put_entry(&w, 1010, UT_ADDR_MASK));
	assert_true(put_exit(&w, 1012));
	assert_true(put_exit(&w, 1020));
	assert_true(put_rec(&w, UT_REC_CPU, &t, 3));
	assert_int_equal(w.last_ts, 1020);
	assert_int_equal(b.h->head, 0);

	/* the raw bytes in the shared page */
	memcpy(&h, p->data, 4);
	assert_int_equal(h, RB_HDR(UT_REC_ENTRY, 5));
	assert_int_equal(ut_get48(p->data + 4), 0x7fff12345678ull);

	assert_int_equal(rb_copy_page(b.h, 0, buf), 10 + 10 + 4 + 4 + 8);
	p = (struct rb_page *)buf;
	assert_int_equal(p->commit, 36);
	assert_int_equal(p->entries, 4);	/* CPU is not an event */
	assert_int_equal(p->seq, 0);
	assert_int_equal(decode_page(p, r, 8), 5);

	assert_int_equal(r[0].type, UT_REC_ENTRY);
	assert_int_equal(r[0].val, 0x7fff12345678ull);
	assert_int_equal(r[0].ts, 1005);
	assert_int_equal(r[0].delta, 5);
	assert_int_equal(r[0].off, 0);
	assert_int_equal(r[0].len, 10);
	assert_int_equal(r[1].type, UT_REC_ENTRY);
	assert_int_equal(r[1].val, 0xffffffffffffull);
	assert_int_equal(r[1].ts, 1010);
	assert_int_equal(r[1].off, 10);
	assert_int_equal(r[2].type, UT_REC_EXIT);
	assert_int_equal(r[2].ts, 1012);
	assert_int_equal(r[2].off, 20);
	assert_int_equal(r[2].len, 4);
	assert_int_equal(r[3].type, UT_REC_EXIT);
	assert_int_equal(r[3].ts, 1020);
	assert_int_equal(r[3].delta, 8);
	assert_int_equal(r[4].type, UT_REC_CPU);
	assert_int_equal(r[4].val, 3);
	assert_int_equal(r[4].ts, 1020);
	assert_int_equal(r[4].off, 28);

	/* a page that was never written holds another seq */
	assert_int_equal(rb_copy_page(b.h, 1, buf), -1);
	assert_int_equal(rb_copy_page(b.h, 4, buf), -1);

	rb_writer_close(&w);
	assert_int_equal(b.h->state, RB_STATE_CLOSED);
	tbuf_free(&b);
}

static void test_time_extend(void **state)
{
	struct rb_writer w = { 0 };
	uint64_t t0 = 100, t1, t2, t3, t4, t5;
	struct rec r[8];
	struct rb_page *p;
	PAGE_BUF(buf);
	struct tbuf b;
	uint32_t h, hi;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, t0);
	t1 = t0 + RB_DELTA_MAX;			/* fits: no extend */
	t2 = t1 + RB_DELTA_MAX + 1;		/* 2^28: extend */
	t3 = t2 + 1;
	t4 = t3 + (1ull << 40) + 12345;
	t5 = t4 + (1ull << 59) + 7;		/* the high word holds 2^31 */
	assert_true(put_entry(&w, t1, 1));
	assert_int_equal(w.page->commit, 10);
	assert_true(put_entry(&w, t2, 2));
	assert_int_equal(w.page->commit, 10 + 8 + 10);
	assert_true(put_exit(&w, t3));
	assert_int_equal(w.page->commit, 32);
	assert_true(put_entry(&w, t4, 3));
	assert_true(put_entry(&w, t5, 4));
	assert_int_equal(w.page->commit, 32 + 18 + 18);
	assert_int_equal(w.page->entries, 5);	/* time extends are not entries */

	/* TIME_EXTEND: low 28 bits of the delta in the header, high bits next */
	p = w.page;
	memcpy(&h, p->data + 10, 4);
	memcpy(&hi, p->data + 14, 4);
	assert_int_equal(RB_HDR_TYPE(h), RB_TYPE_TIME_EXTEND);
	assert_int_equal(RB_HDR_DELTA(h), 0);
	assert_int_equal(hi, 1);
	memcpy(&h, p->data + 18, 4);
	assert_int_equal(h, RB_HDR(UT_REC_ENTRY, 0));	/* the record itself: delta 0 */
	memcpy(&hi, p->data + 54, 4);
	assert_int_equal(hi, (uint32_t)((t5 - t4) >> RB_DELTA_BITS));

	assert_int_equal(rb_copy_page(b.h, 0, buf), 68);
	assert_int_equal(decode_page((struct rb_page *)buf, r, 8), 5);
	assert_int_equal(r[0].ts, t1);
	assert_int_equal(r[0].delta, RB_DELTA_MAX);
	assert_int_equal(r[1].ts, t2);
	assert_int_equal(r[1].val, 2);
	assert_int_equal(r[1].off, 18);
	assert_int_equal(r[2].ts, t3);
	assert_int_equal(r[2].type, UT_REC_EXIT);
	assert_int_equal(r[3].ts, t4);
	assert_int_equal(r[3].val, 3);
	assert_int_equal(r[4].ts, t5);
	assert_int_equal(r[4].val, 4);
	tbuf_free(&b);
}

static void test_time_backwards(void **state)
{
	struct rb_writer w = { 0 };
	struct rec r[512];
	PAGE_BUF(buf);
	struct tbuf b;
	uint64_t t;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 5000);
	t = 4000;				/* before the page's base */
	assert_true(put_rec(&w, UT_REC_ENTRY, &t, 1));
	assert_int_equal(t, 5000);
	t = 6000;
	assert_true(put_rec(&w, UT_REC_ENTRY, &t, 2));
	assert_int_equal(t, 6000);
	t = 5500;
	assert_true(put_rec(&w, UT_REC_ENTRY, &t, 3));
	assert_int_equal(t, 6000);
	t = 0;
	assert_true(put_rec(&w, UT_REC_EXIT, &t, 0));
	assert_int_equal(t, 6000);
	assert_true(put_entry(&w, 6001, 4));
	assert_int_equal(w.page->commit, 44);

	/* fill page 0 up to 4054 bytes: 401 more entries at 7000..7400 */
	for (uint64_t i = 0; i < 401; i++)
		assert_true(put_entry(&w, 7000 + i, 100 + i));
	assert_int_equal(w.page->commit, 4054);
	assert_int_equal(b.h->head, 0);
	/* the next one goes to page 1 and is clamped to the last time */
	t = 100;
	assert_true(put_rec(&w, UT_REC_ENTRY, &t, 999));
	assert_int_equal(t, 7400);
	assert_int_equal(b.h->head, 1);

	assert_int_equal(rb_copy_page(b.h, 0, buf), 4054);
	assert_int_equal(((struct rb_page *)buf)->entries, 406);
	assert_int_equal(decode_page((struct rb_page *)buf, r, 512), 406);
	assert_int_equal(r[0].ts, 5000);
	assert_int_equal(r[0].delta, 0);
	assert_int_equal(r[1].ts, 6000);
	assert_int_equal(r[2].ts, 6000);
	assert_int_equal(r[2].delta, 0);
	assert_int_equal(r[3].ts, 6000);
	assert_int_equal(r[4].ts, 6001);
	assert_int_equal(r[4].delta, 1);
	for (int i = 1; i < 406; i++)
		assert_true(r[i].ts >= r[i - 1].ts);
	assert_int_equal(r[405].ts, 7400);

	assert_int_equal(rb_copy_page(b.h, 1, buf), 10);
	assert_int_equal(((struct rb_page *)buf)->ts, 7400);
	assert_int_equal(decode_page((struct rb_page *)buf, r, 512), 1);
	assert_int_equal(r[0].ts, 7400);
	assert_int_equal(r[0].delta, 0);
	assert_int_equal(r[0].val, 999);
	tbuf_free(&b);
}

static void test_page_crossing(void **state)
{
	struct rb_writer w = { 0 };
	struct rec r[512];
	PAGE_BUF(buf);
	uint64_t ip = 1;
	struct tbuf b;

	(void)state;
	tbuf_new(&b, 16, RB_MODE_CONSUMER);
	w.page_start = depth_page_start;
	rb_writer_init(&w, b.h, 100);
	for (uint64_t i = 0; i < 3000; i++)
		assert_true(put_entry(&w, 100 + 3 * i, i + 1));
	/* 7 pages of 404 (2828), 172 in page 7 */
	assert_int_equal(b.h->head, 7);
	assert_int_equal(b.h->lost, 0);
	assert_int_equal(b.h->overrun, 0);

	for (uint64_t seq = 0; seq <= 7; seq++) {
		const struct rb_page *p = (const void *)buf;
		uint32_t want = seq < 7 ? PER_PAGE_DEPTH : 172;
		int n = rb_copy_page(b.h, seq, buf);

		assert_int_equal(n, DEPTH_LEN + ENTRY_LEN * want);
		assert_int_equal(p->seq, seq);
		assert_int_equal(p->entries, want);
		assert_int_equal(p->flags, 0);
		/* the page's base is the time of the record that opened it */
		assert_int_equal(p->ts, 100 + 3 * (ip - 1));
		assert_int_equal(decode_page(p, r, 512), (int)want + 1);
		/* a reader can start here: DEPTH first */
		assert_int_equal(r[0].type, UT_REC_DEPTH);
		assert_int_equal(r[0].val, seq);
		assert_int_equal(r[0].off, 0);
		assert_int_equal(r[0].ts, p->ts);
		for (uint32_t i = 1; i <= want; i++) {
			assert_int_equal(r[i].type, UT_REC_ENTRY);
			assert_int_equal(r[i].val, ip);
			assert_int_equal(r[i].ts, 100 + 3 * (ip - 1));
			assert_true(r[i].off + r[i].len <= p->commit);
			ip++;
		}
		if (seq < 7)	/* no room left for one more ENTRY */
			assert_true(p->commit + ENTRY_LEN > RB_DATA_SIZE);
	}
	assert_int_equal(ip, 3001);
	tbuf_free(&b);
}

/* resident pages among the buffer's data slots [from, to) */
static uint32_t resident(struct rb_header *h, uint32_t from, uint32_t to)
{
	unsigned char vec[256];
	uint32_t n = 0;

	assert_true(to - from <= sizeof(vec));
	assert_int_equal(mincore(rb_page_slot(h, from), (size_t)(to - from) * RB_PAGE_SIZE, vec), 0);
	for (uint32_t i = 0; i < to - from; i++)
		n += vec[i] & 1;
	return n;
}

/*
 * On its first pass the writer maps RB_POPULATE_PAGES at a time, not a
 * page per fault, and the program's errno stays what it was.
 */
static void test_populate(void **state)
{
	struct rb_writer w = { 0 };
	uint64_t ts = 100;
	uint32_t nr = RB_POPULATE_PAGES * 2 + 8;
	struct tbuf b;

	(void)state;
	tbuf_new(&b, nr, RB_MODE_CONSUMER);
	errno = EBADF;
	rb_writer_init(&w, b.h, ts);
	assert_int_equal(errno, EBADF);
	assert_int_equal(resident(b.h, 0, RB_POPULATE_PAGES), RB_POPULATE_PAGES);
	assert_int_equal(resident(b.h, RB_POPULATE_PAGES, nr), 0);
	assert_int_equal(w.populated, RB_POPULATE_PAGES);
	/* to the first page of the second batch */
	while (b.h->head < RB_POPULATE_PAGES)
		assert_true(put_entry(&w, ts++, 1));
	assert_int_equal(errno, EBADF);
	assert_int_equal(resident(b.h, RB_POPULATE_PAGES, 2 * RB_POPULATE_PAGES),
			 RB_POPULATE_PAGES);
	assert_int_equal(resident(b.h, 2 * RB_POPULATE_PAGES, nr), 0);
	/* the last batch is cut at the end of the buffer */
	while (b.h->head < 2 * RB_POPULATE_PAGES)
		assert_true(put_entry(&w, ts++, 1));
	assert_int_equal(resident(b.h, 2 * RB_POPULATE_PAGES, nr), 8);
	assert_int_equal(w.populated, nr);
	/* the second pass maps nothing more: consume, wrap around */
	b.h->tail = b.h->head;
	while (b.h->head < nr + 1)
		assert_true(put_entry(&w, ts++, 1));
	assert_int_equal(w.populated, nr);
	tbuf_free(&b);
}

/* a time extend that does not fit goes, with its record, to a fresh page */
static void test_extend_at_page_end(void **state)
{
	struct rb_writer w = { 0 };
	struct rec r[512];
	PAGE_BUF(buf);
	struct tbuf b;
	uint64_t t, big = 1ull << 30;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 10);
	for (uint64_t i = 0; i < 404; i++)
		assert_true(put_entry(&w, 10 + i, i));
	assert_int_equal(w.page->commit, 4040);	/* 16 bytes left: 8 + 10 do not fit */
	t = 413 + big;
	assert_true(put_entry(&w, t, 7777));
	assert_int_equal(b.h->head, 1);
	assert_int_equal(rb_copy_page(b.h, 0, buf), 4040);
	assert_int_equal(rb_copy_page(b.h, 1, buf), 10);
	assert_int_equal(((struct rb_page *)buf)->ts, t);
	assert_int_equal(decode_page((struct rb_page *)buf, r, 512), 1);
	assert_int_equal(r[0].type, UT_REC_ENTRY);
	assert_int_equal(r[0].delta, 0);
	assert_int_equal(r[0].ts, t);

	/* page 1: 10 + 402 * 10 + 4 = 4034 bytes, 22 left: the extend fits */
	for (uint64_t i = 0; i < 402; i++)
		assert_true(put_entry(&w, t + 1 + i, i));
	assert_true(put_exit(&w, t + 500));
	assert_int_equal(w.page->commit, 4034);
	assert_true(put_entry(&w, t + 500 + big, 8888));
	assert_int_equal(b.h->head, 1);
	assert_int_equal(w.page->commit, 4052);
	/* exactly RB_DATA_SIZE */
	assert_true(put_exit(&w, t + 501 + big));
	assert_int_equal(w.page->commit, RB_DATA_SIZE);
	assert_int_equal(b.h->head, 1);
	assert_true(put_exit(&w, t + 502 + big));
	assert_int_equal(b.h->head, 2);

	assert_int_equal(rb_copy_page(b.h, 1, buf), RB_DATA_SIZE);
	assert_int_equal(decode_page((struct rb_page *)buf, r, 512), 406);
	assert_int_equal(((struct rb_page *)buf)->entries, 406);
	assert_int_equal(r[404].val, 8888);
	assert_int_equal(r[404].ts, t + 500 + big);
	assert_int_equal(r[404].off, 4034 + 8);
	assert_int_equal(r[405].type, UT_REC_EXIT);
	assert_int_equal(r[405].ts, t + 501 + big);
	assert_int_equal(b.h->lost, 0);
	tbuf_free(&b);
}

static void test_consumer_lost(void **state)
{
	struct rb_writer w = { 0 };
	struct collect *c = calloc(1, sizeof(*c));
	uint64_t next = 0, t;
	PAGE_BUF(buf);
	struct tbuf b;
	int ok = 0;

	(void)state;
	assert_non_null(c);
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	wakes = 0;
	w.wake = count_wake;
	rb_writer_init(&w, b.h, 0);
	/* nobody consumes: 4 pages of 405 fit */
	for (uint64_t i = 1; i <= 2000; i++)
		ok += put_entry(&w, i, i);
	assert_int_equal(ok, 4 * PER_PAGE);
	assert_int_equal(b.h->head, 3);
	assert_int_equal(b.h->lost, 2000 - 4 * PER_PAGE);
	assert_int_equal(w.lost_pending, 380);
	assert_int_equal(w.full, 1);
	/* woken at half full (page 2) and when full, not at every drop */
	assert_int_equal(wakes, 2);
	/* page 3 has 6 bytes left, but once full everything is dropped */
	assert_int_equal(w.page->commit, 4050);
	assert_false(put_exit(&w, 2001));
	assert_int_equal(b.h->lost, 381);
	assert_int_equal(w.page->commit, 4050);
	assert_int_equal(b.h->tail, 0);

	/* the consumer saves pages 0..2 (not the head page) */
	drain(b.h, &next, 0, collect_page, c);
	assert_int_equal(c->bad, 0);
	assert_int_equal(c->pages, 3);
	assert_int_equal(b.h->tail, 3);
	assert_int_equal(c->n, 3 * PER_PAGE);
	for (int i = 0; i < c->n; i++) {
		assert_int_equal(c->ips[i], (uint64_t)i + 1);
		assert_int_equal(c->ts[i], (uint64_t)i + 1);
	}

	/* writing resumes in page 4 (slot 0), which carries the count */
	t = 3000;
	assert_true(put_rec(&w, UT_REC_ENTRY, &t, 5000));
	assert_int_equal(b.h->head, 4);
	assert_ptr_equal(w.page, rb_page_slot(b.h, 0));
	assert_int_equal(w.page->flags & RB_PAGE_LOST_MASK, 381);
	assert_int_equal(w.page->entries, 1);
	assert_int_equal(w.lost_pending, 0);
	assert_int_equal(w.full, 0);
	assert_int_equal(b.h->lost, 381);
	assert_int_equal(wakes, 2);
	assert_int_equal(rb_copy_page(b.h, 0, buf), -1);	/* slot reused */
	assert_true(put_entry(&w, 3001, 5001));

	/* the thread is over: save the rest */
	rb_writer_close(&w);
	drain(b.h, &next, 1, collect_page, c);
	assert_int_equal(c->bad, 0);
	assert_int_equal(c->pages, 5);
	assert_int_equal(c->n, 4 * PER_PAGE + 2);
	assert_int_equal(c->ips[4 * PER_PAGE - 1], 4 * PER_PAGE);
	assert_int_equal(c->ips[4 * PER_PAGE], 5000);
	assert_int_equal(c->ts[4 * PER_PAGE], 3000);
	assert_int_equal(c->ips[4 * PER_PAGE + 1], 5001);
	assert_int_equal(c->lost_flags, b.h->lost);
	assert_int_equal(b.h->tail, 5);
	free(c);
	tbuf_free(&b);
}

/* more than 2^24 - 1 lost records: the page flag saturates */
static void test_lost_flag_saturates(void **state)
{
	struct rb_writer w = { 0 };
	uint64_t next = 0, ok = 0, i;
	struct collect *c = calloc(1, sizeof(*c));
	struct tbuf b;

	(void)state;
	assert_non_null(c);
	tbuf_new(&b, 2, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 0);
	for (i = 0; i < 2 * PER_PAGE + RB_PAGE_LOST_MASK + 10; i++)
		ok += put_entry(&w, i, i);
	assert_int_equal(ok, 2 * PER_PAGE);
	assert_int_equal(b.h->lost, RB_PAGE_LOST_MASK + 10);
	drain(b.h, &next, 0, collect_page, c);
	assert_true(put_entry(&w, i, i));
	assert_int_equal(b.h->head, 2);
	assert_int_equal(w.page->flags, RB_PAGE_LOST_MASK);
	free(c);
	tbuf_free(&b);
}

static void test_overwrite(void **state)
{
	struct rb_writer w = { 0 };
	struct collect *c = calloc(1, sizeof(*c));
	uint64_t next = 0, in_buffer = 0;
	PAGE_BUF(buf);
	struct tbuf b;

	(void)state;
	assert_non_null(c);
	tbuf_new(&b, 4, RB_MODE_OVERWRITE);
	rb_writer_init(&w, b.h, 0);
	/* three times the buffer: pages 0..11, all full */
	for (uint64_t i = 1; i <= 3 * 4 * PER_PAGE; i++)
		assert_true(put_entry(&w, i, i));
	assert_int_equal(b.h->head, 11);
	assert_int_equal(b.h->lost, 0);
	assert_int_equal(b.h->overrun, 8 * PER_PAGE);
	for (uint64_t seq = 0; seq < 8; seq++)
		assert_int_equal(rb_copy_page(b.h, seq, buf), -1);
	for (uint64_t seq = 8; seq < 12; seq++) {
		assert_int_equal(rb_copy_page(b.h, seq, buf), PER_PAGE * ENTRY_LEN);
		assert_int_equal(((struct rb_page *)buf)->entries, PER_PAGE);
		assert_int_equal(((struct rb_page *)buf)->ts, seq * PER_PAGE + 1);
	}
	/* one more record starts page 12 and overwrites page 8 */
	assert_true(put_entry(&w, 3 * 4 * PER_PAGE + 1, 3 * 4 * PER_PAGE + 1));
	assert_int_equal(b.h->head, 12);
	assert_int_equal(b.h->overrun, 9 * PER_PAGE);
	assert_int_equal(rb_copy_page(b.h, 8, buf), -1);
	assert_int_equal(rb_copy_page(b.h, 12, buf), ENTRY_LEN);

	/* the recorder reads a flight recorder once, at the end */
	rb_writer_close(&w);
	drain(b.h, &next, 1, collect_page, c);
	assert_int_equal(c->bad, 0);
	assert_int_equal(c->pages, 4);
	assert_int_equal(next, 13);
	assert_int_equal(b.h->tail, 0);		/* overwrite mode: tail is unused */
	assert_int_equal(c->n, 3 * PER_PAGE + 1);
	for (int i = 0; i < c->n; i++)
		assert_int_equal(c->ips[i], 9 * PER_PAGE + 1 + (uint64_t)i);
	for (uint64_t seq = 9; seq <= 12; seq++) {
		assert_true(rb_copy_page(b.h, seq, buf) >= 0);
		in_buffer += ((struct rb_page *)buf)->entries;
	}
	/* entries-written = entries-in-buffer + overrun */
	assert_int_equal(in_buffer + b.h->overrun, 3 * 4 * PER_PAGE + 1);
	free(c);
	tbuf_free(&b);
}

/* overwrite mode with mixed records and DEPTH pages: the buffer keeps a suffix */
static void test_overwrite_mixed(void **state)
{
	struct rb_writer w = { 0 };
	uint64_t in_buffer = 0, first = 0, expect = 0, written = 0;
	struct rec r[512];
	PAGE_BUF(buf);
	struct tbuf b;
	const uint64_t total = 10000;

	(void)state;
	tbuf_new(&b, 8, RB_MODE_OVERWRITE);
	w.page_start = depth_page_start;
	rb_writer_init(&w, b.h, 1);
	/* record i: ENTRY ip i, or EXIT when i % 3 == 2; its time is i + 1 */
	for (uint64_t i = 0; i < total; i++)
		written += i % 3 == 2 ? put_exit(&w, i + 1) : put_entry(&w, i + 1, i);
	assert_int_equal(written, total);
	assert_true(b.h->head >= 8);
	for (uint64_t seq = 0; seq <= b.h->head - 8; seq++)
		assert_int_equal(rb_copy_page(b.h, seq, buf), -1);
	for (uint64_t seq = b.h->head - 7; seq <= b.h->head; seq++) {
		const struct rb_page *p = (const void *)buf;
		int n;

		assert_true(rb_copy_page(b.h, seq, buf) >= 0);
		n = decode_page(p, r, 512);
		assert_true(n >= 1);
		assert_int_equal(r[0].type, UT_REC_DEPTH);
		assert_int_equal(r[0].val, seq);
		assert_int_equal((uint32_t)n - 1, p->entries);
		in_buffer += p->entries;
		for (int i = 1; i < n; i++) {
			uint64_t idx = r[i].ts - 1;

			if (seq == b.h->head - 7 && i == 1)
				first = expect = idx;
			assert_int_equal(idx, expect);
			assert_int_equal(r[i].type, idx % 3 == 2 ? UT_REC_EXIT : UT_REC_ENTRY);
			if (r[i].type == UT_REC_ENTRY)
				assert_int_equal(r[i].val, idx);
			expect++;
		}
	}
	assert_int_equal(expect, total);
	assert_int_equal(first, b.h->overrun);
	assert_int_equal(in_buffer + b.h->overrun, total);
	tbuf_free(&b);
}

/* a record larger than a page is dropped and counted, not written */
static void test_too_big(void **state)
{
	struct rb_writer w = { 0 };
	unsigned char *p;
	struct tbuf b;
	uint64_t t = 5;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 0);
	assert_true(put_entry(&w, 1, 1));
	assert_null(rb_reserve(&w, RB_DATA_SIZE + 1, &t));
	assert_int_equal(b.h->lost, 1);
	assert_int_equal(b.h->head, 0);		/* no page wasted on it */
	/* exactly one page's worth fits in a fresh page */
	p = rb_reserve(&w, RB_DATA_SIZE, &t);
	assert_non_null(p);
	assert_int_equal(b.h->head, 1);
	memset(p, 0, RB_DATA_SIZE);
	rb_commit(&w, RB_DATA_SIZE, t, 0);
	assert_int_equal(w.page->commit, RB_DATA_SIZE);
	/* with a DEPTH first, RB_DATA_SIZE no longer fits even a fresh page */
	w.page_start = depth_page_start;
	assert_null(rb_reserve(&w, RB_DATA_SIZE, &t));
	assert_int_equal(b.h->lost, 2);
	assert_int_equal(w.lost_pending, 1);
	tbuf_free(&b);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	if (len)
		assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void test_open_bad(void **state)
{
	struct rb_header good, bad;
	struct rb_reader r;
	unsigned char *file;
	size_t size = rb_file_size(2);
	struct tbuf b;
	struct {
		const char *what;
		size_t off, len;
		uint32_t value;
		size_t file_len;
	} cases[] = {
		{ "empty", 0, 0, 0, 0 },
		{ "one page", 0, 0, 0, RB_PAGE_SIZE },
		{ "two pages", 0, 0, 0, 2 * RB_PAGE_SIZE },
		{ "magic", offsetof(struct rb_header, magic), 4, 0x58585858, 0 },
		{ "version", offsetof(struct rb_header, version), 4, 2, 0 },
		{ "page size", offsetof(struct rb_header, page_size), 4, 8192, 0 },
		{ "nr_pages 0", offsetof(struct rb_header, nr_pages), 4, 0, 0 },
		{ "nr_pages 1", offsetof(struct rb_header, nr_pages), 4, 1, 0 },
		{ "nr_pages 3", offsetof(struct rb_header, nr_pages), 4, 3, 0 },
		{ "nr_pages 2^31", offsetof(struct rb_header, nr_pages), 4, 1u << 31, 0 },
		{ "nr_pages 2^32-1", offsetof(struct rb_header, nr_pages), 4, UINT32_MAX, 0 },
	};

	(void)state;
	tbuf_new(&b, 2, RB_MODE_CONSUMER);
	memcpy(&good, b.h, sizeof(good));
	file = calloc(1, size);
	assert_non_null(file);
	memcpy(file, b.h, sizeof(good));
	assert_int_equal(munmap(b.h, size), 0);
	b.h = NULL;

	/* the real thing opens */
	assert_int_equal(rb_open(b.path, &r), 0);
	assert_non_null(r.hdr);
	assert_int_equal(r.fd, -1);	/* the mapping is kept, not the descriptor */
	assert_int_equal(r.size, size);
	assert_int_equal(r.hdr->nr_pages, 2);
	rb_close(&r);
	assert_null(r.hdr);
	assert_int_equal(r.fd, -1);
	rb_close(&r);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(&bad, &good, sizeof(bad));
		if (cases[i].len)
			memcpy((char *)&bad + cases[i].off, &cases[i].value, cases[i].len);
		memcpy(file, &bad, sizeof(bad));
		write_bytes(b.path, file, cases[i].file_len ? cases[i].file_len
				       : cases[i].len ? size : 0);
		memset(&r, 0x55, sizeof(r));
		if (rb_open(b.path, &r) != -EINVAL)
			fail_msg("rb_open accepted a bad file: %s", cases[i].what);
		assert_null(r.hdr);
		assert_int_equal(r.fd, -1);
	}

	assert_int_equal(unlink(b.path), 0);
	memset(&r, 0x55, sizeof(r));
	assert_int_equal(rb_open(b.path, &r), -ENOENT);
	assert_null(r.hdr);
	assert_int_equal(r.fd, -1);
	assert_int_equal(rb_open(b.dir, &r), -EISDIR);
	free(file);
	tbuf_free(&b);
}

static void test_copy_page_bad(void **state)
{
	struct rb_writer w = { 0 };
	PAGE_BUF(buf);
	struct tbuf b;

	(void)state;
	tbuf_new(&b, 2, RB_MODE_CONSUMER);
	rb_writer_init(&w, b.h, 0);
	assert_true(put_entry(&w, 1, 1));
	assert_int_equal(rb_copy_page(b.h, 0, buf), 10);
	w.page->commit = RB_DATA_SIZE + 1;	/* corrupt */
	assert_int_equal(rb_copy_page(b.h, 0, buf), -1);
	w.page->commit = 10;
	w.page->seq = 77;
	assert_int_equal(rb_copy_page(b.h, 0, buf), -1);
	assert_int_equal(rb_copy_page(b.h, 2, buf), -1);
	tbuf_free(&b);
}

/* build a page by hand and run the iterator over it */
static int iter_page(const void *data, uint32_t commit, int *nrec)
{
	PAGE_BUF(buf);
	struct rb_page *p = (struct rb_page *)buf;
	const unsigned char *rec;
	struct rb_iter it;
	uint32_t len;
	uint64_t ts;
	int ret;

	memset(buf, 0, sizeof(buf));
	p->commit = commit;
	memcpy(p->data, data, commit < RB_DATA_SIZE ? commit : RB_DATA_SIZE);
	rb_iter_init(&it, p, ut_rec_len);
	*nrec = 0;
	while ((ret = rb_iter_next(&it, &rec, &len, &ts)) > 0)
		(*nrec)++;
	return ret;
}

static void test_iter_corrupt(void **state)
{
	unsigned char d[RB_DATA_SIZE];
	uint32_t h;
	uint16_t n;
	int nrec;

	(void)state;
	memset(d, 0, sizeof(d));
	assert_int_equal(iter_page(d, 0, &nrec), 0);
	assert_int_equal(nrec, 0);

	/* type 0 is reserved */
	assert_int_equal(iter_page(d, 4, &nrec), -1);
	/* a free type (entries.h) is sized: read when its count fits, else corrupt */
	for (uint32_t type = UT_REC_TRACE_DIR + 1; type < RB_TYPE_TIME_EXTEND; type++) {
		h = RB_HDR(type, 1);
		memcpy(d, &h, 4);
		n = 2;
		memcpy(d + 4, &n, 2);
		assert_int_equal(iter_page(d, 8, &nrec), 0);
		assert_int_equal(nrec, 1);
		n = 3;
		memcpy(d + 4, &n, 2);
		assert_int_equal(iter_page(d, 8, &nrec), -1);
		assert_int_equal(nrec, 0);
	}
	memset(d, 0, sizeof(d));

	/* a good ENTRY, then garbage */
	h = RB_HDR(UT_REC_ENTRY, 1);
	memcpy(d, &h, 4);
	ut_put48(d + 4, 0x1234);
	h = RB_HDR(12, 0);
	memcpy(d + 10, &h, 4);
	assert_int_equal(iter_page(d, 14, &nrec), -1);
	assert_int_equal(nrec, 1);
	/* an ENTRY cut by the commit */
	assert_int_equal(iter_page(d, 6, &nrec), -1);
	assert_int_equal(nrec, 0);
	assert_int_equal(iter_page(d, 3, &nrec), -1);
	assert_int_equal(iter_page(d, 10, &nrec), 0);
	assert_int_equal(nrec, 1);
	/* commit beyond the page */
	assert_int_equal(iter_page(d, RB_DATA_SIZE + 1, &nrec), -1);
	assert_int_equal(iter_page(d, UINT32_MAX, &nrec), -1);

	/* a TIME_EXTEND cut in half */
	h = RB_HDR(RB_TYPE_TIME_EXTEND, 1);
	memcpy(d, &h, 4);
	assert_int_equal(iter_page(d, 4, &nrec), -1);

	/* STACK: at most UT_STACK_MAX frames, all inside the commit */
	h = RB_HDR(UT_REC_STACK, 0);
	memcpy(d, &h, 4);
	n = 2;
	memcpy(d + 4, &n, 2);
	assert_int_equal(iter_page(d, 18, &nrec), 0);
	assert_int_equal(nrec, 1);
	assert_int_equal(iter_page(d, 17, &nrec), -1);
	n = UT_STACK_MAX + 1;
	memcpy(d + 4, &n, 2);
	assert_int_equal(iter_page(d, 6 + 6 * n, &nrec), -1);

	/* DATA longer than what is committed */
	h = RB_HDR(UT_REC_DATA, 0);
	memcpy(d, &h, 4);
	n = 100;
	memcpy(d + 4, &n, 2);
	assert_int_equal(iter_page(d, 106, &nrec), 0);
	assert_int_equal(iter_page(d, 105, &nrec), -1);
	n = 65535;
	memcpy(d + 4, &n, 2);
	assert_int_equal(iter_page(d, RB_DATA_SIZE, &nrec), -1);

	/* random bytes never crash the iterator */
	srand(1);
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(d); i++)
			d[i] = (unsigned char)rand();
		iter_page(d, (uint32_t)rand() % (RB_DATA_SIZE + 2), &nrec);
	}
}

/* ------------------------------------------------------------------ */
/*
 * Concurrency.  The writer writes ENTRY records with ip = 1..N and a time
 * computed from the ip (with a jump of 2^29 every 65536 records, so time
 * extends are in the stream too).  The reader drains like the recorder and
 * checks every page: DEPTH first and equal to the seq, then ips
 * consecutive except right after a page whose LOST flag says how many are
 * missing.
 */
static uint64_t stress_ts(uint64_t ip)
{
	return ip * 3 + (ip >> 16) * (1ull << 29);
}

struct check {
	uint64_t nread, last_ip, lost_flags, pages, copy_fail, errors, extends;
	char first_error[128];
};

static void check_error(struct check *c, uint64_t seq, const char *what, uint64_t v)
{
	if (!c->errors++)
		snprintf(c->first_error, sizeof(c->first_error), "page %" PRIu64 ": %s (%" PRIu64 ")",
			 seq, what, v);
}

static void check_page(void *arg, const struct rb_page *p, int n, uint64_t seq)
{
	struct check *c = arg;
	const unsigned char *r;
	uint32_t len, entries = 0, lost;
	struct rb_iter it;
	uint64_t ts, expect;
	int ret, first = 1;

	if (n < 0) {
		/* consumer mode: the writer cannot reuse a slot before tail passes it */
		c->copy_fail++;
		check_error(c, seq, "copy failed", 0);
		return;
	}
	c->pages++;
	if (p->seq != seq)
		check_error(c, seq, "seq", p->seq);
	lost = p->flags & RB_PAGE_LOST_MASK;
	c->lost_flags += lost;
	expect = c->last_ip + 1 + lost;
	rb_iter_init(&it, p, ut_rec_len);
	while ((ret = rb_iter_next(&it, &r, &len, &ts)) > 0) {
		uint32_t h, v;
		uint64_t ip;

		memcpy(&h, r, 4);
		if (RB_HDR_TYPE(h) == UT_REC_DEPTH) {
			memcpy(&v, r + 4, 4);
			if (!first || v != (uint32_t)seq)
				check_error(c, seq, "DEPTH", v);
			first = 0;
			continue;
		}
		if (first)
			check_error(c, seq, "no DEPTH first", RB_HDR_TYPE(h));
		first = 0;
		if (RB_HDR_TYPE(h) != UT_REC_ENTRY) {
			check_error(c, seq, "type", RB_HDR_TYPE(h));
			continue;
		}
		ip = ut_get48(r + 4);
		if (ip != expect)
			check_error(c, seq, "ip", ip);
		if (ts != stress_ts(ip))
			check_error(c, seq, "time", ts);
		if (ip && (ip & 0xffff) == 0)
			c->extends++;
		c->last_ip = ip;
		expect = ip + 1;
		entries++;
		c->nread++;
	}
	if (ret < 0)
		check_error(c, seq, "corrupt", it.off);
	if (entries != p->entries)
		check_error(c, seq, "entries", p->entries);
}

/* the writer has filled every page the reader has not taken back */
static int buffer_full(struct rb_header *h, uint64_t next)
{
	return __atomic_load_n(&h->head, __ATOMIC_ACQUIRE) + 1 - next >= h->nr_pages;
}

/* the reader loop of the recorder: drain until the writer has closed */
static void stress_read(struct rb_header *h, struct check *c)
{
	uint64_t next = 0, pause = 512;

	for (;;) {
		int closed = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;

		drain(h, &next, closed, check_page, c);
		if (closed)
			break;
		/*
		 * A pause every 512 pages makes sure the writer drops: wait
		 * until it has filled the buffer (a loaded machine may not run
		 * it during a fixed pause: the test then failed now and then),
		 * then give it time for a few records more, which are dropped.
		 */
		if (c->pages >= pause) {
			pause = c->pages + 512;
			for (int i = 0; i < 2000 && !buffer_full(h, next) &&
			     __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != RB_STATE_CLOSED; i++)
				usleep(1000);
			usleep(10000);
		}
	}
}

struct stress {
	struct rb_header *h;
	uint64_t n;		/* records to write */
	uint64_t written;
	uint32_t lost_pending;
};

static void *stress_write(void *arg)
{
	struct stress *s = arg;
	struct rb_writer w = { 0 };

	w.page_start = depth_page_start;
	rb_writer_init(&w, s->h, stress_ts(0));
	for (uint64_t ip = 1; ip <= s->n; ip++)
		s->written += put_entry(&w, stress_ts(ip), ip);
	/* drops at the very end are in hdr->lost but in no page's flags */
	s->lost_pending = w.lost_pending;
	rb_writer_close(&w);
	return NULL;
}

static void stress_verify(const struct stress *s, const struct check *c)
{
	const struct rb_header *h = s->h;

	print_message("read %" PRIu64 " in %" PRIu64 " pages, lost %" PRIu64
		      " (%u at the end), %" PRIu64 " time extends\n",
		      c->nread, c->pages, (uint64_t)h->lost, s->lost_pending, c->extends);
	if (c->errors)
		fail_msg("%" PRIu64 " errors, first: %s", c->errors, c->first_error);
	assert_int_equal(c->copy_fail, 0);
	assert_int_equal(c->nread, s->written);
	assert_int_equal(c->nread + h->lost, s->n);
	assert_int_equal(c->lost_flags + s->lost_pending, h->lost);
	assert_int_equal(c->last_ip + s->lost_pending, s->n);
	assert_int_equal(c->pages, h->head + 1);
	assert_int_equal(h->tail, h->head + 1);
}

/* one writer and its consumer: both paths were taken */
static void stress_verify_both(const struct stress *s, const struct check *c)
{
	stress_verify(s, c);
	assert_true(s->h->lost > 0);
	assert_true(c->nread > STRESS_PAGES * PER_PAGE);
}

static void test_stress_thread(void **state)
{
	struct stress s = { .n = STRESS_N };
	struct check c = { 0 };
	struct tbuf b;
	pthread_t th;

	(void)state;
	tbuf_new(&b, STRESS_PAGES, RB_MODE_CONSUMER);
	s.h = b.h;
	assert_int_equal(pthread_create(&th, NULL, stress_write, &s), 0);
	stress_read(b.h, &c);
	assert_int_equal(pthread_join(th, NULL), 0);
	stress_verify_both(&s, &c);
	tbuf_free(&b);
}

/* the reader is another process that opens the file, as the recorder does */
static void test_stress_process(void **state)
{
	struct stress s = { .n = STRESS_N };
	struct check c = { 0 };
	int ready[2], result[2], status;
	struct tbuf b;
	pid_t pid;
	char byte;

	(void)state;
	tbuf_new(&b, STRESS_PAGES, RB_MODE_CONSUMER);
	s.h = b.h;
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(result), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rb_reader r;

		close(ready[0]);
		close(result[0]);
		if (rb_open(b.path, &r) < 0)
			_exit(2);
		if (write(ready[1], "x", 1) != 1)
			_exit(3);
		stress_read(r.hdr, &c);
		if (write(result[1], &c, sizeof(c)) != sizeof(c))
			_exit(4);
		rb_close(&r);
		_exit(0);
	}
	close(ready[1]);
	close(result[1]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	stress_write(&s);
	assert_int_equal(read(result[0], &c, sizeof(c)), sizeof(c));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(ready[0]);
	close(result[0]);
	stress_verify_both(&s, &c);
	tbuf_free(&b);
}

/*
 * The recorder's shape: several threads, each writing its own buffer, and
 * one consumer that drains them all in turn (cli/record.c, drain_all()),
 * each until its writer has closed it.  The consumer is slower than four
 * writers together: buffers fill and drop, and each must still account
 * for every record.
 */
static void test_stress_writers(void **state)
{
	struct stress s[STRESS_WRITERS];
	struct check c[STRESS_WRITERS];
	struct tbuf b[STRESS_WRITERS];
	pthread_t th[STRESS_WRITERS];
	uint64_t next[STRESS_WRITERS] = { 0 }, pages, pause = 512, lost = 0;
	int done[STRESS_WRITERS] = { 0 }, left = STRESS_WRITERS;

	(void)state;
	memset(c, 0, sizeof(c));
	for (int i = 0; i < STRESS_WRITERS; i++) {
		tbuf_new(&b[i], STRESS_PAGES, RB_MODE_CONSUMER);
		s[i] = (struct stress){ .h = b[i].h, .n = STRESS_N / STRESS_WRITERS };
		assert_int_equal(pthread_create(&th[i], NULL, stress_write, &s[i]), 0);
	}
	while (left) {
		for (int i = 0; i < STRESS_WRITERS; i++) {
			int closed;

			if (done[i])
				continue;
			closed = __atomic_load_n(&b[i].h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;
			drain(b[i].h, &next[i], closed, check_page, &c[i]);
			if (closed) {
				done[i] = 1;
				left--;
			}
		}
		/* as stress_read(): a pause now and then makes sure that all of them drop */
		pages = 0;
		for (int i = 0; i < STRESS_WRITERS; i++)
			pages += c[i].pages;
		if (pages >= pause) {
			pause = pages + 512;
			usleep(1000);
		}
	}
	/*
	 * Each buffer accounts for every record.  How much of each was read
	 * depends on the scheduler (a writer may run to its end before the
	 * consumer gets to it); that some were dropped does not.
	 */
	for (int i = 0; i < STRESS_WRITERS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		stress_verify(&s[i], &c[i]);
		lost += b[i].h->lost;
	}
	assert_true(lost > 0);
	for (int i = 0; i < STRESS_WRITERS; i++)
		tbuf_free(&b[i]);
}

/*
 * Overwrite mode: a reader copies the newest pages while the writer laps
 * the buffer again and again.  A copy either fails (-1) or is exactly the
 * page it asked for: page s holds ips s * 405 + 1 ... in order.
 */
#define LAP_N	5000000ull

static void *lap_write(void *arg)
{
	struct rb_header *h = arg;
	struct rb_writer w = { 0 };

	rb_writer_init(&w, h, 1);
	for (uint64_t ip = 1; ip <= LAP_N; ip++)
		put_entry(&w, ip, ip);
	rb_writer_close(&w);
	return NULL;
}

static __attribute__((unused)) void test_overwrite_concurrent_copy(void **state)
{
	uint64_t ok = 0, failed = 0, errors = 0;
	struct tbuf b;
	pthread_t th;
	PAGE_BUF(buf);
	int closed;

	(void)state;
	tbuf_new(&b, 4, RB_MODE_OVERWRITE);
	assert_int_equal(pthread_create(&th, NULL, lap_write, b.h), 0);
	do {
		uint64_t head;

		closed = __atomic_load_n(&b.h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;
		head = __atomic_load_n(&b.h->head, __ATOMIC_ACQUIRE);
		for (uint64_t s = head >= 3 ? head - 3 : 0; s <= head; s++) {
			const struct rb_page *p = (const void *)buf;
			const unsigned char *r;
			struct rb_iter it;
			uint64_t ts, ip = s * PER_PAGE + 1;
			uint32_t len, k = 0;
			int n = rb_copy_page(b.h, s, buf), ret;

			/* n == 0: nothing written yet (a fresh file's slot 0 reads as page 0) */
			if (n <= 0) {
				failed += n < 0;
				continue;
			}
			ok++;
			errors += p->seq != s || p->ts != ip || n % ENTRY_LEN;
			rb_iter_init(&it, p, ut_rec_len);
			while ((ret = rb_iter_next(&it, &r, &len, &ts)) > 0) {
				errors += ut_get48(r + 4) != ip || ts != ip;
				ip++;
				k++;
			}
			errors += ret < 0 || k > PER_PAGE;
			/* a full page is complete: its count is final */
			errors += k == PER_PAGE ? p->entries != PER_PAGE : p->entries < k;
		}
	} while (!closed);
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("%" PRIu64 " good copies, %" PRIu64 " refused\n", ok, failed);
	assert_int_equal(errors, 0);
	assert_true(ok > 0);
	/* all pages but the last 4 were overwritten, each with 405 entries */
	assert_int_equal(b.h->head, (LAP_N - 1) / PER_PAGE);
	assert_int_equal(b.h->overrun, (b.h->head - 3) * PER_PAGE);
	tbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_rec_helpers),
		cmocka_unit_test(test_time_extend),
		cmocka_unit_test(test_time_backwards),
		cmocka_unit_test(test_page_crossing),
		cmocka_unit_test(test_populate),
		cmocka_unit_test(test_extend_at_page_end),
		cmocka_unit_test(test_consumer_lost),
		cmocka_unit_test(test_lost_flag_saturates),
		cmocka_unit_test(test_overwrite),
		cmocka_unit_test(test_overwrite_mixed),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_open_bad),
		cmocka_unit_test(test_copy_page_bad),
		cmocka_unit_test(test_iter_corrupt),
		cmocka_unit_test(test_stress_thread),
		cmocka_unit_test(test_stress_process),
		cmocka_unit_test(test_stress_writers),
#ifndef UT_TSAN
		/* a seqlock read races with the writer by design (see the top of the file) */
		cmocka_unit_test(test_overwrite_concurrent_copy),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
