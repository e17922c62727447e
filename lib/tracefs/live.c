// SPDX-License-Identifier: MIT
/*
 * live.c - the text of `trace`, `trace_pipe` and per_cpu stats of a live
 * session, made by the same pipeline as `usertrace replay`.
 *
 * Each buffer buf.<pid>.<tid>.<image> of the session is read with
 * rb_copy_page() (never written) and its records are copied into fresh
 * pages of an anonymous file (memfd) in the .dat format of
 * usertrace-data(5): a header page, then data pages.  While copying, the
 * records the view hides (at or before `since`, on another cpu, already
 * read by a trace_pipe reader) are left out, and a call-stack tracker keeps
 * the depth (and the functions) of the open calls, so that every page
 * written starts with a STACK record (DEPTH beyond 64 levels) that puts the
 * decoder at the right depth however many records were left out before.
 * The files are then given to utils/data.c (ut_data_add_thread()) and
 * printed by lib/trace (trace_iter_init(), tracer_set_option(),
 * trace_print_all()) into an open_memstream(): exactly what replay prints.
 *
 * Per session a cache (a directory <session>/.live.XXXXXX, removed at
 * exit) holds an info file with the clock calibration, copies of the maps
 * snapshots and the symbol tables built from them (ut_symtab_save()); the
 * tables are rebuilt only when the maps files change.
 *
 * Clock: with the TSC, the calibration is two (tsc, CLOCK_MONOTONIC)
 * pairs taken 2 ms apart when the session is first read by this process
 * (the buffers carry no creation time), and stays fixed, so that
 * live_now() and the events' timestamps always agree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/event/evtab.h"
#include "lib/filter/list.h"
#include "lib/trace/tracer.h"
#include "usertrace/tracers.h"
#include "lib/tracefs/live.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/utils.h"

/* ---- per-session cache: calibration and symbols ---- */

struct live_cache {
	struct live_cache *next;
	char session[PATH_MAX];
	char dir[PATH_MAX];		/* <session>/.live.XXXXXX, "" if none */
	struct ut_data cal;		/* clock, nr_cpus, symtab; no threads */
	uint64_t maps_sig;
	const struct ut_evreg *evreg;	/* the session's events (SESSION/events), NULL: none */
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct live_cache *caches;
static int atexit_done;

static void live_cleanup(void)
{
	for (struct live_cache *c = caches; c; c = c->next) {
		if (c->dir[0])
			remove_tree(c->dir);
		if (c->evreg)
			munmap((void *)c->evreg, sizeof(*c->evreg));
	}
}

/* ctl->clock of the session, or -errno */
static int session_clock(const char *session)
{
	struct ut_session_ctl ctl;
	char path[PATH_MAX];
	size_t want = offsetof(struct ut_session_ctl, procs);
	int fd, clock;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/control", session);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &ctl, want, 0);
	close(fd);
	if (n != (ssize_t)want || memcmp(ctl.magic, UT_CTL_MAGIC, 8))
		return -EINVAL;
	clock = ctl.clock == UT_CLOCK_TSC ? UT_CLOCK_TSC : UT_CLOCK_MONO;
	return clock;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* a hash of the names, sizes and times of the session's maps.* files; 0 if none */
static uint64_t maps_signature(const char *session)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct dirent *de;
	DIR *d = opendir(session);
	int n = 0;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX + 256];
		struct stat st;

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", session, de->d_name);
		if (stat(path, &st) < 0)
			continue;
		/* the order of readdir: sum the hashes of the entries */
		h += fnv(fnv(fnv(0xcbf29ce484222325ull, de->d_name, strlen(de->d_name)),
			     &st.st_size, sizeof(st.st_size)), &st.st_mtim, sizeof(st.st_mtim));
		n++;
	}
	if (d)
		closedir(d);
	return n ? h : 0;
}

/* copy the maps snapshots into the cache and rebuild the symbol tables */
static void cache_symbols(struct live_cache *c)
{
	uint64_t sig = maps_signature(c->session);
	struct dirent *de;
	DIR *d;

	if (sig == c->maps_sig || !c->dir[0])
		return;
	d = opendir(c->session);
	while (d && (de = readdir(d))) {
		char from[PATH_MAX + 256], to[PATH_MAX + 256];

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(from, sizeof(from), "%s/%s", c->session, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", c->dir, de->d_name);
		ut_copy_file(from, to, 0600);
	}
	if (d)
		closedir(d);
	if (c->cal.symtab)
		ut_symtab_free(c->cal.symtab);
	c->cal.symtab = NULL;
	if (ut_symtab_save(c->dir) == 0) {
		c->cal.symtab = ut_symtab_load(c->dir);
		ut_symtab_set_clock(c->cal.symtab, ut_data_ns_of, &c->cal);
	}
	c->maps_sig = sig;
}

/* the session's event registry, read-only; NULL if it has none */
static const struct ut_evreg *map_evreg(const char *session)
{
	char path[PATH_MAX + 16];
	struct stat st;
	void *m;
	int fd;

	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct ut_evreg)) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, sizeof(struct ut_evreg), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (memcmp(((const struct ut_evreg *)m)->magic, UT_EVREG_MAGIC, 8) ||
	    ((const struct ut_evreg *)m)->version != UT_EVREG_VERSION) {
		munmap(m, sizeof(struct ut_evreg));
		return NULL;
	}
	return m;
}

/* the cache of @session, made on first use; NULL with *err set.  live_lock held. */
static struct live_cache *cache_get(const char *session, int *err)
{
	struct live_cache *c;
	char path[PATH_MAX + 16];
	uint64_t tsc0 = 0, mono0 = 0, tsc1 = 0, mono1 = 0;
	int clock;
	FILE *f;

	for (c = caches; c; c = c->next)
		if (!strcmp(c->session, session))
			goto found;
	clock = session_clock(session);
	if (clock < 0) {
		*err = clock;
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	snprintf(c->session, sizeof(c->session), "%s", session);
	snprintf(c->dir, sizeof(c->dir), "%s/.live.XXXXXX", session);
	if (!mkdtemp(c->dir)) {
		*err = -errno;
		free(c);
		return NULL;
	}
	if (clock == UT_CLOCK_TSC) {
		ut_calibrate(&tsc0, &mono0);
		do
			usleep(200);
		while (ut_mono_ns() - mono0 < 2000000ull);
		ut_calibrate(&tsc1, &mono1);
	}
	snprintf(path, sizeof(path), "%s/info", c->dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "# usertrace live session %s\nversion=1\ntracer=" UT_TRACER_DEFAULT "\n"
			"clock=%s\ntsc0=%" PRIu64 "\nmono0=%" PRIu64 "\ntsc1=%" PRIu64
			"\nmono1=%" PRIu64 "\nnr_cpus=%ld\n", session,
			clock == UT_CLOCK_TSC ? "tsc" : "mono", tsc0, mono0, tsc1, mono1,
			sysconf(_SC_NPROCESSORS_CONF));
		if (fclose(f))
			f = NULL;
	}
	if (!f || ut_data_open(&c->cal, c->dir) < 0) {
		*err = -EIO;
		remove_tree(c->dir);
		free(c);
		return NULL;
	}
	c->next = caches;
	caches = c;
	if (!atexit_done && atexit(live_cleanup) == 0)
		atexit_done = 1;
found:
	cache_symbols(c);
	if (!c->evreg)
		c->evreg = map_evreg(session);
	return c;
}

/*
 * The events the programs registered, for printing them: their formats,
 * made from the registry's descriptors.  NULL if the session has no
 * registry.  live_lock held.
 */
static struct ut_evtab *cache_events(struct live_cache *c)
{
	struct ut_evtab *t;
	uint32_t nr;

	if (!c->evreg || !(t = ut_evtab_new()))
		return NULL;
	ut_evtab_set_symtab(t, c->cal.symtab);
	nr = __atomic_load_n(&c->evreg->nr, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < nr && i < UT_EVREG_SLOTS; i++) {
		struct ut_event_desc *d = ut_evreg_desc(c->evreg, i);

		/* one that libtraceevent cannot read prints its bytes */
		if (d)
			ut_evtab_add_desc(t, d);
		free(d);
	}
	return t;
}

static uint64_t cache_now(const struct live_cache *c)
{
	return c->cal.clock == UT_CLOCK_TSC ? ut_data_ns(&c->cal, ut_rdtsc()) : ut_mono_ns();
}

uint64_t live_now(const char *session_dir)
{
	struct live_cache *c;
	uint64_t now;
	int err;

	pthread_mutex_lock(&live_lock);
	c = cache_get(session_dir, &err);
	now = c ? cache_now(c) : ut_mono_ns();
	pthread_mutex_unlock(&live_lock);
	return now;
}

/* ---- copying records into fresh pages ---- */

