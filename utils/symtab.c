// SPDX-License-Identifier: MIT
/*
 * symtab.c - saving the symbol tables of traced programs and naming addresses.
 *
 * Saving: every executable file mapping in the DIR/maps.<pid>.<image>.<n>
 * snapshots names an ELF file.  Its function symbols (.symtab merged with
 * .dynsym), its e_type and its PT_LOAD headers go to DIR/sym/<hash>.sym, a
 * text file:
 *
 *   # usertrace sym 1
 *   # path /usr/lib/x86_64-linux-gnu/libc.so.6
 *   # type 3
 *   # load <p_vaddr> <p_offset> <p_filesz> <p_memsz> <p_flags>   (one per PT_LOAD)
 *   <addr> <size> <name>                                          (sorted by addr)
 *   # end <number of symbols>
 *
 * numbers in hex (but the count at the end), <hash> the 64-bit FNV-1a of
 * the path in 16 hex digits.  The end line tells a whole file from one cut
 * short by a full disk: a cut file would lend its last symbol to every
 * function after it, so it is not used at all.
 * DIR/sym/index lists "<hash> <path>" for people and scripts; loading
 * does not need it since the hash is computed from the path in the maps.
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

#include "utils/symtab.h"
#include "utils/utils.h"

/* from libstdc++ (the ABI's demangler); declared here to stay a C file */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYM_MAGIC	"# usertrace sym 1"

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * The next line of the buffer [*pos, end), NUL-terminated in place, or
 * NULL at the end.  By length: a NUL in a damaged file ends a line, not
 * the file.
 */
static char *next_line(char **pos, char *end)
{
	char *line = *pos, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', (size_t)(end - line));
	if (nl) {
		*nl = 0;
		*pos = nl + 1;
	} else {
		*pos = end;
	}
	return line;
}

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

/* ---- maps snapshots ---- */

struct maps_file {
	int pid;
	uint64_t image;
	unsigned n;
	char name[256];
};

static int cmp_maps_file(const void *a, const void *b)
{
	const struct maps_file *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return 0;
}

static int parse_u64(const char *s, const char **end, int base, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > 'f')	/* strtoull would accept "-1" and spaces */
		return -1;
	errno = 0;
	*v = strtoull(s, &e, base);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/* "maps.<pid>.<image>.<n>" with decimal numbers and nothing else */
static int parse_maps_name(const char *name, struct maps_file *mf)
{
	const char *p;
	uint64_t pid, n;

	if (strncmp(name, "maps.", 5) || strlen(name) >= sizeof(mf->name))
		return -1;
	p = name + 5;
	if (parse_u64(p, &p, 10, &pid) || *p++ != '.' || pid > INT32_MAX)
		return -1;
	if (parse_u64(p, &p, 10, &mf->image) || *p++ != '.')
		return -1;
	if (parse_u64(p, &p, 10, &n) || *p || n > UINT32_MAX)
		return -1;
	mf->pid = (int)pid;
	mf->n = (unsigned)n;
	strcpy(mf->name, name);
	return 0;
}

/* the maps.* files of @dir sorted by (pid, image, n); -1 if @dir can't be read */
static int list_maps(const char *dir, struct maps_file **out, size_t *nr)
{
	struct maps_file *v = NULL, mf;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	/* room for "/sym/<hash>.sym.tmp" in the fixed-size path buffers */
	if (strlen(dir) > 4000)
		return errno = ENAMETOOLONG, -1;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (parse_maps_name(de->d_name, &mf))
			continue;
		if (n == cap)
			v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
		v[n++] = mf;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_maps_file);
	*out = v;
	*nr = n;
	return 0;
}

struct maps_line {
	uint64_t start, end, off;
	int exec;
	const char *path;	/* NULL for anonymous and special mappings */
	int deleted;
};

/*
 * One line of /proc/PID/maps: "start-end perms offset dev inode   path".
 * @line is modified (the path is cut at its end).  Returns -1 if the line
 * does not look like one.
 */
