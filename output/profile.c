// SPDX-License-Identifier: MIT
/*
 * profile.c - the texts of the max stack tracer and of the function
 * profiler (profile.h), from the statistics files "stack" and "function"
 * (usertrace/profile.h) of a session or data directory.
 *
 * Addresses are named with the directory's symbols: a data directory's
 * sym/ (saved by record), or for a live session a symbol table made
 * from its maps.* snapshots in a temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output/output.h"
#include "output/stat.h"
#include "usertrace/profile.h"
#include "output/profile.h"
#include "reader/statarea.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* ---- symbols ---- */

static void rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char p[4096];

	while (d && (de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

/*
 * The symbols of @dir: its sym/ (a recording), else made from its maps.*
 * (a session) in a temporary directory, kept until sym_close() (symbol
 * files are read at the first lookup in them).
 */
struct prof_syms {
	struct ut_symtab *st;
	char tmp[64];
};

static struct prof_syms open_syms[8];
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ut_symtab *sym_open(const char *dir)
{
	char path[4096], tmp[] = "/tmp/usertrace-sym.XXXXXX";
	struct ut_symtab *st = NULL;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sym", dir);
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return ut_symtab_load(dir);
	if (!mkdtemp(tmp))
		return NULL;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char from[4096], to[4096];

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(from, sizeof(from), "%s/%s", dir, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", tmp, de->d_name);
		ut_copy_file(from, to, 0600);
	}
	if (d)
		closedir(d);
	if (ut_symtab_save(tmp) == 0)
		st = ut_symtab_load(tmp);
	pthread_mutex_lock(&open_lock);
	for (size_t i = 0; st && i < sizeof(open_syms) / sizeof(open_syms[0]); i++) {
		if (!open_syms[i].st) {
			open_syms[i].st = st;
			snprintf(open_syms[i].tmp, sizeof(open_syms[i].tmp), "%s", tmp);
			pthread_mutex_unlock(&open_lock);
			return st;
		}
	}
	pthread_mutex_unlock(&open_lock);
	/* no room to remember it: names only from what was read already */
	if (st)
		ut_symtab_free(st);
	rm_tree(tmp);
	return NULL;
}

static void sym_close(struct ut_symtab *st)
{
	if (!st)
		return;
	ut_symtab_free(st);
	pthread_mutex_lock(&open_lock);
	for (size_t i = 0; i < sizeof(open_syms) / sizeof(open_syms[0]); i++) {
		if (open_syms[i].st == st) {
			rm_tree(open_syms[i].tmp);
			open_syms[i].st = NULL;
		}
	}
	pthread_mutex_unlock(&open_lock);
}

static int is_library(const char *module)
{
	return module && strstr(module, ".so");
}

/* the kernel's %pS: func+0xOFF/0xSIZE [module], or the address */
static void sym_format(struct ut_symtab *st, int pid, uint64_t img, uint64_t ip, char *buf,
		       size_t size)
{
	const struct ut_sym *s = st ? ut_symtab_find(st, pid, img, ip, UT_SYMTAB_LATEST) : NULL;

	if (!s) {
		snprintf(buf, size, "0x%" PRIx64, ip);
		return;
	}
	snprintf(buf, size, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", s->name, ip - s->addr,
		 s->size, is_library(s->module) ? " [" : "", is_library(s->module) ? s->module : "",
		 is_library(s->module) ? "]" : "");
}

/* a function's name (the kernel's kallsyms_lookup), or its address */
static void sym_name(struct ut_symtab *st, int pid, uint64_t img, uint64_t ip, char *buf,
		     size_t size)
{
	const struct ut_sym *s = st ? ut_symtab_find(st, pid, img, ip, UT_SYMTAB_LATEST) : NULL;

	if (s)
		snprintf(buf, size, "%s", s->name);
	else
		snprintf(buf, size, "0x%" PRIx64, ip);
}

/* ---- the stack tracer ---- */

struct stk_best {
	struct ut_stat_hdr hdr;
	struct ut_stack_stat st;
	int found;
};

/* a consistent copy of the chain: the writer's seq was even and unchanged */
static int stk_consistent(const struct ut_stack_stat *s)
{
	return !(s->seq & 1) && !s->lock;
}

static int stk_best_fn(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	struct stk_best *b = arg;
	const struct ut_stack_stat *s = payload;

	if (h->size < sizeof(*s))
		return 0;
	if (!b->found || s->max > b->st.max) {
		b->hdr = *h;
		memcpy(&b->st, s, sizeof(*s));
		b->found = 1;
	}
	return 0;
}

uint64_t prof_stack_max(const char *dir)
{
	struct stk_best *b = xcalloc(1, sizeof(*b));
	uint64_t v;

	ut_stat_foreach(dir, UT_STACK_STAT_NAME, UT_STACK_STAT_VERSION, stk_best_fn, b);
	v = b->found ? b->st.max : 0;
	free(b);
	return v;
}

int prof_stack_max_set(const char *dir, uint64_t v)
{
	char path[4096];
	struct dirent *de;
	size_t n = strlen(UT_STACK_STAT_NAME);

	if (strlen(dir) > sizeof(path) - 300)
		return -ENAMETOOLONG;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" UT_STAT_DIR, dir);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		struct ut_stat_hdr h;
		char file[4096 + 300];
		int fd;

		if (strncmp(de->d_name, UT_STACK_STAT_NAME, n) || de->d_name[n] != '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		fd = open(file, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		    !memcmp(h.magic, UT_STAT_MAGIC, 8) && h.version == UT_STACK_STAT_VERSION &&
		    h.size >= sizeof(struct ut_stack_stat)) {
			off_t base = (off_t)h.hdr_size;

			if (pwrite(fd, &v, sizeof(v), base + (off_t)offsetof(struct ut_stack_stat, max)) < 0)
				pr_warn("cannot write %s: %s", file, strerror(errno));
			if (!v) {
				/* the threads' maxima too: each starts again */
				for (uint32_t i = 0; i < UT_STK_THREADS; i++) {
					off_t o = base + (off_t)offsetof(struct ut_stack_stat, thr) +
						  (off_t)(i * sizeof(struct ut_stk_thread)) +
						  (off_t)offsetof(struct ut_stk_thread, max);

					if (pwrite(fd, &v, sizeof(v), o) < 0)
						break;
				}
			}
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return 0;
}

static void stk_table(struct ut_symtab *sym, const struct ut_stat_hdr *h,
		      const struct ut_stack_stat *s, FILE *out)
{
	uint32_t nr = s->nr < UT_STK_ENTRIES ? s->nr : UT_STK_ENTRIES;
	char loc[512];

	fprintf(out, "        Depth    Size   Location    (%u entries)\n"
		     "        -----    ----   --------\n", nr);
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t size = i + 1 == nr ? s->depth[i] :
				s->depth[i] >= s->depth[i + 1] ? s->depth[i] - s->depth[i + 1] : 0;

		sym_format(sym, h->pid, h->img, s->ip[i], loc, sizeof(loc));
		fprintf(out, "%3u) %8" PRIu64 "   %5" PRIu64 "   %s\n", i, s->depth[i], size, loc);
	}
}

/* the chain, read again while a thread was storing it (a few tries) */
static int stk_read_best(const char *dir, struct stk_best *b)
{
	for (int tries = 0; tries < 5; tries++) {
		memset(b, 0, sizeof(*b));
		ut_stat_foreach(dir, UT_STACK_STAT_NAME, UT_STACK_STAT_VERSION, stk_best_fn, b);
		if (!b->found || stk_consistent(&b->st))
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return b->found;
}

int prof_stack_trace(const char *dir, int enabled, FILE *out)
{
	struct stk_best *b = xcalloc(1, sizeof(*b));
	struct ut_symtab *sym = NULL;

	if (stk_read_best(dir, b) && b->st.nr && b->st.max)
		sym = sym_open(dir);
	if (b->found && b->st.max) {
		stk_table(sym, &b->hdr, &b->st, out);
	} else {
		struct ut_stack_stat none = { 0 };

		stk_table(NULL, NULL, &none, out);
	}
	if (!enabled && !(b->found && b->st.max))
		fputs("#\n"
		      "#  Stack tracer disabled\n"
		      "#\n"
		      "# To enable the stack tracer, write 1 to stack_tracer_enabled\n"
		      "# (or record with --stack-trace)\n"
		      "#\n", out);
	if (sym)
		sym_close(sym);
	free(b);
	return 0;
}

struct stk_rep {
	FILE *out;
	struct ut_symtab *sym;
	int n;
};

static int stk_rep_fn(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	struct stk_rep *r = arg;
	const struct ut_stack_stat *s = payload;
	uint32_t nt;

	if (h->size < sizeof(*s))
		return 0;
	nt = s->nthreads < UT_STK_THREADS ? s->nthreads : UT_STK_THREADS;
	fprintf(r->out, "%s# pid %d (%s): deepest stack %" PRIu64 " bytes, in thread %d\n",
		r->n++ ? "\n" : "", h->pid, h->comm, s->max, s->tid);
	if (s->max && s->nr)
		stk_table(r->sym, h, s, r->out);
	for (uint32_t i = 0; i < nt; i++)
		if (s->thr[i].tid)
			fprintf(r->out, "# thread %d: %" PRIu64 " bytes\n", s->thr[i].tid,
				s->thr[i].max);
	if (s->lost_threads)
		fprintf(r->out, "# %u more threads not kept (only %d are)\n", s->lost_threads,
			UT_STK_THREADS);
	return 0;
}

int prof_stack_report(const char *dir, FILE *out)
{
	struct stk_rep r = { out, sym_open(dir), 0 };

	ut_stat_foreach(dir, UT_STACK_STAT_NAME, UT_STACK_STAT_VERSION, stk_rep_fn, &r);
	if (r.sym)
		sym_close(r.sym);
	if (!r.n) {
		fprintf(stderr, "usertrace: %s has no stack statistics (record with --stack-trace)\n",
			dir);
		return -1;
	}
	return 0;
}

/* ---- the function profiler ---- */

struct prof_row {
	struct prof_row *next;
	char name[256];
	uint64_t hits;
	long double time, time_sq;	/* ns, ns^2 */
};

struct prof_acc {
	const char *dir;	/* the recording or the session */
	struct ut_symtab *sym;
	int cpu;		/* -1: every CPU */
	int32_t tid;		/* 0: every thread */
	int32_t pid;		/* with tid: the thread's process */
	struct prof_row **hash;
	size_t nhash, nrows;
	uint64_t overflow;
	uint32_t lost_threads;
	int graph_time;
};

/* ticks per ns of the recording in @dir: its info file's calibration, 0 if none */
static long double info_rate(const char *dir)
{
	uint64_t tsc0 = 0, tsc1 = 0, mono0 = 0, mono1 = 0, v;
	char path[PATH_MAX], line[256], key[32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", dir);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31[^=]=%" SCNu64, key, &v) == 2) {
			if (!strcmp(key, "tsc0"))
				tsc0 = v;
			else if (!strcmp(key, "tsc1"))
				tsc1 = v;
			else if (!strcmp(key, "mono0"))
				mono0 = v;
			else if (!strcmp(key, "mono1"))
				mono1 = v;
		}
	fclose(f);
	if (tsc1 <= tsc0 || mono1 <= mono0)
		return 0;
	return (long double)(tsc1 - tsc0) / (long double)(mono1 - mono0);
}

/*
 * Ticks per ns of a file: a recording's calibration (the whole run's, the
 * same each time it is read); in a live session the runtime's pair; a
 * program that ran too short for it, this machine's own measure.
 */
static long double tick_rate(const struct ut_prof_stat *p, const char *dir)
{
	static long double own;
	long double r;

	if (p->clock_ns)
		return 1;
	if (dir && (r = info_rate(dir)) > 0)
		return r;
	if (p->mono1 > p->mono0 + 5000000 && p->tsc1 > p->tsc0)
		return (long double)(p->tsc1 - p->tsc0) / (long double)(p->mono1 - p->mono0);
	if (!own) {
		struct timespec a, b, d = { 0, 20000000 };
		uint32_t lo, hi;
		uint64_t t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &a);
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		t0 = (uint64_t)hi << 32 | lo;
		nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		t1 = (uint64_t)hi << 32 | lo;
		own = (long double)(t1 - t0) /
		      ((long double)(b.tv_sec - a.tv_sec) * 1e9L + (long double)(b.tv_nsec - a.tv_nsec));
		if (own <= 0)
			own = 1;
	}
	return own;
}

static struct prof_row *acc_row(struct prof_acc *a, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct prof_row *r;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	if (!a->hash) {
		a->nhash = 4096;
		a->hash = xcalloc(a->nhash, sizeof(*a->hash));
	}
	for (r = a->hash[h % a->nhash]; r; r = r->next)
		if (!strcmp(r->name, name))
			return r;
	r = xcalloc(1, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->next = a->hash[h % a->nhash];
	a->hash[h % a->nhash] = r;
	a->nrows++;
	return r;
}

static int prof_acc_fn(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	struct prof_acc *a = arg;
	const struct ut_prof_stat *p = payload;
	uint32_t nt;
	long double rate;

	if (h->size < sizeof(*p))
		return 0;
	if (a->tid && h->pid != a->pid)
		return 0;
	rate = tick_rate(p, a->dir);
	a->graph_time = p->graph_time;
	a->lost_threads += p->lost_threads;
	nt = p->ntables < UT_PROF_THREADS ? p->ntables : UT_PROF_THREADS;
	for (uint32_t t = 0; t < nt; t++) {
		const struct ut_prof_table *tab = &p->tab[t];

		if (a->tid && tab->tid != a->tid)
			continue;
		a->overflow += tab->overflow;
		for (uint32_t i = 0; i < UT_PROF_ENTRIES; i++) {
			const struct ut_prof_ent *e = &tab->ent[i];
			struct prof_row *r;
			char name[256];

			if (!e->ip || (a->cpu >= 0 && e->cpu != (uint32_t)a->cpu))
				continue;
			if (!e->hits && !e->time)
				continue;
			sym_name(a->sym, h->pid, h->img, e->ip, name, sizeof(name));
			r = acc_row(a, name);
			r->hits += e->hits;
			r->time += (long double)e->time / rate;
			r->time_sq += (long double)e->time_sq / (rate * rate);
		}
	}
	return 0;
}

/* the rows of @a, by time, largest first (the later of equal ones first) */
static struct prof_row **acc_sorted(struct prof_acc *a, size_t *n)
{
	struct prof_row **v = xcalloc(a->nrows + 1, sizeof(*v));
	size_t k = 0;

	for (size_t i = 0; a->hash && i < a->nhash; i++)
		for (struct prof_row *r = a->hash[i]; r; r = r->next)
			if (r->hits)	/* as the kernel: a function with no hit here is not shown */
				v[k++] = r;
	/* insertion by time, as output/stat.c's order */
	for (size_t i = 1; i < k; i++) {
		struct prof_row *r = v[i];
		size_t j = i;

		while (j && v[j - 1]->time <= r->time)
			j--;
		memmove(v + j + 1, v + j, (i - j) * sizeof(*v));
		v[j] = r;
	}
	*n = k;
	return v;
}

static void acc_free(struct prof_acc *a)
{
	for (size_t i = 0; a->hash && i < a->nhash; i++) {
		struct prof_row *r = a->hash[i], *next;

		for (; r; r = next) {
			next = r->next;
			free(r);
		}
	}
	free(a->hash);
	a->hash = NULL;
	a->nrows = 0;
}

/* a duration as the kernel's trace_print_graph_duration() (output/'s) */
static void print_dur(FILE *out, uint64_t ns)
{
	struct trace_seq s;

	ut_seq_init(&s, out);
	trace_print_graph_duration(&s, ns);
	ut_seq_flush(&s);
}

static void prof_headers(FILE *out)
{
	fputs("  Function                               Hit    Time            Avg             s^2\n"
	      "  --------                               ---    ----            ---             ---\n",
	      out);
}

static void prof_line(FILE *out, const struct prof_row *r)
{
	uint64_t time = (uint64_t)(r->time + 0.5L), avg = r->hits ? time / r->hits : 0, var = 0;

	if (r->hits > 1) {
		/* the kernel's sample variance, ns^2 / 1000 shown as a duration: us^2 */
		long double n = (long double)r->hits, v;

		v = (n * r->time_sq - r->time * r->time) / (n * (n - 1) * 1000);
		var = v > 0 ? (uint64_t)v : 0;
	}
	fprintf(out, "  %-30.30s  %10" PRIu64 "    ", r->name, r->hits);
	print_dur(out, time);
	fputs("    ", out);
	print_dur(out, avg);
	fputs("    ", out);
	print_dur(out, var);
	fputc('\n', out);
}

static void acc_print(struct prof_acc *a, FILE *out)
{
	size_t n;
	struct prof_row **v = acc_sorted(a, &n);

	prof_headers(out);
	for (size_t i = 0; i < n; i++)
		prof_line(out, v[i]);
	free(v);
}

struct thr_key {
	int32_t pid, tid;
	char comm[16];
};

struct thr_list {
	struct thr_key *v;
	size_t n;
};

static int thr_list_fn(const struct ut_stat_hdr *h, const void *payload, void *arg)
{
	struct thr_list *l = arg;
	const struct ut_prof_stat *p = payload;
	uint32_t nt;

	if (h->size < sizeof(*p))
		return 0;
	nt = p->ntables < UT_PROF_THREADS ? p->ntables : UT_PROF_THREADS;
	for (uint32_t t = 0; t < nt; t++) {
		if (!p->tab[t].tid)
			continue;
		l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
		l->v[l->n].pid = h->pid;
		l->v[l->n].tid = p->tab[t].tid;
		memcpy(l->v[l->n].comm, h->comm, sizeof(h->comm));
		l->v[l->n].comm[15] = 0;
		l->n++;
	}
	return 0;
}

int prof_func_report(const char *dir, FILE *out)
{
	struct prof_acc a = { .dir = dir, .sym = sym_open(dir), .cpu = -1 };
	struct thr_list l = { 0 };

	if (!ut_stat_foreach(dir, UT_PROF_STAT_NAME, UT_PROF_STAT_VERSION, prof_acc_fn, &a)) {
		fprintf(stderr, "usertrace: %s has no function profile (record with --func-profile)\n",
			dir);
		if (a.sym)
			sym_close(a.sym);
		return -1;
	}
	fprintf(out, "# all threads%s\n", a.graph_time ? "" : " (graph-time off: callees not counted)");
	acc_print(&a, out);
	if (a.overflow)
		fprintf(out, "# %" PRIu64 " hits not counted: a thread's table was full (%d entries)\n",
			a.overflow, UT_PROF_ENTRIES);
	if (a.lost_threads)
		fprintf(out, "# %u threads not profiled: more than %d in a process\n", a.lost_threads,
			UT_PROF_THREADS);
	acc_free(&a);
	ut_stat_foreach(dir, UT_PROF_STAT_NAME, UT_PROF_STAT_VERSION, thr_list_fn, &l);
	for (size_t i = 0; i < l.n; i++) {
		struct prof_acc t = { .dir = dir, .sym = a.sym, .cpu = -1, .tid = l.v[i].tid,
				      .pid = l.v[i].pid };

		ut_stat_foreach(dir, UT_PROF_STAT_NAME, UT_PROF_STAT_VERSION, prof_acc_fn, &t);
		fprintf(out, "\n# thread %d (pid %d, %s)\n", l.v[i].tid, l.v[i].pid, l.v[i].comm);
		acc_print(&t, out);
		acc_free(&t);
	}
	free(l.v);
	if (a.sym)
		sym_close(a.sym);
	return 0;
}

/* ---- trace_stat/function<cpu> ---- */

static void *fstat_start(struct tracer_stat *trace, const char *dir)
{
	struct prof_acc a = { .dir = dir, .cpu = (int)(intptr_t)trace->priv };
	struct prof_row **v, *first = NULL;
	size_t n;

	if (!dir)
		return NULL;
	a.sym = sym_open(dir);
	ut_stat_foreach(dir, UT_PROF_STAT_NAME, UT_PROF_STAT_VERSION, prof_acc_fn, &a);
	v = acc_sorted(&a, &n);
	/* the rows, a list in stat_next order, each freed by stat_release */
	for (size_t i = n; i-- > 0;) {
		struct prof_row *r = xmalloc(sizeof(*r));

		*r = *v[i];
		r->next = first;
		first = r;
	}
	free(v);
	acc_free(&a);
	if (a.sym)
		sym_close(a.sym);
	return first;
}

static void *fstat_next(void *prev, int idx)
{
	(void)idx;
	return ((struct prof_row *)prev)->next;
}

static int fstat_show(FILE *m, void *p)
{
	prof_line(m, p);
	return 0;
}

static int fstat_headers(FILE *m)
{
	prof_headers(m);
	return 0;
}

static void fstat_release(void *p)
{
	free(p);
}

void prof_register_stats(void)
{
	static int done;
	static struct tracer_stat *stats;
	static char (*names)[32];
	long n;

	if (done++)
		return;
	n = sysconf(_SC_NPROCESSORS_CONF);
	if (n < 1)
		n = 1;
	if (n > TRACE_STAT_MAX / 2)
		n = TRACE_STAT_MAX / 2;
	stats = xcalloc((size_t)n, sizeof(*stats));
	names = xcalloc((size_t)n, sizeof(*names));
	for (long i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "function%ld", i);
		/* already in order (stat_next gives them sorted): no stat_cmp */
		stats[i] = (struct tracer_stat){
			.name = names[i],
			.stat_start = fstat_start,
			.stat_next = fstat_next,
			.stat_show = fstat_show,
			.stat_release = fstat_release,
			.stat_headers = fstat_headers,
			.priv = (void *)(intptr_t)i,
		};
		register_stat_tracer(&stats[i]);
	}
}
