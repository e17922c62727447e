// SPDX-License-Identifier: MIT
/*
 * ringbuf.c - per-thread lock-free ring buffer in shared memory.
 *
 * One writer (the traced thread), any number of readers in other
 * processes.  The buffer is a file on a tmpfs mapped MAP_SHARED by both
 * sides, so a reader sees the data live and keeps it after the writer's
 * process has died (even by SIGKILL: nothing is kept in the writer's
 * private memory).
 *
 *            tail                      head
 *             |                         |
 *   ... [seq 7][seq 8][seq 9][seq 10][seq 11] ...   endless page sequence
 *         ^ consumed  ^----- full ------^ ^ being written
 *
 * Page `seq` lives in slot seq % nr_pages.  The writer fills page `head`;
 * when a record does not fit it moves to head + 1:
 *
 *  - consumer mode: only if slot head + 1 is free, i.e. head + 1 - tail <
 *    nr_pages.  Otherwise the writer's grow() hook may move it to a fresh
 *    buffer (the recorder then reads both, the old one first); if there is
 *    none, or it fails, the record is dropped and counted in `lost`; the
 *    next page that gets started carries the count in its flags, so the
 *    reader prints [LOST N EVENTS] where the hole is.
 *  - overwrite mode: always; the entries of the page it replaces are added
 *    to `overrun`.  Readers detect the overwrite by the page's seq.
 *
 * Publishing rule: the writer stores the record, then stores the page's
 * commit with release semantics.  A reader loads commit with acquire and
 * may use the bytes below it.  Before reusing a slot the writer first
 * stores seq = ~0 (release) and only then the new data and the new seq,
 * so a reader that copies a slot and finds the same seq before and after
 * the copy knows the copy is good.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usertrace/ringbuf.h"

#define SEQ_INVALID	(~0ull)

static inline void rb_store_rel64(volatile uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint64_t rb_load_acq64(const volatile uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23	/* Linux 5.14 */
#endif

/*
 * The first write to each page of a new buffer faults, and on a tmpfs
 * the fault also allocates and clears the page: with many threads that
 * outrun the recorder, this was half of the tracer's time in the
 * program's threads.  Mapping 64 pages in one call costs a fraction of
 * 64 faults.  A failure (an old kernel, a full tmpfs) is left to the
 * faults, as before.  Only a system call: safe in a signal handler.
 */
static void rb_populate(struct rb_writer *w, struct rb_header *h, uint64_t seq)
{
	uint32_t n = RB_POPULATE_PAGES;
	int saved = errno;	/* the program's */

	if (seq >= h->nr_pages || (uint32_t)seq < w->populated)
		return;
	if (n > h->nr_pages - (uint32_t)seq)
		n = h->nr_pages - (uint32_t)seq;
	if (madvise(rb_page_slot(h, seq), (size_t)n * RB_PAGE_SIZE, MADV_POPULATE_WRITE) < 0 &&
	    errno == EINVAL)
		w->populated = ~0u;
	else
		w->populated = (uint32_t)seq + n;
	errno = saved;
}