/* the open calls of a thread, as the records so far leave them */
#define KEPT_MAX	4096		/* open calls whose selection is known */

struct tracker {
	uint32_t depth;
	uint32_t cpu;
	uint64_t last_ts;		/* raw time of the last record passed */
	int sync;			/* the next page written must restate the depth */
	/*
	 * The source restated fewer open calls than it had (calls ended
	 * unseen, their returns lost) down to @cut, since the last restating
	 * written: the stream written says so first, before the calls
	 * restated above them (begun unseen), or the reader could not tell
	 * those from the ones it saw begin (see ut_restate() in the runtime).
	 */
	int have_cut;
	uint32_t cut;
	uint64_t ips[UT_STACK_MAX];	/* 0: unknown */
	/*
	 * With a function selection (set_ftrace_filter of an instance): the
	 * stream written holds the selected calls only, so the depth it
	 * states is theirs.  kept[i]: the open call at depth i was selected.
	 */
	int fsel, as_func;
	uint32_t kdepth;
	uint64_t kips[UT_STACK_MAX];
	uint8_t kept[KEPT_MAX];
};

/* the open calls of the stream written: all of them, or the selected ones */
static const uint64_t *sync_stack(const struct tracker *t, uint32_t *depth)
{
	*depth = t->fsel ? t->kdepth : t->depth;
	return t->fsel ? t->kips : t->ips;
}

/* the pages written for one buffer */
struct emitter {
	int fd;				/* memfd, -1: count only */
	char path[64];
	union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
	int open;
	uint64_t last_ts;		/* raw clock units */
	uint32_t out_cpu;
	uint64_t nr_out;
	uint64_t entries, bytes;
	uint64_t marked_lost, pending_lost;
	uint64_t first_ts;		/* ns of the first event written */
	int have_first;
	int error;
	struct pump_sink *ring;		/* set: the records go to an instance's ring */
};

/* what the view shows, and the clock */
struct filter {
	const struct ut_data *cal;
	uint64_t since;
	int cpu;
	const uint64_t *hide;		/* [from, to) pairs, ns */
	int nr_hide;
	/* function selection: set_ftrace_filter, set_ftrace_notrace; NULL: none */
	const char *ffilter, *fnotrace;
	/*
	 * for the function tracer: with a selection, calls are written as
	 * FUNC records (the parent from the whole stack: the stream written
	 * lacks the calls not selected) and returns are left out
	 */
	int as_func;
	struct ut_symtab *symtab;
	int32_t pid;			/* the buffer being copied, for the symbols */
	uint64_t image;
	/*
	 * per-CPU buffer sizes: records of CPU i before cut[i] (raw time) are
	 * out of CPU i's buffer (cuts_compute()); NULL: no cut
	 */
	const uint64_t *cut;
	uint32_t nr_cut;
	const uint64_t *ev_on;		/* the programs' events shown (live_view.ev_on) */
	int events_only;		/* calls are not taken (a pump for the nop tracer) */
};

static void filter_init(struct filter *f, const struct live_cache *c, const struct live_view *v)
{
	f->cal = &c->cal;
	f->since = v ? v->since : 0;
	f->cpu = v ? v->cpu : -1;
	f->hide = v ? v->hide : NULL;
	f->nr_hide = v && v->hide ? v->nr_hide : 0;
	f->ffilter = v && v->ffilter && v->ffilter[0] ? v->ffilter : NULL;
	f->fnotrace = v && v->fnotrace && v->fnotrace[0] ? v->fnotrace : NULL;
	f->as_func = v && v->tracer && !strcmp(v->tracer, "function");
	f->symtab = c->cal.symtab;
	f->pid = 0;
	f->image = 0;
	f->cut = NULL;
	f->nr_cut = 0;
	f->ev_on = v ? v->ev_on : NULL;
	f->events_only = 0;
}

/* is the EVENT record @rec (@len bytes) one of the events the view shows? */
static int filter_event(const struct filter *f, const unsigned char *rec, uint32_t len)
{
	uint16_t id;
	uint32_t slot;

	if (!f->ev_on || len < 8)
		return 1;
	memcpy(&id, rec + 6, 2);	/* the entry's common_type */
	if (id < UT_EVENT_ID_DYNAMIC)
		return 1;
	slot = (uint32_t)(id - UT_EVENT_ID_DYNAMIC);
	return slot < UT_EVREG_SLOTS && (f->ev_on[slot / 64] >> (slot % 64) & 1);
}

/* a record of a function call (what the nop tracer does not take) */
static int rec_is_call(uint32_t type)
{
	return type == UT_REC_ENTRY || type == UT_REC_EXIT || type == UT_REC_FUNC ||
	       type == UT_REC_ENTRY_PARENT || type == UT_REC_RETURN;
}

/* is a record of @cpu at @raw in that CPU's buffer (live_view.cpu_pages)? */
static int filter_cut(const struct filter *f, uint32_t cpu, uint64_t raw)
{
	return !f->cut || cpu >= f->nr_cut || raw >= f->cut[cpu];
}

/* which buffer's records follow (symbols are per process image) */
static void filter_buffer(struct filter *f, const struct rb_header *h)
{
	f->pid = h->pid;
	f->image = h->image;
}

/* does the function at @ip (at @raw in clock units, or UT_SYMTAB_LATEST) pass the selection? */
static int filter_func(const struct filter *f, uint64_t ip, uint64_t raw)
{
	uint64_t ns = raw == UT_SYMTAB_LATEST ? raw : ut_data_ns(f->cal, raw);
	const struct ut_sym *sym = f->symtab ? ut_symtab_find(f->symtab, f->pid, f->image, ip, ns) : NULL;
	/* the lists have the ELF names (available_filter_functions) */
	const char *name = sym ? sym->raw ? sym->raw : sym->name : "";
	const char *mod = sym && sym->module ? sym->module : "";

	return ut_list_match(f->ffilter, name, mod) != 0 &&
	       ut_list_match(f->fnotrace, name, mod) != 1;
}

/* is a record at @raw (clock units) in the view's time? */
static int filter_time(const struct filter *f, uint64_t raw)
{
	uint64_t ns = ut_data_ns(f->cal, raw);

	if (ns <= f->since)
		return 0;
	for (int i = 0; i < f->nr_hide; i++)
		if (ns >= f->hide[2 * i] && ns < f->hide[2 * i + 1])
			return 0;
	return 1;
}

struct pump_sink;

static void emit_init(struct emitter *e, int fd)
{
	memset(e, 0, sizeof(*e));
	e->fd = fd;
	if (fd >= 0)
		snprintf(e->path, sizeof(e->path), "/proc/self/fd/%d", fd);
}

static void emit_flush(struct emitter *e)
{
	if (!e->open)
		return;
	if (e->fd >= 0 && pwrite(e->fd, e->page.bytes, RB_PAGE_SIZE,
				 (off_t)((e->nr_out + 1) * RB_PAGE_SIZE)) != RB_PAGE_SIZE)
		e->error = -EIO;
	e->nr_out++;
	e->open = 0;
}

static void emit_start(struct emitter *e, struct tracker *t, uint64_t ts)
{
	struct rb_page *p = &e->page.p;
	uint64_t lost = e->pending_lost;

	emit_flush(e);
	memset(e->page.bytes, 0, sizeof(e->page.bytes));
	p->seq = e->nr_out;
	p->ts = ts;
	p->cpu = t->cpu;
	if (lost > RB_PAGE_LOST_MASK)
		lost = RB_PAGE_LOST_MASK;
	p->flags = (uint32_t)lost;
	e->marked_lost += lost;
	e->pending_lost = 0;
	e->last_ts = ts;
	e->out_cpu = t->cpu;
	e->open = 1;
	t->sync = 1;
}

static void emit_put(struct emitter *e, uint32_t type, uint64_t ts, const void *payload, uint32_t n)
{
	struct rb_page *p = &e->page.p;
	uint32_t h = RB_HDR(type, ts - e->last_ts);

	memcpy(p->data + p->commit, &h, 4);
	memcpy(p->data + p->commit + 4, payload, n);
	p->commit += 4 + n;
	e->last_ts = ts;
}

/* the first @d open calls, as a STACK (DEPTH beyond UT_STACK_MAX) */
static void emit_stack(struct emitter *e, const uint64_t *ips, uint32_t d, uint64_t ts)
{
	unsigned char buf[2 + 6 * UT_STACK_MAX];
	uint16_t n = (uint16_t)d;

	if (d > UT_STACK_MAX) {
		emit_put(e, UT_REC_DEPTH, ts, &d, 4);
		return;
	}
	memcpy(buf, &n, 2);
	for (uint32_t i = 0; i < d; i++)
		ut_put48(buf + 2 + 6 * i, ips[i]);
	emit_put(e, UT_REC_STACK, ts, buf, 2 + 6u * n);
}

