// SPDX-License-Identifier: MIT
/*
 * workqueue.c - the works of <usertrace/workqueue.h> (its queues, or a
 * thread pool's annotations), through the API slot: counted per queue
 * and worker in the statistics file workqueue.<pid>.<img>
 * (usertrace/wqstat.h) for trace_stat/workqueue, and written as the
 * workqueue events when they are on.
 *
 * Counted in every traced process that uses the API, as the kernel
 * counted every workqueue: a row is found by its name and worker in a
 * small open table (no lock once claimed); its counters are atomic adds.
 * The file is made at the first work, off the program's usual path.
 */
#include <string.h>

#include "runtime/runtime.h"
#include "usertrace/events/workqueue.h"
#include "usertrace/wqstat.h"

static struct ut_wq_stat *wq_area;
static int wq_failed;

static struct ut_wq_stat *area(void)
{
	struct ut_wq_stat *a = __atomic_load_n(&wq_area, __ATOMIC_ACQUIRE);

	if (likely(a) || wq_failed || !ut_ctl)
		return a;
	ut_kmem_quiet++;
	a = ut_stat_area(UT_WQ_STAT_NAME, UT_WQ_STAT_VERSION, sizeof(*a));
	ut_kmem_quiet--;
	if (!a)
		wq_failed = 1;
	__atomic_store_n(&wq_area, a, __ATOMIC_RELEASE);
	return a;
}

static size_t key_hash(const char *name, int cpu)
{
	size_t h = 5381;

	for (unsigned i = 0; i < UT_WQ_NAME_MAX - 1 && name[i]; i++)
		h = h * 33 + (unsigned char)name[i];
	return h ^ ((size_t)(unsigned)cpu * 0x9e3779b9u);
}

static int key_is(const struct ut_wq_row *r, const char *name, int cpu)
{
	return r->cpu == cpu && !strncmp(r->name, name, UT_WQ_NAME_MAX - 1);
}

/* the row of (@name, @cpu), claimed if new; NULL when the table has none */
static struct ut_wq_row *row(struct ut_wq_stat *a, const char *name, int cpu)
{
	size_t h = key_hash(name, cpu);

	for (unsigned i = 0; i < UT_WQ_PROBE; i++) {
		struct ut_wq_row *r = &a->rows[(h + i) & (UT_WQ_ROWS - 1)];
		uint32_t st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

		if (st == 0) {
			if (__atomic_compare_exchange_n(&r->state, &st, 1, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_ACQUIRE)) {
				r->cpu = cpu;
				strncpy(r->name, name, UT_WQ_NAME_MAX - 1);
				__atomic_store_n(&r->state, 2, __ATOMIC_RELEASE);
				return r;
			}
		}
		/*
		 * another thread writes its key: a few instructions, unless
		 * this is a signal handler that interrupted it (then it
		 * never ends: give up, counted)
		 */
		for (unsigned spin = 0; st == 1 && spin < (1u << 20); spin++)
			st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		if (st == 2 && key_is(r, name, cpu))
			return r;
	}
	__atomic_fetch_add(&a->overflow, 1, __ATOMIC_RELAXED);
	return NULL;
}

void ut_api_wq_insert(const char *wq, int req_cpu, int cpu, const void *work, const void *func)
{
	struct ut_wq_stat *a = area();
	struct ut_wq_row *r;

	if (!wq)
		wq = "";
	if (a && (r = row(a, wq, cpu)))
		__atomic_fetch_add(&r->inserted, 1, __ATOMIC_RELAXED);
	trace_workqueue_queue_work(work, func, wq, req_cpu, cpu);
	trace_workqueue_activate_work(work, func);
}

void ut_api_wq_execute(const char *wq, int cpu, const void *work, const void *func, int end)
{
	struct ut_wq_stat *a;
	struct ut_wq_row *r;

	if (!end) {
		trace_workqueue_execute_start(work, func);
		return;
	}
	trace_workqueue_execute_end(work, func);
	a = area();
	if (a && (r = row(a, wq ? wq : "", cpu)))
		__atomic_fetch_add(&r->executed, 1, __ATOMIC_RELAXED);
}
