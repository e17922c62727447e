// SPDX-License-Identifier: MIT
/*
 * chunk_writer.c - the recorder's chunk writer (see chunk_writer.h).
 *
 * Until cw_parallel() a chunk is compressed and written at once by the
 * caller.  After it a chunk is a job: the pages (the caller's buffer,
 * swapped for the job's previous one, so nothing is copied twice), and
 * room for its compressed frame behind a struct ut_dat_chunk.  Jobs wait
 * in one queue for the workers and, per file, in a second list in the
 * order they were handed over.  The thread that finishes the job at the
 * head of a file's list writes it and every finished job behind it; one
 * thread at a time writes a file (cw_file.writing), so its chunks land
 * in order.
 *
 * The jobs are few (two per worker and one more): a caller that hands
 * over faster than the workers compress compresses a queued job itself
 * while it waits for a free one.  That bounds the memory at a few MiB.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "recorder/chunk_writer.h"
#include "usertrace/datfile.h"
#include "usertrace/ringbuf.h"
#include "utils/utils.h"

#define CW_MAX_WORKERS	8
#define CW_CHUNK_BYTES	((size_t)UT_CHUNK_PAGES * RB_PAGE_SIZE)

struct cw_job {
	struct cw_job *next;		/* in the queue, or the free list */
	struct cw_job *next_in_file;
	struct cw_file *f;
	unsigned char *pages;
	uint32_t cap;			/* pages room of .pages */
	uint32_t nr_pages, entries;
	unsigned char *out;		/* a struct ut_dat_chunk, then the frame */
	size_t out_len;
	int done, failed;
};

struct cw_worker {
	struct cw_pool *p;
	ZSTD_CCtx *zc;		/* made before the thread: a worker always can */
	pthread_t thread;
};

struct cw_pool {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job was queued, or stop */
	pthread_cond_t idle;		/* a job came back free, or a file was finished */
	struct cw_job *queue, *queue_tail, *free;
	struct cw_job *jobs;
	int njobs, pending, finishing, stop;
	int compress, level, want_workers, nworkers;
	struct cw_worker workers[CW_MAX_WORKERS];
	size_t out_size;
};

