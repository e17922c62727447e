// SPDX-License-Identifier: MIT
/*
 * kmemtrace.c - the kmemtrace tracer's output part and trace_stat/kmem.
 *
 * The tracer records the kmem events (kmem:kmalloc, kmem:kfree: the
 * malloc family, C++'s new and delete, anonymous mmap/munmap;
 * runtime/tracers/kmemtrace.c, kmemtrace_cxx.c) and prints them as every event prints.
 * Its runtime part also counts, per call site, in the statistics file
 * kmem.<pid>.<img> (usertrace/kmemstat.h); trace_stat/kmem and `report
 * --kmem` show those counts, one line per call site (named by symbol;
 * the sites of several processes with the same name are added), largest
 * BYTES_ALLOC first, then a [total] line:
 *
 *   HITS         allocations that succeeded
 *   FAILED       allocations that returned NULL (or a failed mmap)
 *   BYTES_ALLOC  bytes given (malloc_usable_size(); a mapping's pages)
 *   BYTES_REQ    bytes asked for
 *   ALLOC/HIT    BYTES_ALLOC / HITS, REQ/HIT likewise (integer)
 *   FRAG%        100 * (1 - BYTES_REQ / BYTES_ALLOC): the share of the
 *                bytes given that were not asked for, as perf kmem's
 *   FREES        frees of the site's blocks (wherever they were freed)
 *   LIVE_BLOCKS  blocks not freed, LIVE_BYTES their bytes: at the
 *                process's exit, its leaks
 *   CALL_SITE    the caller's return address, as symbol+0xoffset
 *
 * Notes after the table say what the bounded tables of the program could
 * not hold: call sites beyond its rows (counted as [other sites]), blocks
 * beyond its live table (allocated, their frees unknown) and frees of
 * blocks it did not know (allocated before the tracer ran, or beyond the
 * table).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/output.h"
#include "output/stat.h"
#include "output/tracer.h"
#include "usertrace/kmemstat.h"
#include "reader/statarea.h"
#include "reader/symtab.h"
#include "utils/utils.h"

static const char *const kmemtrace_events[] = { "kmem:kmalloc", "kmem:kfree", NULL };

const struct tracer kmemtrace_tracer = {
	.name		= "kmemtrace",
	.events		= kmemtrace_events,
	.print_header	= trace_default_header,
};

/* ---- trace_stat/kmem ---- */

struct km_ent {
	struct km_ent *next;	/* stat_next's order, before sorting */
	int total;		/* the [total] line */
	char *name;
	struct ut_kmem_site c;
	/* the [total]'s notes */
	uint64_t site_overflow, live_overflow, unknown_frees, mmaps, procs;
};

struct km_walk {
	struct ut_symtab *symtab;
	struct km_ent *head, *total;
	struct km_ent **hash;	/* by name */
	size_t hash_size;
};

static size_t name_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct km_ent *ent_get(struct km_walk *w, const char *name)
{
	size_t i = name_hash(name) & (w->hash_size - 1);
	struct km_ent *e;

	for (; w->hash[i]; i = (i + 1) & (w->hash_size - 1))
		if (!strcmp(w->hash[i]->name, name))
			return w->hash[i];
	e = xcalloc(1, sizeof(*e));
	e->name = xstrdup(name);
	e->next = w->head;
	w->head = e;
	w->hash[i] = e;
	return e;
}

static void site_add(struct ut_kmem_site *to, const struct ut_kmem_site *s)
{
	to->hits += s->hits;
	to->failed += s->failed;
	to->bytes_req += s->bytes_req;
	to->bytes_alloc += s->bytes_alloc;
	to->frees += s->frees;
	to->live_blocks += s->live_blocks;
	to->live_bytes += s->live_bytes;
}

static int site_used(const struct ut_kmem_site *s)
{
	return s->hits || s->failed || s->frees;
}

static int km_file(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	const struct ut_kmem_stat *k = payload;
	struct km_walk *w = arg;
	struct km_ent *t = w->total;
	char name[512];

	if (h->size < sizeof(*k)) {
		pr_warn("kmem statistics of pid %d: cut short", h->pid);
		return 0;
	}
	t->procs++;
	t->site_overflow += k->site_overflow;
	t->live_overflow += k->live_overflow;
	t->unknown_frees += k->unknown_frees;
	t->mmaps += k->mmaps;
	for (unsigned i = 0; i <= UT_KMEM_SITES; i++) {
		const struct ut_kmem_site *s = i < UT_KMEM_SITES ? &k->sites[i] : &k->other;
		const struct ut_sym *sym;

		if (!site_used(s))
			continue;
		if (i == UT_KMEM_SITES) {
			snprintf(name, sizeof(name), "[other sites]");
		} else {
			sym = w->symtab ? ut_symtab_find(w->symtab, h->pid, h->img, s->site,
							 UT_SYMTAB_LATEST) : NULL;
			if (sym)
				snprintf(name, sizeof(name), "%s+0x%" PRIx64, sym->name,
					 s->site - sym->addr);
			else
				snprintf(name, sizeof(name), "0x%" PRIx64, s->site);
		}
		site_add(&ent_get(w, name)->c, s);
		site_add(&t->c, s);
	}
	return 0;
}

