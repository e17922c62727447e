// SPDX-License-Identifier: MIT
/*
 * kmemtrace_cxx.c - C++'s operator new and delete, every variant of the
 * Itanium ABI (plain, array, nothrow, aligned, sized), as the kmem events
 * and kmemtrace's counts (kmemtrace.c) with the call site of the program's
 * new or delete expression, not the malloc or free inside libstdc++.
 *
 * Each calls the next definition (libstdc++'s, or the program's own
 * replacement), found by ut_next_sym() at its first call (also when only
 * the calling library sees libstdc++: a C program that dlopens a C++
 * library; with none at all, malloc and free), with this thread's
 * allocations quiet: the malloc inside writes nothing, the
 * operator writes one kmalloc (or kfree) for the block.  operator new
 * may throw (bad_alloc, or a new_handler's exception): this file is
 * built with -fexceptions so that the cleanup ends the quiet section as
 * the exception passes; a throw writes no event.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "runtime/runtime.h"

static void unquiet(int *q)
{
	(void)q;
	ut_kmem_quiet = 0;
}

static void *next_sym(void **cache, const char *name, const void *site, void *fallback)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!f) {
		f = ut_next_sym(name, site) ?: fallback;
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

/*
 * No object defines the operator (its caller could not have been
 * linked): what libstdc++'s do, short of the new_handler and bad_alloc.
 * Never a reason to stop the program.
 */
static void *fb_alloc(size_t n, size_t al, int nothrow)
{
	void *p = NULL;

	if (!n)
		n = 1;
	if (al <= 16)
		p = malloc(n);
	else if (posix_memalign(&p, al, n))
		p = NULL;
	if (!p && !nothrow) {
		ut_log("operator new(%zu): out of memory", n);
		abort();
	}
	return p;
}

static void *fb_new(size_t n) { return fb_alloc(n, 0, 0); }
static void *fb_new_nt(size_t n, const void *nt) { (void)nt; return fb_alloc(n, 0, 1); }
static void *fb_new_al(size_t n, size_t al) { return fb_alloc(n, al, 0); }
static void *fb_new_al_nt(size_t n, size_t al, const void *nt) { (void)nt; return fb_alloc(n, al, 1); }
static void fb_del(void *p) { free(p); }
static void fb_del_n(void *p, size_t n) { (void)n; free(p); }
static void fb_del_nt(void *p, const void *nt) { (void)nt; free(p); }
static void fb_del_al(void *p, size_t al) { (void)al; free(p); }
static void fb_del_n_al(void *p, size_t n, size_t al) { (void)n; (void)al; free(p); }
static void fb_del_al_nt(void *p, size_t al, const void *nt) { (void)al; (void)nt; free(p); }

#define QUIET	int __q __attribute__((cleanup(unquiet), unused)) = (ut_kmem_quiet = 1)

#define NEW(sym, PARAMS, ARGS, FB)						\
EXPORT void *sym PARAMS								\
{										\
	static void *cache;							\
	void *site = __builtin_return_address(0), *p;				\
	void *(*real) PARAMS = (void *(*) PARAMS)next_sym(&cache, #sym, site, (void *)FB); \
										\
	if (likely(!ut_kmem_on()) || ut_kmem_quiet)				\
		return real ARGS;						\
	{									\
		QUIET;								\
		p = real ARGS;							\
	}									\
	ut_kmem_alloced(site, p, n);						\
	return p;								\
}

#define DELETE(sym, PARAMS, ARGS, FB)						\
EXPORT void sym PARAMS								\
{										\
	static void *cache;							\
	void (*real) PARAMS = (void (*) PARAMS)next_sym(&cache, #sym,		\
							__builtin_return_address(0), (void *)FB); \
										\
	if (likely(!ut_kmem_on()) || ut_kmem_quiet || !p) {			\
		real ARGS;							\
		return;								\
	}									\
	ut_kmem_freeing(__builtin_return_address(0), p);			\
	{									\
		QUIET;								\
		real ARGS;							\
	}									\
}

/* nothrow_t const & and align_val_t: a pointer and a size_t in the ABI */
NEW(_Znwm, (size_t n), (n), fb_new)
NEW(_Znam, (size_t n), (n), fb_new)
NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *nt), (n, nt), fb_new_nt)
NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *nt), (n, nt), fb_new_nt)
NEW(_ZnwmSt11align_val_t, (size_t n, size_t al), (n, al), fb_new_al)
NEW(_ZnamSt11align_val_t, (size_t n, size_t al), (n, al), fb_new_al)
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt), fb_new_al_nt)
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt), fb_new_al_nt)

DELETE(_ZdlPv, (void *p), (p), fb_del)
DELETE(_ZdaPv, (void *p), (p), fb_del)
DELETE(_ZdlPvm, (void *p, size_t n), (p, n), fb_del_n)
DELETE(_ZdaPvm, (void *p, size_t n), (p, n), fb_del_n)
DELETE(_ZdlPvRKSt9nothrow_t, (void *p, const void *nt), (p, nt), fb_del_nt)
DELETE(_ZdaPvRKSt9nothrow_t, (void *p, const void *nt), (p, nt), fb_del_nt)
DELETE(_ZdlPvSt11align_val_t, (void *p, size_t al), (p, al), fb_del_al)
DELETE(_ZdaPvSt11align_val_t, (void *p, size_t al), (p, al), fb_del_al)
DELETE(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al), fb_del_n_al)
DELETE(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al), fb_del_n_al)
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t al, const void *nt), (p, al, nt), fb_del_al_nt)
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t al, const void *nt), (p, al, nt), fb_del_al_nt)
