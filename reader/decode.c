// SPDX-License-Identifier: MIT
/*
 * decode.c - decode a usertrace data directory into events, merged by time.
 *
 * Each DIR/<pid>.<tid>.<image>.dat file is read through a cursor that
 * walks its pages and turns records into struct ut_event.  The cursor
 * keeps the thread's open calls, so an EXIT learns which function it
 * closes and at what depth, and it resynchronises on the DEPTH record that
 * starts every page (after lost or overwritten pages) and on the STACK
 * record a forked child starts with; when they change the depth right
 * after lost records, a UT_EV_DEPTH event tells the reader that calls
 * ended or began unseen.  A RETURN (a whole call recorded at its return,
 * tracing_thresh) carries its own depth and duration and leaves the open
 * calls alone; a TRACE (a stack trace) points at its ips in the mapped
 * file, as a DATA record's text.
 *
 * A merge is a binary heap of cursors ordered by their next event's
 * timestamp (ties by thread order, so the output is deterministic).
 *
 * The same cursor reads other page sources (struct ut_page_src: the live
 * ring buffers of the tracing directory, tracefs/live_stage.c), from
 * a stream state kept by its owner (struct ut_stream: a trace_pipe reader
 * goes on where it stopped), and runs a stage on each event it decodes
 * (ut_stage_fn: what a view hides), so that every reader of records
 * decodes them here and nowhere else.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "usertrace/datfile.h"
#include "reader/data.h"
#include "reader/data_int.h"
#include "utils/utils.h"

#define MAX_OPEN	UT_STREAM_MAX_OPEN

static uint32_t rec_len(const unsigned char *rec, uint32_t avail)
{
	return ut_rec_len(rec, avail);
}

/*
 * One thread's events.
 */
struct cursor {
	struct ut_data *d;
	struct ut_thread_info *ti;
	int index;			/* thread order, for ties */
	const unsigned char *map;
	size_t size;
	uint64_t nr_pages, page;	/* next page to open */
	int in_page;
	uint64_t last_seq;
	struct rb_iter it;
	struct ut_stream st;		/* cpu, depth, open calls, lost records */
	struct ut_event ev[2];		/* decoded, not yet returned */
	int nev;
	int done, error;
	int heap_pos;
	uint64_t marked_lost;		/* LOST events returned so far */
	int tail_done;
	/* a page source other than the file (ut_merge_add()), its stage */
	const struct ut_page_src *src;
	struct ut_page_src src_copy;
	uint32_t skip;			/* bytes of the page already read */
	ut_stage_fn stage;
	void *stage_arg;
	struct ut_stream *saved;	/* where the state goes back at the end */
	/* compressed files: the chunk being read, decompressed */
	ZSTD_DCtx *zd;			/* the merge's, shared by its cursors */
	unsigned char *zpages;
	uint64_t zoff;			/* file offset of the next chunk */
	uint32_t znr, zidx;		/* pages in the chunk, next one to open */
	int zhole;			/* the rest of the chunk is damaged: a hole after its pages */
	uint32_t zcap;			/* pages zpages can hold */
	uint64_t zchunk, zend;		/* file bytes of the chunk in zpages */
	uint64_t dropped;		/* bytes of the mapping given back (cursor_drop()) */
	/*
	 * Damage (a .dat file's): a run of damaged pages not yet said (the
	 * first's number and why), and a hole: data skipped, a LOST event of
	 * an unknown count goes before the next event.
	 */
	uint64_t bad_first, bad_pages;
	char bad_why[160];
	int hole, tail_hole;
	unsigned int reports;		/* damage reports made (ti->said: printed) */
	/* copies of the DATA/TRACE/EVENT payloads handed out (see cursor_keep()) */
	unsigned char (*keep)[RB_PAGE_SIZE];
	unsigned int keep_next;
};

#define KEEP_SLOTS	4

struct ut_merge {
	struct ut_data *d;
	struct cursor *cur;
	int nr;
	struct cursor **heap;
	int heap_n;
	struct cursor *last;
	int cap;			/* ut_merge_new_src(): room for cursors */
	ZSTD_DCtx *zd;			/* decompresses for every cursor, one at a time */
	int damaged;			/* a file of the merge's was damaged or skipped (said) */
};

static void cursor_ev(struct cursor *c, struct ut_event *ev, enum ut_ev_type type, uint64_t ts)
{
	ev->type = type;
	ev->depth = 0;
	ev->ip = ev->parent = ev->count = ev->duration = 0;
	ev->dir = ev->weight = 0;
	ev->data = NULL;
	ev->data_len = 0;
	ev->pid = c->ti->pid;
	ev->tid = c->ti->tid;
	ev->image = c->ti->image;
	ev->cpu = c->st.cpu;
	ev->ctx = c->st.ctx;
	ev->preempt = c->st.preempt;
	ev->ctx_gap = c->st.ctx_gap;
	c->st.ctx_gap = 0;
	ev->has_task = c->st.has_task;
	if (c->st.has_task)
		ev->task = c->st.task;
	c->st.has_task = 0;
	ev->ts = ut_data_ns(c->d, ts);
	ev->thread = c->ti;
}

static void cursor_set_depth(struct cursor *c, uint32_t depth)
{
	if (depth > MAX_OPEN)
		depth = MAX_OPEN;
	while (c->st.depth < depth)
		c->st.stack[c->st.depth++] = 0;
	c->st.depth = depth;
}

/* cursor_next() reads the ip of ENTRY and ENTRY_PARENT alike */
_Static_assert(UT_REC_OFF(entry, ip) == UT_REC_OFF(entry_parent, ip), "ENTRY, ENTRY_PARENT");

/*
 * The part of the file read more than DROP_BEHIND ago goes back to the
 * kernel: a reader's memory stays the same however long the file (the
 * exports of traces of hundreds of millions of calls).  The events
 * handed out point at most a page or two behind (a cursor holds two).
 */
