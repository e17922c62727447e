/* SPDX-License-Identifier: MIT */
/*
 * symtab.h - naming addresses of traced processes.
 *
 * At the end of a recording, ut_symtab_save() reads every ELF file named
 * in the data directory's maps.* snapshots (with libelf) and stores their
 * function symbols, demangled, under DIR/sym/, so that replay works after
 * the binaries change or disappear.  ut_symtab_load() reads them back and
 * resolves (pid, image, address) to "function" and offset.
 */
#ifndef USERTRACE_SYMTAB_H
#define USERTRACE_SYMTAB_H

#include <stdint.h>

struct ut_symtab;

struct ut_sym {
	uint64_t addr;		/* run-time start address */
	uint64_t size;
	const char *name;	/* demangled */
	const char *module;	/* basename of the ELF file */
	const char *raw;	/* the name in the ELF file when not @name (mangled), or NULL */
};

/* returns 0, or -1 with a message on stderr */
int ut_symtab_save(const char *datadir);
struct ut_symtab *ut_symtab_load(const char *datadir);
void ut_symtab_free(struct ut_symtab *st);
/* the symbol containing @addr in process image (@pid, @image), or NULL */
const struct ut_sym *ut_symtab_find(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr);

#endif