static int cw_write_all(int fd, const char *path, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			pr_err("writing %s: %s", path, w < 0 ? strerror(errno) : "short write");
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* room for a chunk header and the frame of a full chunk */
size_t cw_out_size(void)
{
	return sizeof(struct ut_dat_chunk) + ZSTD_compressBound(CW_CHUNK_BYTES);
}

/* @out: room for the chunk header and a frame; returns the bytes to write, 0 on error */
static size_t compress_chunk(ZSTD_CCtx *zc, int level, unsigned char *out, size_t out_size,
			     const unsigned char *pages, uint32_t nr_pages, uint32_t entries,
			     const char *path)
{
	struct ut_dat_chunk ch;
	size_t n = ZSTD_compressCCtx(zc, out + sizeof(ch), out_size - sizeof(ch), pages,
				     (size_t)nr_pages * RB_PAGE_SIZE, level);

	if (ZSTD_isError(n)) {
		pr_err("compressing %s: %s", path, ZSTD_getErrorName(n));
		return 0;
	}
	ch.magic = UT_CHUNK_MAGIC;
	ch.csize = (uint32_t)n;
	ch.nr_pages = nr_pages;
	ch.entries = entries;
	memcpy(out, &ch, sizeof(ch));
	return sizeof(ch) + n;
}

/* jobs exist only with compression (cw_parallel()): the frame */
static void job_write(struct cw_job *j)
{
	struct cw_file *f = j->f;

	if (!cw_failed(f) && (j->failed || cw_write_all(f->fd, f->path, j->out, j->out_len) < 0))
		cw_fail(f);
}

/*
 * Write @f's finished jobs at the head of its list, and finish the file
 * when it is closed and nothing is left.  Called with the lock held and
 * f->writing clear; the lock is dropped around each write.
 */
static void file_flush(struct cw_pool *p, struct cw_file *f)
{
	f->writing = 1;
	while (f->head && f->head->done) {
		struct cw_job *j = f->head;

		f->head = j->next_in_file;
		if (!f->head)
			f->tail = NULL;
		pthread_mutex_unlock(&p->lock);
		job_write(j);
		pthread_mutex_lock(&p->lock);
		j->next = p->free;
		p->free = j;
		p->pending--;
		pthread_cond_broadcast(&p->idle);
	}
	if (f->closing == 1 && !f->head) {
		f->closing = 2;
		p->finishing++;
		pthread_mutex_unlock(&p->lock);
		f->finish(f);
		pthread_mutex_lock(&p->lock);
		p->finishing--;
		pthread_cond_broadcast(&p->idle);
	}
	f->writing = 0;
}

/* compress the job at the head of the queue; called and returns with the lock held */
static void run_job(struct cw_pool *p, ZSTD_CCtx *zc)
{
	struct cw_job *j = p->queue;

	p->queue = j->next;
	if (!p->queue)
		p->queue_tail = NULL;
	pthread_mutex_unlock(&p->lock);

	if (!j->out)
		j->out = malloc(p->out_size);
	/* @zc: a worker's, or the submitting saver's (saver_init()): never NULL */
	j->out_len = j->out ?
		compress_chunk(zc, p->level, j->out, p->out_size, j->pages, j->nr_pages,
			       j->entries, j->f->path) : 0;
	j->failed = !j->out_len;
	if (!j->out)
		pr_err("compressing %s: out of memory", j->f->path);

	pthread_mutex_lock(&p->lock);
	j->done = 1;
	if (!j->f->writing)
		file_flush(p, j->f);
}

static void *worker(void *arg)
{
	struct cw_worker *w = arg;
	struct cw_pool *p = w->p;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->queue && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (!p->queue)
			break;
		run_job(p, w->zc);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/**
 * cw_create - a chunk writer
 * @compress: enum ut_compress
 * @level: the zstd level
 * @workers: compressing threads for cw_parallel(); 0: never any
 *
 * It starts out serial: each chunk is written at once by its caller.
 */
struct cw_pool *cw_create(int compress, int level, int workers)
{
	struct cw_pool *p = xcalloc(1, sizeof(*p));

	p->compress = compress;
	p->level = level;
	p->want_workers = workers > CW_MAX_WORKERS ? CW_MAX_WORKERS : workers;
	p->out_size = cw_out_size();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->idle, NULL);
	return p;
}

/**
 * cw_parallel - from now on, compress on the workers
 *
 * For the end of a recording, when the program is gone and what its
 * buffers still hold waits to be saved: then nothing else wants the
 * CPUs.  While the program runs, workers would take CPU time from it (a
 * program with one thread would share its CPU with them).  Once
 * parallel, always: every chunk written serially is on disk before the
 * first job is queued, so each file's chunks stay in order.  Staying
 * serial (no compression, one CPU, no thread to be had) is no error.
 * Call it from the one thread that hands chunks over until then.
 */
void cw_parallel(struct cw_pool *p)
{
	sigset_t all, old;

	if (p->jobs || p->compress == UT_COMPRESS_NONE || p->want_workers <= 0)
		return;
	p->njobs = 2 * p->want_workers + 1;
	p->jobs = xcalloc((size_t)p->njobs, sizeof(*p->jobs));
	for (int i = 0; i < p->njobs; i++) {
		p->jobs[i].next = p->free;
		p->free = &p->jobs[i];
	}
	/* the program's signals are for the main thread: it forwards them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (int i = 0; i < p->want_workers; i++) {
		struct cw_worker *w = &p->workers[i];

		w->p = p;
		w->zc = ZSTD_createCCtx();
		if (!w->zc || pthread_create(&w->thread, NULL, worker, w)) {
			ZSTD_freeCCtx(w->zc);
			w->zc = NULL;
			break;
		}
		__atomic_store_n(&p->nworkers, p->nworkers + 1, __ATOMIC_RELEASE);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/**
 * cw_submit - hand over a chunk of pages to be written to @f
 * @zc, @zbuf: the caller's compressor and room for a frame (cw_out_size()),
 *	to compress with while serial, or while it waits for a free job
 * @pages, @cap: the caller's buffer and its room in pages; the writer may
 *	take it and give back another (of any room, or NULL with 0)
 * @nr_pages: pages in it, 1..UT_CHUNK_PAGES
 * @entries: events in them
 *
 * Returns -1 when the file failed (said once, and remembered in
 * f->error); in parallel, a failure shows there later.
 */
int cw_submit(struct cw_pool *p, ZSTD_CCtx *zc, void *zbuf, struct cw_file *f,
	      unsigned char **pages, uint32_t *cap, uint32_t nr_pages, uint32_t entries)
{
	struct cw_job *j, t;

	if (cw_failed(f))
		return -1;
	if (!__atomic_load_n(&p->nworkers, __ATOMIC_ACQUIRE)) {
		size_t n;

		if (p->compress == UT_COMPRESS_NONE)
			n = (size_t)nr_pages * RB_PAGE_SIZE;
		else
			n = compress_chunk(zc, p->level, zbuf, p->out_size, *pages, nr_pages,
					   entries, f->path);
		if (!n || cw_write_all(f->fd, f->path,
				       p->compress == UT_COMPRESS_NONE ? *pages : zbuf, n) < 0) {
			cw_fail(f);
			return -1;
		}
		return 0;
	}
	pthread_mutex_lock(&p->lock);
	while (!p->free) {
		if (p->queue)
			run_job(p, zc);
		else
			pthread_cond_wait(&p->idle, &p->lock);
	}
	j = p->free;
	p->free = j->next;
	p->pending++;
	pthread_mutex_unlock(&p->lock);

	t = *j;
	j->pages = *pages;
	j->cap = *cap;
	/* only a whole chunk's room back: a small one would be grown again chunk by chunk */
	if (t.cap < UT_CHUNK_PAGES) {
		free(t.pages);
		t.pages = NULL;
		t.cap = 0;
	}
	*pages = t.pages;
	*cap = t.cap;
	j->f = f;
	j->nr_pages = nr_pages;
	j->entries = entries;
	j->done = j->failed = 0;
	j->next = j->next_in_file = NULL;

	pthread_mutex_lock(&p->lock);
	if (f->tail)
		f->tail->next_in_file = j;
	else
		f->head = j;
	f->tail = j;
	if (p->queue_tail)
		p->queue_tail->next = j;
	else
		p->queue = j;
	p->queue_tail = j;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/* no more chunks for @f: f->finish() runs once the last one is written */
void cw_close(struct cw_pool *p, struct cw_file *f)
{
	if (!__atomic_load_n(&p->nworkers, __ATOMIC_ACQUIRE)) {
		f->closing = 2;
		f->finish(f);
		return;
	}
	pthread_mutex_lock(&p->lock);
	f->closing = 1;
	if (!f->writing)
		file_flush(p, f);
	pthread_mutex_unlock(&p->lock);
}

/* until every chunk handed over is written and every closed file finished */
void cw_wait(struct cw_pool *p)
{
	pthread_mutex_lock(&p->lock);
	while (p->pending || p->finishing)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void cw_destroy(struct cw_pool *p)
{
	if (!p)
		return;
	cw_wait(p);
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nworkers; i++) {
		pthread_join(p->workers[i].thread, NULL);
		ZSTD_freeCCtx(p->workers[i].zc);
	}
	for (int i = 0; i < p->njobs; i++) {
		free(p->jobs[i].pages);
		free(p->jobs[i].out);
	}
	free(p->jobs);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->idle);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
