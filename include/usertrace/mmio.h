/* SPDX-License-Identifier: MIT */
/*
 * usertrace/mmio.h - regions of device memory for the mmiotrace tracer
 * (C and C++; installed).
 *
 * A driver (or a test) that maps device memory in a way the runtime
 * does not see (mmap of /dev/mem, /dev/uioN and VFIO device fds is
 * seen) registers the region: while the mmiotrace tracer runs, every
 * read and write of it is an mmiotrace R or W line, with its width,
 * value and the code's address; the registration is a MAP line, the
 * unregistration an UNMAP line.
 *
 *   int id = ut_mmio_register(regs, 4096, 0xfebf0000);
 *   ...
 *   ut_mmio_unregister(regs);
 *
 * The region's pages are protected while the tracer runs: the program
 * must not register memory it hands to the kernel (a read(2) into it
 * would fail with EFAULT), nor memory other threads use during the
 * program's accesses to it (doc/usertrace.1, mmiotrace).
 *
 * Without the runtime (the program not traced) the calls do nothing
 * and return -ENOSYS.  The runtime's functions are looked up with
 * dlsym() at the first call (a weak reference would be resolved to
 * nothing at link time in a non-PIE executable): with a C library
 * older than glibc 2.34, link with -ldl.
 */
#ifndef USERTRACE_MMIO_H
#define USERTRACE_MMIO_H

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the runtime's function @name, NULL when it is not loaded (RTLD_DEFAULT: NULL) */
static inline void *__ut_mmio_fn(void **cache, const char *name)
{
	void *f = __atomic_load_n(cache, __ATOMIC_RELAXED);

	if (!f) {
		f = dlsym((void *)0, name);
		__atomic_store_n(cache, f, __ATOMIC_RELAXED);
	}
	return f;
}

/*
 * ut_mmio_register - @len bytes at @addr are device memory at physical
 * address @phys: the region's id (> 0), or -EINVAL (empty), -EEXIST
 * (overlaps one registered), -ENOSPC (64 registered), -ENOSYS
 */
static inline int ut_mmio_register(void *addr, size_t len, unsigned long long phys)
{
	static void *fn;
	int (*f)(void *, size_t, unsigned long long) =
		(int (*)(void *, size_t, unsigned long long))__ut_mmio_fn(&fn, "usertrace_mmio_register");

	return f ? f(addr, len, phys) : -ENOSYS;
}

/* ut_mmio_unregister - the region registered at @addr is no more: 0, -ENOENT, -ENOSYS */
static inline int ut_mmio_unregister(void *addr)
{
	static void *fn;
	int (*f)(void *) = (int (*)(void *))__ut_mmio_fn(&fn, "usertrace_mmio_unregister");

	return f ? f(addr) : -ENOSYS;
}

#ifdef __cplusplus
}
#endif

#endif