static int parse_maps_line(char *line, struct maps_line *ml)
{
	const char *p = line;
	uint64_t inode;
	char *path;
	size_t len;

	if (parse_u64(p, &p, 16, &ml->start) || *p++ != '-')
		return -1;
	if (parse_u64(p, &p, 16, &ml->end) || *p++ != ' ' || ml->end <= ml->start)
		return -1;
	if (strlen(p) < 5 || p[4] != ' ')
		return -1;
	ml->exec = p[2] == 'x';
	p += 5;
	if (parse_u64(p, &p, 16, &ml->off) || *p++ != ' ')
		return -1;
	/* device "fd:01" */
	while (*p && *p != ' ')
		p++;
	if (*p++ != ' ' || parse_u64(p, &p, 10, &inode))
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	path = (char *)p;
	len = strlen(path);
	while (len && (path[len - 1] == '\n' || path[len - 1] == '\r'))
		path[--len] = 0;
	ml->deleted = 0;
	if (len > 10 && !strcmp(path + len - 10, " (deleted)")) {
		ml->deleted = 1;
		path[len - 10] = 0;
	}
	ml->path = path[0] == '/' ? path : NULL;
	return 0;
}

/* ---- saving ---- */

struct esym {
	uint64_t addr, size;
	char *name;
	char *raw;		/* the ELF name, if @name is not it */
	int rank;		/* lower is preferred among aliases */
};

struct elfinfo {
	int e_type;
	GElf_Phdr *loads;
	size_t nr_loads;
	struct esym *syms;
	size_t nr_syms, cap_syms;
};

/*
 * Cut the parameter list off a demangled name, as function tracers print
 * names: "ns::f<int>(char const*) const" -> "ns::f<int>".  The list is the
 * last "(...)" at nesting level 0; "(anonymous namespace)" and the
 * parentheses of "operator()" are not it, nor are the signs of
 * "operator<" or "operator->" brackets.
 */
static void strip_params(char *n)
{
	int angle = 0, paren = 0;
	char *open = NULL;

	for (char *p = n; *p; p++) {
		/* an operator's own signs ("operator<", "operator>>=") are not brackets */
		if (*p == 'o' && !strncmp(p, "operator", 8) && (p == n || p[-1] == ':' || p[-1] == ' ') &&
		    strchr("<>-", p[8])) {
			p += 8 + strspn(p + 8, "<>=-") - 1;
			continue;
		}
		switch (*p) {
		case '<': angle++; break;
		case '>': if (angle) angle--; break;
		case '(':
			if (!strncmp(p, "(anonymous namespace)", 21)) {
				p += 20;
				break;
			}
			if (p - n >= 8 && !strncmp(p - 8, "operator", 8) && p[1] == ')') {
				p++;
				break;
			}
			if (!angle && !paren++)
				open = p;
			break;
		case ')': if (paren) paren--; break;
		default: break;
		}
	}
	if (open && open != n)
		*open = 0;
}

/*
 * Cut the return type off a demangled template function, as a tracer
 * names a function by its name alone ("void ns::f<int>" -> "ns::f<int>",
 * so that -F 'ns::*' matches it): what precedes the last blank outside
 * <>, () and {}.  The blanks of an operator's name ("operator new",
 * "operator int", "operator< <int>") are not that blank: the scan ends
 * at the word operator.
 */
static void strip_return_type(char *n)
{
	int depth = 0;
	char *cut = NULL;

	for (char *p = n; *p; p++) {
		switch (*p) {
		case '<': case '(': case '{': depth++; break;
		case '>': case ')': case '}': if (depth) depth--; break;
		case ' ': if (!depth) cut = p; break;
		case 'o':
			if (!depth && !strncmp(p, "operator", 8) &&
			    (p == n || p[-1] == ':' || p[-1] == ' ') &&
			    !(isalnum((unsigned char)p[8]) || p[8] == '_'))
				goto out;
			break;
		default: break;
		}
	}
out:
	if (cut)
		memmove(n, cut + 1, strlen(cut + 1) + 1);
}

static char *demangle(const char *name)
{
	char *d;
	int status = -1;

	if (name[0] == '_' && name[1] == 'Z') {
		d = __cxa_demangle(name, NULL, NULL, &status);
		if (d && !status) {
			strip_params(d);
			strip_return_type(d);
			return d;
		}
		free(d);
	}
	return xstrdup(name);
}

/*
 * Among symbols at one address, keep the most telling name: .symtab over
 * .dynsym (it has the static functions and the names the author wrote),
 * global over weak over local, then fewer leading underscores (malloc
 * over __libc_malloc).
 */
