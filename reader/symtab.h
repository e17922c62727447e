/* SPDX-License-Identifier: MIT */
/*
 * symtab.h - naming addresses of traced processes.
 *
 * At the end of a recording, ut_symtab_save() reads every ELF file named
 * in the data directory's maps.* snapshots (with libelf) and stores their
 * function symbols, demangled, under DIR/sym/, so that replay works after
 * the binaries change or disappear.  ut_symtab_load() reads them back and
 * resolves (pid, image, address, time) to "function" and offset.
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

/* a time after every other: what is mapped at the end */
#define UT_SYMTAB_LATEST	UINT64_MAX

/* returns 0, or -1 with a message on stderr */
int ut_symtab_save(const char *datadir);
struct ut_symtab *ut_symtab_load(const char *datadir);
/*
 * Is nothing that the programs of @datadir mapped instrumented: no
 * executable or library calling mcount, __fentry__ or
 * __cyg_profile_func_enter, nor with call sites to patch (__mcount_loc,
 * __patchable_function_entries)?  1 if so, with the executables' names
 * in @exes ("a, b"); 0 if something is; 2 if the runtime started in no
 * process (no maps snapshot: a static or setuid program); -1 if @datadir
 * cannot be read.
 */
int ut_symtab_uninstrumented(const char *datadir, char *exes, size_t size);
/*
 * How many C++ functions of the ELF file @path have a demangled name (as
 * replay prints it: "ns::f") that the glob @glob matches; their ELF
 * (mangled) names, the ones the filters take, in @names, blank-separated,
 * as many as fit.  0 if none, or if @path cannot be read.
 */
int ut_symtab_cxx_matches(const char *path, const char *glob, char *names, size_t size);
/*
 * The snapshots' times are in the trace's clock units: @to_ns converts
 * them as the events' timestamps are (before any lookup).  Without it,
 * lookup times are in clock units.
 */
void ut_symtab_set_clock(struct ut_symtab *st, uint64_t (*to_ns)(const void *ctx, uint64_t raw),
			 const void *ctx);
void ut_symtab_free(struct ut_symtab *st);
/*
 * The symbol containing @addr in process image (@pid, @image) at time @ts
 * (a library may have been unloaded and another mapped at its place), or
 * NULL.
 */
const struct ut_sym *ut_symtab_find(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr,
				    uint64_t ts);
/*
 * Since when (0: always) the mapping that names @addr at @ts has named
 * it: equal for two times when the same mapping names @addr at both.
 */
uint64_t ut_symtab_since(struct ut_symtab *st, int pid, uint64_t image, uint64_t addr, uint64_t ts);

#endif
