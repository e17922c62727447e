/* SPDX-License-Identifier: MIT */
/*
 * mmio.h - regions of device memory for the mmiotrace tracer.
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
 * and return -ENOSYS.
 */
#ifndef USERTRACE_MMIO_H
#define USERTRACE_MMIO_H

#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the runtime's: weak, NULL when it is not loaded */
extern int usertrace_mmio_register(void *addr, size_t len, unsigned long long phys)
	__attribute__((weak));
extern int usertrace_mmio_unregister(void *addr) __attribute__((weak));

/*
 * ut_mmio_register - @len bytes at @addr are device memory at physical
 * address @phys: the region's id (> 0), or -EINVAL (empty), -EEXIST
 * (overlaps one registered), -ENOSPC (64 registered), -ENOSYS
 */
static inline int ut_mmio_register(void *addr, size_t len, unsigned long long phys)
{
	return usertrace_mmio_register ? usertrace_mmio_register(addr, len, phys) : -ENOSYS;
}

/* ut_mmio_unregister - the region registered at @addr is no more: 0, -ENOENT, -ENOSYS */
static inline int ut_mmio_unregister(void *addr)
{
	return usertrace_mmio_unregister ? usertrace_mmio_unregister(addr) : -ENOSYS;
}

#ifdef __cplusplus
}
#endif

#endif
