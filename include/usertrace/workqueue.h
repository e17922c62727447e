/* SPDX-License-Identifier: MIT */
/*
 * usertrace/workqueue.h - work queues as the kernel's, for programs (C
 * and C++; installed; link with -lpthread), and the annotations a
 * program's own thread pool calls instead, so that trace_stat/workqueue
 * counts their works and the workqueue events show them.
 *
 * The queues:
 *
 *   struct work_struct w;  INIT_WORK(&w, fn);      fn(struct work_struct *)
 *   wq = alloc_workqueue("name", 0, N);            N workers (0: one per CPU)
 *   queue_work(wq, &w)                             to the next worker in turn;
 *                                                  false if w is still queued
 *   queue_work_on(n, wq, &w)                       to worker n (modulo N)
 *   flush_workqueue(wq)                            until every queued work ran
 *   destroy_workqueue(wq)                          flush, stop the workers, free
 *
 * Worker n of queue "name" is a thread named "name/n", as the kernel's
 * per-CPU workers ("events/0"): its works are those queued to it, in
 * order.  trace_stat/workqueue has a line per worker: CPU is n, INSERTED
 * the works queued to it, EXECUTED those it ran to their end.
 *
 * The annotations, for a pool of one's own (a worker index is any small
 * number the pool gives its threads; the queue's name is cut at 31 bytes):
 *
 *   work_queued(wq_name, cpu, work, fn)        a work inserted for worker cpu
 *   work_execute_start(wq_name, cpu, work, fn) worker cpu starts it
 *   work_execute_end(wq_name, cpu, work, fn)   and ends it
 *
 * Without usertrace they do nothing, and the queues work as well.
 */
#ifndef USERTRACE_WORKQUEUE_H
#define USERTRACE_WORKQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "tracing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WORK_CPU_UNBOUND	8192	/* req_cpu of a work for any worker */

static inline __ut_notrace void work_queued_on(const char *wq, int req_cpu, int cpu,
					       const void *work, const void *fn)
{
	const struct ut_api_ops *o = __ut_api_v(3);

	if (o)
		o->wq_insert(wq, req_cpu, cpu, work, fn);
}

#define work_queued(wq, cpu, work, fn)	work_queued_on(wq, WORK_CPU_UNBOUND, cpu, work, (const void *)(fn))

static inline __ut_notrace void __work_execute(const char *wq, int cpu, const void *work,
					       const void *fn, int end)
{
	const struct ut_api_ops *o = __ut_api_v(3);

	if (o)
		o->wq_execute(wq, cpu, work, fn, end);
}

#define work_execute_start(wq, cpu, work, fn)	__work_execute(wq, cpu, work, (const void *)(fn), 0)
#define work_execute_end(wq, cpu, work, fn)	__work_execute(wq, cpu, work, (const void *)(fn), 1)

/* ---- the queues ---- */

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
	struct work_struct *__next;	/* the worker's list */
	int __pending;			/* queued, not yet started */
};

#define INIT_WORK(w, fn)	do { (w)->func = (fn); (w)->__next = NULL; (w)->__pending = 0; } while (0)

struct workqueue_struct;

struct __ut_worker {
	struct workqueue_struct *wq;
	pthread_t thread;
	pthread_cond_t more;
	struct work_struct *head, *tail;
	int cpu;
};

struct workqueue_struct {
	char name[32];
	pthread_mutex_t lock;
	pthread_cond_t idle;		/* pending dropped to 0 */
	unsigned long pending;		/* queued or running */
	unsigned next;			/* queue_work's next worker */
	int stop, nr;
	struct __ut_worker *w;
};

static __ut_notrace void *__ut_worker_run(void *arg)
{
	struct __ut_worker *me = (struct __ut_worker *)arg;
	struct workqueue_struct *wq = me->wq;
	char tname[16];

	/* a thread's name has 15 bytes: the queue's is cut */
	snprintf(tname, sizeof(tname), "%.10s/%u", wq->name, (unsigned)me->cpu % 1000u);
	prctl(PR_SET_NAME, tname, 0, 0, 0);
	pthread_mutex_lock(&wq->lock);
	for (;;) {
		struct work_struct *w;
		work_func_t fn;

		while (!me->head && !wq->stop)
			pthread_cond_wait(&me->more, &wq->lock);
		if (!me->head)
			break;
		w = me->head;
		me->head = w->__next;
		if (!me->head)
			me->tail = NULL;
		w->__pending = 0;
		fn = w->func;
		pthread_mutex_unlock(&wq->lock);
		/* w may be freed or queued again by fn: the ends name what started */
		work_execute_start(wq->name, me->cpu, w, fn);
		fn(w);
		work_execute_end(wq->name, me->cpu, w, fn);
		pthread_mutex_lock(&wq->lock);
		if (!--wq->pending)
			pthread_cond_broadcast(&wq->idle);
	}
	pthread_mutex_unlock(&wq->lock);
	return NULL;
}

