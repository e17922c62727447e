/* SPDX-License-Identifier: MIT */
/*
 * ringbuf.h - per-thread, page-based, lock-free ring buffer in shared memory.
 *
 * The ring buffer knows nothing about tracers.  It stores variable-length
 * records, each starting with a 32-bit header:
 *
 *     31                                 4 3      0
 *    +------------------------------------+--------+
 *    |  time delta (28 bits) or value      |  type  |
 *    +------------------------------------+--------+
 *
 * Type 0 is reserved and type RB_TYPE_TIME_EXTEND (15) belongs to the ring
 * buffer; types 1..14 are defined by the user of the buffer (see
 * usertrace/record.h), which also tells the reader how long each one is.
 *
 * One buffer belongs to one thread (the writer).  The only code that can
 * interrupt a write is a signal handler running on that same thread; see
 * doc/design/ring-buffer.md for the rules.  Readers are other processes
 * (the recorder, the ctl/FUSE server) that map the same file.
 *
 * Layout of a buffer file:
 *
 *   +-------------------+  offset 0
 *   | struct rb_header  |  one page: identity, head/tail, accounting
 *   +-------------------+  offset RB_PAGE_SIZE
 *   | page 0            |  struct rb_page + data
 *   | page 1            |
 *   | ...               |
 *   | page nr_pages-1   |
 *   +-------------------+
 *
 * Pages are written in an endless sequence; page number `seq` lives in slot
 * seq % nr_pages.  `head` is the sequence number of the page being
 * written, `tail` the next page the consumer will read.
 */
#ifndef USERTRACE_RINGBUF_H
#define USERTRACE_RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RB_MAGIC		"UTRBUF\0\1"
#define RB_VERSION		1
#define RB_PAGE_SIZE		4096u
#define RB_PAGE_HDR		32u
/* bytes kept free at the end of a page so writers may store a few bytes past the record */
#define RB_PAGE_SLACK		8u
#define RB_DATA_SIZE		(RB_PAGE_SIZE - RB_PAGE_HDR - RB_PAGE_SLACK)
/* a writer wakes a sleeping consumer every so many pages (a saved chunk) */
#define RB_WAKE_PAGES		64u
/* page flags: low 24 bits count records lost just before this page */
#define RB_PAGE_LOST_MASK	0xffffffu

#define RB_TYPE_BITS		4
#define RB_TYPE_MASK		0xfu
#define RB_DELTA_BITS		28
#define RB_DELTA_MAX		((1u << RB_DELTA_BITS) - 1)
#define RB_TYPE_TIME_EXTEND	15	/* struct rb_time_extend */

/* the ring buffer's own record: a delta too large for a header */
struct rb_time_extend {
	uint32_t hdr;		/* RB_TYPE_TIME_EXTEND, the delta's low RB_DELTA_BITS */
	uint32_t hi;		/* the delta's bits above them */
} __attribute__((packed));
#define RB_TIME_EXTEND_LEN	((uint32_t)sizeof(struct rb_time_extend))

#define RB_HDR(type, delta)	((uint32_t)(type) | ((uint32_t)(delta) << RB_TYPE_BITS))
#define RB_HDR_TYPE(h)		((h) & RB_TYPE_MASK)
#define RB_HDR_DELTA(h)		((h) >> RB_TYPE_BITS)

enum rb_mode {
	RB_MODE_CONSUMER = 0,	/* producer/consumer: writer drops when full */
	RB_MODE_OVERWRITE = 1,	/* flight recorder: writer overwrites oldest */
};

/* rb_header.flags */
#define RB_HDR_GROWN	1u	/* made by grow(): its size is charged to a budget */
#define RB_HDR_MOVED	2u	/* closed because the writer went on in another buffer */
/*
 * The thread's end is in the buffer: its own exit path wrote it (ENDED),
 * or, once its process was gone, another process did (REAPED: the one
 * that set it first, with rb_writer_adopt(), then CLOSED).
 */
#define RB_HDR_ENDED	4u
#define RB_HDR_REAPED	8u
/*
 * Not a thread's own buffer: written for it by the recorder (the sched
 * events, recorder/sched_source.c).  Never reaped, never taken for a thread of
 * the process's image.
 */