static void rb_start_page(struct rb_writer *w, uint64_t seq, uint64_t ts)
{
	struct rb_header *h = w->hdr;
	struct rb_page *p = rb_page_slot(h, seq);
	uint32_t lost = w->lost_pending;

	rb_populate(w, h, seq);

	if (h->mode == RB_MODE_OVERWRITE && seq >= h->nr_pages &&
	    rb_load_acq64(&p->seq) == seq - h->nr_pages)
		h->overrun += p->entries;

	rb_store_rel64((volatile uint64_t *)&p->seq, SEQ_INVALID);
	/*
	 * The release above orders the old page before SEQ_INVALID, not the
	 * new page after it: this fence (smp_wmb) keeps the stores below from
	 * becoming visible before SEQ_INVALID, so a reader whose copy caught
	 * any of them sees the seq change when it checks again.
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	p->ts = ts;
	p->commit = 0;
	p->entries = 0;
	p->cpu = w->cpu;
	p->flags = lost > RB_PAGE_LOST_MASK ? RB_PAGE_LOST_MASK : lost;
	rb_store_rel64((volatile uint64_t *)&p->seq, seq);
	w->page = p;
	w->last_ts = ts;
	w->lost_pending = 0;
	w->full = 0;
	rb_store_rel64(&h->head, seq);
	if (w->page_start)
		w->page_start(w, ts);
}

/**
 * rb_writer_init - attach the writer state to a freshly created buffer
 * @w: writer state (thread-local)
 * @h: the mapped buffer
 * @now: timestamp base of the first page
 */
void rb_writer_init(struct rb_writer *w, struct rb_header *h, uint64_t now)
{
	w->hdr = h;
	w->full = 0;
	w->lost_pending = 0;
	w->populated = 0;
	rb_start_page(w, 0, now);
}

/*
 * rb_writer_move - go on in another, fresh buffer @h (a resize)
 *
 * The records dropped since the current page started are marked on the
 * new buffer's first page and counted in its `lost`, no longer in the
 * old one's, so each buffer's page marks still add up to its `lost`.
 */
void rb_writer_move(struct rb_writer *w, struct rb_header *h, uint64_t now)
{
	uint32_t pending = w->lost_pending;

	w->hdr->lost -= pending;
	w->hdr = h;
	w->full = 0;
	if (w->populated != ~0u)
		w->populated = 0;
	h->lost = pending;
	rb_start_page(w, 0, now);
}

/*
 * rb_writer_swap - the max-latency swap, O(1): the writer goes on in
 * @spare, emptied (its counters and pages are a new trace from now on),
 * and the buffer it wrote is returned with its pages, head and counters
 * as they are: the trace that led here.  Nothing is copied.  Counts of
 * records dropped since the current page started move to @spare, as in
 * rb_writer_move().
 */
struct rb_header *rb_writer_swap(struct rb_writer *w, struct rb_header *spare, uint64_t now)
{
	struct rb_header *cur = w->hdr;

	spare->overrun = 0;
	spare->lost = 0;
	spare->tail = 0;
	spare->read_entries = 0;
	spare->flags = 0;
	__atomic_store_n(&spare->state, RB_STATE_ACTIVE, __ATOMIC_RELEASE);
	rb_writer_move(w, spare, now);
	return cur;
}

/* Move to the next page.  Returns -1 when the buffer is full in consumer mode. */
static int rb_next_page(struct rb_writer *w, uint64_t ts)
{
	struct rb_header *h = w->hdr;
	uint64_t next = h->head + 1;

	if (w->want_pages && *w->want_pages != h->nr_pages && w->renew && w->renew(w, ts) == 0)
		return 0;
	if (h->mode == RB_MODE_CONSUMER) {
		uint64_t used = next - rb_load_acq64(&h->tail);

		if (used >= h->nr_pages) {
			/* the consumer is behind: go on in more memory if we may */
			if (!w->full && !w->grow_failed && w->grow) {
				if (w->grow(w, ts) == 0)
					return 0;
				w->grow_failed = 1;
			}
			if (!w->full && w->wake)
				w->wake(w);
			w->full = 1;
			return -1;
		}
		w->grow_failed = 0;
		/*
		 * Half full, or another chunk's worth written: make sure the
		 * consumer is awake (a system call only when it sleeps).  A
		 * consumer woken often keeps up, so little is left to save
		 * when the program ends.
		 */
		if ((used == h->nr_pages / 2 || !(next % RB_WAKE_PAGES)) && w->wake)
			w->wake(w);
	}
	rb_start_page(w, next, ts);
	return 0;
}

/*
 * Slow path of rb_reserve(): the record does not fit in the page, its
 * delta does not fit in 28 bits, or the buffer was full.
 */
unsigned char *rb_reserve_slow(struct rb_writer *w, uint32_t len, uint64_t *ts)
{
	struct rb_page *p = w->page;
	uint64_t delta;

	/* larger than any page: do not throw a page away for it */
	if (len > RB_DATA_SIZE)
		goto drop;
	if (w->full || p->commit + len > RB_DATA_SIZE) {
		if (rb_next_page(w, *ts) < 0)
			goto drop;
		p = w->page;
		/* page_start may have written records: the rest of the page is too small */
		if (p->commit + len > RB_DATA_SIZE)
			goto drop;
	}
	delta = *ts - w->last_ts;
	if (delta > RB_DELTA_MAX) {
		uint32_t h, hi;

		if (p->commit + RB_TIME_EXTEND_LEN + len > RB_DATA_SIZE) {
			if (rb_next_page(w, *ts) < 0)
				goto drop;
			p = w->page;
			if (p->commit + len > RB_DATA_SIZE)
				goto drop;
			return p->data + p->commit;
		}
		h = RB_HDR(RB_TYPE_TIME_EXTEND, delta & RB_DELTA_MAX);
		hi = (uint32_t)(delta >> RB_DELTA_BITS);
		memcpy(p->data + p->commit + offsetof(struct rb_time_extend, hdr), &h, sizeof(h));
		memcpy(p->data + p->commit + offsetof(struct rb_time_extend, hi), &hi, sizeof(hi));
		rb_commit(w, RB_TIME_EXTEND_LEN, *ts, 0);
	}
	return p->data + p->commit;
drop:
	w->hdr->lost++;
	w->lost_pending++;
	return NULL;
}

int rb_writer_next_page(struct rb_writer *w, uint64_t ts)
{
	return rb_next_page(w, ts);
}

int rb_writer_adopt(struct rb_writer *w, struct rb_header *h, rb_len_fn len)
{
	uint64_t head = rb_load_acq64(&h->head);
	struct rb_page *p = rb_page_slot(h, head);
	struct rb_iter it;
	const unsigned char *rec;
	uint32_t l;
	uint64_t ts;
	int r;

	if (rb_load_acq64(&p->seq) != head || p->commit > RB_DATA_SIZE)
		return -1;
	memset(w, 0, sizeof(*w));
	w->hdr = h;
	w->page = p;
	w->cpu = p->cpu;
	w->populated = ~0u;
	rb_iter_init(&it, p, len);
	while ((r = rb_iter_next(&it, &rec, &l, &ts)) > 0)
		;
	if (r < 0)
		return -1;
	/* the time of the last record, or of a time extend after it */
	w->last_ts = it.ts;
	return 0;
}

/* the writer is done: the thread exits */
void rb_writer_close(struct rb_writer *w)
{
	if (!w->hdr)
		return;
	__atomic_store_n(&w->hdr->state, RB_STATE_CLOSED, __ATOMIC_RELEASE);
}

static int __rb_create(const char *path, uint32_t nr_pages, enum rb_mode mode, int reserve,
		       struct rb_header **out)
{
	struct rb_header *h;
	size_t size;
	int fd, err;

	if (nr_pages < 2)
		return -EINVAL;
	size = rb_file_size(nr_pages);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0)
		goto error;
	/* the memory now: a tmpfs that runs full fails here, not with SIGBUS later */
	if (reserve && (errno = posix_fallocate(fd, 0, (off_t)size)) != 0)
		goto error;
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		goto error;
	close(fd);
	memcpy(h->magic, RB_MAGIC, 8);
	h->version = RB_VERSION;
	h->page_size = RB_PAGE_SIZE;
	h->nr_pages = nr_pages;
	h->mode = mode;
	h->state = RB_STATE_ACTIVE;
	*out = h;
	return 0;
error:
	err = -errno;
	close(fd);
	unlink(path);
	return err;
}

