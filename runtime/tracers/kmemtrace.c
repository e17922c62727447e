// SPDX-License-Identifier: MIT
/*
 * kmemtrace.c - the malloc family as the built-in kmem events
 * (usertrace/events/kmem.h): malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc of the
 * program and its libraries (the C library's own calls to malloc, as
 * strdup's, come here too; its internal ones do not); C++'s operators
 * come through kmemtrace_cxx.c.  And the kmemtrace tracer's runtime part:
 * per call site counts in its statistics file (usertrace/kmemstat.h),
 * and anonymous private mappings (mmap/munmap) as kmalloc/kfree while
 * it runs.
 *
 * Why mappings as kmalloc and not as the kernel's mm_page_alloc: what
 * reads the events (trace_stat/kmem, perf kmem's habit) sums kmalloc
 * and kfree per call site; mm_page_alloc's pfn and order say nothing of
 * a user mapping.  bytes_alloc is the mapping's whole pages, so its
 * fragmentation shows.  Only while kmemtrace runs: its live-block table
 * tells an anonymous mapping's munmap from a file's (which writes
 * nothing).
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
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/events/kmem.h"
#include "usertrace/kmemstat.h"

/* glibc's own, if dlsym finds no next definition */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static void *first_malloc(size_t n);
static void *first_calloc(size_t n, size_t size);
static void *first_realloc(void *p, size_t n);
static void first_free(void *p);
static int first_posix_memalign(void **p, size_t align, size_t n);
static void *first_aligned_alloc(size_t align, size_t n);
static void *first_memalign(size_t align, size_t n);
static void *first_valloc(size_t n);
static void *first_pvalloc(size_t n);