/* the open calls the source cut back to, as sync_stack() counts them; 0 if none below @d */
static int sync_cut(const struct tracker *t, uint32_t d, uint32_t *cut)
{
	uint32_t c = t->cut;

	if (!t->have_cut)
		return 0;
	if (t->fsel) {
		c = 0;
		for (uint32_t i = 0; i < t->cut && i < KEPT_MAX; i++)
			c += t->kept[i];
	}
	*cut = c;
	return c < d;
}

static uint32_t stack_len(uint32_t d)
{
	return d <= UT_STACK_MAX ? 6 + 6 * d : 8;
}

static uint32_t sync_len(const struct tracker *t)
{
	uint32_t d, cut;

	sync_stack(t, &d);
	return stack_len(d) + (sync_cut(t, d, &cut) ? stack_len(cut) : 0);
}

/* the source restates its open calls: remember how far down it cut them */
static void track_cut(struct tracker *t, uint32_t depth)
{
	if (depth < t->depth && (!t->have_cut || depth < t->cut)) {
		t->cut = depth;
		t->have_cut = 1;
	}
}

/* ---- an instance's ring buffers (live_pump) ---- */

struct pump_sink {
	char path[PATH_MAX];		/* the ring's file, made at its first record */
	const struct rb_header *src;	/* the session's buffer it copies */
	uint32_t nr_pages;
	struct rb_writer w;
	int open, failed;
	struct tracker *t;		/* for the first record of each page */
};

/* one record into the ring; the ring keeps time running forward */
static void ring_put(struct rb_writer *w, uint32_t type, uint64_t ts, const void *payload,
		     uint32_t n)
{
	unsigned char *p = rb_reserve(w, 4 + n, &ts);
	uint32_t h;

	if (!p)
		return;
	h = RB_HDR(type, ts - w->last_ts);
	memcpy(p, &h, 4);
	memcpy(p + 4, payload, n);
	rb_commit(w, 4 + n, ts, ut_rec_counts(type));
}

/* the first @d open calls, as a STACK (DEPTH beyond UT_STACK_MAX) */
static void ring_stack(struct rb_writer *w, const uint64_t *ips, uint32_t d, uint64_t ts)
{
	unsigned char buf[2 + 6 * UT_STACK_MAX];
	uint16_t n = (uint16_t)d;

	if (d > UT_STACK_MAX) {
		ring_put(w, UT_REC_DEPTH, ts, &d, 4);
		return;
	}
	memcpy(buf, &n, 2);
	for (uint32_t i = 0; i < d; i++)
		ut_put48(buf + 2 + 6 * i, ips[i]);
	ring_put(w, UT_REC_STACK, ts, buf, 2 + 6u * n);
}

/* the open calls (after the ones left of a cut, if the source cut them) */
static void ring_sync(struct rb_writer *w, const struct tracker *t, uint64_t ts)
{
	uint32_t d, cut;
	const uint64_t *ips = sync_stack(t, &d);

	if (sync_cut(t, d, &cut))
		ring_stack(w, ips, cut, ts);
	ring_stack(w, ips, d, ts);
}

/* rb_writer's page_start: every page states the open calls first */
static void ring_page_start(struct rb_writer *w, uint64_t ts)
{
	struct pump_sink *k = (struct pump_sink *)((char *)w - offsetof(struct pump_sink, w));

	if (k->t)
		ring_sync(w, k->t, ts);
}

/* the ring's file, at its first record: pages start at @ts */
static int ring_open(struct pump_sink *k, uint64_t ts)
{
	struct rb_header *h;

	if (k->failed || !k->src)
		return -1;
	if (rb_create(k->path, k->nr_pages, RB_MODE_OVERWRITE, &h) < 0) {
		k->failed = 1;
		return -1;
	}
	h->pid = k->src->pid;
	h->tid = k->src->tid;
	h->image = k->src->image;
	memcpy(h->comm, k->src->comm, sizeof(h->comm));
	k->w.page_start = ring_page_start;
	k->w.cpu = k->t ? k->t->cpu : 0;
	rb_writer_init(&k->w, h, ts);
	k->open = 1;
	return 0;
}

/* records lost before the next one: a new page carries the mark and restates the open calls */
static void ring_lost(struct emitter *e, struct tracker *t, uint64_t ts)
{
	struct pump_sink *k = e->ring;

	if (!k->open)
		return;
	k->t = t;
	if (ts < k->w.last_ts)
		ts = k->w.last_ts;
	k->w.hdr->lost += e->pending_lost;
	k->w.lost_pending += (uint32_t)e->pending_lost;
	e->pending_lost = 0;
	k->w.cpu = t->cpu;
	rb_writer_next_page(&k->w, ts);
	t->sync = 0;
}

static void ring_emit(struct emitter *e, struct tracker *t, const unsigned char *rec,
		      uint32_t len, uint64_t ts, uint32_t type)
{
	struct pump_sink *k = e->ring;
	struct rb_writer *w = &k->w;

	k->t = t;
	if (!k->open && ring_open(k, ts) < 0)
		return;
	if (ts < w->last_ts)
		ts = w->last_ts;
	if (e->pending_lost)
		ring_lost(e, t, ts);
	if (t->sync) {
		ring_sync(w, t, ts);
		t->sync = 0;
		t->have_cut = 0;
	}
	if (w->cpu != t->cpu) {
		w->cpu = t->cpu;
		ring_put(w, UT_REC_CPU, ts, &t->cpu, 4);
	}
	ring_put(w, type, ts, rec + 4, len - 4);
	if (ut_rec_counts(type))
		e->entries++;
	e->bytes += len;
}

/* write the record @rec (@len bytes, absolute time @ts) as the next one of the stream */
static void emit(struct emitter *e, struct tracker *t, const struct filter *f,
		 const unsigned char *rec, uint32_t len, uint64_t ts)
{
	struct rb_page *p = &e->page.p;
	uint32_t h, type, need;

	memcpy(&h, rec, 4);
	type = RB_HDR_TYPE(h);
	if (e->ring) {
		ring_emit(e, t, rec, len, ts, type);
		return;
	}
	if (e->open && ts < e->last_ts)
		ts = e->last_ts;
	need = len + (t->sync ? sync_len(t) : 0) + (e->out_cpu != t->cpu ? 8 : 0);
	if (!e->open || e->pending_lost || p->commit + need > RB_DATA_SIZE ||
	    ts - e->last_ts > RB_DELTA_MAX)
		emit_start(e, t, ts);
	if (t->sync) {
		uint32_t d, cut;
		const uint64_t *ips = sync_stack(t, &d);
		int cutting = sync_cut(t, d, &cut);

		/* STACKs name the open calls; DEPTHs if they do not fit */
		if (d <= UT_STACK_MAX && p->commit + sync_len(t) + 8 + len <= RB_DATA_SIZE) {
			if (cutting)
				emit_stack(e, ips, cut, ts);
			emit_stack(e, ips, d, ts);
		} else {
			if (cutting && p->commit + 16 + 8 + len <= RB_DATA_SIZE)
				emit_put(e, UT_REC_DEPTH, ts, &cut, 4);
			emit_put(e, UT_REC_DEPTH, ts, &d, 4);
		}
		t->sync = 0;
		t->have_cut = 0;
	}
	if (e->out_cpu != t->cpu) {
		emit_put(e, UT_REC_CPU, ts, &t->cpu, 4);
		e->out_cpu = t->cpu;
	}
	emit_put(e, type, ts, rec + 4, len - 4);
	if (ut_rec_counts(type)) {
		p->entries++;
		e->entries++;
		if (!e->have_first) {
			e->have_first = 1;
			e->first_ts = ut_data_ns(f->cal, ts);
		}
	}
	e->bytes += len;
}

/* a LOST mark with nothing after it: an empty page carries it */
static void emit_lost_page(struct emitter *e, struct tracker *t, uint64_t ts)
{
	if (!e->pending_lost)
		return;
	if (e->ring) {
		ring_lost(e, t, ts);
		return;
	}
	if (e->open && ts < e->last_ts)
		ts = e->last_ts;
	emit_start(e, t, ts);
	t->sync = 1;
	emit_flush(e);
}

/* the header page, last: 0 or -errno */
static int emit_finish(struct emitter *e, const struct rb_header *src, uint64_t overrun)
{
	union {
		struct rb_header h;
		unsigned char bytes[RB_PAGE_SIZE];
	} hp;

	emit_flush(e);
	if (e->fd < 0)
		return e->error;
	memset(&hp, 0, sizeof(hp));
	memcpy(&hp.h, src, sizeof(hp.h));
	hp.h.head = e->nr_out ? e->nr_out - 1 : 0;
	hp.h.tail = 0;
	hp.h.lost = e->marked_lost;	/* every loss has its mark */
	hp.h.overrun = overrun;
	hp.h.read_entries = 0;
	if (pwrite(e->fd, hp.bytes, RB_PAGE_SIZE, 0) != RB_PAGE_SIZE)
		return -EIO;
	return e->error;
}