#define RB_HDR_AUX	16u

enum rb_state {
	RB_STATE_ACTIVE = 1,
	RB_STATE_CLOSED = 2,	/* the thread has exited; no more writes */
};

/* page header: 32 bytes, then data */
struct rb_page {
	uint64_t seq;		/* which page of the endless sequence this slot holds */
	uint64_t ts;		/* timestamp base: the first record's delta is from here */
	uint32_t commit;	/* bytes of data committed (written by the writer only) */
	uint32_t entries;	/* records committed, excluding padding and time extends */
	uint32_t cpu;		/* cpu the writer was on when the page was started */
	uint32_t flags;
	unsigned char data[];
};

/* first page of a buffer file */
struct rb_header {
	char magic[8];
	uint32_t version;
	uint32_t page_size;
	uint32_t nr_pages;
	uint32_t mode;			/* enum rb_mode */
	int32_t pid;
	int32_t tid;
	char comm[16];
	uint64_t image;			/* id of the process image (see record.h) */
	/* written by the writer */
	volatile uint64_t head;		/* seq of the page being written */
	volatile uint64_t lost;		/* records dropped: buffer full (consumer mode), too big */
	volatile uint64_t overrun;	/* records overwritten (overwrite mode) */
	volatile uint32_t state;	/* enum rb_state */
	uint32_t flags;			/* RB_HDR_* */
	/* written by the consumer */
	volatile uint64_t tail;		/* seq of the next page to consume */
	volatile uint64_t read_entries;	/* records consumed so far */
};

static inline struct rb_page *rb_page_slot(struct rb_header *h, uint64_t seq)
{
	return (struct rb_page *)((char *)h + RB_PAGE_SIZE +
				  (size_t)(seq % h->nr_pages) * RB_PAGE_SIZE);
}

static inline size_t rb_file_size(uint32_t nr_pages)
{
	/* in size_t: nr_pages + 1 wraps to 0 for a corrupt nr_pages of 2^32 - 1 */
	return (size_t)RB_PAGE_SIZE * ((size_t)nr_pages + 1);
}

/* the length of the record at @rec, 0 if invalid or longer than @avail */
typedef uint32_t (*rb_len_fn)(const unsigned char *rec, uint32_t avail);

/*
 * Writer side.  Lives in the writer thread's TLS; never shared.
 */
struct rb_writer {
	struct rb_header *hdr;
	struct rb_page *page;	/* current page (hdr->head) */
	uint64_t last_ts;	/* timestamp of the last record written */
	uint32_t cpu;		/* last cpu recorded */
	uint32_t full;		/* consumer mode: could not advance (counting lost) */
	uint32_t lost_pending;	/* records dropped since the current page started */
	/* called on a fresh page before the first record, e.g. to write the depth */
	void (*page_start)(struct rb_writer *w, uint64_t ts);
	void (*wake)(struct rb_writer *w);	/* called at half full and every RB_WAKE_PAGES */
	/*
	 * Resizing (optional).  At a page switch, when *want_pages is not
	 * the buffer's nr_pages, renew() moves the writer to a new buffer of
	 * that size (rb_writer_init() on it) and returns 0; on -1 the writer
	 * goes on in the old buffer.
	 */
	const volatile uint32_t *want_pages;
	int (*renew)(struct rb_writer *w, uint64_t ts);
	/*
	 * Growing (optional, consumer mode).  When the next page's slot is
	 * not free, grow() may move the writer to a fresh buffer (with
	 * rb_writer_move()) and return 0, so nothing is dropped; on -1 the
	 * writer drops and counts as usual.  It is tried once per full
	 * episode: not again until a page could be started.
	 */
	int (*grow)(struct rb_writer *w, uint64_t ts);
	uint32_t grow_failed;
	/*
	 * First pass over the slots: the pages below this one are mapped.
	 * The writer maps the next RB_POPULATE_PAGES at once, one system
	 * call instead of a page fault per page; ~0u when the kernel cannot.
	 */
	uint32_t populated;
};

