/* SPDX-License-Identifier: MIT */
/*
 * chunk_writer.h - the recorder's chunk writer: saved pages go to their .dat
 * file in order, as they are or zstd-compressed by a pool of workers.
 *
 * The recorder copies pages out of the ring buffers (a memcpy) and hands
 * them over one chunk at a time.  While the program runs, each chunk is
 * compressed and written at once, by the recorder's thread.  Once the
 * program has ended (cw_parallel()), compressing what is left, the
 * expensive part, goes to one worker per CPU, and a file's chunks are
 * written in the order they were handed over, whichever worker finished
 * first.
 */
#ifndef USERTRACE_CMDS_CHUNKW_H
#define USERTRACE_CMDS_CHUNKW_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

struct cw_job;

/* one output file, embedded in the caller's structure */
struct cw_file {
	int fd;
	const char *path;
	/* called once, after cw_close() and the last chunk's write */
	void (*finish)(struct cw_file *f);
	/* the rest is the writer's */
	struct cw_job *head, *tail;	/* handed over, not yet written, in order */
	int writing;			/* a thread writes this file's chunks now */
	int closing;
	int error;			/* a write or compression failed: cw_failed() */
};

/* atomic: the workers and the threads that hand chunks over all look */
static inline int cw_failed(struct cw_file *f)
{
	return __atomic_load_n(&f->error, __ATOMIC_RELAXED);
}

static inline void cw_fail(struct cw_file *f)
{
	__atomic_store_n(&f->error, 1, __ATOMIC_RELAXED);
}

struct cw_pool;

struct cw_pool *cw_create(int compress, int level, int workers);
int cw_submit(struct cw_pool *p, ZSTD_CCtx *zc, void *zbuf, struct cw_file *f,
	      unsigned char **pages, uint32_t *cap, uint32_t nr_pages, uint32_t entries);
void cw_parallel(struct cw_pool *p);
void cw_close(struct cw_pool *p, struct cw_file *f);
void cw_wait(struct cw_pool *p);
void cw_destroy(struct cw_pool *p);
size_t cw_out_size(void);

#endif
