// SPDX-License-Identifier: MIT
/*
 * branch.c - the branch profilers and the branch tracer in the program
 * (usertrace/branch.h).
 *
 * Discovery: events.c's scan of each loaded object (start-up, dlopen)
 * finds the sections __ut_branch_annotated and __ut_branch_all (arrays
 * of struct ut_branch_site) and __ut_branch_slots (pointers to the
 * object's struct ut_branch_slot) and hands them here.  Each site gets
 * a row: its name strings copied (they go with a dlclose'd object) and
 * its counts as last read.
 *
 * Counts: the sites count in the program's memory with plain increments.
 * A sync hook (ut_stat_on_sync: each control generation, and exit)
 * reads them and writes the rows into the statistics files
 * branch_annotated and branch_all (usertrace/branchstat.h), made at the
 * first sync with room for twice the sites known then.  Before a
 * dlclose the rows are read, and the rows of an object that went keep
 * those counts.  A fork child zeroes its sites and rows: its counts are
 * its own.
 *
 * The branch tracer: while it is active, each object's slot says `on`
 * and points at branch_hit(), which writes the ftrace branch entry.
 */
#define __UT_BRANCH_TYPES 1
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "usertrace/branch.h"
#include "usertrace/branchstat.h"
#include "usertrace/ftrace.h"

struct brow {
	struct ut_branch_site *site;	/* NULL: its object is gone */
	uintptr_t base;			/* its object */
	const char *obj;		/* the object's path (shared by its rows) */
	uint64_t correct, incorrect;
	uint32_t line;
	int all;			/* branch_all, else branch_annotated */
	char func[UT_BRANCH_NAME_MAX];
	char file[UT_BRANCH_NAME_MAX];
};

/* recursive: a destructor that runs in a dlclose may dlopen (a scan) */
static pthread_mutex_t br_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct brow *rows;
static size_t nr_rows;
static struct ut_branch_slot **slots;
static size_t nr_slots;
static int tracing;			/* the branch tracer is active */

static struct stat_file {
	const char *name;
	struct ut_branch_stat *area;
	uint32_t cap;
	int tried;
} files[2] = { { UT_BRANCH_STAT_ANNOTATED, NULL, 0, 0 }, { UT_BRANCH_STAT_ALL, NULL, 0, 0 } };

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/* the branch tracer's event for one outcome: the kernel's probe_likely_condition() */
static void branch_hit(const struct ut_branch_site *f, int val, int expect)
{
	struct ut_ftrace_branch e;
	int err = errno;

	memset(&e, 0, sizeof(e));
	e.ent.type = UT_EVENT_ID_BRANCH;
	e.line = f->line;
	copy_name(e.func, sizeof(e.func), f->func ? f->func : "");
	copy_name(e.file, sizeof(e.file), f->file ? base_name(f->file) : "");
	e.correct = val == expect;
	ut_write_event(&e.ent, sizeof(e), 0);
	errno = err;
}

static void slot_set(struct ut_branch_slot *s, int on)
{
	if (on)
		__atomic_store_n(&s->hit, branch_hit, __ATOMIC_RELEASE);
	__atomic_store_n(&s->on, on, __ATOMIC_RELEASE);
}

static void read_site(struct brow *r)
{
	if (r->site) {
		r->correct = __atomic_load_n(&r->site->miss_hit[0], __ATOMIC_RELAXED);
		r->incorrect = __atomic_load_n(&r->site->miss_hit[1], __ATOMIC_RELAXED);
	}
}