/* pages the writer maps ahead on its first pass (256 KiB) */
#define RB_POPULATE_PAGES	64

void rb_writer_init(struct rb_writer *w, struct rb_header *h, uint64_t now);
void rb_writer_move(struct rb_writer *w, struct rb_header *h, uint64_t now);
/* go on in @spare (emptied); returns the buffer written so far, untouched */
struct rb_header *rb_writer_swap(struct rb_writer *w, struct rb_header *spare, uint64_t now);
/* slow path of rb_reserve(): new page, time extend or dropped record */
unsigned char *rb_reserve_slow(struct rb_writer *w, uint32_t len, uint64_t *ts);
void rb_writer_close(struct rb_writer *w);
/* start the next page now (e.g. to mark lost records where they were lost); -1 if full */
int rb_writer_next_page(struct rb_writer *w, uint64_t ts);
/*
 * Go on writing @h, whose writer is gone (its process died): after the
 * last committed record of its head page, whose records @len measures.
 * No hooks (wake, grow, renew); a full buffer drops as usual.  Returns
 * 0, or -1 if the head page cannot be read (a writer stopped while
 * starting it, or a corrupt page).
 */
int rb_writer_adopt(struct rb_writer *w, struct rb_header *h, rb_len_fn len);

/*
 * rb_reserve - reserve @len bytes for a record at time *@ts.
 *
 * Returns a pointer where the record (header first) goes, or NULL when the
 * record must be dropped (consumer mode, buffer full: it is counted in
 * hdr->lost).  The caller writes the record and calls rb_commit().
 * *@ts is clamped so that time never runs backwards within a buffer; the
 * caller builds the header with RB_HDR(type, *ts - w->last_ts) before the
 * commit updates last_ts.
 *
 * Context: writer thread only; not reentrant (see the nesting rule in
 * doc/design/ring-buffer.md).
 */
static inline unsigned char *rb_reserve(struct rb_writer *w, uint32_t len, uint64_t *ts)
{
	struct rb_page *p = w->page;

	if (__builtin_expect(*ts < w->last_ts, 0))
		*ts = w->last_ts;
	if (__builtin_expect(p->commit + len > RB_DATA_SIZE ||
			     *ts - w->last_ts > RB_DELTA_MAX || w->full, 0))
		return rb_reserve_slow(w, len, ts);
	return p->data + p->commit;
}

static inline void rb_commit(struct rb_writer *w, uint32_t len, uint64_t ts, int counts)
{
	struct rb_page *p = w->page;

	w->last_ts = ts;
	p->entries += counts;
	/* the record must be visible before the commit that publishes it */
	__atomic_store_n(&p->commit, p->commit + len, __ATOMIC_RELEASE);
}

/*
 * Reader side.
 */

struct rb_reader {
	struct rb_header *hdr;
	size_t size;
	int fd;
};

int rb_create(const char *path, uint32_t nr_pages, enum rb_mode mode, struct rb_header **out);
int rb_create_reserved(const char *path, uint32_t nr_pages, enum rb_mode mode,
		       struct rb_header **out);
int rb_open(const char *path, struct rb_reader *r);
void rb_close(struct rb_reader *r);
void rb_discard(struct rb_reader *r);

/*
 * rb_copy_page - copy page @seq into @dst (RB_PAGE_SIZE bytes) if it still
 * holds that page.  Returns the committed bytes, or -1 if the page was
 * overwritten while being copied or holds another sequence number.
 */
int rb_copy_page(struct rb_header *h, uint64_t seq, void *dst);

/* iterate the records of a copied page; returns 0 at the end, -1 on corruption */
struct rb_iter {
	const struct rb_page *page;
	uint32_t off;
	uint64_t ts;
	rb_len_fn len;
};
void rb_iter_init(struct rb_iter *it, const struct rb_page *page, rb_len_fn len);
/* next record: *rec points at its header, *ts is its absolute timestamp */
int rb_iter_next(struct rb_iter *it, const unsigned char **rec, uint32_t *len, uint64_t *ts);

#endif /* USERTRACE_RINGBUF_H */
