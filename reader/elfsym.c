// SPDX-License-Identifier: MIT
/*
 * elfsym.c - an ELF file's function symbols, as a recording keeps them:
 * .symtab merged with .dynsym, or those of its debug file (build-id or
 * .gnu_debuglink), demangled and cut to the name a function tracer
 * prints; and whether a file or a recording's programs are instrumented.
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

/* from libstdc++ (the ABI's demangler); declared here to stay a C file */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

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

void free_elfinfo(struct elfinfo *ei)
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
int read_elf(const char *path, struct elfinfo *ei, const char **why)
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