#define DROP_BEHIND	(4u << 20)
#define DROP_STEP	(4u << 20)

static void cursor_drop(struct cursor *c, uint64_t at)
{
	uint64_t end;

	if (at < DROP_BEHIND + DROP_STEP || at - DROP_BEHIND - c->dropped < DROP_STEP)
		return;
	end = (at - DROP_BEHIND) & ~(uint64_t)(RB_PAGE_SIZE - 1);
	madvise((void *)(c->map + c->dropped), (size_t)(end - c->dropped), MADV_DONTNEED);
	c->dropped = end;
}

/*
 * Say a damage of the file (once: readers that read a file twice, as the
 * latency tracers do, print it once), and remember it for the status;
 * @hole: data was skipped there.
 */
static void __attribute__((format(printf, 3, 4))) cursor_damage(struct cursor *c, int hole,
								  const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	c->error = 1;
	c->hole |= hole;
	if (++c->reports <= c->ti->said)
		return;
	c->ti->said = c->reports;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("%s: %s", c->ti->path, msg);
}

/* file bytes of page @n (0: the first after the header) of an uncompressed file */
#define PAGE_OFF(n)	(((uint64_t)(n) + 1) * RB_PAGE_SIZE)

/* say the run of damaged pages that ends here */
static void cursor_say_bad(struct cursor *c)
{
	uint64_t first = c->bad_first, last = first + c->bad_pages - 1;

	if (!c->bad_pages)
		return;
	c->bad_pages = 0;
	if (c->zd)
		cursor_damage(c, 1, "page%s %" PRIu64 "%s%.0" PRIu64 " (%s%" PRIu64 " of the chunk at bytes %"
			      PRIu64 "-%" PRIu64 ") damaged (%s): skipped, %" PRIu64 " page%s",
			      first == last ? "" : "s", first, first == last ? "" : "-",
			      first == last ? 0 : last, first == last ? "its page " : "from its page ",
			      first - (c->page - c->zidx), c->zchunk, c->zend - 1, c->bad_why,
			      last - first + 1, first == last ? "" : "s");
	else
		cursor_damage(c, 1, "page%s %" PRIu64 "%s%.0" PRIu64 " (bytes %" PRIu64 "-%" PRIu64
			      ") damaged (%s): skipped, %" PRIu64 " page%s",
			      first == last ? "" : "s", first, first == last ? "" : "-",
			      first == last ? 0 : last, PAGE_OFF(first), PAGE_OFF(last + 1) - 1,
			      c->bad_why, last - first + 1, first == last ? "" : "s");
}

/* a chunk header at @off that a reader can try: it fits, and a zstd frame follows */
static int cursor_chunk_at(const struct cursor *c, uint64_t off, struct ut_dat_chunk *ch)
{
	if (off + sizeof(*ch) + 4 > c->size)
		return 0;
	memcpy(ch, c->map + off, sizeof(*ch));
	return data_chunk_valid(ch, off, c->size) && !memcmp(c->map + off + sizeof(*ch), data_zstd_magic, 4);
}

/* say the bytes [@from, @off) skipped before the next chunk that decompresses (or the end) */
static void cursor_say_skipped(struct cursor *c, uint64_t from, uint64_t off, const char *why,
			       uint64_t headers, uint64_t first_pages, uint64_t first_csize)
{
	if (headers <= 1 && first_pages && off >= c->size)
		cursor_damage(c, 1, "bytes %" PRIu64 "-%" PRIu64 " damaged (%s): skipped to the "
			      "end of the file, a chunk of %" PRIu64 " pages", from, off - 1,
			      why, first_pages);
	else if (first_csize && off < c->size &&
		 off == from + sizeof(struct ut_dat_chunk) + first_csize)
		cursor_damage(c, 1, "the chunk at bytes %" PRIu64 "-%" PRIu64 " damaged (%s): "
			      "skipped, %" PRIu64 " pages", from, off - 1, why, first_pages);
	else
		cursor_damage(c, 1, "bytes %" PRIu64 "-%" PRIu64 " damaged (%s): skipped%s, "
			      "an unknown number of pages", from, off - 1, why,
			      off >= c->size ? " to the end of the file" : "");
}

/*
 * A chunk whose frame does not decompress whole: its pages before the
 * damage, decompressed as a stream up to it, into c->zpages.  Returns how
 * many of them pass their checks, the first ones (0: none).
 */
static uint32_t chunk_head(struct cursor *c, uint64_t off, const struct ut_dat_chunk *ch)
{
	ZSTD_inBuffer in = { c->map + off + sizeof(*ch), 0, 0 };
	ZSTD_outBuffer out = { c->zpages, (size_t)ch->nr_pages * RB_PAGE_SIZE, 0 };
	uint32_t good, check;

	/*
	 * The input a little at a time: given all of it, the decoder fails
	 * before it hands out the blocks before the damaged one.
	 */
	ZSTD_DCtx_reset(c->zd, ZSTD_reset_session_only);
	while (in.pos < ch->csize && out.pos < out.size) {
		size_t r;

		if (in.size < ch->csize && in.size - in.pos < 4096)
			in.size = in.size + 4096 < ch->csize ? in.size + 4096 : ch->csize;
		r = ZSTD_decompressStream(c->zd, &out, &in);
		if (ZSTD_isError(r) || !r)
			break;
	}
	ZSTD_DCtx_reset(c->zd, ZSTD_reset_session_only);
	for (good = 0; good < out.pos / RB_PAGE_SIZE; good++) {
		const struct rb_page *p = (const void *)(c->zpages + (size_t)good * RB_PAGE_SIZE);

		memcpy(&check, (const unsigned char *)p + UT_DAT_PAGE_CHECK_OFF, 4);
		if (p->commit > RB_DATA_SIZE || check != ut_dat_page_check(p, good))
			break;
	}
	return good < ch->nr_pages ? good : 0;
}

