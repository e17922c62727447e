// SPDX-License-Identifier: MIT
/*
 * kmem.c - the malloc family as the built-in kmem events
 * (usertrace/events/kmem.h): malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc and memalign of the program and its
 * libraries (the C library's own calls to malloc, as strdup's, come here
 * too; its internal ones do not).
 *
 * Off, a call costs one load and one branch not taken, then the jump to
 * the allocator found after this library (dlsym(RTLD_NEXT): glibc's, or
 * a malloc library the program loads); free and realloc fold into that
 * branch the test for a block of the bootstrap arena (below).  On, the
 * event is written after the allocator returned, without any of its
 * locks held: kfree of the old block then kmalloc of the new for
 * realloc; free(NULL) writes nothing, a failed allocation a kmalloc
 * with ptr 0.
 *
 * Never break the program:
 *   - dlsym may itself allocate.  Until the next definitions are known
 *     every pointer below is a first_*() function that finds them all;
 *     what the finding thread allocates meanwhile comes from a static
 *     bootstrap arena, never freed (free ignores its blocks, realloc
 *     copies them out).
 *   - the events allocate nothing, and a thread writing one
 *     (kmem_quiet) records no allocation of its own: no recursion.  The
 *     runtime's own allocations (ut_malloc/ut_free, and libc calls the
 *     runtime makes under ut_kmem_quiet) are not recorded.
 *   - bytes_alloc asks malloc_usable_size() only if the allocator that
 *     provides malloc has it; another library's would read a foreign
 *     block.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "usertrace/events/kmem.h"

/* glibc's own, if dlsym finds no next definition */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static void *first_malloc(size_t n);
static void *first_calloc(size_t n, size_t size);
static void *first_realloc(void *p, size_t n);
static void first_free(void *p);
static int first_posix_memalign(void **p, size_t align, size_t n);
static void *first_aligned_alloc(size_t align, size_t n);
static void *first_memalign(size_t align, size_t n);

static void *(*real_malloc)(size_t) = first_malloc;
static void *(*real_calloc)(size_t, size_t) = first_calloc;
static void *(*real_realloc)(void *, size_t) = first_realloc;
static void (*real_free)(void *) = first_free;
static int (*real_posix_memalign)(void **, size_t, size_t) = first_posix_memalign;
static void *(*real_aligned_alloc)(size_t, size_t) = first_aligned_alloc;
static void *(*real_memalign)(size_t, size_t) = first_memalign;
static size_t (*real_usable_size)(void *);

/* this thread is finding the next definitions / writing an event */
static __thread int kmem_resolving;
__thread int ut_kmem_quiet;

/* ---- the bootstrap arena: blocks of 16-byte header (the size) + data ---- */

#define BOOT_SIZE	(64u << 10)
static unsigned char boot[BOOT_SIZE] __attribute__((aligned(16)));
static size_t boot_used;

static void *boot_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15), off;

	if (n > BOOT_SIZE)
		return errno = ENOMEM, NULL;
	off = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
	if (off + need > BOOT_SIZE)
		return errno = ENOMEM, NULL;
	memcpy(boot + off, &n, sizeof(n));
	return boot + off + 16;		/* zero: the arena is never reused */
}

static int in_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < BOOT_SIZE;
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - 16, sizeof(n));
	return n;
}

/* ---- finding the allocator ---- */

static void *next(const char *name, void *fallback)
{
	void *f = dlsym(RTLD_NEXT, name);

	return f ? f : fallback;
}