/**
 * rb_create - create and map a buffer file
 * @path: file to create (must not exist)
 * @nr_pages: data pages, at least 2
 * @mode: RB_MODE_CONSUMER or RB_MODE_OVERWRITE
 * @out: the mapping
 *
 * The file is sparse: its memory is taken as pages are first written.
 * Only system calls: safe to call from a signal handler and from a
 * forked child.  Returns 0 or a negative errno.
 */
int rb_create(const char *path, uint32_t nr_pages, enum rb_mode mode, struct rb_header **out)
{
	return __rb_create(path, nr_pages, mode, 0, out);
}

/**
 * rb_create_reserved - rb_create(), with all of the file's memory taken now
 *
 * For a buffer that will be filled (growth): -ENOSPC when the tmpfs has
 * no room, instead of a SIGBUS in the writer at a page it cannot back.
 */
int rb_create_reserved(const char *path, uint32_t nr_pages, enum rb_mode mode,
		       struct rb_header **out)
{
	return __rb_create(path, nr_pages, mode, 1, out);
}

static int rb_header_valid(const struct rb_header *h, size_t size)
{
	return memcmp(h->magic, RB_MAGIC, 8) == 0 && h->version == RB_VERSION &&
	       h->page_size == RB_PAGE_SIZE && h->nr_pages >= 2 &&
	       rb_file_size(h->nr_pages) <= size;
}