/* a queue of @max_active workers (<= 0: one per CPU); @flags: none yet.  NULL: errno says */
static __ut_notrace __attribute__((unused)) struct workqueue_struct *
alloc_workqueue(const char *name, unsigned flags, int max_active)
{
	struct workqueue_struct *wq;
	int n = max_active > 0 ? max_active : (int)sysconf(_SC_NPROCESSORS_ONLN);

	(void)flags;
	if (n < 1)
		n = 1;
	wq = (struct workqueue_struct *)calloc(1, sizeof(*wq));
	if (!wq)
		return NULL;
	wq->w = (struct __ut_worker *)calloc((size_t)n, sizeof(*wq->w));
	if (!wq->w) {
		free(wq);
		return NULL;
	}
	snprintf(wq->name, sizeof(wq->name), "%s", name ? name : "");
	pthread_mutex_init(&wq->lock, NULL);
	pthread_cond_init(&wq->idle, NULL);
	for (int i = 0; i < n; i++) {
		wq->w[i].wq = wq;
		wq->w[i].cpu = i;
		pthread_cond_init(&wq->w[i].more, NULL);
		if (pthread_create(&wq->w[i].thread, NULL, __ut_worker_run, &wq->w[i])) {
			pthread_mutex_lock(&wq->lock);
			wq->stop = 1;
			for (int k = 0; k < i; k++)
				pthread_cond_signal(&wq->w[k].more);
			pthread_mutex_unlock(&wq->lock);
			for (int k = 0; k < i; k++)
				pthread_join(wq->w[k].thread, NULL);
			free(wq->w);
			free(wq);
			return NULL;
		}
		wq->nr = i + 1;
	}
	return wq;
}

#define create_workqueue(name)	alloc_workqueue(name, 0, 0)

/* @work to worker @cpu (modulo the workers); false if it is still queued */
static __ut_notrace __attribute__((unused)) bool
queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *work)
{
	struct __ut_worker *w;
	int req = cpu;

	pthread_mutex_lock(&wq->lock);
	if (work->__pending || wq->stop) {
		pthread_mutex_unlock(&wq->lock);
		return false;
	}
	if (cpu == WORK_CPU_UNBOUND)
		cpu = (int)(wq->next++ % (unsigned)wq->nr);
	else
		cpu = (int)((unsigned)cpu % (unsigned)wq->nr);
	w = &wq->w[cpu];
	work->__pending = 1;
	work->__next = NULL;
	if (w->tail)
		w->tail->__next = work;
	else
		w->head = work;
	w->tail = work;
	wq->pending++;
	/* before the worker may run it: the insert comes first */
	work_queued_on(wq->name, req, cpu, work, (const void *)work->func);
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&wq->lock);
	return true;
}

static inline __ut_notrace bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	return queue_work_on(WORK_CPU_UNBOUND, wq, work);
}

/* until every work queued so far has run (those queued meanwhile too) */
static __ut_notrace __attribute__((unused)) void flush_workqueue(struct workqueue_struct *wq)
{
	pthread_mutex_lock(&wq->lock);
	while (wq->pending)
		pthread_cond_wait(&wq->idle, &wq->lock);
	pthread_mutex_unlock(&wq->lock);
}

static __ut_notrace __attribute__((unused)) void destroy_workqueue(struct workqueue_struct *wq)
{
	flush_workqueue(wq);
	pthread_mutex_lock(&wq->lock);
	wq->stop = 1;
	for (int i = 0; i < wq->nr; i++)
		pthread_cond_signal(&wq->w[i].more);
	pthread_mutex_unlock(&wq->lock);
	for (int i = 0; i < wq->nr; i++) {
		pthread_join(wq->w[i].thread, NULL);
		pthread_cond_destroy(&wq->w[i].more);
	}
	pthread_cond_destroy(&wq->idle);
	pthread_mutex_destroy(&wq->lock);
	free(wq->w);
	free(wq);
}

#ifdef __cplusplus
}
#endif

#endif /* USERTRACE_WORKQUEUE_H */