/* does @a come from the same object as @b? */
static int same_object(void *a, void *b)
{
	Dl_info ia, ib;

	return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/* posix_memalign from memalign, if the allocator lacks it */
static int memalign_posix(void **p, size_t align, size_t n)
{
	void *q;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	if (!(q = real_memalign(align, n)))
		return ENOMEM;
	*p = q;
	return 0;
}

static void kmem_resolve(void)
{
	void *m, *u;

	kmem_resolving = 1;
	m = next("malloc", (void *)__libc_malloc);
	u = dlsym(RTLD_NEXT, "malloc_usable_size");
	if (u && !same_object(u, m))
		u = NULL;
	__atomic_store_n(&real_usable_size, (size_t (*)(void *))u, __ATOMIC_RELAXED);
	__atomic_store_n(&real_calloc, (void *(*)(size_t, size_t))next("calloc", (void *)__libc_calloc),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_realloc, (void *(*)(void *, size_t))next("realloc", (void *)__libc_realloc),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_free, (void (*)(void *))next("free", (void *)__libc_free),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_memalign, (void *(*)(size_t, size_t))next("memalign", (void *)__libc_memalign),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_aligned_alloc,
			 (void *(*)(size_t, size_t))next("aligned_alloc", (void *)__libc_memalign),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_posix_memalign,
			 (int (*)(void **, size_t, size_t))next("posix_memalign", (void *)memalign_posix),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_malloc, (void *(*)(size_t))m, __ATOMIC_RELEASE);
	kmem_resolving = 0;
}

/* at start-up, if no allocation came first */
void ut_kmem_resolve(void)
{
	if (real_malloc == first_malloc)
		kmem_resolve();
}

static void *first_malloc(size_t n)
{
	if (kmem_resolving)
		return boot_alloc(n);
	kmem_resolve();
	return real_malloc(n);
}

static void *first_calloc(size_t n, size_t size)
{
	if (kmem_resolving)
		return size && n > SIZE_MAX / size ? (errno = ENOMEM, NULL) : boot_alloc(n * size);
	kmem_resolve();
	return real_calloc(n, size);
}

static void *first_realloc(void *p, size_t n)
{
	if (kmem_resolving)
		return boot_alloc(n);	/* realloc() copied p's bytes if it is a boot block */
	kmem_resolve();
	return real_realloc(p, n);
}

static void first_free(void *p)
{
	if (kmem_resolving)
		return;		/* a block of the arena, or leaked once */
	kmem_resolve();
	real_free(p);
}

static int first_posix_memalign(void **p, size_t align, size_t n)
{
	if (kmem_resolving)
		return ENOMEM;
	kmem_resolve();
	return real_posix_memalign(p, align, n);
}

static void *first_aligned_alloc(size_t align, size_t n)
{
	if (kmem_resolving)
		return errno = ENOMEM, NULL;
	kmem_resolve();
	return real_aligned_alloc(align, n);
}

static void *first_memalign(size_t align, size_t n)
{
	if (kmem_resolving)
		return errno = ENOMEM, NULL;
	kmem_resolve();
	return real_memalign(align, n);
}

/* the runtime's own allocations: not events */
void *ut_malloc(size_t n)
{
	return real_malloc(n);
}

void ut_free(void *p)
{
	if (!in_boot(p))
		real_free(p);
}

/* ---- the events ---- */

static __attribute__((noinline, cold)) void kmalloc_event(void *site, void *p, size_t n)
{
	int err = errno;

	if (ut_kmem_quiet)
		return;
	ut_kmem_quiet = 1;
	trace_kmalloc((unsigned long)site, p, n,
		      !p ? 0 : real_usable_size && !in_boot(p) ? real_usable_size(p) : n, 0, -1);
	ut_kmem_quiet = 0;
	errno = err;
}

static __attribute__((noinline, cold)) void kfree_event(void *site, void *p)
{
	int err = errno;

	if (ut_kmem_quiet || !p)
		return;
	ut_kmem_quiet = 1;
	trace_kfree((unsigned long)site, p);
	ut_kmem_quiet = 0;
	errno = err;
}

#define KMALLOC_ON()	unlikely(trace_kmalloc_enabled())

EXPORT void *malloc(size_t n)
{
	void *p;

	if (!KMALLOC_ON())
		return real_malloc(n);
	p = real_malloc(n);
	kmalloc_event(__builtin_return_address(0), p, n);
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (!KMALLOC_ON())
		return real_calloc(n, size);
	p = real_calloc(n, size);
	kmalloc_event(__builtin_return_address(0), p, n * size);
	return p;
}

static __attribute__((noinline)) void *realloc_slow(void *old, size_t n, void *site)
{
	void *p;

	if (in_boot(old)) {
		size_t keep = boot_size(old);

		p = real_malloc(n);
		if (p)
			memcpy(p, old, keep < n ? keep : n);
		if (KMALLOC_ON())
			kmalloc_event(site, p, n);
		return p;
	}
	p = real_realloc(old, n);
	if (old && (p || !n) && unlikely(trace_kfree_enabled()))
		kfree_event(site, old);
	if ((p || n) && KMALLOC_ON())
		kmalloc_event(site, p, n);
	return p;
}

/* one branch: an event on, or a block of the bootstrap arena */
#define SLOW(p, tp)	unlikely((__atomic_load_n(&__ut_tp_kmem_##tp.state, __ATOMIC_RELAXED) | \
				  in_boot(p)) != 0)

EXPORT void *realloc(void *old, size_t n)
{
	if (!unlikely((__atomic_load_n(&__ut_tp_kmem_kmalloc.state, __ATOMIC_RELAXED) |
		       __atomic_load_n(&__ut_tp_kmem_kfree.state, __ATOMIC_RELAXED) | in_boot(old)) != 0))
		return real_realloc(old, n);
	return realloc_slow(old, n, __builtin_return_address(0));
}

static __attribute__((noinline)) void free_slow(void *p, void *site)
{
	if (in_boot(p))
		return;
	kfree_event(site, p);
	real_free(p);
}

EXPORT void free(void *p)
{
	if (!SLOW(p, kfree)) {
		real_free(p);
		return;
	}
	free_slow(p, __builtin_return_address(0));
}

EXPORT int posix_memalign(void **pp, size_t align, size_t n)
{
	int ret;

	if (!KMALLOC_ON())
		return real_posix_memalign(pp, align, n);
	ret = real_posix_memalign(pp, align, n);
	kmalloc_event(__builtin_return_address(0), ret ? NULL : *pp, n);
	return ret;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!KMALLOC_ON())
		return real_aligned_alloc(align, n);
	p = real_aligned_alloc(align, n);
	kmalloc_event(__builtin_return_address(0), p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (!KMALLOC_ON())
		return real_memalign(align, n);
	p = real_memalign(align, n);
	kmalloc_event(__builtin_return_address(0), p, n);
	return p;
}