static int sym_rank(int from_symtab, int bind, const char *name)
{
	int us = 0;

	while (name[us] == '_' && us < 3)
		us++;
	return (from_symtab ? 0 : 100) + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 10 : 20) + us;
}

static void read_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct elfinfo *ei)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t entsize = sh->sh_entsize ? sh->sh_entsize : gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t n;

	if (!data || !data->d_buf || !entsize)
		return;
	n = data->d_size / entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *name, *at;
		char *unversioned = NULL;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name)
			continue;
		/* a symbol version in the name (libc's .symtab: "memcpy@@GLIBC_2.14") goes */
		if ((at = strchr(name + 1, '@')))
			name = unversioned = strndup(name, (size_t)(at - name));
		if (!name)
			continue;
		if (ei->nr_syms == ei->cap_syms) {
			ei->cap_syms = ei->cap_syms ? ei->cap_syms * 2 : 256;
			ei->syms = xrealloc(ei->syms, ei->cap_syms * sizeof(*ei->syms));
		}
		ei->syms[ei->nr_syms++] = (struct esym){
			.addr = s.st_value,
			.size = s.st_size,
			.name = demangle(name),
			.raw = name[0] == '_' && name[1] == 'Z' ? xstrdup(name) : NULL,
			.rank = sym_rank(sh->sh_type == SHT_SYMTAB, GELF_ST_BIND(s.st_info), name),
		};
		free(unversioned);
	}
}

/*
 * The initialisation and termination functions the dynamic section names
 * (DT_INIT, DT_FINI): _init and _fini by the ELF convention, named so in
 * a stripped object too (its constructors are printed by the initcall
 * tracer), the size of the section they start (.init, .fini).  An
 * object's own symbol there keeps its name.
 */
static void read_init_fini(Elf *elf, Elf_Scn *dyn, GElf_Shdr *dsh, struct elfinfo *ei)
{
	Elf_Data *data = elf_getdata(dyn, NULL);
	size_t n = data && dsh->sh_entsize ? data->d_size / dsh->sh_entsize : 0;

	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = NULL;
		uint64_t size = 0;
		GElf_Dyn d;

		if (!gelf_getdyn(data, (int)i, &d) || d.d_tag == DT_NULL)
			break;
		if ((d.d_tag != DT_INIT && d.d_tag != DT_FINI) || !d.d_un.d_ptr)
			continue;
		for (size_t k = 0; k < ei->nr_syms && size != UINT64_MAX; k++)
			if (ei->syms[k].addr == d.d_un.d_ptr)
				size = UINT64_MAX;	/* named by the object */
		if (size == UINT64_MAX)
			continue;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_addr == d.d_un.d_ptr &&
			    (sh.sh_flags & SHF_EXECINSTR))
				size = sh.sh_size;
		}
		if (ei->nr_syms == ei->cap_syms) {
			ei->cap_syms = ei->cap_syms ? ei->cap_syms * 2 : 256;
			ei->syms = xrealloc(ei->syms, ei->cap_syms * sizeof(*ei->syms));
		}
		ei->syms[ei->nr_syms++] = (struct esym){
			.addr = d.d_un.d_ptr,
			.size = size,
			.name = xstrdup(d.d_tag == DT_INIT ? "_init" : "_fini"),
			.rank = 1000,
		};
	}
}

static int cmp_esym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* a sized alias is worth more than the best name without a size */
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void free_elfinfo(struct elfinfo *ei)
{
	for (size_t i = 0; i < ei->nr_syms; i++) {
		free(ei->syms[i].name);
		free(ei->syms[i].raw);
	}
	free(ei->syms);
	free(ei->loads);
}

/* the GNU build-id note of @elf into @id (at most @max bytes): its length, or 0 */
static size_t elf_build_id(Elf *elf, unsigned char *id, size_t max)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= max) {
				memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/* the file named by @elf's .gnu_debuglink into @name (empty: none) */
static void elf_debuglink(Elf *elf, char *name, size_t max)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*name = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sn;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sn = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sn || strcmp(sn, ".gnu_debuglink"))
			continue;
		data = elf_getdata(scn, NULL);
		/* a file name, NUL, padding, a CRC: the name must end inside */
		if (data && data->d_size && memchr(data->d_buf, 0, data->d_size) &&
		    strlen(data->d_buf) < max && !strchr(data->d_buf, '/'))
			strcpy(name, data->d_buf);
		return;
	}
}