/* the open calls of the stream written, with a selection: the kept ones */
static void track_kept(struct tracker *t)
{
	t->kdepth = 0;
	for (uint32_t i = 0; i < t->depth && i < KEPT_MAX; i++) {
		if (!t->kept[i])
			continue;
		if (t->kdepth < UT_STACK_MAX)
			t->kips[t->kdepth] = i < UT_STACK_MAX ? t->ips[i] : 0;
		t->kdepth++;
	}
}

/* the stream states its depth: calls that appear are unknown (not selected) */
static void track_depth(struct tracker *t, uint32_t depth)
{
	for (uint32_t i = t->depth; i < depth && i < UT_STACK_MAX; i++)
		t->ips[i] = 0;
	for (uint32_t i = t->depth; i < depth && i < KEPT_MAX; i++)
		t->kept[i] = 0;
	t->depth = depth;
	track_kept(t);
}

/*
 * Copy the records of the page @src from offset @skip on (the ones before
 * are already done) through @f into @e.  *@off: where the records end,
 * *@events: events passed (shown or not).  Returns 0, or -1 on a corrupt page.
 */
static int copy_page(struct emitter *e, struct tracker *t, const struct filter *f,
		     const struct rb_page *src, uint32_t skip, uint32_t *off, uint64_t *events)
{
	const unsigned char *r;
	struct rb_iter it;
	uint32_t len, h, v;
	uint64_t ts;
	int ret, pass;

	rb_iter_init(&it, src, ut_rec_len);
	if (t->fsel != (f->ffilter || f->fnotrace) || (t->fsel && t->as_func != f->as_func)) {
		/* the selection changed: what the stream holds open changes too */
		t->fsel = f->ffilter || f->fnotrace;
		t->as_func = f->as_func;
		for (uint32_t i = 0; i < t->depth && i < KEPT_MAX; i++)
			t->kept[i] = !t->fsel || (i < UT_STACK_MAX && t->ips[i] &&
						  filter_func(f, t->ips[i], UT_SYMTAB_LATEST));
		track_kept(t);
		t->sync = 1;
	}
	if (!skip) {
		uint32_t lost = src->flags & RB_PAGE_LOST_MASK;

		t->cpu = src->cpu;
		if (lost && filter_time(f, src->ts) && filter_cut(f, src->cpu, src->ts) &&
		    (f->cpu < 0 || (uint32_t)f->cpu == src->cpu))
			e->pending_lost += lost;
	}
	while ((ret = rb_iter_next(&it, &r, &len, &ts)) > 0) {
		uint32_t type;
		int shown;

		if (it.off - len < skip)
			continue;
		*off = it.off;
		t->last_ts = ts;
		memcpy(&h, r, 4);
		type = RB_HDR_TYPE(h);
		*events += ut_rec_counts(type);
		switch (type) {
		case UT_REC_DEPTH:
			memcpy(&v, r + 4, 4);
			if (v != t->depth)
				t->sync = 1;
			track_cut(t, v);
			track_depth(t, v);
			continue;
		case UT_REC_CPU:
			memcpy(&v, r + 4, 4);
			t->cpu = v;
			continue;
		case UT_REC_STACK: {
			uint16_t n;

			memcpy(&n, r + 4, 2);
			track_cut(t, n);
			t->depth = n;
			for (uint32_t i = 0; i < n; i++) {
				t->ips[i] = ut_get48(r + 6 + 6 * i);
				if (i < KEPT_MAX)
					t->kept[i] = !t->fsel || filter_func(f, t->ips[i], UT_SYMTAB_LATEST);
			}
			track_kept(t);
			t->sync = 1;
			continue;
		}
		default:
			break;
		}
		/* the function selection: a call's EXIT goes with its ENTRY */
		pass = 1;
		if (t->fsel) {
			if (type == UT_REC_EXIT)
				pass = t->depth && t->depth <= KEPT_MAX && t->kept[t->depth - 1];
			else if ((type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT) &&
				 t->depth >= KEPT_MAX)
				pass = 0;	/* too deep to remember: not selected */
			else if (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT ||
				 type == UT_REC_FUNC || type == UT_REC_RETURN)
				pass = filter_func(f, ut_get48(r + 4), ts);
		}
		/* the programs' events the view did not enable; calls, for a pump of nop */
		if (type == UT_REC_EVENT)
			pass = filter_event(f, r, len);
		else if (f->events_only && rec_is_call(type))
			pass = 0;
		shown = pass && filter_time(f, ts) && filter_cut(f, t->cpu, ts) &&
			(f->cpu < 0 || (uint32_t)f->cpu == t->cpu);
		if (shown && t->fsel && f->as_func &&
		    (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT || type == UT_REC_EXIT)) {
			unsigned char fr[16];
			uint32_t fh = RB_HDR(UT_REC_FUNC, 0);
			uint64_t parent = type == UT_REC_ENTRY_PARENT ? ut_get48(r + 10) :
					  t->depth && t->depth <= UT_STACK_MAX ? t->ips[t->depth - 1] : 0;

			if (type != UT_REC_EXIT) {
				memcpy(fr, &fh, 4);
				ut_put48(fr + 4, ut_get48(r + 4));
				ut_put48(fr + 10, parent);
				emit(e, t, f, fr, 16, ts);
			}
		} else if (shown) {
			emit(e, t, f, r, len, ts);
		}
		if (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT) {
			if (t->depth < UT_STACK_MAX)
				t->ips[t->depth] = ut_get48(r + 4);
			if (t->depth < KEPT_MAX)
				t->kept[t->depth] = (uint8_t)pass;
			if (pass) {
				if (t->kdepth < UT_STACK_MAX)
					t->kips[t->kdepth] = ut_get48(r + 4);
				t->kdepth++;
			}
			t->depth++;
			t->sync |= pass && !shown;
		} else if (type == UT_REC_EXIT) {
			if (t->depth)
				t->depth--;
			if (pass && t->kdepth)
				t->kdepth--;
			t->sync |= pass && !shown;
		}
	}
	if (ret == 0)
		*off = it.page->commit;
	return ret < 0 ? -1 : 0;
}

/* ---- the buffers of a session ---- */

struct live_buf {
	char name[256];
	struct rb_reader r;
	/* trace_pipe position */
	int started;
	uint64_t rseq;			/* page being read */
	uint32_t roff;			/* bytes of it done */
	struct tracker t;
	uint64_t ovr0, retired, reported, ret_seq;
	uint64_t *cnt, *tag;		/* events read per page, by slot */
	uint64_t pending_lost;
	uint64_t last_ts;		/* raw time of the last record read */
	int gone;			/* a pump took all of it: unmapped */
	int marker;			/* a ring of trace_marker's (live_marker) */
};

static void buf_free(struct live_buf *b)
{
	rb_close(&b->r);
	free(b->cnt);
	free(b->tag);
}

/* open the session's buffers not in @bufs yet; returns the new count */
/* set_ftrace_pid: is the buffer's thread (or its process) listed? */
static int pid_selected(const char *pids, const struct live_buf *b)
{
	const struct rb_header *h = b->r.hdr;
	const char *p = pids;

	/* set_ftrace_pid chooses whose functions are traced; markers stay */
	if (b->marker || !p || !p[strspn(p, " \t\n")])
		return 1;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p) {
			p++;
			continue;
		}
		if (v == h->tid || v == h->pid)
			return 1;
		p = end;
	}
	return 0;
}

/*
 * The ring buffers of directory @session: buf.* (the threads', or an
 * instance's copies of them), and with @markers the rings of trace_marker
 * (LIVE_MARKER_RING*).
 */
static int scan_bufs(const char *session, struct live_buf **bufs, int nr, int markers)
{
	struct dirent *de;
	DIR *d = opendir(session);

	while (d && (de = readdir(d))) {
		char path[PATH_MAX];
		struct live_buf *b;
		int known = 0;

		int marker = !strncmp(de->d_name, LIVE_MARKER_RING, strlen(LIVE_MARKER_RING));

		if ((strncmp(de->d_name, "buf.", 4) && !(markers && marker)) ||
		    strlen(de->d_name) >= sizeof(b->name))
			continue;
		for (int i = 0; i < nr && !known; i++)
			known = !strcmp((*bufs)[i].name, de->d_name);
		if (known)
			continue;
		*bufs = xrealloc(*bufs, sizeof(**bufs) * ((size_t)nr + 1));
		b = &(*bufs)[nr];
		memset(b, 0, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", session, de->d_name);
		if (rb_open(path, &b->r) < 0)
			continue;	/* being created: next time */
		b->marker = marker;
		nr++;
	}
	if (d)
		closedir(d);
	return nr;
}

/* head and overrun read together: overrun counts every page below head + 1 - nr_pages */
static void load_head(const struct rb_header *h, uint64_t *head, uint64_t *overrun)
{
	for (int i = 0; i < 100; i++) {
		*head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
		*overrun = __atomic_load_n(&h->overrun, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->head, __ATOMIC_ACQUIRE) == *head)
			return;
	}
}

