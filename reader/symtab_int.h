/* SPDX-License-Identifier: MIT */
/*
 * symtab_int.h - what the symbol files' writer (symsave.c), their reader
 * (symtab.c), the ELF reader (elfsym.c) and the maps snapshots' parser
 * (symmaps.c) share; not for other files (reader/symtab.h is the API).
 */
#ifndef USERTRACE_SYMTAB_INT_H
#define USERTRACE_SYMTAB_INT_H

#include <gelf.h>
#include <stdint.h>
#include <string.h>

#define SYM_MAGIC	"# usertrace sym 1"

/* a symbol file's name: the 64-bit FNV-1a of the ELF file's path */
static inline uint64_t fnv1a(const char *s)
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
static inline char *next_line(char **pos, char *end)
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

/* paths in order (qsort) */
static inline int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- the maps snapshots DIR/maps.<pid>.<image>.<n> (symmaps.c) ---- */

struct maps_file {
	int pid;
	uint64_t image;
	unsigned n;
	char name[256];
};

struct maps_line {
	uint64_t start, end, off;
	int exec;
	const char *path;	/* NULL for anonymous and special mappings */
	int deleted;
};

int parse_u64(const char *s, const char **end, int base, uint64_t *v);
/* the snapshots of @dir, sorted by (pid, image, n): 0, or -1 */
int list_maps(const char *dir, struct maps_file **out, size_t *nr);
/* one line of /proc/PID/maps, cut in place: 0, or -1 if it is not one */
int parse_maps_line(char *line, struct maps_line *ml);

/* ---- an ELF file's function symbols (elfsym.c) ---- */

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

/* @path's symbols (and its debug file's) into @ei: 0, or -1 with *@why */
int read_elf(const char *path, struct elfinfo *ei, const char **why);
void free_elfinfo(struct elfinfo *ei);

#endif