#define DEBUG_DIR	"/usr/lib/debug"

/*
 * The symbols of a stripped file's separate debug file (Debian's -dbg and
 * -dbgsym packages: libc6-dbg names libc's internal functions): by its
 * build-id under the debug directory's .build-id/, else by its
 * .gnu_debuglink beside it, in .debug/ there, or under the debug
 * directory; a file found by name is taken only if its build-id is the
 * same.  The debug directory is DEBUG_DIR, or $USERTRACE_DEBUG_DIR (empty:
 * none), as gdb's debug-file-directory.
 */
static void read_debug_symbols(Elf *elf, const char *path, struct elfinfo *ei)
{
	unsigned char id[64], id2[64];
	size_t n = elf_build_id(elf, id, sizeof(id)), n2;
	char link[256], dir[4096], cand[4][4500];
	const char *dd = getenv("USERTRACE_DEBUG_DIR");
	int nc = 0;

	if (!dd)
		dd = DEBUG_DIR;
	if (n >= 2 && *dd) {
		char hex[2 * sizeof(id) + 1];

		for (size_t i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", id[i]);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/.build-id/%.2s/%s.debug", dd, hex, hex + 2);
	}
	elf_debuglink(elf, link, sizeof(link));
	if (*link && n) {
		const char *slash = strrchr(path, '/');

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
		snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", dir, link);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/.debug/%s", dir, link);
		if (*dd)
			snprintf(cand[nc++], sizeof(cand[0]), "%s%s/%s", dd, dir, link);
	}
	for (int c = 0; c < nc; c++) {
		Elf_Scn *scn = NULL;
		Elf *dbg;
		int fd;

		if (!strcmp(cand[c], path))
			continue;
		fd = open(cand[c], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		dbg = elf_begin(fd, ELF_C_READ, NULL);
		n2 = dbg && elf_kind(dbg) == ELF_K_ELF ? elf_build_id(dbg, id2, sizeof(id2)) : 0;
		if (n2 && n2 == n && !memcmp(id, id2, n)) {
			while ((scn = elf_nextscn(dbg, scn))) {
				GElf_Shdr sh;

				if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
					read_symbols(dbg, scn, &sh, ei);
			}
			pr_dbg("%s: symbols from %s", path, cand[c]);
			c = nc;
		}
		if (dbg)
			elf_end(dbg);
		close(fd);
	}
}

/* 0, or -1 with *why set */
static int read_elf(const char *path, struct elfinfo *ei, const char **why)
{
	Elf *elf;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t nr_ph, out;
	int fd, has_symtab = 0;

	memset(ei, 0, sizeof(*ei));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		*why = "not an ELF file";
		goto fail;
	}
	ei->e_type = eh.e_type;
	if (elf_getphdrnum(elf, &nr_ph))
		nr_ph = 0;
	ei->loads = xcalloc(nr_ph, sizeof(*ei->loads));
	for (size_t i = 0; i < nr_ph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			ei->loads[ei->nr_loads++] = ph;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			read_symbols(elf, scn, &sh, ei);
		has_symtab |= sh.sh_type == SHT_SYMTAB;
	}
	if (!has_symtab)
		read_debug_symbols(elf, path, ei);
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			read_init_fini(elf, scn, &sh, ei);
	}
	elf_end(elf);
	close(fd);

	/* sort, then keep the best-ranked symbol of each address */
	if (ei->nr_syms)
		qsort(ei->syms, ei->nr_syms, sizeof(*ei->syms), cmp_esym);
	out = 0;
	for (size_t i = 0; i < ei->nr_syms; i++) {
		if (out && ei->syms[out - 1].addr == ei->syms[i].addr) {
			free(ei->syms[i].name);
			free(ei->syms[i].raw);
			continue;
		}
		ei->syms[out++] = ei->syms[i];
	}
	ei->nr_syms = out;
	return 0;
fail:
	if (elf)
		elf_end(elf);
	close(fd);
	free_elfinfo(ei);
	memset(ei, 0, sizeof(*ei));
	return -1;
}

/*
 * names are free text up to the end of the line: no control characters;
 * a tab, then the ELF name, when the name was demangled
 */
static void put_name(FILE *f, const char *s, const char *raw)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s, f);
	if (raw) {
		fputc('\t', f);
		put_name(f, raw, NULL);
		return;
	}
	fputc('\n', f);
}