static uint64_t oldest_seq(const struct rb_header *h, uint64_t head)
{
	return head + 1 > h->nr_pages ? head + 1 - h->nr_pages : 0;
}

/* a run of records of one CPU in one page: cuts_compute() */
struct cpu_seg {
	uint64_t ts;			/* raw time of its first record */
	uint32_t cpu, bytes;
};

static int seg_newest_first(const void *a, const void *b)
{
	const struct cpu_seg *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->ts > y->ts ? -1 : x->ts < y->ts;
}

/*
 * Per-CPU buffer sizes (live_view.cpu_pages): the kernel's CPU N keeps
 * the newest cpu_pages[N] pages of what ran on CPU N.  The threads'
 * buffers are as large as the largest: here the records of each CPU past
 * its size (newest first, in runs of a page at most, as the kernel drops
 * pages) get a cut time, @cut[cpu] (0: no cut).  @pids: the buffers the
 * view shows.  live_lock held.
 */
static int pid_selected(const char *pids, const struct live_buf *b);

static void cuts_compute(struct live_buf *bufs, int nr, const struct filter *f,
			 const struct live_view *v, uint64_t *cut)
{
	static __thread union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
	struct cpu_seg *segs = NULL;
	size_t n = 0, cap = 0;
	uint32_t ncut = (uint32_t)v->nr_cpu_pages, maxp = 0;

	for (uint32_t i = 0; i < ncut; i++)
		if (v->cpu_pages[i] > maxp)
			maxp = v->cpu_pages[i];
	for (int i = 0; i < nr; i++) {
		struct rb_header *h = bufs[i].r.hdr;
		uint64_t head, ovr;

		if (bufs[i].gone || !pid_selected(v->pids, &bufs[i]))
			continue;
		load_head(h, &head, &ovr);
		for (uint64_t seq = oldest_seq(h, head); seq <= head; seq++) {
			const unsigned char *r;
			struct rb_iter it;
			uint32_t len, cpu, hd;
			uint64_t ts;
			int fresh = 1;		/* a page starts a new run */

			if (rb_copy_page(h, seq, page.bytes) < 0)
				continue;
			cpu = page.p.cpu;
			rb_iter_init(&it, &page.p, ut_rec_len);
			while (rb_iter_next(&it, &r, &len, &ts) > 0) {
				memcpy(&hd, r, 4);
				if (RB_HDR_TYPE(hd) == UT_REC_CPU) {
					memcpy(&cpu, r + 4, 4);
					fresh = 1;
					continue;
				}
				if (!filter_time(f, ts) || cpu >= ncut || v->cpu_pages[cpu] >= maxp ||
				    ts < cut[cpu])
					continue;
				if (fresh) {
					if (n == cap) {
						cap = cap ? cap * 2 : 256;
						segs = xrealloc(segs, cap * sizeof(*segs));
					}
					segs[n++] = (struct cpu_seg){ ts, cpu, 0 };
					fresh = 0;
				}
				segs[n - 1].bytes += len;
			}
		}
	}
	if (n)
		qsort(segs, n, sizeof(*segs), seg_newest_first);
	for (size_t i = 0; i < n;) {
		uint32_t cpu = segs[i].cpu;
		uint64_t room = (uint64_t)v->cpu_pages[cpu] * RB_DATA_SIZE, used = 0;
		size_t first = i;

		for (; i < n && segs[i].cpu == cpu; i++) {
			used += segs[i].bytes;
			if (used > room && i > first) {
				/* this run and the older ones are out: keep from the one after */
				if (segs[i - 1].ts > cut[cpu])
					cut[cpu] = segs[i - 1].ts;
				break;
			}
		}
		while (i < n && segs[i].cpu == cpu)
			i++;
	}
	free(segs);
}

/*
 * A snapshot of the pages @b holds, through @f into @e (not consuming).
 * *@overrun: the events overwritten that the view would have shown.
 */
static void snapshot_buf(struct live_buf *b, struct emitter *e, const struct filter *f,
			 uint64_t *overrun)
{
	static __thread union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
	struct rb_header *h = b->r.hdr;
	struct tracker t;
	uint64_t head, ovr, seq, events;
	uint32_t off;
	int first = 1;

	memset(&t, 0, sizeof(t));
	t.sync = 1;
	load_head(h, &head, &ovr);
	*overrun = 0;
	for (seq = oldest_seq(h, head); seq <= head; seq++) {
		if (rb_copy_page(h, seq, page.bytes) < 0)
			continue;
		if (first) {
			/*
			 * The overwritten events were older than this page: the
			 * view would show them if this page is after `since`.
			 * With a cpu, they are given to the cpu of this page.
			 */
			if (filter_time(f, page.p.ts) && filter_cut(f, page.p.cpu, page.p.ts) &&
			    (f->cpu < 0 || (uint32_t)f->cpu == page.p.cpu))
				*overrun = ovr;
			first = 0;
		}
		events = 0;
		if (copy_page(e, &t, f, &page.p, 0, &off, &events) < 0)
			t.sync = 1;
	}
}