/**
 * rb_open - map an existing buffer for reading and consuming
 *
 * Returns 0 or a negative errno (-EINVAL if the file is not a buffer).
 */
int rb_open(const char *path, struct rb_reader *r)
{
	struct stat st;
	int err;

	r->hdr = NULL;
	r->fd = open(path, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	if (fstat(r->fd, &st) < 0)
		goto error;
	if ((size_t)st.st_size < rb_file_size(2)) {
		errno = EINVAL;
		goto error;
	}
	r->size = (size_t)st.st_size;
	r->hdr = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (r->hdr == MAP_FAILED)
		goto error;
	if (!rb_header_valid(r->hdr, r->size)) {
		munmap(r->hdr, r->size);
		errno = EINVAL;
		goto error;
	}
	/* the mapping is all a reader uses: no descriptor held per buffer */
	close(r->fd);
	r->fd = -1;
	return 0;
error:
	err = -errno;
	close(r->fd);
	r->fd = -1;
	r->hdr = NULL;
	return err;
}

void rb_close(struct rb_reader *r)
{
	if (r->hdr)
		munmap(r->hdr, r->size);
	if (r->fd >= 0)
		close(r->fd);
	r->hdr = NULL;
	r->fd = -1;
}

/**
 * rb_discard - rb_close() a buffer that is done with, freeing its pages now
 *
 * The writer may still map it (a moved buffer until its next move, an
 * exited thread's until the process exits), and whoever unmaps an
 * unlinked file last pays for freeing its memory: that should be the
 * reader, not the traced program.  The header page stays (an interrupted
 * writer may still count a lost record in it).
 */
void rb_discard(struct rb_reader *r)
{
	if (r->hdr)
		madvise((char *)r->hdr + RB_PAGE_SIZE, r->size - RB_PAGE_SIZE, MADV_REMOVE);
	rb_close(r);
}

int rb_copy_page(struct rb_header *h, uint64_t seq, void *dst)
{
	struct rb_page *p = rb_page_slot(h, seq);
	struct rb_page *d = dst;
	uint32_t commit;

	if (rb_load_acq64((volatile uint64_t *)&p->seq) != seq)
		return -1;
	commit = __atomic_load_n(&p->commit, __ATOMIC_ACQUIRE);
	if (commit > RB_DATA_SIZE)
		return -1;
	memcpy(d, p, RB_PAGE_HDR + commit);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (rb_load_acq64((volatile uint64_t *)&p->seq) != seq)
		return -1;
	d->commit = commit;
	return (int)commit;
}

void rb_iter_init(struct rb_iter *it, const struct rb_page *page, rb_len_fn len)
{
	it->page = page;
	it->off = 0;
	it->ts = page->ts;
	it->len = len;
}

int rb_iter_next(struct rb_iter *it, const unsigned char **rec, uint32_t *len, uint64_t *ts)
{
	uint32_t commit = it->page->commit;

	for (;;) {
		const unsigned char *r;
		uint32_t h, l;

		if (it->off >= commit)
			return 0;
		if (commit > RB_DATA_SIZE || commit - it->off < 4)
			return -1;
		r = it->page->data + it->off;
		memcpy(&h, r, sizeof(h));
		if (RB_HDR_TYPE(h) == RB_TYPE_TIME_EXTEND) {
			uint32_t hi;

			if (commit - it->off < RB_TIME_EXTEND_LEN)
				return -1;
			memcpy(&hi, r + offsetof(struct rb_time_extend, hi), sizeof(hi));
			it->ts += RB_HDR_DELTA(h) | ((uint64_t)hi << RB_DELTA_BITS);
			it->off += RB_TIME_EXTEND_LEN;
			continue;
		}
		l = it->len(r, commit - it->off);
		if (l == 0)
			return -1;
		it->ts += RB_HDR_DELTA(h);
		it->off += l;
		*rec = r;
		*len = l;
		*ts = it->ts;
		return 1;
	}
}
