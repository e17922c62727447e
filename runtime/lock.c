// SPDX-License-Identifier: MIT
/*
 * lock.c - the built-in lock events (usertrace/events/lock.h) for the
 * program's pthread mutexes and rwlocks: contention_begin when a lock
 * call would block, contention_end with its result once it returns.
 *
 * With an event on, pthread_mutex_lock first tries the lock: taken, it
 * returns as it would have (no event, as the kernel records only
 * waits); busy (EBUSY), it writes contention_begin, waits in the real
 * call and writes contention_end.  A try that fails otherwise (an
 * error-checking mutex this thread holds says EBUSY too: the real call
 * then says EDEADLK, the end shows it; a robust mutex's EOWNERDEAD) is
 * returned as the real call would.  rwlocks likewise, with the kernel's
 * READ or WRITE flag.  Off: one load and a branch not taken, then the
 * jump to the real function.
 *
 * The runtime's own locks go through here too: their events are not
 * written (the runtime marks those threads internal, graph.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "runtime/runtime.h"
#include "usertrace/events/lock.h"

/*
 * The next definitions.  Until found, each pointer is a first_*()
 * function that finds them all (at start-up, ut_lock_resolve(): the
 * runtime takes mutexes itself, also from the hooks, where dlsym must
 * not run; or at a call before it, from another library's constructor).
 */
#define LOCK_FUNCS(X)								\
	X(mutex_lock, pthread_mutex_lock, pthread_mutex_t)			\
	X(mutex_trylock, pthread_mutex_trylock, pthread_mutex_t)		\
	X(rdlock, pthread_rwlock_rdlock, pthread_rwlock_t)			\
	X(tryrdlock, pthread_rwlock_tryrdlock, pthread_rwlock_t)		\
	X(wrlock, pthread_rwlock_wrlock, pthread_rwlock_t)			\
	X(trywrlock, pthread_rwlock_trywrlock, pthread_rwlock_t)

#define DECLARE(var, name, type)						\
	static int first_##var(type *l);					\
	static int (*real_##var)(type *) = first_##var;
LOCK_FUNCS(DECLARE)

void ut_lock_resolve(void)
{
#define FIND(var, name, type)							\
	do {									\
		void *f = dlsym(RTLD_NEXT, #name);				\
		if (f)								\
			__atomic_store_n(&real_##var, (int (*)(type *))f, __ATOMIC_RELEASE); \
	} while (0);
	LOCK_FUNCS(FIND)
}

#define FIRST(var, name, type)							\
	static int first_##var(type *l)						\
	{									\
		ut_lock_resolve();						\
		return real_##var == first_##var ? ENOSYS : real_##var(l);	\
	}
LOCK_FUNCS(FIRST)

#define CONTENTION_ON()									\
	unlikely((__atomic_load_n(&__ut_tp_lock_contention_begin.state, __ATOMIC_RELAXED) |	\
		  __atomic_load_n(&__ut_tp_lock_contention_end.state, __ATOMIC_RELAXED)) != 0)

/* @try, and if busy the events around @lock */
static __attribute__((noinline)) int contended(void *l, int (*try)(void *), int (*lock)(void *),
					       unsigned int flags)
{
	int ret = try(l), err;

	if (ret != EBUSY)
		return ret;
	err = errno;
	trace_contention_begin(l, flags);
	errno = err;
	ret = lock(l);
	err = errno;
	trace_contention_end(l, ret);
	errno = err;
	return ret;
}

EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!CONTENTION_ON()) {
		/* a wakeup tracer measures the wait's end (tracers/wakeup.c) */
		if (likely(!__atomic_load_n(&ut_wake_mode, __ATOMIC_RELAXED)) || !ut_wake_on())
			return real_mutex_lock(m);
		return ut_wake_mutex_lock(m, real_mutex_trylock, real_mutex_lock,
					  (uintptr_t)pthread_mutex_lock,
					  (uintptr_t)__builtin_return_address(0));
	}
	return contended(m, (int (*)(void *))real_mutex_trylock, (int (*)(void *))real_mutex_lock,
			 UT_LCB_F_MUTEX);
}

EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (!CONTENTION_ON())
		return real_rdlock(l);
	return contended(l, (int (*)(void *))real_tryrdlock, (int (*)(void *))real_rdlock,
			 UT_LCB_F_READ);
}

EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (!CONTENTION_ON())
		return real_wrlock(l);
	return contended(l, (int (*)(void *))real_trywrlock, (int (*)(void *))real_wrlock,
			 UT_LCB_F_WRITE);
}
