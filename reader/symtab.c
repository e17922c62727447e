// SPDX-License-Identifier: MIT
/*
 * symtab.c - loading the symbol files of a recording and naming addresses
 * (the files: symsave.c).
 *
 * Loading: the maps snapshots of each process image are folded into one
 * list of executable ranges sorted by address, each with the time from
 * which it was mapped: the "# time" line of the first snapshot that shows
 * it (the start of the dlopen that mapped it), 0 for those of the first
 * snapshot.  A library unloaded and another mapped at its place both stay:
 * an address is named by the range that held it at the event's time.
 * Snapshots without a time (older recordings) make later ones win, as
 * if they all held from the start.  Symbol files are parsed only when an
 * address in one of their mappings is first looked up, and the load bias
 * of a mapping only then computed: a report touches a handful of modules
 * of a program that maps hundreds.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/symtab.h"
#include "utils/utils.h"
#include "reader/symtab_int.h"

/* ---- a small open-addressing map from two u64 keys to a pointer ---- */

struct kent {
	uint64_t k1, k2;
	void *val;		/* NULL: empty slot */
};

struct kmap {
	struct kent *ents;
	size_t cap, nr;		/* cap is a power of two */
};

static size_t kmap_slot(uint64_t k1, uint64_t k2, size_t cap)
{
	uint64_t h = (k1 ^ (k2 * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static void *kmap_get(const struct kmap *m, uint64_t k1, uint64_t k2)
{
	if (!m->cap)
		return NULL;
	for (size_t i = kmap_slot(k1, k2, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct kent *e = &m->ents[i];

		if (!e->val)
			return NULL;
		if (e->k1 == k1 && e->k2 == k2)
			return e->val;
	}
}

/* the key must not be in the map yet */
static void kmap_put(struct kmap *m, uint64_t k1, uint64_t k2, void *val)
{
	size_t i;

	if ((m->nr + 1) * 2 > m->cap) {
		struct kmap n = { .cap = m->cap ? m->cap * 2 : 64 };

		n.ents = xcalloc(n.cap, sizeof(*n.ents));
		for (size_t j = 0; j < m->cap; j++)
			if (m->ents[j].val)
				kmap_put(&n, m->ents[j].k1, m->ents[j].k2, m->ents[j].val);
		free(m->ents);
		*m = n;
	}
	for (i = kmap_slot(k1, k2, m->cap); m->ents[i].val; i = (i + 1) & (m->cap - 1))
		;
	m->ents[i] = (struct kent){ k1, k2, val };
	m->nr++;
}

/* ---- loading and lookups ---- */

struct fsym {
	uint64_t addr, size;	/* link-time */
	const char *name;	/* points into struct module.buf */
	const char *raw;	/* the ELF name if not @name, or NULL */
};

struct load {
	uint64_t vaddr, off, filesz, memsz;
	uint32_t flags;
};

enum { MOD_UNREAD, MOD_OK, MOD_FAILED };

/* one ELF file, its symbol file read on first use */
struct module {
	char *path;
	const char *base;	/* basename of path */
	int state;
	int e_type;
	char *buf;
	struct fsym *syms;
	size_t nr_syms;
	struct load *loads;
	size_t nr_loads;
};

/*
 * A module at one load bias, with the run-time symbols handed out so far.
 * Shared by all mappings that agree (snapshots, forked children), so that
 * one function gets one struct ut_sym pointer: callers may cache it.
 */
struct inst {
	struct module *mod;
	uint64_t bias;
	struct ut_sym **res;	/* by symbol index, allocated on demand */
};

/*
 * An executable mapping as the snapshots show it, from the first snapshot
 * that shows it on.  Mappings of a process may overlap: a library loaded
 * where an unloaded one was.  The one that names an address at time t is
 * the latest in place at t (see find_mapping()).
 */
struct mapping {
	uint64_t start, end, off;
	uint64_t maxend;	/* the largest end of this and the mappings sorted before it */
	uint64_t from_raw;	/* in place since (the snapshot's "# time"); 0: always */
	uint64_t from;		/* the same in ns (ut_symtab_set_clock()) */
	uint64_t seq;		/* order of first appearance: among equal times, later wins */
	struct module *mod;	/* NULL: executable but not a file (JIT, vdso) */
	struct inst *inst;	/* NULL until first looked up */
};

struct proc {
	int pid;
	uint64_t image;
	struct mapping *maps;	/* sorted by start */
	size_t nr, cap;
	size_t *cur;		/* while loading: the last snapshot's mappings, by start */
	size_t nr_cur;
	struct proc *hint;	/* no maps: where the last fallback lookup succeeded */
};

/*
 * A lookup in a process with its own maps depends on nothing else: such
 * lookups are remembered, by address, with the time range in which the
 * same mapping names the address.
 */
#define LOOKUP_CACHE_SIZE 1024

struct lookup_cache {
	uint64_t image, addr;
	uint64_t lo, hi;	/* valid for times in [lo, hi) */
	int pid, valid;
	const struct ut_sym *sym;
};

struct ut_symtab {
	struct lookup_cache cache[LOOKUP_CACHE_SIZE];
	char symdir[4096];
	struct kmap procs;	/* (pid, image) -> struct proc */
	struct proc **proc_list;
	size_t nr_procs;
	struct kmap mods;	/* (hash of path, 0) -> struct module */
	struct kmap insts;	/* (module, bias) -> struct inst */
	struct inst **inst_list;
	size_t nr_insts;
	struct module **mod_list;
	size_t nr_mods;
	uint64_t seq;
};

static struct proc *get_proc(struct ut_symtab *st, int pid, uint64_t image)
{
	struct proc *p = kmap_get(&st->procs, (uint64_t)(uint32_t)pid, image);

	if (p)
		return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->image = image;
	kmap_put(&st->procs, (uint64_t)(uint32_t)pid, image, p);
	st->proc_list = xrealloc(st->proc_list, (st->nr_procs + 1) * sizeof(*st->proc_list));
	st->proc_list[st->nr_procs++] = p;
	return p;
}

static struct module *get_module(struct ut_symtab *st, const char *path)
{
	uint64_t h = fnv1a(path);
	struct module *m = kmap_get(&st->mods, h, 0);

	if (m)
		return strcmp(m->path, path) ? NULL : m;	/* a hash collision: no symbols */
	m = xcalloc(1, sizeof(*m));
	m->path = xstrdup(path);
	m->base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
	kmap_put(&st->mods, h, 0, m);
	st->mod_list = xrealloc(st->mod_list, (st->nr_mods + 1) * sizeof(*st->mod_list));
	st->mod_list[st->nr_mods++] = m;
	return m;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* the mapping of the last snapshot that is @m, or -1 */
static ssize_t cur_find(const struct proc *p, const struct mapping *m)
{
	size_t lo = 0, hi = p->nr_cur;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *c = &p->maps[p->cur[mid]];

		if (c->start < m->start) {
			lo = mid + 1;
		} else if (c->start > m->start) {
			hi = mid;
		} else {
			if (c->end == m->end && c->off == m->off && c->mod == m->mod)
				return (ssize_t)p->cur[mid];
			return -1;
		}
	}
	return -1;
}

/* "# time <decimal>": the clock time from which this snapshot's new mappings are in place */
static int parse_time_line(const char *line, uint64_t *t)
{
	const char *p = line + 7;
	uint64_t v;

	if (strncmp(line, "# time ", 7) || parse_u64(p, &p, 10, &v) || *p)
		return -1;
	*t = v;
	return 0;
}

static void load_maps_file(struct ut_symtab *st, const char *dir, const struct maps_file *mf)
{
	char file[4400], *buf, *line, *pos;
	struct mapping *snap = NULL;
	size_t len, nr = 0, cap = 0;
	uint64_t t = 0;
	struct proc *p;
	int bad = 0;

	snprintf(file, sizeof(file), "%s/%s", dir, mf->name);
	buf = read_file(file, &len);
	if (!buf) {
		pr_warn("cannot read %s: %s", file, strerror(errno));
		return;
	}
	p = get_proc(st, mf->pid, mf->image);
	for (pos = buf; (line = next_line(&pos, buf + len));) {
		struct maps_line ml;
		struct mapping m;

		if (!*line)
			continue;
		if (line[0] == '#') {
			if (!strncmp(line, "# time ", 7) && parse_time_line(line, &t))
				bad++;
			continue;
		}
		if (parse_maps_line(line, &ml)) {
			bad++;
			continue;
		}
		if (!ml.exec)
			continue;
		m = (struct mapping){ .start = ml.start, .end = ml.end, .off = ml.off };
		if (ml.path && !ml.deleted)
			m.mod = get_module(st, ml.path);
		if (nr == cap)
			snap = xrealloc(snap, (cap = cap * 2 + 16) * sizeof(*snap));
		snap[nr++] = m;
	}
	free(buf);
	if (bad)
		pr_warn("%s: %d lines ignored", file, bad);
	/* the first snapshot of an image holds from its start */
	if (mf->n == 0)
		t = 0;
	if (nr)
		qsort(snap, nr, sizeof(*snap), cmp_mapping);
	/* what the last snapshot showed goes on; the rest is new from @t */
	free(p->cur);
	p->cur = NULL;
	p->nr_cur = 0;
	{
		size_t *cur = xmalloc((nr ? nr : 1) * sizeof(*cur));

		for (size_t i = 0; i < nr; i++) {
			ssize_t k = i && snap[i].start < snap[i - 1].end ? -1 : cur_find(p, &snap[i]);

			if (k < 0) {
				if (p->nr == p->cap)
					p->maps = xrealloc(p->maps, (p->cap = p->cap * 2 + 8) * sizeof(*p->maps));
				snap[i].from_raw = snap[i].from = t;
				snap[i].seq = st->seq++;
				k = (ssize_t)p->nr;
				p->maps[p->nr++] = snap[i];
			}
			cur[i] = (size_t)k;
		}
		/* the new list only once the old one is no longer searched */
		p->cur = cur;
		p->nr_cur = nr;
	}
	free(snap);
}

struct ut_symtab *ut_symtab_load(const char *datadir)
{
	struct ut_symtab *st;
	struct maps_file *mf;
	size_t nr_mf;

	if (list_maps(datadir, &mf, &nr_mf)) {
		pr_err("cannot read %s: %s", datadir, strerror(errno));
		return NULL;
	}
	st = xcalloc(1, sizeof(*st));
	snprintf(st->symdir, sizeof(st->symdir), "%s/sym", datadir);
	if (nr_mf && access(st->symdir, F_OK))
		pr_warn("no symbol tables in %s: addresses stay raw", st->symdir);
	/* in (pid, image, n) order: each snapshot is compared with the one before */
	for (size_t i = 0; i < nr_mf; i++)
		load_maps_file(st, datadir, &mf[i]);
	free(mf);
	for (size_t i = 0; i < st->nr_procs; i++) {
		struct proc *p = st->proc_list[i];
		uint64_t maxend = 0;

		free(p->cur);
		p->cur = NULL;
		p->nr_cur = 0;
		if (p->nr)
			qsort(p->maps, p->nr, sizeof(*p->maps), cmp_mapping);
		for (size_t j = 0; j < p->nr; j++) {
			if (p->maps[j].end > maxend)
				maxend = p->maps[j].end;
			p->maps[j].maxend = maxend;
		}
	}
	return st;
}

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "<hex> <hex> <name>[\t<ELF name>]" */
static int parse_sym_line(char *line, struct fsym *s)
{
	const char *p = line;
	char *tab;

	if (parse_u64(p, &p, 16, &s->addr) || *p++ != ' ')
		return -1;
	if (parse_u64(p, &p, 16, &s->size) || *p++ != ' ' || !*p)
		return -1;
	s->name = p;
	s->raw = NULL;
	tab = strchr(line + (p - line), '\t');
	if (tab) {
		*tab = '\0';
		s->raw = tab[1] ? tab + 1 : NULL;
	}
	return 0;
}

struct sym_file_state {
	int have_path;
	int have_end;
	uint64_t end_count;
};

/* the "# ..." lines; -1 if the line is not a known one */
static int parse_header_line(struct module *m, char *line, struct sym_file_state *fs)
{
	const char *p;

	if (!strcmp(line, SYM_MAGIC))
		return 0;
	if (!strncmp(line, "# path ", 7)) {
		if (strcmp(line + 7, m->path))
			return -1;
		fs->have_path = 1;
		return 0;
	}
	if (!strncmp(line, "# end ", 6)) {
		p = line + 6;
		if (parse_u64(p, &p, 10, &fs->end_count) || *p)
			return -1;
		fs->have_end = 1;
		return 0;
	}
	if (!strncmp(line, "# type ", 7)) {
		m->e_type = atoi(line + 7);
		return 0;
	}
	if (!strncmp(line, "# load ", 7)) {
		struct load l;
		uint64_t flags;

		p = line + 7;
		if (parse_u64(p, &p, 16, &l.vaddr) || *p++ != ' ' ||
		    parse_u64(p, &p, 16, &l.off) || *p++ != ' ' ||
		    parse_u64(p, &p, 16, &l.filesz) || *p++ != ' ' ||
		    parse_u64(p, &p, 16, &l.memsz))
			return -1;
		l.flags = PF_X | PF_R;	/* older files without flags: any segment will do */
		if (*p == ' ' && !parse_u64(p + 1, &p, 16, &flags))
			l.flags = (uint32_t)flags;
		m->loads = xrealloc(m->loads, (m->nr_loads + 1) * sizeof(*m->loads));
		m->loads[m->nr_loads++] = l;
		return 0;
	}
	return line[0] == '#' ? 0 : -1;		/* comments of later versions */
}

static void read_module(struct ut_symtab *st, struct module *m)
{
	char file[4200], *line, *pos;
	size_t len, cap = 0;
	struct sym_file_state fs = { 0 };
	int bad = 0;

	m->state = MOD_FAILED;
	snprintf(file, sizeof(file), "%s/%016" PRIx64 ".sym", st->symdir, fnv1a(m->path));
	m->buf = read_file(file, &len);
	if (!m->buf) {
		/* saving warned already about the files it could not read */
		if (errno == ENOENT)
			pr_dbg("no symbols for %s (%s)", m->path, file);
		else
			pr_warn("no symbols for %s (%s: %s)", m->path, file, strerror(errno));
		return;
	}
	if (strncmp(m->buf, SYM_MAGIC "\n", sizeof(SYM_MAGIC))) {
		pr_warn("%s: not a usertrace symbol file", file);
		goto fail;
	}
	for (pos = m->buf; !fs.have_end && (line = next_line(&pos, m->buf + len));) {
		struct fsym s;

		if (!*line)
			continue;
		if (line[0] == '#') {
			if (parse_header_line(m, line, &fs)) {
				pr_warn("%s: bad header line \"%.60s\"", file, line);
				goto fail;
			}
			continue;
		}
		if (parse_sym_line(line, &s)) {
			bad++;
			continue;
		}
		if (m->nr_syms == cap)
			m->syms = xrealloc(m->syms, (cap = cap ? cap * 2 : 256) * sizeof(*m->syms));
		m->syms[m->nr_syms++] = s;
	}
	if (!fs.have_path) {
		pr_warn("%s: no path for %s", file, m->path);
		goto fail;
	}
	if (!fs.have_end) {
		pr_warn("%s: truncated; no symbols for %s", file, m->path);
		goto fail;
	}
	if (bad || fs.end_count != m->nr_syms)
		pr_warn("%s: %d lines ignored, %zu of %" PRIu64 " symbols read", file, bad,
			m->nr_syms, fs.end_count);
	/* written sorted, but a hand-edited file must not break the binary search */
	if (m->nr_syms)
		qsort(m->syms, m->nr_syms, sizeof(*m->syms), cmp_fsym);
	m->state = MOD_OK;
	return;
fail:
	free(m->syms);
	free(m->loads);
	m->syms = NULL;
	m->loads = NULL;
	m->nr_syms = m->nr_loads = 0;
}

/*
 * The load bias of a mapping: run-time address minus link-time address.
 * The mapping shows file offset @off at @start; the PT_LOAD that covers
 * that offset says at which link-time address the offset lives.
 */
static uint64_t mapping_bias(const struct mapping *map, const struct module *m)
{
	const struct load *best = NULL;
	uint64_t len = map->end - map->start;

	if (m->e_type == ET_EXEC)
		return 0;
	for (size_t i = 0; i < m->nr_loads; i++) {
		const struct load *l = &m->loads[i];
		uint64_t lo = l->off & ~0xfffull;

		/*
		 * Segments can share a page of the file: among those that
		 * overlap the mapped file range prefer the executable one.
		 */
		if (map->off + len <= lo || map->off >= l->off + l->filesz)
			continue;
		if (!best || ((l->flags & PF_X) && !(best->flags & PF_X)))
			best = l;
	}
	if (best)
		return map->start - (best->vaddr - best->off + map->off);
	/* no program headers (or odd ones): assume vaddr == offset as in DSOs */
	return map->start - map->off;
}

static struct inst *get_inst(struct ut_symtab *st, struct module *m, uint64_t bias)
{
	struct inst *in = kmap_get(&st->insts, (uint64_t)(uintptr_t)m, bias);

	if (in)
		return in;
	in = xcalloc(1, sizeof(*in));
	in->mod = m;
	in->bias = bias;
	in->res = xcalloc(m->nr_syms, sizeof(*in->res));
	kmap_put(&st->insts, (uint64_t)(uintptr_t)m, bias, in);
	st->inst_list = xrealloc(st->inst_list, (st->nr_insts + 1) * sizeof(*st->inst_list));
	st->inst_list[st->nr_insts++] = in;
	return in;
}

/* a mapping's place in time: later in place, or seen later at the same time */
static int map_later(const struct mapping *a, const struct mapping *b)
{
	return a->from != b->from ? a->from > b->from : a->seq > b->seq;
}

/*
 * The mapping that holds @addr at time @ts: of those that contain @addr,
 * the latest in place at @ts, or the first of all if none was yet.  In
 * [*lo, *hi) the answer is the same.  The mappings that contain @addr
 * start at or below it and are found walking down from there while the
 * running maximum of ends (maxend) still passes @addr: one step when
 * nothing was ever mapped over anything else.
 */
static struct mapping *find_mapping(struct proc *p, uint64_t addr, uint64_t ts, uint64_t *lo_out,
				    uint64_t *hi_out)
{
	struct mapping *best = NULL, *first = NULL;
	size_t lo = 0, hi = p->nr;
	uint64_t end = UINT64_MAX;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && p->maps[i].maxend > addr;) {
		struct mapping *m = &p->maps[i];

		if (addr >= m->end)
			continue;
		if (!first || map_later(first, m))
			first = m;
		if (m->from <= ts && (!best || map_later(m, best)))
			best = m;
	}
	if (!first)
		return NULL;
	if (!best)
		best = first;
	/* until the next one in time */
	for (size_t i = lo; i-- > 0 && p->maps[i].maxend > addr;) {
		struct mapping *m = &p->maps[i];

		if (addr < m->end && map_later(m, best) && m->from < end)
			end = m->from;
	}
	if (lo_out)
		*lo_out = best == first ? 0 : best->from;
	if (hi_out)
		*hi_out = end;
	return best;
}

static const struct ut_sym *lookup(struct ut_symtab *st, struct mapping *map, uint64_t addr)
{
	struct module *m = map->mod;
	struct inst *in;
	const struct fsym *s;
	uint64_t faddr;
	size_t lo = 0, hi;

	if (!m)
		return NULL;
	if (m->state == MOD_UNREAD)
		read_module(st, m);
	if (m->state != MOD_OK)
		return NULL;
	if (!map->inst)
		map->inst = get_inst(st, m, mapping_bias(map, m));
	in = map->inst;
	faddr = addr - in->bias;
	hi = m->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= faddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &m->syms[--lo];
	if (s->size) {
		if (faddr - s->addr >= s->size)
			return NULL;
	} else if (s->addr + in->bias < map->start) {
		/* a size-less symbol only covers the rest of its own mapping */
		return NULL;
	}
	if (!in->res[lo]) {
		struct ut_sym *r = xmalloc(sizeof(*r));

		r->addr = s->addr + in->bias;
		r->size = s->size;
		r->name = s->name;
		r->raw = s->raw;
		r->module = m->base;
		in->res[lo] = r;
	}
	return in->res[lo];
}

static const struct ut_sym *lookup_proc(struct ut_symtab *st, struct proc *p, uint64_t addr,
				       uint64_t ts, uint64_t *lo, uint64_t *hi)
{
	struct mapping *map = find_mapping(p, addr, ts, lo, hi);

	return map ? lookup(st, map, addr) : NULL;
}

static const struct ut_sym *find(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr,
				 uint64_t ts, uint64_t *since)
{
	struct lookup_cache *c;
	struct proc *p, *q;
	const struct ut_sym *s;
	uint64_t lo = 0, hi = UINT64_MAX;

	*since = 0;
	if (!st)
		return NULL;
	c = &st->cache[kmap_slot(addr, image ^ (uint32_t)pid, LOOKUP_CACHE_SIZE)];
	if (c->valid && c->addr == addr && c->pid == pid && c->image == image && ts >= c->lo &&
	    ts < c->hi) {
		*since = c->lo;
		return c->sym;
	}
	p = kmap_get(&st->procs, (uint64_t)(uint32_t)pid, image);
	if (p && p->nr) {
		s = lookup_proc(st, p, addr, ts, &lo, &hi);
		*c = (struct lookup_cache){ .image = image, .addr = addr, .pid = pid, .valid = 1,
					    .lo = lo, .hi = hi, .sym = s };
		*since = lo;
		return s;
	}

	/*
	 * No snapshot of this image: a forked child that never wrote its own
	 * maps runs in its parent's layout.  Try where the last fallback of
	 * this image succeeded, then the same pid, the same image, anything.
	 */
	if (!p)
		p = get_proc(st, pid, image);
	if (p->hint && (s = lookup_proc(st, p->hint, addr, ts, since, NULL)))
		return s;
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < st->nr_procs; i++) {
			q = st->proc_list[i];
			if (!q->nr || q == p->hint)
				continue;
			if ((pass == 0 && q->pid != pid) || (pass == 1 && q->image != image))
				continue;
			if ((s = lookup_proc(st, q, addr, ts, since, NULL))) {
				p->hint = q;
				return s;
			}
		}
	}
	*since = 0;
	return NULL;
}

const struct ut_sym *ut_symtab_find(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr,
				    uint64_t ts)
{
	uint64_t since;

	return find(st, pid, image, addr, ts, &since);
}

uint64_t ut_symtab_since(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr, uint64_t ts)
{
	uint64_t since;

	find(st, pid, image, addr, ts, &since);
	return since;
}

void ut_symtab_set_clock(struct ut_symtab *st, uint64_t (*to_ns)(const void *ctx, uint64_t raw),
			 const void *ctx)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_procs; i++) {
		struct proc *p = st->proc_list[i];

		for (size_t j = 0; j < p->nr; j++)
			p->maps[j].from = p->maps[j].from_raw ? to_ns(ctx, p->maps[j].from_raw) : 0;
	}
	memset(st->cache, 0, sizeof(st->cache));
}

void ut_symtab_free(struct ut_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nr_procs; i++) {
		free(st->proc_list[i]->maps);
		free(st->proc_list[i]);
	}
	for (size_t i = 0; i < st->nr_insts; i++) {
		struct inst *in = st->inst_list[i];

		for (size_t j = 0; j < in->mod->nr_syms; j++)
			free(in->res[j]);
		free(in->res);
		free(in);
	}
	for (size_t i = 0; i < st->nr_mods; i++) {
		struct module *m = st->mod_list[i];

		free(m->path);
		free(m->buf);
		free(m->syms);
		free(m->loads);
		free(m);
	}
	free(st->proc_list);
	free(st->inst_list);
	free(st->mod_list);
	free(st->procs.ents);
	free(st->mods.ents);
	free(st->insts.ents);
	free(st);
}