static void *(*real_malloc)(size_t) = first_malloc;
static void *(*real_calloc)(size_t, size_t) = first_calloc;
static void *(*real_realloc)(void *, size_t) = first_realloc;
static void (*real_free)(void *) = first_free;
static int (*real_posix_memalign)(void **, size_t, size_t) = first_posix_memalign;
static void *(*real_aligned_alloc)(size_t, size_t) = first_aligned_alloc;
static void *(*real_memalign)(size_t, size_t) = first_memalign;
static void *(*real_valloc)(size_t) = first_valloc;
static void *(*real_pvalloc)(size_t) = first_pvalloc;
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
	__atomic_store_n(&real_valloc, (void *(*)(size_t))next("valloc", (void *)__libc_valloc),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&real_pvalloc, (void *(*)(size_t))next("pvalloc", (void *)__libc_pvalloc),
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

static void *first_valloc(size_t n)
{
	if (kmem_resolving)
		return errno = ENOMEM, NULL;
	kmem_resolve();
	return real_valloc(n);
}

static void *first_pvalloc(size_t n)
{
	if (kmem_resolving)
		return errno = ENOMEM, NULL;
	kmem_resolve();
	return real_pvalloc(n);
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

/* ---- kmemtrace's statistics (usertrace/kmemstat.h) ---- */

/*
 * While the kmemtrace tracer runs, every allocation and free of the
 * family is counted per call site in the statistics file (@km), and each
 * live block is kept in @km_live (pointer -> row and bytes), an open
 * table of the program's memory bounded at KM_LIVE slots probed
 * KM_LIVE_PROBE deep: no lock, no allocation.  A slot's pointer is
 * claimed by a CAS (0 or KM_TOMB -> ptr) and given back as KM_TOMB; a
 * pointer is in the table once, as the allocator gives it out once
 * until it is freed, and a free takes it out before the allocator may
 * give it again (realloc and munmap take the old block first).
 */
#define KM_LIVE_BITS	20
#define KM_LIVE		(1u << KM_LIVE_BITS)
#define KM_LIVE_PROBE	64
#define KM_TOMB		1ull
#define KM_MMAP		(1ull << 15)	/* in a live slot's value: a mapping */
#define KM_IDX_MASK	0x7fffull	/* the row; UT_KMEM_SITES: @other */

struct km_live {
	uint64_t ptr;		/* 0 empty, KM_TOMB freed, else the block */
	uint64_t val;		/* bytes_alloc << 16 | KM_MMAP | row */
};

static struct ut_kmem_stat *km;		/* the statistics file while kmemtrace runs */
static struct km_live *km_live;		/* mapped once, kept */
static int kmem_stats;			/* km is set: count */

static size_t km_hash(uint64_t x, unsigned bits)
{
	return (size_t)((x >> 4) * 0x9e3779b97f4a7c15ull >> (64 - bits));
}

/*
 * The helpers take the table loaded once by their caller: the control
 * thread's reset sets km to NULL while other threads may be counting
 * (the area stays mapped, so a table loaded before is safe to use).
 */
static unsigned km_row(struct ut_kmem_stat *k, uint64_t site)
{
	size_t h = km_hash(site << 4, 12);

	for (unsigned i = 0; i < UT_KMEM_PROBE; i++) {
		unsigned idx = (unsigned)((h + i) & (UT_KMEM_SITES - 1));
		uint64_t *key = &k->sites[idx].site, v = __atomic_load_n(key, __ATOMIC_RELAXED);

		if (v == site)
			return idx;
		if (!v && (__atomic_compare_exchange_n(key, &v, site, 0, __ATOMIC_RELAXED,
						      __ATOMIC_RELAXED) || v == site))
			return idx;
	}
	__atomic_fetch_add(&k->site_overflow, 1, __ATOMIC_RELAXED);
	return UT_KMEM_SITES;
}

static struct ut_kmem_site *km_site(struct ut_kmem_stat *k, unsigned idx)
{
	return idx < UT_KMEM_SITES ? &k->sites[idx] : &k->other;
}

#define KM_ADD(field, v)	__atomic_fetch_add(&(field), (v), __ATOMIC_RELAXED)

static int km_live_put(uint64_t p, uint64_t val)
{
	size_t h = km_hash(p, KM_LIVE_BITS);

	for (unsigned i = 0; i < KM_LIVE_PROBE; i++) {
		struct km_live *e = &km_live[(h + i) & (KM_LIVE - 1)];
		uint64_t k = __atomic_load_n(&e->ptr, __ATOMIC_RELAXED);

		/* a block freed where we did not see it is replaced */
		if (k == p || ((k == 0 || k == KM_TOMB) &&
			       __atomic_compare_exchange_n(&e->ptr, &k, p, 0, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED))) {
			__atomic_store_n(&e->val, val, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

static int km_live_take(uint64_t p, uint64_t *val)
{
	size_t h = km_hash(p, KM_LIVE_BITS);

	for (unsigned i = 0; i < KM_LIVE_PROBE; i++) {
		struct km_live *e = &km_live[(h + i) & (KM_LIVE - 1)];
		uint64_t k = __atomic_load_n(&e->ptr, __ATOMIC_RELAXED);

		if (!k)
			return 0;
		if (k == p) {
			*val = __atomic_load_n(&e->val, __ATOMIC_RELAXED);
			return __atomic_compare_exchange_n(&e->ptr, &k, KM_TOMB, 0, __ATOMIC_RELAXED,
							   __ATOMIC_RELAXED);
		}
	}
	return 0;
}

/* an allocation of @req bytes (@alloc given; @p NULL: it failed) at @site */
static void km_alloc(void *site, const void *p, size_t req, size_t alloc, uint64_t mmap)
{
	struct ut_kmem_stat *k = __atomic_load_n(&km, __ATOMIC_ACQUIRE);
	unsigned idx;
	struct ut_kmem_site *r;

	if (!k)
		return;
	idx = km_row(k, (uint64_t)(uintptr_t)site);
	r = km_site(k, idx);
	if (!p) {
		KM_ADD(r->failed, 1);
		return;
	}
	KM_ADD(r->hits, 1);
	KM_ADD(r->bytes_req, req);
	KM_ADD(r->bytes_alloc, alloc);
	if (mmap)
		KM_ADD(k->mmaps, 1);
	if (!km_live_put((uint64_t)(uintptr_t)p, (uint64_t)alloc << 16 | mmap | idx)) {
		KM_ADD(k->live_overflow, 1);
		return;
	}
	KM_ADD(r->live_blocks, 1);
	KM_ADD(r->live_bytes, alloc);
}

/* the block's value, taken out of the live table: 0 when it is not there */
static uint64_t km_take(const void *p)
{
	uint64_t val;

	if (!km || !p || !km_live_take((uint64_t)(uintptr_t)p, &val))
		return 0;
	return val | 1ull << 63;	/* never 0 */
}

/* the free of a block taken with km_take() (@val 0: an unknown block) */
static void km_freed(uint64_t val)
{
	struct ut_kmem_stat *k = __atomic_load_n(&km, __ATOMIC_ACQUIRE);
	struct ut_kmem_site *r;

	if (!k)
		return;
	if (!val) {
		KM_ADD(k->unknown_frees, 1);
		return;
	}
	r = km_site(k, (unsigned)(val & KM_IDX_MASK));
	KM_ADD(r->frees, 1);
	KM_ADD(r->live_blocks, -1);
	KM_ADD(r->live_bytes, -((val & ~(1ull << 63)) >> 16));
}

/* a block taken out by mistake (the realloc that failed) goes back */
static void km_untake(const void *p, uint64_t val)
{
	struct ut_kmem_stat *k = __atomic_load_n(&km, __ATOMIC_ACQUIRE);

	if (val && !km_live_put((uint64_t)(uintptr_t)p, val & ~(1ull << 63))) {
		km_freed(val);
		if (k)
			KM_ADD(k->live_overflow, 1);
	}
}

static void kmem_stat_atfork_child(void)
{
	/* the child's file starts at zero (statarea.c): so does its table */
	if (km_live)
		madvise(km_live, (size_t)KM_LIVE * sizeof(*km_live), MADV_DONTNEED);
}

static int kmemtrace_init(void)
{
	static int atfork;
	struct ut_kmem_stat *k;

	if (!km_live) {
		void *m = (void *)syscall(SYS_mmap, NULL, (size_t)KM_LIVE * sizeof(*km_live),
					  PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED) {
			ut_session_error("kmemtrace: no memory for the table of live blocks");
			return -1;
		}
		km_live = m;
	}
	k = ut_stat_area(UT_KMEM_STAT_NAME, UT_KMEM_STAT_VERSION, sizeof(*k));
	if (!k)
		return -1;
	if (!atfork++)
		pthread_atfork(NULL, NULL, kmem_stat_atfork_child);
	__atomic_store_n(&km, k, __ATOMIC_RELEASE);
	__atomic_store_n(&kmem_stats, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Off, the counts stay as they are (trace_stat/kmem shows them); the
 * live table forgets its blocks: their frees are not counted again.
 */
static void kmemtrace_reset(void)
{
	__atomic_store_n(&kmem_stats, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&km, NULL, __ATOMIC_RELEASE);
	kmem_stat_atfork_child();
}

const struct ut_rt_tracer ut_rt_tracer_kmemtrace = {
	.name = "kmemtrace",
	.init = kmemtrace_init,
	.reset = kmemtrace_reset,
};

/* ---- the events ---- */

static size_t usable(void *p, size_t n)
{
	return !p ? 0 : real_usable_size && !in_boot(p) ? real_usable_size(p) : n;
}

/* kmalloc of @p (@n bytes asked, @alloc given) from @site: the event and the counts */
static void kmalloc_done(void *site, void *p, size_t n, size_t alloc, uint64_t mmap)
{
	int err = errno;

	if (ut_kmem_quiet || ut_self.state == UT_TS_INTERNAL)
		return;
	ut_kmem_quiet = 1;
	if (trace_kmalloc_enabled())
		trace_kmalloc((unsigned long)site, p, n, alloc, 0, -1);
	if (kmem_stats)
		km_alloc(site, p, n, alloc, mmap);
	ut_kmem_quiet = 0;
	errno = err;
}

static __attribute__((noinline, cold)) void kmalloc_event(void *site, void *p, size_t n)
{
	if (!ut_kmem_quiet)
		kmalloc_done(site, p, n, usable(p, n), 0);
}

/* kfree of @p from @site, before the allocator has it back */
static __attribute__((noinline, cold)) void kfree_event(void *site, void *p)
{
	int err = errno;

	if (ut_kmem_quiet || !p || ut_self.state == UT_TS_INTERNAL)
		return;
	ut_kmem_quiet = 1;
	if (trace_kfree_enabled())
		trace_kfree((unsigned long)site, p);
	if (kmem_stats)
		km_freed(km_take(p));
	ut_kmem_quiet = 0;
	errno = err;
}

/* for kmemtrace_cxx.c: operator new and delete, with their caller's site */
void ut_kmem_alloced(void *site, void *p, size_t n)
{
	kmalloc_event(site, p, n);
}

void ut_kmem_freeing(void *site, void *p)
{
	kfree_event(site, p);
}

int ut_kmem_on(void)
{
	return (__atomic_load_n(&__ut_tp_kmem_kmalloc.state, __ATOMIC_RELAXED) |
		__atomic_load_n(&__ut_tp_kmem_kfree.state, __ATOMIC_RELAXED) |
		__atomic_load_n(&kmem_stats, __ATOMIC_RELAXED)) != 0;
}

#define KMALLOC_ON()	unlikely((__atomic_load_n(&__ut_tp_kmem_kmalloc.state, __ATOMIC_RELAXED) | \
				  __atomic_load_n(&kmem_stats, __ATOMIC_RELAXED)) != 0)

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
	uint64_t taken = 0;
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
	/* the old block leaves the table before the allocator may give it again */
	if (old && kmem_stats && !ut_kmem_quiet)
		taken = km_take(old);
	p = real_realloc(old, n);
	if (old && !p && n) {
		km_untake(old, taken);		/* it failed: the old block stays */
	} else if (old && !ut_kmem_quiet) {
		int err = errno;

		ut_kmem_quiet = 1;
		if (trace_kfree_enabled())
			trace_kfree((unsigned long)site, old);
		if (kmem_stats)
			km_freed(taken);
		ut_kmem_quiet = 0;
		errno = err;
	}
	if ((p || n) && KMALLOC_ON())
		kmalloc_event(site, p, n);
	return p;
}

EXPORT void *realloc(void *old, size_t n)
{
	if (!unlikely((__atomic_load_n(&__ut_tp_kmem_kmalloc.state, __ATOMIC_RELAXED) |
		       __atomic_load_n(&__ut_tp_kmem_kfree.state, __ATOMIC_RELAXED) |
		       __atomic_load_n(&kmem_stats, __ATOMIC_RELAXED) | in_boot(old)) != 0))
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
	if (!unlikely((__atomic_load_n(&__ut_tp_kmem_kfree.state, __ATOMIC_RELAXED) |
		       __atomic_load_n(&kmem_stats, __ATOMIC_RELAXED) | in_boot(p)) != 0)) {
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

/*
 * An allocator that returns the block: the real one, then (tracer on) the
 * event of its @n bytes, at the caller's site.
 */
#define KMEM_ALLOC_WRAPPER(name, params, args)					\
EXPORT void *name params							\
{										\
	void *p;								\
										\
	if (!KMALLOC_ON())							\
		return real_##name args;					\
	p = real_##name args;							\
	kmalloc_event(__builtin_return_address(0), p, n);			\
	return p;								\
}

KMEM_ALLOC_WRAPPER(aligned_alloc, (size_t align, size_t n), (align, n))
KMEM_ALLOC_WRAPPER(memalign, (size_t align, size_t n), (align, n))
KMEM_ALLOC_WRAPPER(valloc, (size_t n), (n))
KMEM_ALLOC_WRAPPER(pvalloc, (size_t n), (n))

/*
 * Anonymous private mappings, while kmemtrace runs: a kmalloc of the
 * length asked, bytes_alloc its pages, and a kfree when munmap unmaps
 * the mapping from its start (the live table knows which are ours: a
 * file's mapping, or one made before, gives no event).  The runtime's
 * own mappings (its ring buffers, this table) are not the program's.
 * A device's mapping (/dev/mem, UIO, VFIO) is told to mmiotrace
 * (ut_mmio_mmapped, ut_mmio_munmapped).
 */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));

static int from_self(const void *ra)
{
	return (const char *)ra >= __ehdr_start && (const char *)ra < _end;
}

static void *sys_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, a, len, prot, flags, fd, off);
}

static __attribute__((noinline)) void mmap_event(void *site, void *p, size_t len, int flags)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (from_self(site) || !(flags & MAP_ANONYMOUS) || !(flags & MAP_PRIVATE) ||
	    p == MAP_FAILED || ut_kmem_quiet)
		return;
	kmalloc_done(site, p, len, (len + page - 1) & ~(page - 1), KM_MMAP);
}

EXPORT void *mmap(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = sys_mmap(a, len, prot, flags, fd, off);

	if (!(flags & MAP_ANONYMOUS) && p != MAP_FAILED)
		ut_mmio_mmapped(p, len, prot, flags, fd, off);
	if (unlikely(__atomic_load_n(&kmem_stats, __ATOMIC_RELAXED) != 0))
		mmap_event(__builtin_return_address(0), p, len, flags);
	return p;
}

EXPORT void *mmap64(void *a, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = sys_mmap(a, len, prot, flags, fd, off);

	if (!(flags & MAP_ANONYMOUS) && p != MAP_FAILED)
		ut_mmio_mmapped(p, len, prot, flags, fd, off);
	if (unlikely(__atomic_load_n(&kmem_stats, __ATOMIC_RELAXED) != 0))
		mmap_event(__builtin_return_address(0), p, len, flags);
	return p;
}

static __attribute__((noinline)) int munmap_slow(void *p, size_t len, void *site)
{
	uint64_t taken;
	int ret, err;

	if (from_self(site) || ut_kmem_quiet)
		return (int)syscall(SYS_munmap, p, len);
	taken = km_take(p);
	if (taken && !(taken & KM_MMAP)) {
		km_untake(p, taken);	/* a malloc block: not ours to count here */
		taken = 0;
	}
	ret = (int)syscall(SYS_munmap, p, len);
	if (!taken)
		return ret;
	err = errno;
	if (ret < 0) {
		km_untake(p, taken);
	} else {
		ut_kmem_quiet = 1;
		if (trace_kfree_enabled())
			trace_kfree((unsigned long)site, p);
		km_freed(taken);
		ut_kmem_quiet = 0;
	}
	errno = err;
	return ret;
}

EXPORT int munmap(void *p, size_t len)
{
	ut_mmio_munmapped(p);
	if (likely(!__atomic_load_n(&kmem_stats, __ATOMIC_RELAXED)))
		return (int)syscall(SYS_munmap, p, len);
	return munmap_slow(p, len, __builtin_return_address(0));
}