/*
 * The symbols of @dir's processes: a recording has them (sym/); a
 * session's are made from its maps.* snapshots in a directory of our own
 * (@tmp, to remove once the names are made: the tables are read as they
 * are looked up).
 */
static struct ut_symtab *km_symtab(const char *dir, char *tmp)
{
	char path[4096];
	struct ut_symtab *st = NULL;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sym", dir);
	if (!stat(path, &sb))
		return ut_symtab_load(dir);
	if (!mkdtemp(tmp)) {
		*tmp = '\0';
		return NULL;
	}
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char to[4096 + 300];

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", tmp, de->d_name);
		ut_copy_file(path, to, 0600);
	}
	if (d)
		closedir(d);
	if (ut_symtab_save(tmp) == 0)
		st = ut_symtab_load(tmp);
	return st;
}

static void *km_start(struct tracer_stat *trace, const char *dir)
{
	char tmp[] = "/tmp/usertrace-kmem.XXXXXX";
	struct km_walk w = { 0 };

	(void)trace;
	w.hash_size = 2 * UT_KMEM_SITES;
	w.hash = xcalloc(w.hash_size, sizeof(*w.hash));
	w.total = xcalloc(1, sizeof(*w.total));
	w.total->total = 1;
	w.total->name = xstrdup("[total]");
	w.symtab = km_symtab(dir, tmp);
	if (!ut_stat_foreach(dir, UT_KMEM_STAT_NAME, UT_KMEM_STAT_VERSION, km_file, &w)) {
		free(w.total->name);
		free(w.total);
		w.total = NULL;
	} else {
		w.total->next = w.head;
		w.head = w.total;
	}
	if (w.symtab)
		ut_symtab_free(w.symtab);
	if (strcmp(tmp, "/tmp/usertrace-kmem.XXXXXX") && *tmp)
		remove_tree(tmp);
	free(w.hash);
	return w.head;
}

static void *km_next(void *prev, int idx)
{
	(void)idx;
	return ((struct km_ent *)prev)->next;
}

/* BYTES_ALLOC, then HITS; [total] last */
static int km_cmp(const void *a, const void *b)
{
	const struct km_ent *x = a, *y = b;

	if (x->total != y->total)
		return x->total ? -1 : 1;
	if (x->c.bytes_alloc != y->c.bytes_alloc)
		return x->c.bytes_alloc > y->c.bytes_alloc ? 1 : -1;
	if (x->c.hits != y->c.hits)
		return x->c.hits > y->c.hits ? 1 : -1;
	return strcmp(y->name, x->name) > 0 ? 1 : -1;
}

static int km_headers(FILE *m)
{
	fprintf(m, "#     HITS  FAILED    BYTES_ALLOC      BYTES_REQ  ALLOC/HIT    REQ/HIT   FRAG%%"
		   "     FREES  LIVE_BLOCKS     LIVE_BYTES  CALL_SITE\n");
	fprintf(m, "#        |       |              |              |          |          |       |"
		   "         |            |              |  |\n");
	return 0;
}

static int km_show(FILE *m, void *p)
{
	const struct km_ent *e = p;
	const struct ut_kmem_site *c = &e->c;
	char frag[16];

	if (c->bytes_alloc)
		snprintf(frag, sizeof(frag), "%7.2f",
			 100.0 * (1.0 - (double)c->bytes_req / (double)c->bytes_alloc));
	else
		snprintf(frag, sizeof(frag), "%7s", "-");
	fprintf(m, "  %8" PRIu64 " %7" PRIu64 " %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64
		   " %s %9" PRIu64 " %12" PRId64 " %14" PRId64 "  %s\n",
		c->hits, c->failed, c->bytes_alloc, c->bytes_req,
		c->hits ? c->bytes_alloc / c->hits : 0, c->hits ? c->bytes_req / c->hits : 0, frag,
		c->frees, (int64_t)c->live_blocks, (int64_t)c->live_bytes, e->name);
	if (!e->total)
		return 0;
	fprintf(m, "# %" PRIu64 " process image(s); %" PRIu64 " anonymous mapping(s) counted\n",
		e->procs, e->mmaps);
	if (e->site_overflow)
		fprintf(m, "# overflow: %" PRIu64 " allocation(s) of call sites beyond the %u rows,"
			   " in [other sites]\n", e->site_overflow, UT_KMEM_SITES);
	if (e->live_overflow)
		fprintf(m, "# overflow: %" PRIu64 " block(s) beyond the live table: not in LIVE_*,"
			   " their frees unknown\n", e->live_overflow);
	if (e->unknown_frees)
		fprintf(m, "# %" PRIu64 " free(s) of blocks not seen allocated (before the tracer,"
			   " or beyond the live table)\n", e->unknown_frees);
	return 0;
}

static void km_release(void *p)
{
	struct km_ent *e = p;

	free(e->name);
	free(e);
}

static struct tracer_stat kmem_stat = {
	.name		= "kmem",
	.stat_start	= km_start,
	.stat_next	= km_next,
	.stat_cmp	= km_cmp,
	.stat_show	= km_show,
	.stat_release	= km_release,
	.stat_headers	= km_headers,
};

/* as the kernel registers its stat tracers at boot */
static __attribute__((constructor)) void kmem_stat_register(void)
{
	register_stat_tracer(&kmem_stat);
}
