// SPDX-License-Identifier: MIT
/*
 * kmem_cxx.c - C++'s operator new and delete, every variant of the
 * Itanium ABI (plain, array, nothrow, aligned, sized), as the kmem events
 * and kmemtrace's counts (kmem.c) with the call site of the program's
 * new or delete expression, not the malloc or free inside libstdc++.
 *
 * Each calls the next definition (libstdc++'s, or the program's own
 * replacement), found with dlsym(RTLD_NEXT) at its first call, with this
 * thread's allocations quiet: the malloc inside writes nothing, the
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

static void *next_sym(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (!f) {
		f = dlsym(RTLD_NEXT, name);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* the definitions the program did not link: there is nothing to call */
static __attribute__((noreturn, cold)) void no_next(const char *name)
{
	ut_log("operator %s: no definition after libusertrace", name);
	abort();
}

#define QUIET	int __q __attribute__((cleanup(unquiet), unused)) = (ut_kmem_quiet = 1)

#define NEW(sym, PARAMS, ARGS)							\
EXPORT void *sym PARAMS								\
{										\
	static void *cache;							\
	void *(*real) PARAMS = (void *(*) PARAMS)next_sym(&cache, #sym);	\
	void *site = __builtin_return_address(0), *p;				\
										\
	if (!real)								\
		no_next(#sym);							\
	if (likely(!ut_kmem_on()) || ut_kmem_quiet)				\
		return real ARGS;						\
	{									\
		QUIET;								\
		p = real ARGS;							\
	}									\
	ut_kmem_alloced(site, p, n);						\
	return p;								\
}

#define DELETE(sym, PARAMS, ARGS)						\
EXPORT void sym PARAMS								\
{										\
	static void *cache;							\
	void (*real) PARAMS = (void (*) PARAMS)next_sym(&cache, #sym);		\
										\
	if (!real)								\
		no_next(#sym);							\
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
NEW(_Znwm, (size_t n), (n))
NEW(_Znam, (size_t n), (n))
NEW(_ZnwmRKSt9nothrow_t, (size_t n, const void *nt), (n, nt))
NEW(_ZnamRKSt9nothrow_t, (size_t n, const void *nt), (n, nt))
NEW(_ZnwmSt11align_val_t, (size_t n, size_t al), (n, al))
NEW(_ZnamSt11align_val_t, (size_t n, size_t al), (n, al))
NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt))
NEW(_ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, size_t al, const void *nt), (n, al, nt))

DELETE(_ZdlPv, (void *p), (p))
DELETE(_ZdaPv, (void *p), (p))
DELETE(_ZdlPvm, (void *p, size_t n), (p, n))
DELETE(_ZdaPvm, (void *p, size_t n), (p, n))
DELETE(_ZdlPvRKSt9nothrow_t, (void *p, const void *nt), (p, nt))
DELETE(_ZdaPvRKSt9nothrow_t, (void *p, const void *nt), (p, nt))
DELETE(_ZdlPvSt11align_val_t, (void *p, size_t al), (p, al))
DELETE(_ZdaPvSt11align_val_t, (void *p, size_t al), (p, al))
DELETE(_ZdlPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al))
DELETE(_ZdaPvmSt11align_val_t, (void *p, size_t n, size_t al), (p, n, al))
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t al, const void *nt), (p, al, nt))
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, (void *p, size_t al, const void *nt), (p, al, nt))