static int write_sym_file(const char *file, const char *path, const struct elfinfo *ei)
{
	char tmp[4200];
	FILE *f;
	int err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= sizeof(tmp))
		return errno = ENAMETOOLONG, -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, SYM_MAGIC "\n# path ");
	put_name(f, path, NULL);
	fprintf(f, "# type %d\n", ei->e_type);
	for (size_t i = 0; i < ei->nr_loads; i++) {
		const GElf_Phdr *ph = &ei->loads[i];

		fprintf(f, "# load %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx32 "\n",
			(uint64_t)ph->p_vaddr, (uint64_t)ph->p_offset,
			(uint64_t)ph->p_filesz, (uint64_t)ph->p_memsz, (uint32_t)ph->p_flags);
	}
	for (size_t i = 0; i < ei->nr_syms; i++) {
		fprintf(f, "%" PRIx64 " %" PRIx64 " ", ei->syms[i].addr, ei->syms[i].size);
		put_name(f, ei->syms[i].name, ei->syms[i].raw);
	}
	fprintf(f, "# end %zu\n", ei->nr_syms);
	err = ferror(f);
	if (fclose(f) || err || rename(tmp, file)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ut_symtab_save(const char *datadir)
{
	struct maps_file *mf = NULL;
	size_t nr_mf, nr_paths = 0, cap_paths = 0, saved = 0;
	char **paths = NULL, symdir[4096], file[4200];
	FILE *index;
	int ret = 0;

	if (list_maps(datadir, &mf, &nr_mf)) {
		pr_err("cannot read %s: %s", datadir, strerror(errno));
		return -1;
	}
	/* the distinct ELF files of all executable mappings */
	for (size_t i = 0; i < nr_mf; i++) {
		char *buf, *line, *pos;
		size_t len;

		snprintf(file, sizeof(file), "%s/%s", datadir, mf[i].name);
		buf = read_file(file, &len);
		if (!buf) {
			pr_warn("cannot read %s: %s", file, strerror(errno));
			continue;
		}
		for (pos = buf; (line = next_line(&pos, buf + len));) {
			struct maps_line ml;

			if (parse_maps_line(line, &ml) || !ml.exec || !ml.path)
				continue;
			if (ml.deleted) {
				/* whatever is at that path now is not what ran */
				pr_dbg("%s: %s was deleted, no symbols", mf[i].name, ml.path);
				continue;
			}
			if (nr_paths == cap_paths)
				paths = xrealloc(paths, (cap_paths = cap_paths ? cap_paths * 2 : 32) * sizeof(*paths));
			paths[nr_paths++] = xstrdup(ml.path);
		}
		free(buf);
	}
	free(mf);
	if (nr_paths)
		qsort(paths, nr_paths, sizeof(*paths), cmp_str);

	snprintf(symdir, sizeof(symdir), "%s/sym", datadir);
	if (mkdir_p(symdir, 0755)) {
		pr_err("cannot create %s: %s", symdir, strerror(errno));
		ret = -1;
		goto out;
	}
	snprintf(file, sizeof(file), "%s/index", symdir);
	index = fopen(file, "w");
	if (!index) {
		pr_err("cannot create %s: %s", file, strerror(errno));
		ret = -1;
		goto out;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < nr_paths; i++) {
		struct elfinfo ei;
		const char *why;
		uint64_t h;

		if (i && !strcmp(paths[i], paths[i - 1]))
			continue;
		if (read_elf(paths[i], &ei, &why)) {
			pr_warn("no symbols for %s: %s", paths[i], why);
			continue;
		}
		h = fnv1a(paths[i]);
		snprintf(file, sizeof(file), "%s/%016" PRIx64 ".sym", symdir, h);
		if (write_sym_file(file, paths[i], &ei)) {
			pr_warn("cannot write %s: %s", file, strerror(errno));
		} else {
			fprintf(index, "%016" PRIx64 " ", h);
			put_name(index, paths[i], NULL);
			saved++;
		}
		free_elfinfo(&ei);
	}
	if (fclose(index)) {
		pr_err("cannot write %s/index", symdir);
		ret = -1;
	}
	pr_dbg("saved symbols of %zu files", saved);
out:
	for (size_t i = 0; i < nr_paths; i++)
		free(paths[i]);
	free(paths);
	return ret;
}

/* ---- instrumentation ---- */

/*
 * Does the ELF file @path have calls into a function tracer: a call to
 * mcount (-pg), __fentry__ (-pg -mfentry) or __cyg_profile_func_enter
 * (-finstrument-functions), which the file imports (an undefined symbol:
 * the runtime and the C library define them), or the call sites a
 * dynamic tracer patches (__mcount_loc: -mrecord-mcount;
 * __patchable_function_entries: -fpatchable-function-entry)?  An
 * unreadable file counts as instrumented: nothing is said about it.
 */
static int elf_instrumented(const char *path)
{
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__",
					     "__cyg_profile_func_enter" };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, found = 0;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		found = 1;
		goto out;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, "__mcount_loc") ||
			     !strcmp(name, "__patchable_function_entries"))) {
			found = 1;
			break;
		}
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; !found && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *sn;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			sn = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (size_t k = 0; sn && k < ARRAY_SIZE(hooks); k++)
				found |= !strcmp(sn, hooks[k]);
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

