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
 */
#ifndef USERTRACE_DATFILE_H
#define USERTRACE_DATFILE_H

#include <stdint.h>

#define UT_DAT_MAGIC		"UTDATX\0\2"
#define UT_DAT_EXT_OFF		2048u
#define UT_CHUNK_MAGIC		0x4b435455u	/* "UTCK" */
#define UT_CHUNK_PAGES		64u		/* at most, per compressed chunk */

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
};

struct ut_dat_chunk {
	uint32_t magic;		/* UT_CHUNK_MAGIC */
	uint32_t csize;		/* bytes of the zstd frame that follows */
	uint32_t nr_pages;	/* pages in the frame, 1..UT_CHUNK_PAGES */
	uint32_t entries;	/* events in those pages */
};

#endif