static void branch_sync(void)
{
	size_t n[2] = { 0, 0 };
	int tries = 0;

	/*
	 * _exit() syncs too, maybe from a signal handler that interrupted a
	 * scan or a dlclose of this thread: give up rather than hang
	 */
	while (pthread_mutex_trylock(&br_lock)) {
		if (++tries == 1000)
			return;
		sched_yield();
	}
	for (size_t i = 0; i < nr_rows; i++)
		n[rows[i].all]++;
	for (int k = 0; k < 2; k++) {
		struct stat_file *sf = &files[k];
		uint32_t cap = n[k] < 32 ? 64 : (uint32_t)(2 * n[k]);

		if (!sf->area && n[k] && !sf->tried) {
			sf->tried = 1;
			sf->area = ut_stat_area(sf->name, UT_BRANCH_STAT_VERSION,
						sizeof(struct ut_branch_stat) + cap * sizeof(struct ut_branch_row));
			if (sf->area)
				sf->cap = cap;
		}
	}
	for (int k = 0; k < 2; k++) {
		struct stat_file *sf = &files[k];
		uint32_t nr = 0, dropped = 0;

		if (!sf->area)
			continue;
		for (size_t i = 0; i < nr_rows; i++) {
			struct brow *r = &rows[i];
			struct ut_branch_row *o;

			if (r->all != k)
				continue;
			read_site(r);
			if (nr == sf->cap) {
				dropped++;
				continue;
			}
			o = &sf->area->rows[nr++];
			o->correct = r->correct;
			o->incorrect = r->incorrect;
			o->constant = 0;
			o->line = r->line;
			memcpy(o->func, r->func, sizeof(o->func));
			memcpy(o->file, r->file, sizeof(o->file));
		}
		sf->area->cap = sf->cap;
		sf->area->dropped = dropped;
		__atomic_store_n(&sf->area->nr, nr, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&br_lock);
}

static void add_sites(const struct dl_phdr_info *info, const char *obj, struct ut_branch_site *s,
		      size_t n, int all)
{
	struct brow *nr;

	if (!n)
		return;
	nr = realloc(rows, (nr_rows + n) * sizeof(*rows));
	if (!nr)
		return;
	rows = nr;
	for (size_t i = 0; i < n; i++) {
		struct brow *r;

		if (s[i].abi != UT_BRANCH_ABI || !s[i].func || !s[i].file)
			continue;
		r = &rows[nr_rows++];
		memset(r, 0, sizeof(*r));
		r->site = &s[i];
		r->base = info->dlpi_addr;
		r->obj = obj;
		r->line = s[i].line;
		r->all = all;
		copy_name(r->func, sizeof(r->func), s[i].func);
		copy_name(r->file, sizeof(r->file), base_name(s[i].file));
	}
}

/**
 * ut_branch_scan_object - the branch sites and slots of a newly loaded object
 * @ann, @nann: its likely/unlikely sites; @all, @nall: its `if` sites;
 * @sl, @nsl: its slot pointers (mapped: checked by the caller)
 *
 * Context: events.c's object scan (start-up, dlopen), under the patch lock.
 */
void ut_branch_scan_object(const struct dl_phdr_info *info, const char *path,
			   struct ut_branch_site *ann, size_t nann,
			   struct ut_branch_site *all, size_t nall,
			   struct ut_branch_slot **sl, size_t nsl)
{
	char *obj;
	int first;

	if (!nann && !nall && !nsl)
		return;
	obj = strdup(path);
	if (!obj)
		return;
	pthread_mutex_lock(&br_lock);
	first = !rows && !slots;
	add_sites(info, obj, ann, nann, 0);
	add_sites(info, obj, all, nall, 1);
	for (size_t i = 0; i < nsl; i++) {
		struct ut_branch_slot *s = sl[i], **ns;
		size_t k;

		if (!s || s->abi != UT_BRANCH_ABI)
			continue;
		for (k = 0; k < nr_slots && slots[k] != s; k++)
			;
		if (k < nr_slots)
			continue;
		ns = realloc(slots, (nr_slots + 1) * sizeof(*slots));
		if (!ns)
			break;
		slots = ns;
		slots[nr_slots++] = s;
		if (tracing)
			slot_set(s, 1);
	}
	pthread_mutex_unlock(&br_lock);
	if (first)
		ut_stat_on_sync(branch_sync);
}

/* a dlclose begins: read every site while all are mapped (the lock held till its end) */
void ut_branch_dlclose_begin(void)
{
	pthread_mutex_lock(&br_lock);
	for (size_t i = 0; i < nr_rows; i++)
		read_site(&rows[i]);
}

static int loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct brow *r = arg;

	(void)size;
	return info->dlpi_addr == r->base &&
	       (!info->dlpi_name || !*info->dlpi_name || !strcmp(info->dlpi_name, r->obj));
}

/* ... and ended: the rows of an object gone keep their counts; its slots go */
void ut_branch_dlclose_end(void)
{
	const char *last = NULL;
	int gone = 0;

	for (size_t i = 0; i < nr_rows; i++) {
		struct brow *r = &rows[i];

		if (!r->site)
			continue;
		if (r->obj != last) {
			last = r->obj;
			gone = !dl_iterate_phdr(loaded_cb, r);
		}
		if (gone)
			r->site = NULL;
	}
	/* slots of an object gone: the tracer must not write there */
	for (size_t i = 0; i < nr_slots;) {
		Dl_info di;

		if (!dladdr(slots[i], &di)) {
			slots[i] = slots[--nr_slots];
			continue;
		}
		i++;
	}
	pthread_mutex_unlock(&br_lock);
}

/* the branch tracer becomes active (1) or leaves (0) */
void ut_branch_tracing(int on)
{
	pthread_mutex_lock(&br_lock);
	tracing = on;
	for (size_t i = 0; i < nr_slots; i++)
		slot_set(slots[i], on);
	pthread_mutex_unlock(&br_lock);
}

/* in a fork child: its counts start from zero (the files are its own, zeroed) */
void ut_branch_atfork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	/* the only thread of the child: an unlocked mutex */
	br_lock = fresh;
	for (size_t i = 0; i < nr_rows; i++) {
		struct brow *r = &rows[i];

		if (r->site)
			r->site->miss_hit[0] = r->site->miss_hit[1] = 0;
		r->correct = r->incorrect = 0;
	}
}