int ut_symtab_cxx_matches(const char *path, const char *glob, char *names, size_t size)
{
	struct elfinfo ei;
	const char **seen;
	const char *why;
	size_t len = 0;
	int n = 0;

	names[0] = 0;
	elf_version(EV_CURRENT);
	if (read_elf(path, &ei, &why) < 0)
		return 0;
	seen = xcalloc(ei.nr_syms + 1, sizeof(*seen));
	for (size_t i = 0; i < ei.nr_syms; i++) {
		const struct esym *e = &ei.syms[i];
		int k;

		if (!e->raw || fnmatch(glob, e->name, 0))
			continue;
		for (k = 0; k < n && strcmp(seen[k], e->raw); k++)
			;
		if (k < n)	/* in .symtab and .dynsym */
			continue;
		seen[n++] = e->raw;
		if (len + strlen(e->raw) + 2 < size)
			len += (size_t)snprintf(names + len, size - len, "%s%s", len ? " " : "", e->raw);
	}
	free(seen);
	free_elfinfo(&ei);
	return n;
}

int ut_symtab_uninstrumented(const char *datadir, char *exes, size_t size)
{
	struct maps_file *mf = NULL;
	size_t nr_mf, nr_paths = 0, cap_paths = 0, len = 0;
	char **paths = NULL, file[4200];
	int ret = 1;

	exes[0] = 0;
	if (list_maps(datadir, &mf, &nr_mf))
		return -1;
	for (size_t i = 0; i < nr_mf; i++) {
		char *buf, *line, *pos;
		int first = 1;
		size_t n;

		snprintf(file, sizeof(file), "%s/%s", datadir, mf[i].name);
		buf = read_file(file, &n);
		if (!buf)
			continue;
		for (pos = buf; (line = next_line(&pos, buf + n));) {
			struct maps_line ml;

			if (parse_maps_line(line, &ml) || !ml.path)
				continue;
			/* the first file mapped is the program's executable */
			if (first) {
				const char *b = strrchr(ml.path, '/') ? strrchr(ml.path, '/') + 1 : ml.path;
				size_t bl = strlen(b);
				const char *p = exes;

				first = 0;
				while (p && *p && !(!strncmp(p, b, bl) && (!p[bl] || p[bl] == ',')))
					p = strchr(p, ',') ? strchr(p, ',') + 2 : NULL;
				if ((!p || !*p) && len + bl + 3 < size)
					len += (size_t)snprintf(exes + len, size - len, "%s%s",
								len ? ", " : "", b);
			}
			if (!ml.exec || ml.deleted)
				continue;
			if (nr_paths == cap_paths)
				paths = xrealloc(paths, (cap_paths = cap_paths ? cap_paths * 2 : 32) *
							       sizeof(*paths));
			paths[nr_paths++] = xstrdup(ml.path);
		}
		free(buf);
	}
	free(mf);
	mf = NULL;
	if (nr_paths)
		qsort(paths, nr_paths, sizeof(*paths), cmp_str);
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < nr_paths && ret; i++)
		if (!(i && !strcmp(paths[i], paths[i - 1])) && elf_instrumented(paths[i]))
			ret = 0;
	for (size_t i = 0; i < nr_paths; i++)
		free(paths[i]);
	free(paths);
	/* no snapshot: the runtime started in no process (static, setuid) */
	if (!nr_mf)
		return 2;
	return nr_paths ? ret : 0;
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
