// SPDX-License-Identifier: MIT
/*
 * recorder.c - the recorder's drain/save engine: it finds the threads'
 * ring buffers in the session, drains them (following a buffer that grew
 * into the next), stages their pages and hands them to the chunk writer
 * (recorder/chunk_writer.c), one .dat file per thread, and saves a process's
 * buffers when it dies.  cli/record.c runs the program around it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "recorder/recorder.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "lib/event/reap.h"
#include "utils/utils.h"

/* a writer wakes the recorder once per chunk it can save (ringbuf.h, datfile.h) */
_Static_assert(RB_WAKE_PAGES == UT_CHUNK_PAGES, "RB_WAKE_PAGES");

#define DRAIN_INTERVAL_MS	20
#define SAVE_THREADS_MAX	16

volatile sig_atomic_t recorder_child_pid;
volatile sig_atomic_t recorder_child_changed;
struct ut_session_ctl *volatile recorder_sig_ctl;

/* a child changed state: stop sleeping now, not at the next drain */
void recorder_child_signal(int sig)
{
	struct ut_session_ctl *ctl = recorder_sig_ctl;
	int saved = errno;

	(void)sig;
	recorder_child_changed = 1;
	if (ctl) {
		__atomic_add_fetch(&ctl->wake, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &ctl->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	errno = saved;
}

/* write what the sources have now into their buffers */
void recorder_srcs_poll(struct recorder *rec)
{
	for (int i = 0; ut_sources[i]; i++)
		if (rec->srcs[i].s)
			ut_sources[i]->poll(rec->srcs[i].s);
}

/* the sources' last poll, their buffers closed (the names of their backends stay) */
void recorder_srcs_close(struct recorder *rec)
{
	for (int i = 0; ut_sources[i]; i++)
		if (rec->srcs[i].s) {
			ut_sources[i]->close(rec->srcs[i].s);
			rec->srcs[i].s = NULL;
		}
}

/* the CPUs the recorder may run on */
int recorder_nr_cpus(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int recorder_saver_init(struct saver *sv, int compress)
{
	memset(sv, 0, sizeof(*sv));
	if (compress == UT_COMPRESS_NONE)
		return 0;
	sv->zc = ZSTD_createCCtx();
	sv->zbuf = malloc(cw_out_size());
	if (!sv->zc || !sv->zbuf) {
		ZSTD_freeCCtx(sv->zc);
		free(sv->zbuf);
		sv->zc = NULL;
		sv->zbuf = NULL;
		return -1;
	}
	return 0;
}

void recorder_saver_fini(struct saver *sv)
{
	ZSTD_freeCCtx(sv->zc);
	free(sv->zbuf);
}

/*
 * Hand the staged pages to the chunk writer: it writes them as they are,
 * or compressed, in this thread or (once the program has ended) on its
 * workers.  The traced threads never compress.
 */
static void stage_flush(struct recorder *rec, struct saver *sv, struct stream *st)
{
	uint32_t n = st->staged, entries = st->stage_entries;

	if (!n)
		return;
	st->ext.nr_pages += n;
	st->ext.entries += entries;
	st->staged = st->stage_entries = 0;
	/*
	 * A file that failed (said once, counted at the end) takes no more:
	 * the buffers are still read to the end and freed, the file closed.
	 */
	cw_submit(rec->cw, sv->zc, sv->zbuf, &st->out, &st->stage, &st->stage_cap, n, entries);
}

/* take one page (copied into the stage) */
static void stage_page(struct recorder *rec, struct saver *sv, struct stream *st)
{
	struct rb_page *p = (void *)(st->stage + (size_t)st->staged * RB_PAGE_SIZE);
	/* its place: in the file, or in its chunk (stage_flush() makes one of the staged pages) */
	uint64_t index = rec->compress == UT_COMPRESS_NONE ? st->ext.nr_pages + st->staged :
			 st->staged;
	uint32_t check = ut_dat_page_check(p, index);

	/* in the slack no record reaches: a reader finds a damaged or misplaced page by it */
	memcpy((unsigned char *)p + UT_DAT_PAGE_CHECK_OFF, &check, 4);
	st->stage_entries += p->entries;
	if (++st->staged == UT_CHUNK_PAGES)
		stage_flush(rec, sv, st);
}

/*
 * Save the pages [b->next, head) of one buffer and, if it is closed (or
 * the run is over), the partial head page too.  Returns 1 when the
 * buffer is saved whole, 0 when it goes on (a failed write is the
 * file's: cw_failed(), counted at the end).
 */
static int drain_buffer(struct recorder *rec, struct saver *sv, struct stream *st,
			struct buffer *b, int final)
{
	struct rb_header *h = b->r.hdr;
	uint64_t head;
	int closed = final || __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;

	/* CLOSED before head: a closed buffer's head is its last page */
	head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	if (h->mode == RB_MODE_OVERWRITE) {
		/* a flight recorder is read once, when it is over */
		if (!closed)
			return 0;
		if (head + 1 > h->nr_pages && b->next < head + 1 - h->nr_pages)
			b->next = head + 1 - h->nr_pages;
	}
	while (b->next < (closed ? head + 1 : head)) {
		unsigned char *dst;
		int n;

		/* the stage grows to a chunk: a thread that records little needs little */
		if (st->staged == st->stage_cap) {
			st->stage_cap = st->stage_cap ? 2 * st->stage_cap :
					st->ext.nr_pages ? UT_CHUNK_PAGES : 4;
			st->stage = xrealloc(st->stage, (size_t)st->stage_cap * RB_PAGE_SIZE);
		}
		dst = st->stage + (size_t)st->staged * RB_PAGE_SIZE;
		n = rb_copy_page(h, b->next, dst);

		if (n >= 0 && (n > 0 || b->next != head)) {
			memset(dst + RB_PAGE_HDR + n, 0, RB_PAGE_SIZE - RB_PAGE_HDR - (size_t)n);
			h->read_entries += ((struct rb_page *)dst)->entries;
			stage_page(rec, sv, st);
		}
		b->next++;
		/* the copy is ours now: the writer may have the page back */
		if (h->mode == RB_MODE_CONSUMER)
			__atomic_store_n(&h->tail, b->next, __ATOMIC_RELEASE);
	}
	if (!closed)
		return 0;
	/* the thread's accounting: the last buffer's header, losses of all */
	{
		uint64_t lost = st->acc.lost + h->lost, overrun = st->acc.overrun + h->overrun;

		memcpy(&st->acc, h, sizeof(st->acc));
		st->acc.lost = lost;
		st->acc.overrun = overrun;
	}
	st->ext.buffers++;
	return 1;
}

/* the chunk writer is done with the file: its header page, last */
static void stream_write_header(struct cw_file *f)
{
	struct stream *st = (struct stream *)((char *)f - offsetof(struct stream, out));
	unsigned char page[RB_PAGE_SIZE];

	memset(page, 0, sizeof(page));
	memcpy(page, &st->acc, sizeof(st->acc));
	st->ext.flags |= UT_DAT_CHECKED;
	st->ext.check = 0;
	memcpy(page + UT_DAT_EXT_OFF, &st->ext, sizeof(st->ext));
	st->ext.check = ut_dat_check(page, RB_PAGE_SIZE, 0);
	memcpy(page + UT_DAT_EXT_OFF, &st->ext, sizeof(st->ext));
	if (!cw_failed(f) && pwrite(f->fd, page, RB_PAGE_SIZE, 0) != RB_PAGE_SIZE) {
		pr_err("writing %s: %s", st->path, strerror(errno));
		cw_fail(f);
	}
	close(f->fd);
	f->fd = -1;
}

/* the thread is over: the last pages, then (once they are written) the header page */
static void stream_finish(struct recorder *rec, struct saver *sv, struct stream *st)
{
	stage_flush(rec, sv, st);

	memcpy(st->ext.magic, UT_DAT_MAGIC, 8);
	st->ext.compress = (uint32_t)rec->compress;
	st->ext.level = rec->compress == UT_COMPRESS_NONE ? 0 : rec->level;
	free(st->stage);
	st->stage = NULL;
	st->stage_cap = 0;
	st->done = 1;
	cw_close(rec->cw, &st->out);
}

/* a saved buffer: remove it, and give a grown one's memory back to the budget */
static void buffer_remove(struct recorder *rec, struct buffer *b)
{
	char path[PATH_MAX];
	uint64_t size = rb_file_size(b->r.hdr->nr_pages);
	int grown = b->r.hdr->flags & RB_HDR_GROWN;

	rb_discard(&b->r);	/* its memory goes now, not at the writer's munmap */
	snprintf(path, sizeof(path), "%s/%s", rec->session, b->name);
	unlink(path);
	if (grown)
		__atomic_sub_fetch(&rec->ctl->grow_used, size, __ATOMIC_RELAXED);
	free(b);
}

/*
 * Save what the thread's buffers hold, oldest buffer first: a newer one
 * is read only once the older ones are closed and saved whole.
 */
static void drain_stream(struct recorder *rec, struct saver *sv, struct stream *st, int final)
{
	while (!st->done && st->bufs && (final || st->bufs->gen == st->next_gen)) {
		struct buffer *b = st->bufs;
		int moved;

		if (!drain_buffer(rec, sv, st, b, final))
			return;
		/* only now: the writer stores MOVED before the CLOSED that drain_buffer saw */
		moved = b->r.hdr->flags & RB_HDR_MOVED;
		st->bufs = b->next_gen;
		st->next_gen = b->gen + 1;
		buffer_remove(rec, b);
		/* the thread went on in another buffer: wait for it */
		if (moved && !final)
			continue;
		if (!st->bufs)
			stream_finish(rec, sv, st);
	}
	if (final && !st->done)
		stream_finish(rec, sv, st);
}

static struct stream *stream_find(struct recorder *rec, const char *key)
{
	for (struct stream *st = rec->streams; st; st = st->next)
		if (!strcmp(st->key, key))
			return st;
	return NULL;
}

static struct stream *stream_new(struct recorder *rec, const char *key)
{
	struct stream *st = xcalloc(1, sizeof(*st));

	snprintf(st->key, sizeof(st->key), "%s", key);
	{
		char *dot;
		long tid = (dot = strchr(key, '.')) ? strtol(dot + 1, NULL, 10) : 0;

		st->prio = ut_reap_prio((pid_t)atoi(key), (pid_t)tid);
	}
	snprintf(st->path, sizeof(st->path), "%s/%s.dat", rec->outdir, key);
	st->out.fd = open(st->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (st->out.fd < 0 || ftruncate(st->out.fd, RB_PAGE_SIZE) < 0 ||
	    lseek(st->out.fd, RB_PAGE_SIZE, SEEK_SET) < 0) {
		pr_err("cannot create %s: %s", st->path, strerror(errno));
		rec->error = 1;
		if (st->out.fd >= 0)
			close(st->out.fd);
		free(st);
		return NULL;
	}
	st->out.path = st->path;
	st->out.finish = stream_write_header;
	st->next = rec->streams;
	rec->streams = st;
	return st;
}

/* buf.<key> is generation 0, buf.<key>.<n> generation n */
static int split_name(const char *name, char *key, size_t size, unsigned int *gen)
{
	const char *k = name + 4, *dot;
	int dots = 0;

	for (const char *c = k; *c; c++)
		dots += *c == '.';
	*gen = 0;
	dot = strrchr(k, '.');
	if (dots == 3) {
		char *end;
		unsigned long g = strtoul(dot + 1, &end, 10);

		if (*end || end == dot + 1 || g > 1u << 30)
			return -1;
		*gen = (unsigned int)g;
	} else if (dots != 2) {
		return -1;
	} else {
		dot = k + strlen(k);
	}
	if ((size_t)(dot - k) >= size)
		return -1;
	memcpy(key, k, (size_t)(dot - k));
	key[dot - k] = 0;
	return 0;
}

/* pick up buffers created since the last scan */
void recorder_scan_buffers(struct recorder *rec)
{
	struct dirent *de;
	DIR *d = opendir(rec->session);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX], key[256];
		struct buffer *b, **pp;
		struct stream *st;
		unsigned int gen;
		int known = 0;

		if (strncmp(de->d_name, "buf.", 4) || strlen(de->d_name) >= sizeof(b->name) ||
		    split_name(de->d_name, key, sizeof(key), &gen) < 0)
			continue;
		st = stream_find(rec, key);
		if (st && (st->done || gen < st->next_gen))
			continue;
		for (b = st ? st->bufs : NULL; b; b = b->next_gen)
			known |= b->gen == gen;
		if (known)
			continue;
		b = xcalloc(1, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
		b->gen = gen;
		snprintf(path, sizeof(path), "%s/%s", rec->session, de->d_name);
		if (rb_open(path, &b->r) < 0) {
			/* still being created: next time */
			free(b);
			continue;
		}
		/* the .dat file only once there is a buffer to save into it */
		if (!st && !(st = stream_new(rec, key))) {
			rb_close(&b->r);
			free(b);
			continue;
		}
		for (pp = &st->bufs; *pp && (*pp)->gen < gen; pp = &(*pp)->next_gen)
			;
		b->next_gen = *pp;
		*pp = b;
	}
	closedir(d);
}

/* the program has ended: what is left is saved on every CPU */
void recorder_set_ending(struct recorder *rec)
{
	rec->ending = 1;
	cw_parallel(rec->cw);
}

/*
 * Has the program (the first process) ended?  Then what its threads left
 * in their buffers is saved in parallel (save_streams()): a pass over
 * every buffer while the recorder was behind would take long on one CPU.
 * WNOWAIT: the main loop reaps it.
 */
static int program_ended(struct recorder *rec)
{
	siginfo_t si = { 0 };

	if (rec->ending)
		return 1;
	if (!recorder_child_changed)
		return 0;
	recorder_child_changed = 0;
	if (waitid(P_PID, (id_t)recorder_child_pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == recorder_child_pid)
		recorder_set_ending(rec);
	return rec->ending;
}

/* pages a stream's buffers hold, not yet saved */
static uint64_t stream_backlog(const struct stream *st)
{
	uint64_t n = 0;

	for (const struct buffer *b = st->bufs; b; b = b->next_gen) {
		uint64_t head = __atomic_load_n(&b->r.hdr->head, __ATOMIC_ACQUIRE) + 1;

		n += head > b->next ? head - b->next : 0;
	}
	return n;
}

static int by_backlog(const void *a, const void *b)
{
	const struct stream *x = *(struct stream *const *)a, *y = *(struct stream *const *)b;

	return x->backlog < y->backlog ? 1 : x->backlog > y->backlog ? -1 : 0;
}

static void save_some(struct save_list *l, struct saver *sv)
{
	int i;

	while ((i = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED)) < l->n)
		drain_stream(l->rec, sv, l->st[i], 1);
}

static void *save_thread(void *arg)
{
	struct save_list *l = arg;
	struct saver sv;

	/* no compressor: the others save it all */
	if (recorder_saver_init(&sv, l->rec->compress) == 0) {
		save_some(l, &sv);
		recorder_saver_fini(&sv);
	}
	return NULL;
}

/*
 * Save the streams of l whole.  Once the program has ended, nothing else
 * wants the CPUs: one thread per CPU, each saving (copying, compressing,
 * writing, freeing) whole streams, so a stream's chunks stay in order.
 * While the program runs (a child process ended), the recorder's one
 * thread does it, not to take CPU time from the program.
 */
static void save_streams(struct recorder *rec, struct saver *sv, struct save_list *l)
{
	pthread_t th[SAVE_THREADS_MAX];
	int nth = 0, want = rec->nr_cpus < l->n ? rec->nr_cpus : l->n;
	sigset_t all, old;

	if (want > SAVE_THREADS_MAX)
		want = SAVE_THREADS_MAX;
	if (rec->ending && want > 1) {
		/* the biggest first: the last stream taken is a small one */
		for (int i = 0; i < l->n; i++)
			l->st[i]->backlog = stream_backlog(l->st[i]);
		qsort(l->st, (size_t)l->n, sizeof(*l->st), by_backlog);
		/* the program's signals are for the main thread: it forwards them */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		while (nth < want - 1 && pthread_create(&th[nth], NULL, save_thread, l) == 0)
			nth++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	save_some(l, sv);
	while (nth)
		pthread_join(th[--nth], NULL);
}

/*
 * Save what every thread's buffers hold.  @final: all of it, the threads
 * are over.  A pass that is not final stops early when the program ends:
 * the rest is then saved in parallel, by recorder_drain_dead() or the final pass.
 */
void recorder_drain_all(struct recorder *rec, struct saver *sv, int final)
{
	struct save_list l = { .rec = rec };
	int n = 0;

	if (!final) {
		/* processes that outlive the program are saved as they go, as before */
		int ended = rec->ending;

		for (struct stream *st = rec->streams; st; st = st->next) {
			if (!ended && program_ended(rec))
				return;
			drain_stream(rec, sv, st, 0);
		}
		return;
	}
	for (struct stream *st = rec->streams; st; st = st->next)
		n += !st->done;
	l.st = xcalloc((size_t)n, sizeof(*l.st));
	for (struct stream *st = rec->streams; st; st = st->next)
		if (!st->done)
			l.st[l.n++] = st;
	save_streams(rec, sv, &l);
	free(l.st);
}

/*
 * A process is over: save all its buffers now, closed or not.  The main
 * thread's buffer is never closed (exit() runs no thread destructor), and
 * a grown buffer gives its memory back to the budget only once saved.
 * @pid: a process the recorder reaped (every thread of it is gone), or 0
 * for every process that no longer exists (reaped by its own parent).  A
 * pid taken again by a new process only delays the save to the end.
 */
static int stream_is_dead(const struct stream *st, pid_t pid)
{
	pid_t p = (pid_t)atoi(st->key);

	return !st->done && (pid ? p == pid : kill(p, 0) < 0 && errno == ESRCH);
}

/*
 * The threads of the dead streams @l that did not write their end (the
 * process died of a signal, or exit() or exec ended them): their
 * sched_process_exit, at the time the death was seen, one process at a
 * time (lib/event/reap.c).
 */
void recorder_reap_threads(struct recorder *rec, struct save_list *l)
{
	struct ut_reap_thread *t = xcalloc((size_t)l->n + 1, sizeof(*t));
	int on = __atomic_load_n(&rec->ctl->tracing_on, __ATOMIC_ACQUIRE) != 0;

	for (int i = 0; i < l->n; i++) {
		pid_t pid = (pid_t)atoi(l->st[i]->key);
		int n = 0, seen = 0;

		for (int k = 0; k < i && !seen; k++)
			seen = (pid_t)atoi(l->st[k]->key) == pid;
		if (seen)
			continue;
		for (int k = i; k < l->n; k++) {
			struct buffer *b = l->st[k]->bufs;

			if ((pid_t)atoi(l->st[k]->key) != pid || !b)
				continue;
			while (b->next_gen)
				b = b->next_gen;
			/* the sched events' buffer: the recorder's, not a thread's */
			if (b->r.hdr->flags & RB_HDR_AUX)
				continue;
			t[n].h = b->r.hdr;
			t[n].prio = l->st[k]->prio;
			n++;
		}
		ut_reap_exit(rec->events, on, t, n, rec->ctl->clock == UT_CLOCK_TSC ? ut_rdtsc : ut_mono_ns);
	}
	free(t);
}

void recorder_drain_dead(struct recorder *rec, struct saver *sv, pid_t pid)
{
	struct save_list l = { .rec = rec };
	struct stream *st;
	int n = 0;

	if (!pid) {
		for (st = rec->streams; st && !stream_is_dead(st, 0); st = st->next)
			;
		if (!st)
			return;
	}
	/*
	 * its sched events first: the kernel wrote them before the death
	 * was seen, but the source's last pass may be older (a short
	 * program may run entirely between two), and its buffer is saved
	 * with its process's
	 */
	recorder_srcs_poll(rec);
	/* its last buffers too, and threads that started since the last scan */
	recorder_scan_buffers(rec);
	for (st = rec->streams; st; st = st->next)
		n++;
	l.st = xcalloc((size_t)n, sizeof(*l.st));
	for (st = rec->streams; st; st = st->next)
		if (stream_is_dead(st, pid))
			l.st[l.n++] = st;
	if (l.n) {
		recorder_reap_threads(rec, &l);
		save_streams(rec, sv, &l);
	}
	free(l.st);
}

void recorder_wait_wake(struct recorder *rec, uint32_t seen)
{
	struct timespec to = { 0, DRAIN_INTERVAL_MS * 1000000L };

	__atomic_store_n(&rec->ctl->sleeping, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rec->ctl->wake, __ATOMIC_ACQUIRE) == seen)
		syscall(SYS_futex, &rec->ctl->wake, FUTEX_WAIT, seen, &to, NULL, 0);
	__atomic_store_n(&rec->ctl->sleeping, 0, __ATOMIC_SEQ_CST);
}