/*
 * Decompress the next chunk of a compressed file; 1, 0 at the end.  A
 * chunk whose header or frame is damaged is skipped, up to the next one
 * that decompresses to its pages (found by its magic): the bytes in
 * between are said.
 */
static int cursor_next_chunk(struct cursor *c)
{
	uint64_t from = c->zoff, off = c->zoff, first_pages = 0, first_csize = 0, headers = 0;
	struct ut_dat_chunk ch;
	char why[160] = "";
	size_t n, want;

	while (off < c->size) {
		if (!cursor_chunk_at(c, off, &ch)) {
			const unsigned char *at;

			if (!why[0]) {
				memset(&ch, 0, sizeof(ch));
				memcpy(&ch, c->map + off, off + sizeof(ch) <= c->size ? sizeof(ch) : 0);
				/* a chunk cut short still says how many pages it held */
				if (ch.magic == UT_CHUNK_MAGIC && ch.nr_pages >= 1 &&
				    ch.nr_pages <= UT_CHUNK_PAGES)
					first_pages = ch.nr_pages;
				snprintf(why, sizeof(why), "%s",
					 off + sizeof(ch) > c->size ? "the file ends inside a chunk header" :
					 ch.magic != UT_CHUNK_MAGIC ? "no chunk header there" :
					 off + sizeof(ch) + ch.csize > c->size &&
					 ch.csize <= ZSTD_compressBound(UT_CHUNK_PAGES * RB_PAGE_SIZE) ?
					 "a chunk cut short: the file is truncated" :
					 "a chunk header that cannot be read");
			}
			/* resynchronise: the next chunk magic */
			at = off + 1 < c->size ? memmem(c->map + off + 1, c->size - off - 1,
							&(uint32_t){ UT_CHUNK_MAGIC }, 4) : NULL;
			off = at ? (uint64_t)(at - c->map) : c->size;
			continue;
		}
		headers++;
		if (off == from) {
			first_pages = ch.nr_pages;
			first_csize = ch.csize;
		}
		want = (size_t)ch.nr_pages * RB_PAGE_SIZE;
		/* as large as the largest chunk so far: a short thread needs little */
		if (ch.nr_pages > c->zcap) {
			c->zpages = xrealloc(c->zpages, want);
			c->zcap = ch.nr_pages;
		}
		n = ZSTD_decompressDCtx(c->zd, c->zpages, want, c->map + off + sizeof(ch), ch.csize);
		if (ZSTD_isError(n) || n != want) {
			char err[96];
			uint32_t good;

			snprintf(err, sizeof(err), "its frame does not decompress: %s",
				 ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
			/* its pages before the damage, where their checks can tell */
			good = c->ti->checked ? chunk_head(c, off, &ch) : 0;
			if (good) {
				if (off > from)
					cursor_say_skipped(c, from, off, why, headers - 1, first_pages,
							   first_csize);
				cursor_damage(c, 0, "the chunk at bytes %" PRIu64 "-%" PRIu64 " damaged "
					      "(%s): its pages %u-%u skipped, %u pages; its pages 0-%u "
					      "read", off, off + sizeof(ch) + ch.csize - 1, err, good,
					      ch.nr_pages - 1, ch.nr_pages - good, good - 1);
				/* the hole comes after the pages read */
				c->zhole = 1;
				c->zchunk = off;
				c->zoff = c->zend = off + sizeof(ch) + ch.csize;
				c->znr = good;
				c->zidx = 0;
				return 1;
			}
			if (!why[0])
				snprintf(why, sizeof(why), "%s", err);
			off++;
			continue;
		}
		break;
	}
	if (off > from)
		cursor_say_skipped(c, from, off, why, headers, first_pages, first_csize);
	if (off < c->size) {
		uint64_t entries = 0;

		for (uint32_t i = 0; i < ch.nr_pages; i++)
			entries += ((const struct rb_page *)(c->zpages + (size_t)i * RB_PAGE_SIZE))->entries;
		/* the count the header gave (scan_chunks()): its pages' is the true one */
		if (entries != ch.entries)
			cursor_damage(c, 0, "the chunk header at bytes %" PRIu64 "-%" PRIu64 " damaged "
				      "(it counts %u events, its pages %" PRIu64 "): its pages read",
				      off, off + sizeof(ch) - 1, ch.entries, entries);
	}
	c->zoff = off;
	if (off >= c->size)
		return 0;
	c->zchunk = off;
	c->zoff = c->zend = off + sizeof(ch) + ch.csize;
	cursor_drop(c, c->zoff);
	c->znr = ch.nr_pages;
	c->zidx = 0;
	return 1;
}

/* the next page of the file, or NULL at the end (or on error: c->error) */
static const struct rb_page *cursor_page(struct cursor *c)
{
	if (c->src) {
		c->skip = 0;
		return c->src->next(c->src->arg, &c->st, &c->skip);
	}
	if (!c->zd) {
		if (c->page >= c->nr_pages)
			return NULL;
		cursor_drop(c, (c->page + 1) * RB_PAGE_SIZE);
		return (const void *)(c->map + (c->page + 1) * RB_PAGE_SIZE);
	}
	if (c->zidx == c->znr) {
		/* a run of damaged pages ends with its chunk */
		cursor_say_bad(c);
		c->hole |= c->zhole;
		c->zhole = 0;
		if (cursor_next_chunk(c) <= 0)
			return NULL;
	}
	return (const void *)(c->zpages + (size_t)c->zidx++ * RB_PAGE_SIZE);
}

/*
 * An event's payload must stay valid while the caller holds the event,
 * but a compressed file's pages are overwritten by the next chunk: such
 * payloads are copied into a few slots used in turn.  A cursor holds at
 * most two events, so a slot is reused only after the caller has moved on.
 * With @aligned the payload is copied from a mapped page too (a slot is
 * page-aligned): an event entry is read field by field.
 */
static const char *cursor_keep(struct cursor *c, const unsigned char *data, uint32_t len,
			       int aligned)
{
	unsigned char *slot;

	if (!c->zd && !c->src && !aligned)
		return (const char *)data;
	if (!c->keep)
		c->keep = xmalloc(KEEP_SLOTS * sizeof(*c->keep));
	slot = c->keep[c->keep_next++ % KEEP_SLOTS];
	memcpy(slot, data, len < RB_PAGE_SIZE ? len : RB_PAGE_SIZE);
	return (const char *)slot;
}

/*
 * What is wrong with a page of a .dat file, NULL if nothing: its check, if
 * it has one (a page that fails it is skipped whole: nothing in it can be
 * trusted); else its header.
 */
static const char *page_damage(struct cursor *c, const struct rb_page *p, char *why, size_t len)
{
	uint32_t check;

	if (p->commit > RB_DATA_SIZE) {
		snprintf(why, len, "commit %u past the page", p->commit);
		return why;
	}
	if (c->ti->checked) {
		memcpy(&check, (const unsigned char *)p + UT_DAT_PAGE_CHECK_OFF, 4);
		/* its place is in the check: a page moved or swapped fails it too */
		return check == ut_dat_page_check(p, c->zd ? c->zidx - 1 : c->page - 1) ? NULL :
		       "its check fails";
	}
	if (p->ts - c->d->raw_lo > c->d->raw_span) {
		snprintf(why, len, "time %" PRIu64 " outside the recording's", p->ts);
		return why;
	}
	/* no check: a damaged record is found as it is decoded, the rest of its page skipped */
	return NULL;
}

static int cursor_open_page(struct cursor *c)
{
	const struct rb_page *p;
	const char *bad;
	char why[160];

	for (;;) {
		p = cursor_page(c);
		if (!p) {
			cursor_say_bad(c);
			return c->error && c->src ? -1 : 0;
		}
		c->page++;
		if (c->src) {
			/* a live page source: written as we read, its checks are the source's */
			if (p->commit > RB_DATA_SIZE || p->ts - c->d->raw_lo > c->d->raw_span) {
				pr_err("%s: page %" PRIu64 " is corrupt", c->ti->path, c->page - 1);
				c->error = 1;
				return -1;
			}
		} else if ((bad = page_damage(c, p, why, sizeof(why)))) {
			if (!c->bad_pages++) {
				c->bad_first = c->page - 1;
				snprintf(c->bad_why, sizeof(c->bad_why), "%s", bad);
			}
			continue;
		} else {
			cursor_say_bad(c);
		}
		rb_iter_init(&c->it, p, rec_len);
		/*
		 * A page read again from where an earlier read stopped (a
		 * trace_pipe, c->skip) goes on in the state that read left:
		 * the records passed over set it.  Taking the page's CPU and
		 * a plain context again lost a CPU or CTX record of its first
		 * part: the sched events' buffers start with no CPU (~0) and
		 * state it in a record, so trace_pipe printed CPU 4294967295.
		 */
		if (!c->skip) {
			c->st.cpu = p->cpu;
			/* a writer restates a context that is not plain on each page */
			c->st.ctx = c->st.preempt = 0;
		}
		if (p->flags & RB_PAGE_LOST_MASK)
			c->st.pending_lost += p->flags & RB_PAGE_LOST_MASK;
		c->marked_lost += p->flags & RB_PAGE_LOST_MASK;
		c->last_seq = p->seq;
		c->in_page = 1;
		return 1;
	}
}

/*
 * A record the page's check (or walk) let through cannot be decoded: the
 * rest of its page is skipped, said.
 */
static void cursor_bad_record(struct cursor *c, const unsigned char *r, const char *why)
{
	(void)r;
	if (c->src) {
		pr_err("%s: corrupt record in page %" PRIu64 " (%s)", c->ti->path, c->page - 1, why);
		c->error = 1;
		return;
	}
	if (c->zd)
		cursor_damage(c, 1, "page %" PRIu64 " (its page %u of the chunk at bytes %" PRIu64 "-%"
			      PRIu64 "): a record damaged (%s): the rest of the page skipped",
			      c->page - 1, c->zidx - 1, c->zchunk, c->zend - 1, why);
	else
		cursor_damage(c, 1, "page %" PRIu64 " (bytes %" PRIu64 "-%" PRIu64 "): a record "
			      "damaged (%s): the rest of the page skipped", c->page - 1,
			      PAGE_OFF(c->page - 1), PAGE_OFF(c->page) - 1, why);
	c->in_page = 0;
}

/* room for why a record cannot be decoded */
#define WHY_LEN	96

/*
 * The records, one helper per kind (entries.h).  Each decodes the record
 * @r, written at @ts: 1 with its event in *ev; 0 when it only changes the
 * thread's state (no event); -1 when it cannot be decoded, @why (WHY_LEN
 * bytes) saying why.
 */
static inline int cursor_rec_entry(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				   uint32_t h, uint64_t ts)
{
	cursor_ev(c, ev, UT_EV_ENTRY, ts);
	/* both have the ip at the same place (entries.h) */
	ev->ip = ut_get48(r + UT_REC_OFF(entry, ip));
	if (RB_HDR_TYPE(h) == UT_REC_ENTRY_PARENT)
		ev->parent = ut_get48(r + UT_REC_OFF(entry_parent, parent));
	else if (c->st.depth)
		ev->parent = c->st.stack[c->st.depth - 1];
	ev->depth = c->st.depth;
	if (c->st.depth < MAX_OPEN)
		c->st.stack[c->st.depth] = ev->ip;
	c->st.depth++;
	if (c->st.depth > MAX_OPEN)
		c->st.depth = MAX_OPEN;
	return 1;
}

static inline int cursor_rec_exit(struct cursor *c, struct ut_event *ev, uint64_t ts)
{
	cursor_ev(c, ev, UT_EV_EXIT, ts);
	if (c->st.depth) {
		c->st.depth--;
		ev->ip = c->st.stack[c->st.depth];
	}
	ev->depth = c->st.depth;
	return 1;
}

static inline int cursor_rec_func(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				  uint64_t ts)
{
	cursor_ev(c, ev, UT_EV_FUNC, ts);
	ev->ip = ut_get48(r + UT_REC_OFF(func, ip));
	ev->parent = ut_get48(r + UT_REC_OFF(func, parent));
	return 1;
}

static inline int cursor_rec_depth(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				   uint64_t ts)
{
	uint32_t v;

	memcpy(&v, r + UT_REC_OFF(depth, depth), sizeof(v));
	if (c->st.after_lost && (v < MAX_OPEN ? v : MAX_OPEN) != c->st.depth) {
		/* the loss ended or began calls unseen: say so */
		cursor_ev(c, ev, UT_EV_DEPTH, ts);
		ev->count = c->st.depth;
		cursor_set_depth(c, v);
		/* the depth kept, as every event's: not a corrupt 2^32 */
		ev->depth = c->st.depth;
		return 1;
	}
	cursor_set_depth(c, v);
	return 0;
}

static inline int cursor_rec_cpu(struct cursor *c, const unsigned char *r)
{
	uint32_t v;

	memcpy(&v, r + UT_REC_OFF(cpu, cpu), sizeof(v));
	c->st.cpu = v;
	return 0;
}

static inline int cursor_rec_stack(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				   uint64_t ts)
{
	uint16_t n;
	uint32_t v;

	n = ut_rec_get_n(r);
	v = c->st.depth;
	cursor_set_depth(c, n);
	for (uint32_t i = 0; i < n && i < MAX_OPEN; i++)
		c->st.stack[i] = ut_get48(r + UT_REC_OFF(stack, ips) + UT_ADDR_BYTES * i);
	if (c->st.after_lost && n != v) {
		cursor_ev(c, ev, UT_EV_DEPTH, ts);
		ev->depth = n;
		ev->count = v;
		return 1;
	}
	return 0;
}

static inline int cursor_rec_data(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				  uint64_t ts)
{
	uint16_t n;

	n = ut_rec_get_n(r);
	cursor_ev(c, ev, UT_EV_MARKER, ts);
	ev->data = cursor_keep(c, r + UT_REC_OFF(data, text), n, 0);
	ev->data_len = n;
	ev->depth = c->st.depth;
	return 1;
}

static inline int cursor_rec_return(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				    uint64_t ts, char *why)
{
	/*
	 * A whole call, written at its return: the open calls
	 * the ENTRY/EXIT records pair up are not touched.
	 */
	uint64_t dur = ut_get48(r + UT_REC_OFF(return, duration)), entry;
	uint16_t depth;

	if (dur > ts) {
		snprintf(why, WHY_LEN, "a call of %" PRIu64 " clock units "
			 "returning at %" PRIu64, dur, ts);
		return -1;
	}
	memcpy(&depth, r + UT_REC_OFF(return, depth), sizeof(depth));
	cursor_ev(c, ev, UT_EV_RETURN, ts);
	ev->ip = ut_get48(r + UT_REC_OFF(return, ip));
	ev->depth = depth;
	/* the entry time converted as any timestamp: durations agree with ENTRY/EXIT pairs */
	entry = ut_data_ns(c->d, ts - dur);
	ev->duration = ev->ts > entry ? ev->ts - entry : 0;
	return 1;
}

static inline int cursor_rec_trace(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				   uint64_t ts)
{
	uint16_t n;

	/* rec_len() checked n and that the n ips are in the page */
	n = ut_rec_get_n(r);
	cursor_ev(c, ev, UT_EV_TRACE, ts);
	ev->data = cursor_keep(c, r + UT_REC_OFF(trace, ips), UT_ADDR_BYTES * n, 0);
	ev->data_len = UT_ADDR_BYTES * n;
	ev->count = n;
	ev->depth = c->st.depth;
	return 1;
}

static inline int cursor_rec_ctx(struct cursor *c, const unsigned char *r)
{
	/* the thread's context from here on (entries.h): n counts from its end */
	uint32_t n = UT_REC_SIZED_BASE + ut_rec_get_n(r);

	if (n >= UT_REC_OFF(ctx, task)) {
		uint8_t flags = r[UT_REC_OFF(ctx, flags)], preempt = r[UT_REC_OFF(ctx, preempt)];

		c->st.ctx = flags;
		c->st.preempt = preempt;
		if (!(flags & UT_CTX_IRQS_OFF))
			c->st.ctx_gap |= UT_GAP_IRQS_ON;
		if (!preempt)
			c->st.ctx_gap |= UT_GAP_PREEMPT_ON;
		if (!(flags & UT_CTX_IRQS_OFF) && !preempt)
			c->st.ctx_gap |= UT_GAP_PLAIN;
		if (!(flags & UT_CTX_WAKING))
			c->st.ctx_gap |= UT_GAP_RUNNING;
	}
	if (n >= UT_REC_OFF(ctx, task) + sizeof(struct ut_ctx_task)) {
		memcpy(&c->st.task, r + UT_REC_OFF(ctx, task), sizeof(c->st.task));
		c->st.has_task = 1;
	}
	return 0;
}

static inline int cursor_rec_trace_dir(struct cursor *c, struct ut_event *ev,
				       const unsigned char *r, uint64_t ts, char *why)
{
	/* n counts the dir's bytes too */
	const uint32_t fixed = UT_REC_LEN(trace_dir) - UT_REC_SIZED_BASE;
	uint16_t n, dir;
	uint32_t w;

	/* a stacktrace trigger's, for one directory (entries.h) */
	n = ut_rec_get_n(r);
	if (n < fixed || (n - fixed) % UT_ADDR_BYTES) {
		snprintf(why, WHY_LEN, "a stack trace of %u bytes", n);
		return -1;
	}
	memcpy(&dir, r + UT_REC_OFF(trace_dir, dir), sizeof(dir));
	w = ut_sample_weight(dir);
	cursor_ev(c, ev, w ? UT_EV_SAMPLE :
			 dir == UT_TRACE_DIR_ICALL || dir == UT_TRACE_DIR_ICRET ?
			 UT_EV_INITCALL : UT_EV_TRACE, ts);
	ev->data = cursor_keep(c, r + UT_REC_OFF(trace_dir, ips), n - fixed, 0);
	ev->data_len = n - fixed;
	ev->count = (n - fixed) / UT_ADDR_BYTES;
	/* a sample's sentinel is not a directory, but its weight; initcall's say call or return */
	ev->dir = w ? 0 : dir;
	ev->weight = w;
	ev->depth = c->st.depth;
	return 1;
}

static inline int cursor_rec_event(struct cursor *c, struct ut_event *ev, const unsigned char *r,
				   uint64_t ts, char *why)
{
	uint16_t n, id;

	n = ut_rec_get_n(r);
	if (n < sizeof(struct ut_trace_entry)) {
		snprintf(why, WHY_LEN, "an event of %u bytes, shorter than its "
			 "common fields", n);
		return -1;
	}
	memcpy(&id, r + UT_REC_OFF(event, entry) + offsetof(struct ut_trace_entry, type),
	       sizeof(id));
	cursor_ev(c, ev, UT_EV_EVENT, ts);
	ev->id = id;
	/* an entry is read field by field: hand out an aligned copy */
	ev->data = cursor_keep(c, r + UT_REC_OFF(event, entry), n, 1);
	ev->data_len = n;
	ev->depth = c->st.depth;
	return 1;
}

/* one record, by its kind (the helpers above); an unknown kind is passed over */
static inline __attribute__((always_inline)) int cursor_record(struct cursor *c,
							       struct ut_event *ev,
							       const unsigned char *r,
							       uint64_t ts, char *why)
{
	uint32_t h;

	memcpy(&h, r, sizeof(h));
	/* an event ends the stretch after a hole; DEPTH, STACK, CPU describe it */
	if (ut_rec_counts(RB_HDR_TYPE(h)))
		c->st.after_lost = 0;
	switch (RB_HDR_TYPE(h)) {
	case UT_REC_ENTRY:
	case UT_REC_ENTRY_PARENT:
		return cursor_rec_entry(c, ev, r, h, ts);
	case UT_REC_EXIT:
		return cursor_rec_exit(c, ev, ts);
	case UT_REC_FUNC:
		return cursor_rec_func(c, ev, r, ts);
	case UT_REC_DEPTH:
		return cursor_rec_depth(c, ev, r, ts);
	case UT_REC_CPU:
		return cursor_rec_cpu(c, r);
	case UT_REC_STACK:
		return cursor_rec_stack(c, ev, r, ts);
	case UT_REC_DATA:
		return cursor_rec_data(c, ev, r, ts);
	case UT_REC_RETURN:
		return cursor_rec_return(c, ev, r, ts, why);
	case UT_REC_TRACE:
		return cursor_rec_trace(c, ev, r, ts);
	case UT_REC_CTX:
		return cursor_rec_ctx(c, r);
	case UT_REC_TRACE_DIR:
		return cursor_rec_trace_dir(c, ev, r, ts, why);
	case UT_REC_EVENT:
		return cursor_rec_event(c, ev, r, ts, why);
	default:
		return 0;
	}
}

/*
 * The cursor has no page left (@ret 0) or could not open one (-1): the
 * losses not yet said first, each a LOST event (1); then @ret.
 */
static inline __attribute__((always_inline)) int cursor_end(struct cursor *c,
							    struct ut_event *ev, int ret,
							    const int live)
{
	if (ret == 0 && (c->hole || c->tail_hole)) {
		/* damaged data skipped at the end: said, and a hole in the trace */
		cursor_ev(c, ev, UT_EV_LOST,
			  c->it.page ? c->it.ts : ut_data_raw(c->d, c->d->mono0));
		c->hole = c->tail_hole = 0;
		c->st.pending_lost = 0;
		c->st.after_lost = 1;
		return 1;
	}
	if (ret == 0 && !c->tail_done && c->ti->lost > c->marked_lost) {
		/*
		 * Records dropped after the last page was started
		 * are marked by no page: report them at the end.
		 */
		c->tail_done = 1;
		cursor_ev(c, ev, UT_EV_LOST,
			  c->it.page ? c->it.ts : ut_data_raw(c->d, c->d->mono0));
		ev->count = c->ti->lost - c->marked_lost;
		c->marked_lost = c->ti->lost;
		return 1;
	}
	if (live && ret == 0 && c->st.pending_lost) {
		/* lost records and nothing after them (a page source's) */
		cursor_ev(c, ev, UT_EV_LOST, c->st.raw);
		ev->count = c->st.pending_lost;
		c->st.pending_lost = 0;
		c->st.after_lost = 1;
		c->st.rec = NULL;
		return 1;
	}
	return ret;
}

/* records were lost (or, in a .dat file, damaged data skipped) before the next one */
static inline __attribute__((always_inline)) int cursor_lost(struct cursor *c,
							     struct ut_event *ev, const int live)
{
	if (live) {
		c->st.raw = c->it.ts;
		c->st.rec = NULL;
	}
	cursor_ev(c, ev, UT_EV_LOST, c->it.ts);
	/* a hole of damaged data: how many is not known (0) */
	ev->count = !live && c->hole ? 0 : c->st.pending_lost;
	c->hole = 0;
	c->st.pending_lost = 0;
	c->st.after_lost = 1;
	return 1;
}

/*
 * Decode the next event into *ev; 1, 0 at the end, -1 on corruption.
 * @live: the cursor reads a page source (c->src) and tells its stage
 * which record an event comes from; a constant, so that a .dat file's
 * cursor (cursor_fill()) pays nothing for it.
 */
static inline __attribute__((always_inline)) int cursor_decode(struct cursor *c,
							       struct ut_event *ev, const int live)
{
	const unsigned char *r;
	uint32_t len;
	uint64_t ts;
	char why[WHY_LEN];
	int ret;

	for (;;) {
		if (!c->in_page) {
			ret = cursor_open_page(c);
			if (ret <= 0)
				return cursor_end(c, ev, ret, live);
		}
		if (c->st.pending_lost || (!live && c->hole))
			return cursor_lost(c, ev, live);
		ret = rb_iter_next(&c->it, &r, &len, &ts);
		if (ret > 0 && __builtin_expect(ts - c->d->raw_lo > c->d->raw_span, 0)) {
			snprintf(why, sizeof(why), "time %" PRIu64 " outside the recording's", ts);
			goto bad;
		}
		if (ret < 0) {
			r = c->it.page->data + c->it.off;
			snprintf(why, sizeof(why), "it cannot be read");
			goto bad;
		}
		if (ret == 0) {
			c->in_page = 0;
			continue;
		}
		if (live) {
			if (c->skip) {
				/* read before: passed over */
				if (c->it.off <= c->skip)
					continue;
				c->skip = 0;
			}
			c->st.rec = r;
			c->st.rec_len = len;
			c->st.raw = ts;
		}
		ret = cursor_record(c, ev, r, ts, why);
		if (ret > 0)
			return 1;
		if (ret == 0)
			continue;
bad:
		cursor_bad_record(c, r, why);
		if (live)
			return -1;
	}
}

/* make sure c->ev[0] holds the next event (or c->done) */
/* the two cursors: a .dat file's, a page source's */
static int cursor_decode_file(struct cursor *c, struct ut_event *ev)
{
	return cursor_decode(c, ev, 0);
}

static int cursor_decode_src(struct cursor *c, struct ut_event *ev)
{
	return cursor_decode(c, ev, 1);
}

static inline __attribute__((always_inline)) void cursor_fill_t(struct cursor *c, int want,
								  const int live)
{
	while (c->nev < want && !c->done) {
		unsigned int keep = c->keep_next;
		int ret = live ? cursor_decode_src(c, &c->ev[c->nev]) :
				 cursor_decode_file(c, &c->ev[c->nev]);

		if (ret <= 0) {
			c->done = 1;
			if (ret < 0)
				c->error = 1;
			break;
		}
		if (live && c->stage && !c->stage(c->stage_arg, &c->st, &c->ev[c->nev])) {
			/* a hidden event's payload slot is free again: the held ones keep theirs */
			c->keep_next = keep;
			continue;
		}
		c->nev++;
	}
}

static inline __attribute__((always_inline)) void cursor_fill(struct cursor *c, int want)
{
	if (c->src)
		cursor_fill_t(c, want, 1);
	else
		cursor_fill_t(c, want, 0);
}

static void cursor_pop(struct cursor *c)
{
	if (c->nev > 1)
		c->ev[0] = c->ev[1];
	if (c->nev)
		c->nev--;
}

static int cursor_less(const struct cursor *a, const struct cursor *b)
{
	if (a->ev[0].ts != b->ev[0].ts)
		return a->ev[0].ts < b->ev[0].ts;
	return a->index < b->index;
}

static void heap_swap(struct ut_merge *m, int i, int j)
{
	struct cursor *t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->heap[i]->heap_pos = i;
	m->heap[j]->heap_pos = j;
}

static void heap_down(struct ut_merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i;

		if (l < m->heap_n && cursor_less(m->heap[l], m->heap[s]))
			s = l;
		if (r < m->heap_n && cursor_less(m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		heap_swap(m, i, s);
		i = s;
	}
}

static void heap_up(struct ut_merge *m, int i)
{
	while (i > 0 && cursor_less(m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_remove(struct ut_merge *m, int i)
{
	m->heap_n--;
	if (i == m->heap_n)
		return;
	heap_swap(m, i, m->heap_n);
	heap_down(m, i);
	heap_up(m, i);
}

/* cursor @c, the m->nr-th, joins the merge: its first events, its place in the heap */
static void merge_push(struct ut_merge *m, struct cursor *c)
{
	c->index = m->nr;
	m->nr++;
	cursor_fill(c, 1);
	if (c->nev) {
		c->heap_pos = m->heap_n;
		m->heap[m->heap_n++] = c;
		heap_up(m, c->heap_pos);
	}
}

/* the cursor's head event changed: fix its place, or drop it if done */
static void heap_fix(struct ut_merge *m, struct cursor *c)
{
	cursor_fill(c, 1);
	if (!c->nev) {
		heap_remove(m, c->heap_pos);
		return;
	}
	if (m->heap_n == 1)
		return;		/* one thread left: nothing to order */
	heap_down(m, c->heap_pos);
	heap_up(m, c->heap_pos);
}

struct ut_merge *ut_merge_new(struct ut_data *d, const int *tids, int nr_tids)
{
	struct ut_merge *m = xcalloc(1, sizeof(*m));

	m->d = d;
	/* files that could not be read at all: every merge says so in its status */
	m->damaged = d->skipped != 0;
	m->cur = xcalloc((size_t)d->nr_threads + 1, sizeof(*m->cur));
	m->heap = xcalloc((size_t)d->nr_threads + 1, sizeof(*m->heap));
	for (int i = 0; i < d->nr_threads; i++) {
		struct ut_thread_info *ti = &d->threads[i];
		struct cursor *c = &m->cur[m->nr];
		struct stat st;
		int fd, keep = !tids;

		for (int k = 0; tids && k < nr_tids; k++)
			keep |= tids[k] == ti->tid;
		if (!keep)
			continue;
		m->damaged |= ti->damaged;
		fd = open(ti->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < (off_t)RB_PAGE_SIZE) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		c->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (c->map == MAP_FAILED)
			continue;
		madvise((void *)c->map, (size_t)st.st_size, MADV_SEQUENTIAL);
		c->size = (size_t)st.st_size;
		c->nr_pages = c->size / RB_PAGE_SIZE - 1;
		if (ti->compress == UT_COMPRESS_ZSTD) {
			if (!m->zd)
				m->zd = ZSTD_createDCtx();
			c->zd = m->zd;
			c->zoff = c->zend = RB_PAGE_SIZE;
			if (!c->zd) {
				pr_err("%s: cannot set up the zstd decompressor", ti->path);
				c->error = 1;
				c->nr_pages = 0;
			}
		}
		c->d = d;
		c->ti = ti;
		/* the pages cut off the end: a hole there */
		c->tail_hole = ti->cut;
		merge_push(m, c);
	}
	return m;
}

static int merge_error(struct ut_merge *m)
{
	if (m->damaged)
		return 1;
	for (int i = 0; i < m->nr; i++)
		if (m->cur[i].error)
			return 1;
	return 0;
}

int ut_merge_next(struct ut_merge *m, struct ut_event *ev)
{
	struct cursor *c;

	if (!m->heap_n) {
		m->last = NULL;
		return merge_error(m) ? -1 : 0;
	}
	c = m->heap[0];
	*ev = c->ev[0];
	cursor_pop(c);
	m->last = c;
	heap_fix(m, c);
	return 1;
}

int ut_merge_peek_same(struct ut_merge *m, struct ut_event *ev)
{
	struct cursor *c = m->last;

	if (!c)
		return 0;
	cursor_fill(c, 1);
	if (!c->nev)
		return 0;
	*ev = c->ev[0];
	return 1;
}

void ut_merge_skip_same(struct ut_merge *m)
{
	struct cursor *c = m->last;

	if (!c || !c->nev)
		return;
	cursor_pop(c);
	if (c->heap_pos < m->heap_n && m->heap[c->heap_pos] == c)
		heap_fix(m, c);
}

void ut_merge_progress(const void *arg, uint64_t *done, uint64_t *total)
{
	const struct ut_merge *m = arg;

	*done = *total = 0;
	for (int i = 0; m && i < m->nr; i++) {
		const struct cursor *c = &m->cur[i];
		uint64_t at = c->zd ? c->zoff : (c->page + 1) * RB_PAGE_SIZE;

		if (c->src)
			continue;
		*total += c->size;
		*done += c->done || at > c->size ? c->size : at;
	}
}

struct ut_merge *ut_merge_new_src(struct ut_data *d, int cap)
{
	struct ut_merge *m = xcalloc(1, sizeof(*m));

	m->d = d;
	m->cap = cap;
	m->cur = xcalloc((size_t)cap + 1, sizeof(*m->cur));
	m->heap = xcalloc((size_t)cap + 1, sizeof(*m->heap));
	return m;
}

static void cursor_src_init(struct cursor *c, struct ut_data *d, struct ut_thread_info *ti,
			    const struct ut_page_src *src, ut_stage_fn stage, void *stage_arg,
			    struct ut_stream *state)
{
	c->d = d;
	c->ti = ti;
	c->src_copy = *src;
	c->src = &c->src_copy;
	c->stage = stage;
	c->stage_arg = stage_arg;
	c->saved = state;
	if (state)
		c->st = *state;
}

int ut_merge_add(struct ut_merge *m, struct ut_thread_info *ti, const struct ut_page_src *src,
		 ut_stage_fn stage, void *stage_arg, struct ut_stream *state)
{
	struct cursor *c;

	if (m->nr >= m->cap)
		return -1;
	c = &m->cur[m->nr];
	cursor_src_init(c, m->d, ti, src, stage, stage_arg, state);
	merge_push(m, c);
	return 0;
}

/* the state a stream ends in goes back to its owner */
static void cursor_save(struct cursor *c)
{
	if (c->saved) {
		c->st.rec = NULL;
		*c->saved = c->st;
	}
}

struct ut_cursor {
	struct cursor c;
};

struct ut_cursor *ut_cursor_new(struct ut_data *d, struct ut_thread_info *ti,
				const struct ut_page_src *src, ut_stage_fn stage, void *stage_arg,
				struct ut_stream *state)
{
	struct ut_cursor *u = xcalloc(1, sizeof(*u));

	cursor_src_init(&u->c, d, ti, src, stage, stage_arg, state);
	return u;
}

int ut_cursor_next(struct ut_cursor *u, struct ut_event *ev)
{
	struct cursor *c = &u->c;

	cursor_fill(c, 1);
	if (!c->nev)
		return c->error ? -1 : 0;
	*ev = c->ev[0];
	cursor_pop(c);
	return 1;
}

void ut_cursor_free(struct ut_cursor *u)
{
	if (!u)
		return;
	cursor_save(&u->c);
	free(u->c.keep);
	free(u);
}

void ut_merge_free(struct ut_merge *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->nr; i++) {
		cursor_save(&m->cur[i]);
		if (m->cur[i].map)
			munmap((void *)m->cur[i].map, m->cur[i].size);
		free(m->cur[i].zpages);
		free(m->cur[i].keep);
	}
	ZSTD_freeDCtx(m->zd);
	free(m->cur);
	free(m->heap);
	free(m);
}