static int make_memfd(void)
{
	int fd = memfd_create("usertrace-live", MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Print the snapshot files @e (one per buffer of @bufs) with the view's
 * tracer and options into a malloc'ed text.  @header 0: without the
 * header lines (trace_pipe).
 */
static int print_files(struct live_cache *c, const struct live_view *v, struct emitter *e,
		       int nr, int header, uint64_t *counter, char **out, size_t *len)
{
	const struct tracer *t = tracer_find(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
	struct trace_iter iter;
	struct ut_data d;
	FILE *f;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (!t)
		return -EINVAL;
	d = c->cal;
	d.threads = NULL;
	d.nr_threads = 0;
	snprintf(d.dir, sizeof(d.dir), "%s", c->session);
	snprintf(d.tracer, sizeof(d.tracer), "%s", t->name);
	for (int i = 0; i < nr; i++)
		if (e[i].fd >= 0)
			ut_data_add_thread(&d, e[i].path);
	f = open_memstream(out, len);
	if (!f) {
		free(d.threads);
		return -ENOMEM;
	}
	trace_iter_init(&iter, &d, t, f);
	iter.lat = v->lat;
	/* the programs' events, as the registry describes them (trace_print_all frees them) */
	iter.events = cache_events(c);
	iter.events_loaded = iter.events != NULL;
	for (const char *const *o = v->options; o && *o; o++)
		if (tracer_set_option(&iter, *o) < 0)
			ret = -EINVAL;
	if (trace_iter_set_clock(&iter, v->clock) < 0)
		ret = -EINVAL;
	iter.counter = counter ? *counter : 0;
	if (!ret && trace_print_all(&iter) < 0)
		ret = -EIO;
	if (counter)
		*counter = iter.counter;
	if (fclose(f))
		ret = ret ? ret : -ENOMEM;
	free(d.threads);
	if (ret) {
		free(*out);
		*out = NULL;
		*len = 0;
		return ret;
	}
	if (!header) {
		/* the header lines all start with '#'; no event line does */
		size_t skip = 0;

		while (skip < *len && (*out)[skip] == '#') {
			char *nl = memchr(*out + skip, '\n', *len - skip);

			skip = nl ? (size_t)(nl - *out) + 1 : *len;
		}
		memmove(*out, *out + skip, *len - skip + 1);
		*len -= skip;
	}
	return 0;
}

static void close_emitters(struct emitter *e, int nr)
{
	for (int i = 0; i < nr; i++)
		if (e[i].fd >= 0)
			close(e[i].fd);
	free(e);
}

/* the per-CPU cuts of view @v into @f (malloc'ed, free with cuts_free()) */
static void cuts_set(struct filter *f, struct live_buf *bufs, int nr, const struct live_view *v)
{
	uint64_t *cut;

	int n = 0;

	f->cut = NULL;
	f->nr_cut = 0;
	if (v->cpu_pages && v->nr_cpu_pages > n)
		n = v->nr_cpu_pages;
	if (v->cpu_since && v->nr_cpu_since > n)
		n = v->nr_cpu_since;
	if (n <= 0)
		return;
	cut = xcalloc((size_t)n, sizeof(*cut));
	/* a CPU's own clear point (per_cpu/cpuN/trace) */
	for (int i = 0; v->cpu_since && i < v->nr_cpu_since; i++)
		if (v->cpu_since[i])
			cut[i] = ut_data_raw(f->cal, v->cpu_since[i]) + 1;
	if (v->cpu_pages && v->nr_cpu_pages > 0)
		cuts_compute(bufs, nr, f, v, cut);
	f->cut = cut;
	f->nr_cut = (uint32_t)n;
}

static void cuts_free(struct filter *f)
{
	free((uint64_t *)f->cut);
	f->cut = NULL;
	f->nr_cut = 0;
}

struct live_reader;
static uint64_t reader_consumed(const struct live_reader *r, const char *name);

/* the view's clear point for buffer @name: later if trace_pipe consumed more */
static uint64_t since_consumed(const struct filter *f, const struct live_view *v,
			       const char *name)
{
	uint64_t raw = v->consumed ? reader_consumed(v->consumed, name) : 0, ns;

	if (!raw)
		return v->since;
	ns = ut_data_ns(f->cal, raw);
	return ns > v->since ? ns : v->since;
}

int live_trace(const char *session_dir, const struct live_view *v, char **out, size_t *len)
{
	struct live_buf *bufs = NULL;
	struct emitter *e = NULL;
	struct live_cache *c;
	struct filter f;
	const char *dir = v->bufdir ? v->bufdir : session_dir;
	int nr = 0, ret = 0, i;

	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&live_lock);
	c = cache_get(session_dir, &ret);
	if (!c)
		goto out;
	filter_init(&f, c, v);
	nr = scan_bufs(dir, &bufs, 0, 1);
	cuts_set(&f, bufs, nr, v);
	e = xcalloc((size_t)nr + 1, sizeof(*e));
	for (i = 0; i < nr; i++)
		e[i].fd = -1;
	for (i = 0; i < nr; i++) {
		uint64_t overrun;
		int fd = make_memfd();

		if (!pid_selected(v->pids, &bufs[i])) {
			if (fd >= 0)
				close(fd);
			emit_init(&e[i], -1);
			continue;
		}
		emit_init(&e[i], fd);
		if (fd < 0) {
			ret = fd;
			break;
		}
		filter_buffer(&f, bufs[i].r.hdr);
		f.since = since_consumed(&f, v, bufs[i].name);
		snapshot_buf(&bufs[i], &e[i], &f, &overrun);
		ret = emit_finish(&e[i], bufs[i].r.hdr, overrun);
		if (ret)
			break;
	}
	if (!ret)
		ret = print_files(c, v, e, nr, 1, NULL, out, len);
	cuts_free(&f);
out:
	pthread_mutex_unlock(&live_lock);
	if (e)
		close_emitters(e, nr);
	for (i = 0; i < nr; i++)
		buf_free(&bufs[i]);
	free(bufs);
	return ret;
}

int live_stats(const char *session_dir, const char *bufdir, int cpu, struct live_stats *st)
{
	struct live_view v = { .cpu = cpu, .bufdir = bufdir };

	return live_stats_view(session_dir, &v, st);
}

int live_stats_view(const char *session_dir, const struct live_view *v, struct live_stats *st)
{
	const char *bufdir = v->bufdir;
	int cpu = v->cpu;
	struct live_buf *bufs = NULL;
	struct live_cache *c;
	struct filter f;
	uint64_t oldest = UINT64_MAX;
	int nr, ret = 0;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&live_lock);
	c = cache_get(session_dir, &ret);
	if (!c)
		goto out;
	filter_init(&f, c, NULL);
	f.cpu = cpu;
	nr = scan_bufs(bufdir ? bufdir : session_dir, &bufs, 0, 1);
	f.since = v->since;
	cuts_set(&f, bufs, nr, v);
	for (int i = 0; i < nr; i++) {
		static __thread struct emitter e;
		uint64_t overrun;

		emit_init(&e, -1);
		snapshot_buf(&bufs[i], &e, &f, &overrun);
		emit_flush(&e);
		st->entries += e.entries;
		st->bytes += e.bytes;
		st->overrun += overrun;
		if (e.have_first && e.first_ts < oldest)
			oldest = e.first_ts;
		buf_free(&bufs[i]);
	}
	cuts_free(&f);
	free(bufs);
	st->written = st->entries + st->overrun;
	st->now_ts = (double)cache_now(c) / 1e9;
	/* as the kernel: 0 with no event */
	st->oldest_event_ts = oldest == UINT64_MAX ? 0 : (double)oldest / 1e9;
out:
	pthread_mutex_unlock(&live_lock);
	return ret;
}

/* ---- trace_pipe ---- */

struct live_reader {
	char session[PATH_MAX];
	char bufdir[PATH_MAX];
	char *ffilter, *fnotrace;
	uint64_t *hide;
	char *tracer;
	char **options;
	uint32_t *cpu_pages;
	uint64_t *cpu_since;
	struct live_view v;
	struct live_buf *bufs;
	int nr;
	uint64_t counter;		/* the counter clock, across reads */
	uint64_t ev_on[LIVE_EV_WORDS];	/* v.ev_on's copy */
};

void live_pipe_set_hide(struct live_reader *r, const uint64_t *hide, int nr)
{
	free(r->hide);
	r->hide = NULL;
	r->v.nr_hide = hide ? nr : 0;
	if (r->v.nr_hide > 0) {
		r->hide = xcalloc((size_t)nr * 2, sizeof(*r->hide));
		memcpy(r->hide, hide, (size_t)nr * 2 * sizeof(*r->hide));
	}
	r->v.hide = r->hide;
}

void live_pipe_set_funcs(struct live_reader *r, const char *ffilter, const char *fnotrace)
{
	free(r->ffilter);
	free(r->fnotrace);
	r->ffilter = ffilter ? xstrdup(ffilter) : NULL;
	r->fnotrace = fnotrace ? xstrdup(fnotrace) : NULL;
	r->v.ffilter = r->ffilter;
	r->v.fnotrace = r->fnotrace;
}

/* the programs' events shown (live_view.ev_on), from the next read on */
static void pipe_set_events(struct live_reader *r, const uint64_t *ev_on)
{
	if (ev_on)
		memcpy(r->ev_on, ev_on, sizeof(r->ev_on));
	r->v.ev_on = ev_on ? r->ev_on : NULL;
}

void live_pipe_set_clock(struct live_reader *r, int clock)
{
	if (r->v.clock != clock)
		r->counter = 0;
	r->v.clock = clock;
}

struct live_reader *live_pipe_open(const char *session_dir, const struct live_view *v)
{
	struct live_reader *r;
	struct live_cache *c;
	int n = 0, err;

	pthread_mutex_lock(&live_lock);
	c = cache_get(session_dir, &err);
	pthread_mutex_unlock(&live_lock);
	if (!c || !tracer_find(v->tracer ? v->tracer : UT_TRACER_DEFAULT)) {
		errno = c ? EINVAL : -err;
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	snprintf(r->session, sizeof(r->session), "%s", session_dir);
	r->v = *v;
	snprintf(r->bufdir, sizeof(r->bufdir), "%s", v->bufdir ? v->bufdir : session_dir);
	r->v.bufdir = r->bufdir;
	r->v.hide = NULL;
	r->v.nr_hide = 0;
	live_pipe_set_hide(r, v->hide, v->nr_hide);
	r->v.ffilter = r->v.fnotrace = NULL;
	live_pipe_set_funcs(r, v->ffilter, v->fnotrace);
	pipe_set_events(r, v->ev_on);
	r->v.pids = v->pids ? xstrdup(v->pids) : NULL;
	r->v.consumed = NULL;
	r->v.cpu_pages = NULL;
	r->v.nr_cpu_pages = 0;
	r->v.cpu_since = NULL;
	r->v.nr_cpu_since = 0;
	r->tracer = xstrdup(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
	r->v.tracer = r->tracer;
	while (v->options && v->options[n])
		n++;
	r->options = xcalloc((size_t)n + 1, sizeof(*r->options));
	for (int i = 0; i < n; i++)
		r->options[i] = xstrdup(v->options[i]);
	r->v.options = (const char *const *)r->options;
	return r;
}

void live_pipe_close(struct live_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr; i++)
		buf_free(&r->bufs[i]);
	free(r->bufs);
	for (char **o = r->options; *o; o++)
		free(*o);
	free(r->options);
	free(r->tracer);
	free((char *)r->v.pids);
	free(r->hide);
	free(r->ffilter);
	free(r->fnotrace);
	free(r->cpu_pages);
	free(r->cpu_since);
	free(r);
}

/* the raw time of the last record @r consumed in buffer @name, 0: none.  live_lock held. */
static uint64_t reader_consumed(const struct live_reader *r, const char *name)
{
	for (int i = 0; i < r->nr; i++)
		if (r->bufs[i].started && !strcmp(r->bufs[i].name, name))
			return r->bufs[i].t.last_ts;
	return 0;
}

void live_pipe_set_view(struct live_reader *r, const struct live_view *v)
{
	int n = 0;

	if (strcmp(r->tracer, v->tracer ? v->tracer : UT_TRACER_DEFAULT)) {
		free(r->tracer);
		r->tracer = xstrdup(v->tracer ? v->tracer : UT_TRACER_DEFAULT);
		r->v.tracer = r->tracer;
	}
	for (char **o = r->options; *o; o++)
		free(*o);
	free(r->options);
	while (v->options && v->options[n])
		n++;
	r->options = xcalloc((size_t)n + 1, sizeof(*r->options));
	for (int i = 0; i < n; i++)
		r->options[i] = xstrdup(v->options[i]);
	r->v.options = (const char *const *)r->options;
	free((char *)r->v.pids);
	r->v.pids = v->pids ? xstrdup(v->pids) : NULL;
	r->v.since = v->since;
	free(r->cpu_pages);
	r->cpu_pages = NULL;
	r->v.nr_cpu_pages = 0;
	if (v->cpu_pages && v->nr_cpu_pages > 0) {
		r->cpu_pages = xcalloc((size_t)v->nr_cpu_pages, sizeof(*r->cpu_pages));
		memcpy(r->cpu_pages, v->cpu_pages, (size_t)v->nr_cpu_pages * sizeof(*r->cpu_pages));
		r->v.nr_cpu_pages = v->nr_cpu_pages;
	}
	r->v.cpu_pages = r->cpu_pages;
	free(r->cpu_since);
	r->cpu_since = NULL;
	r->v.nr_cpu_since = 0;
	if (v->cpu_since && v->nr_cpu_since > 0) {
		r->cpu_since = xcalloc((size_t)v->nr_cpu_since, sizeof(*r->cpu_since));
		memcpy(r->cpu_since, v->cpu_since, (size_t)v->nr_cpu_since * sizeof(*r->cpu_since));
		r->v.nr_cpu_since = v->nr_cpu_since;
	}
	r->v.cpu_since = r->cpu_since;
	live_pipe_set_clock(r, v->clock);
	live_pipe_set_hide(r, v->hide, v->nr_hide);
	live_pipe_set_funcs(r, v->ffilter, v->fnotrace);
	pipe_set_events(r, v->ev_on);
}

/* what @b holds past the reader's position, into @e; the position moves on */
static void pipe_buf(struct live_buf *b, struct emitter *e, const struct filter *f)
{
	static __thread union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
	struct rb_header *h = b->r.hdr;
	uint32_t nr = h->nr_pages;
	uint64_t head, ovr, oldest, seq;

	load_head(h, &head, &ovr);
	oldest = oldest_seq(h, head);
	if (!b->started) {
		b->started = 1;
		b->cnt = xcalloc(nr, sizeof(*b->cnt));
		b->tag = xcalloc(nr, sizeof(*b->tag));
		for (uint32_t i = 0; i < nr; i++)
			b->tag[i] = UINT64_MAX;
		b->rseq = b->ret_seq = oldest;
		b->ovr0 = ovr;
		b->t.sync = 1;
	}
	/* the pages overwritten since: the events read from them are not lost */
	for (; b->ret_seq < oldest; b->ret_seq++)
		if (b->tag[b->ret_seq % nr] == b->ret_seq)
			b->retired += b->cnt[b->ret_seq % nr];
	if (b->rseq < oldest) {
		uint64_t lost = ovr - b->ovr0 - b->retired;

		if (lost > b->reported && ovr - b->ovr0 >= b->retired) {
			b->pending_lost += lost - b->reported;
			b->reported = lost;
		}
		b->rseq = oldest;
		b->roff = 0;
		memset(b->t.ips, 0, sizeof(b->t.ips));
		memset(b->t.kept, 0, sizeof(b->t.kept));
		track_kept(&b->t);
		b->t.sync = 1;
	}
	e->pending_lost = b->pending_lost;
	b->pending_lost = 0;
	for (seq = b->rseq; seq <= head; seq++) {
		uint64_t events = 0;
		uint32_t off = 0, skip = seq == b->rseq ? b->roff : 0;

		if (rb_copy_page(h, seq, page.bytes) < 0)
			break;		/* overwritten meanwhile: the next read counts it */
		if (b->tag[seq % nr] != seq) {
			b->tag[seq % nr] = seq;
			b->cnt[seq % nr] = 0;
		}
		if (!skip)
			b->last_ts = page.p.ts;
		if (copy_page(e, &b->t, f, &page.p, skip, &off, &events) < 0) {
			off = page.p.commit;	/* corrupt: the rest of the page is skipped */
			b->t.sync = 1;
		}
		b->cnt[seq % nr] += events;
		if (seq < head) {
			b->rseq = seq + 1;
			b->roff = 0;
		} else {
			b->rseq = seq;
			b->roff = off;
		}
		if (e->open)
			b->last_ts = e->last_ts;
	}
	emit_lost_page(e, &b->t, b->last_ts);
}

int live_pipe_read(struct live_reader *r, char **out, size_t *len)
{
	struct emitter *e = NULL;
	struct live_cache *c;
	struct filter f;
	const char *dir = r->bufdir;
	int ret = 0, i, any = 0;

	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&live_lock);
	c = cache_get(r->session, &ret);
	if (!c)
		goto out;
	filter_init(&f, c, &r->v);
	r->nr = scan_bufs(dir, &r->bufs, r->nr, 1);
	cuts_set(&f, r->bufs, r->nr, &r->v);
	e = xcalloc((size_t)r->nr + 1, sizeof(*e));
	for (i = 0; i < r->nr; i++)
		e[i].fd = -1;
	for (i = 0; i < r->nr; i++) {
		int fd = make_memfd();

		emit_init(&e[i], fd);
		if (fd < 0) {
			ret = fd;
			break;
		}
		filter_buffer(&f, r->bufs[i].r.hdr);
		if (!pid_selected(r->v.pids, &r->bufs[i])) {
			/* consumed, not shown: as if the thread had not been traced */
			close(fd);
			emit_init(&e[i], -1);
			pipe_buf(&r->bufs[i], &e[i], &f);
			continue;
		}
		pipe_buf(&r->bufs[i], &e[i], &f);
		any |= e[i].nr_out > 0 || e[i].open;
		ret = emit_finish(&e[i], r->bufs[i].r.hdr, 0);
		if (ret)
			break;
	}
	if (!ret && any)
		ret = print_files(c, &r->v, e, r->nr, 0, &r->counter, out, len);
	cuts_free(&f);
out:
	pthread_mutex_unlock(&live_lock);
	if (e)
		close_emitters(e, r->nr);
	if (!ret && *out && !*len) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* ---- an instance's own buffers ---- */

struct live_pump {
	char session[PATH_MAX];
	char src[PATH_MAX];		/* the buffers it copies: the session's */
	char dir[PATH_MAX];
	uint32_t nr_pages;
	unsigned gen;			/* resizes so far: the rings' names */
	uint64_t since;
	int markers;			/* copies the rings of trace_marker too (a snapshot) */
	struct live_buf *bufs;		/* the buffers it copies, read as trace_pipe does */
	struct pump_sink *sink;		/* sink[i] copies src[i] */
	int nr;
	char **old;			/* rings a resize replaced: "gen path" */
	int nr_old;
};

static void sink_close(struct pump_sink *k)
{
	if (k->open) {
		rb_writer_close(&k->w);
		munmap(k->w.hdr, rb_file_size(k->w.hdr->nr_pages));
	}
	k->open = 0;
	k->failed = 0;
}

struct live_pump *live_pump_open(const char *session_dir, const char *dir, uint32_t nr_pages,
				 uint64_t since)
{
	struct live_pump *p;

	/* 0: each ring of the size of the buffer it copies (live_snapshot) */
	if ((nr_pages && nr_pages < 2) || (mkdir(dir, 0700) < 0 && errno != EEXIST)) {
		if (nr_pages && nr_pages < 2)
			errno = EINVAL;
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	snprintf(p->session, sizeof(p->session), "%s", session_dir);
	snprintf(p->src, sizeof(p->src), "%s", session_dir);
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	p->nr_pages = nr_pages;
	p->since = since;
	return p;
}

int live_pump_run(struct live_pump *p, const char *tracer, int on, const char *pids,
		  const char *ffilter, const char *fnotrace, const uint64_t *ev_on)
{
	struct live_view v = { .tracer = tracer, .cpu = -1, .since = p->since,
			       .ffilter = ffilter, .fnotrace = fnotrace, .ev_on = ev_on };
	struct live_cache *c;
	struct filter f;
	int ret = 0, n;

	pthread_mutex_lock(&live_lock);
	c = cache_get(p->session, &ret);
	if (!c)
		goto out;
	filter_init(&f, c, &v);
	/* a tracer that records no calls takes the events only */
	f.events_only = tracer && ut_tracer_mode(tracer) == UT_MODE_NONE;
	n = scan_bufs(p->src, &p->bufs, p->nr, p->markers);
	if (n > p->nr) {
		p->sink = xrealloc(p->sink, sizeof(*p->sink) * (size_t)n);
		memset(p->sink + p->nr, 0, sizeof(*p->sink) * (size_t)(n - p->nr));
	}
	p->nr = n;
	for (int i = 0; i < p->nr; i++) {
		struct pump_sink *k = &p->sink[i];
		struct live_buf *b = &p->bufs[i];
		struct emitter e;
		int closed;

		if (b->gone)
			continue;
		closed = __atomic_load_n(&b->r.hdr->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;
		filter_buffer(&f, b->r.hdr);
		emit_init(&e, -1);
		if (on && pid_selected(pids, b)) {
			if (!k->open) {
				size_t l = (size_t)snprintf(k->path, sizeof(k->path), "%s/%s",
							    p->dir, b->name);

				if (p->gen && l < sizeof(k->path))
					snprintf(k->path + l, sizeof(k->path) - l, ".g%u", p->gen);
				/*
				 * a copy: the source's size and room for the
				 * STACK that starts each page of it
				 */
				k->nr_pages = p->nr_pages ? p->nr_pages :
					      b->r.hdr->nr_pages + b->r.hdr->nr_pages / 8 + 2;
			}
			k->src = b->r.hdr;
			e.ring = k;
		}
		pipe_buf(b, &e, &f);
		/* what was passed over is missing from the ring: restate the calls */
		if (!e.ring)
			b->t.sync = 1;
		if (k->open)
			memcpy(k->w.hdr->comm, b->r.hdr->comm, sizeof(k->w.hdr->comm));
		k->t = NULL;
		if (closed) {
			/* its writer was gone before this run: nothing more will come */
			b->gone = 1;
			rb_close(&b->r);
			sink_close(k);
			k->src = NULL;
		}
	}
out:
	pthread_mutex_unlock(&live_lock);
	return ret;
}

void live_pump_resize(struct live_pump *p, uint32_t nr_pages)
{
	int k = 0;

	if (nr_pages < 2 || nr_pages == p->nr_pages)
		return;
	pthread_mutex_lock(&live_lock);
	/* the rings an earlier resize replaced go; the current ones stay readable */
	for (int i = 0; i < p->nr_old; i++) {
		unsigned g = (unsigned)strtoul(p->old[i], NULL, 10);

		if (g < p->gen) {
			unlink(strchr(p->old[i], ' ') + 1);
			free(p->old[i]);
		} else {
			p->old[k++] = p->old[i];
		}
	}
	p->nr_old = k;
	for (int i = 0; i < p->nr; i++) {
		struct pump_sink *s = &p->sink[i];
		char *line;

		if (!s->open)
			continue;
		if (asprintf(&line, "%u %s", p->gen, s->path) >= 0) {
			p->old = xrealloc(p->old, sizeof(*p->old) * ((size_t)p->nr_old + 1));
			p->old[p->nr_old++] = line;
		}
		sink_close(s);
	}
	p->gen++;
	p->nr_pages = nr_pages;
	pthread_mutex_unlock(&live_lock);
}

int live_pump_buffers(struct live_pump *p)
{
	int n = 0;

	pthread_mutex_lock(&live_lock);
	for (int i = 0; i < p->nr; i++)
		n += p->sink[i].open;
	pthread_mutex_unlock(&live_lock);
	return n;
}

void live_pump_close(struct live_pump *p, int remove)
{
	if (!p)
		return;
	pthread_mutex_lock(&live_lock);
	for (int i = 0; i < p->nr; i++) {
		sink_close(&p->sink[i]);
		buf_free(&p->bufs[i]);
	}
	pthread_mutex_unlock(&live_lock);
	for (int i = 0; i < p->nr_old; i++)
		free(p->old[i]);
	free(p->old);
	free(p->sink);
	free(p->bufs);
	if (remove)
		remove_tree(p->dir);
	free(p);
}

int live_snapshot(const char *session_dir, const char *srcdir, const char *dst, uint64_t since)
{
	struct live_pump *p;
	int ret;

	remove_tree(dst);
	p = live_pump_open(session_dir, dst, 0, since);
	if (!p)
		return -errno;
	if (srcdir)
		snprintf(p->src, sizeof(p->src), "%s", srcdir);
	p->markers = 1;
	ret = live_pump_run(p, NULL, 1, NULL, NULL, NULL, NULL);
	live_pump_close(p, 0);
	if (ret)
		remove_tree(dst);
	return ret;
}

void live_snapshot_free(const char *dst)
{
	remove_tree(dst);
}

/* ---- trace_marker: print events in a ring of the directory's own ---- */

struct live_marker {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];	/* the ring in use; "" before the first marker */
	char old[PATH_MAX + 32];	/* the one a resize replaced, still readable */
	uint32_t nr_pages;
	unsigned gen;
	int tsc;			/* the session's clock is the TSC */
	int open;
	struct rb_writer w;
};

struct live_marker *live_marker_open(const char *session_dir, const char *dir, uint32_t nr_pages)
{
	struct live_marker *m;
	int clock = session_clock(session_dir);

	if (clock < 0 || nr_pages < 2) {
		errno = clock < 0 ? -clock : EINVAL;
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	m->nr_pages = nr_pages;
	m->tsc = clock == UT_CLOCK_TSC;
	return m;
}

static void marker_ring_close(struct live_marker *m)
{
	if (!m->open)
		return;
	rb_writer_close(&m->w);
	munmap(m->w.hdr, rb_file_size(m->w.hdr->nr_pages));
	m->open = 0;
}

/* the ring, made at the first marker (and after a resize); -errno */
static int marker_ring_open(struct live_marker *m, uint64_t now)
{
	struct rb_header *h;
	int ret;

	if (m->open)
		return 0;
	if (m->gen)
		snprintf(m->path, sizeof(m->path), "%s/%s.%u", m->dir, LIVE_MARKER_RING, m->gen);
	else
		snprintf(m->path, sizeof(m->path), "%s/%s", m->dir, LIVE_MARKER_RING);
	ret = rb_create(m->path, m->nr_pages, RB_MODE_OVERWRITE, &h);
	if (ret < 0)
		return ret < -1 ? ret : -EIO;
	h->pid = h->tid = (int32_t)getpid();
	snprintf(h->comm, sizeof(h->comm), "trace_marker");
	m->w.cpu = (uint32_t)sched_getcpu();
	rb_writer_init(&m->w, h, now);
	m->open = 1;
	return 0;
}

int live_marker_write(struct live_marker *m, const void *text, size_t len)
{
	unsigned char *p;
	uint64_t ts;
	uint32_t h, cpu;
	uint16_t l16;
	int ret, c;

	if (len > LIVE_MARKER_MAX)
		len = LIVE_MARKER_MAX;
	ts = m->tsc ? ut_rdtsc() : ut_mono_ns();
	ret = marker_ring_open(m, ts);
	if (ret)
		return ret;
	c = sched_getcpu();
	cpu = c < 0 ? 0 : (uint32_t)c;
	if (cpu != m->w.cpu) {
		m->w.cpu = cpu;
		p = rb_reserve(&m->w, 8, &ts);
		if (p) {
			h = RB_HDR(UT_REC_CPU, ts - m->w.last_ts);
			memcpy(p, &h, 4);
			memcpy(p + 4, &cpu, 4);
			rb_commit(&m->w, 8, ts, ut_rec_counts(UT_REC_CPU));
		}
	}
	p = rb_reserve(&m->w, 6 + (uint32_t)len, &ts);
	if (!p)
		return -EBADF;	/* as a ring buffer that takes nothing */
	h = RB_HDR(UT_REC_DATA, ts - m->w.last_ts);
	l16 = (uint16_t)len;
	memcpy(p, &h, 4);
	memcpy(p + 4, &l16, 2);
	memcpy(p + 6, text, len);
	rb_commit(&m->w, 6 + (uint32_t)len, ts, ut_rec_counts(UT_REC_DATA));
	return 0;
}

void live_marker_resize(struct live_marker *m, uint32_t nr_pages)
{
	if (nr_pages < 2 || nr_pages == m->nr_pages)
		return;
	m->nr_pages = nr_pages;
	if (!m->open)
		return;
	/* the ring a former resize replaced goes; the current one stays readable */
	if (m->old[0])
		unlink(m->old);
	snprintf(m->old, sizeof(m->old), "%s", m->path);
	marker_ring_close(m);
	m->gen++;
}

void live_marker_close(struct live_marker *m)
{
	if (!m)
		return;
	marker_ring_close(m);
	free(m);
}
