/* SPDX-License-Identifier: MIT */
/*
 * datfile.h - the layout of a saved thread, DIR/<pid>.<tid>.<image>.dat
 * (usertrace-data(5)).
 *
 *   offset 0        the header page: struct rb_header (the thread's final
 *                   accounting), and at UT_DAT_EXT_OFF a struct ut_dat_ext
 *   RB_PAGE_SIZE    the ring-buffer pages in write order:
 *                     compress = none: the pages themselves, 4096 bytes each
 *                     compress = zstd: chunks, each a struct ut_dat_chunk
 *                     and one zstd frame that holds 1..UT_CHUNK_PAGES pages
 *
 * Version 1 files (data version 1) have no extension: those bytes are
 * zero, and the pages are stored as they are.
 *
 * Checks (ext.flags & UT_DAT_CHECKED; files written before have none):
 * the last 4 bytes of each page (in its slack, RB_PAGE_SLACK, which no
 * record reaches) hold ut_dat_page_check() of the page's header and
 * committed records and of its place: its number in the file (compress
 * none: a page moved or swapped fails it) or in its chunk (zstd); and
 * ext.check that of the whole header page, taken with ext.check 0.  A
 * reader finds a damaged page or header by them, and keeps the pages
 * around it.
 */
#ifndef USERTRACE_DATFILE_H
#define USERTRACE_DATFILE_H

#include <stdint.h>
#include <string.h>

#include "usertrace/ringbuf.h"

#define UT_DAT_MAGIC		"UTDATX\0\2"
#define UT_DAT_EXT_OFF		2048u
#define UT_CHUNK_MAGIC		0x4b435455u	/* "UTCK" */
#define UT_CHUNK_PAGES		64u		/* at most, per compressed chunk */
/* ut_dat_ext.flags */
#define UT_DAT_CHECKED		1u		/* pages and header carry checks */
/* where a page keeps its check */
#define UT_DAT_PAGE_CHECK_OFF	(RB_PAGE_SIZE - 4u)

enum ut_compress {
	UT_COMPRESS_NONE = 0,
	UT_COMPRESS_ZSTD = 1,
};

struct ut_dat_ext {
	char magic[8];		/* UT_DAT_MAGIC */
	uint32_t compress;	/* enum ut_compress */
	int32_t level;		/* the compressor's level (information only) */
	uint64_t nr_pages;	/* ring-buffer pages in the file */
	uint64_t entries;	/* events in them */
	uint32_t buffers;	/* ring buffers the thread filled (1 + growths) */
	uint32_t pad;
	uint32_t flags;		/* UT_DAT_* */
	uint32_t check;		/* UT_DAT_CHECKED: ut_dat_check() of the header page */
};

struct ut_dat_chunk {
	uint32_t magic;		/* UT_CHUNK_MAGIC */
	uint32_t csize;		/* bytes of the zstd frame that follows */
	uint32_t nr_pages;	/* pages in the frame, 1..UT_CHUNK_PAGES */
	uint32_t entries;	/* events in those pages */
};

/*
 * A 32-bit check of @len bytes: damage (random bytes, zeroes, a page of
 * another file) changes it but for a chance of 2^-32.  Not a
 * cryptographic hash; 8 bytes a step, so that checking every page costs
 * the recorder and the readers little.  Never 0 (0: no check).
 */
static inline uint32_t ut_dat_check(const void *buf, size_t len, uint64_t seed)
{
	const unsigned char *p = buf;
	uint64_t h = (0x9e3779b97f4a7c15ull ^ len) + seed * 0xd6e8feb86659fd93ull, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p + i, len - i);
	h = (h ^ w ^ 0x80) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	h = (uint32_t)(h ^ (h >> 32));
	return h ? (uint32_t)h : 1u;
}

/*
 * The check a page written with UT_DAT_CHECKED carries: its header and
 * committed records, and @index, its number in the file (compress none)
 * or in its chunk (zstd), from 0.
 */
static inline uint32_t ut_dat_page_check(const struct rb_page *p, uint64_t index)
{
	uint32_t n = p->commit <= RB_DATA_SIZE ? p->commit : RB_DATA_SIZE;

	return ut_dat_check(p, RB_PAGE_HDR + n, index + 1);
}

#endif
