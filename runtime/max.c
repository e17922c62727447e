// SPDX-License-Identifier: MIT
/*
 * max.c - the max-latency buffer of the latency tracers, as the kernel's
 * update_max_tr_single(): when a tracer's runtime part measures a new
 * maximum, the thread's buffer and its max buffer trade places in O(1)
 * and the trace that led to the maximum is kept.
 *
 * ut_update_max_tr() (runtime.h) is the tracers' call: one load and a
 * compare when the latency is no new maximum, a CAS on the control page's
 * max_latency when it is.  Only the winner of the CAS comes here.
 *
 * The two buffers are files: SESSION/buf.<pid>.<tid>.<image>[.<n>], the
 * one being written, and SESSION/max/buf.<pid>.<tid>.<image>, made at the
 * thread's first maximum.  The swap exchanges their names with
 * renameat2(RENAME_EXCHANGE), one system call that copies nothing, then
 * the writer goes on in the other mapping (rb_writer_swap()).  So buf.*
 * always names what is being written (the recorder, `trace`, trace_pipe
 * and the instances' pumps need not know about max buffers) and the max/
 * directory is read as a directory of buffers like an instance's (the
 * `snapshot` and print_max `trace` views).  This is done only in live
 * sessions in overwrite mode, as the kernel's max buffer: a consumer
 * (record) drains buf.* by name and must not see it change under it.
 *
 * The max record in the control page is written under max_lock, a word
 * of the control page taken by CAS (shared by every process of the
 * session, and the controller); signals are blocked meanwhile, so a
 * handler cannot come back here on the same thread.  The slow path has
 * system calls, as the kernel's has its spinlock; the path that sets no
 * maximum has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1 << 1)
#endif

/* "<session>/max/buf.<pid>.<tid>.<image>" (@max) or the buffer being written */
static int max_paths(struct ut_thread *t, char *cur, char *max, size_t size)
{
	struct rb_header *h = t->w.hdr;
	int n;

	if (t->bufgen)
		n = snprintf(cur, size, "%s/buf.%d.%d.%llu.%u", ut_session_dir(), h->pid, h->tid,
			     (unsigned long long)h->image, t->bufgen);
	else
		n = snprintf(cur, size, "%s/buf.%d.%d.%llu", ut_session_dir(), h->pid, h->tid,
			     (unsigned long long)h->image);
	if (n < 0 || (size_t)n >= size)
		return -1;
	n = snprintf(max, size, "%s/" UT_MAX_DIR "/buf.%d.%d.%llu", ut_session_dir(), h->pid,
		     h->tid, (unsigned long long)h->image);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* the thread's max buffer, made at its first maximum: 0, or -1 */
static int max_make(struct ut_thread *t, const char *path)
{
	struct rb_header *h, *cur = t->w.hdr;
	char dir[600];

	snprintf(dir, sizeof(dir), "%s/" UT_MAX_DIR, ut_session_dir());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	if (rb_create(path, cur->nr_pages, (enum rb_mode)cur->mode, &h))
		return -1;
	h->pid = cur->pid;
	h->tid = cur->tid;
	h->image = cur->image;
	memcpy(h->comm, cur->comm, sizeof(h->comm));
	/* nothing written yet: readers see an empty buffer until the swap */
	t->max_hdr = h;
	return 0;
}

/*
 * Swap the thread's buffers: 0, or -1 with nothing changed.  Context:
 * signals blocked, max_lock held, not inside a write.
 */
static int max_swap(struct ut_thread *t, uint64_t ts)
{
	char cur[600], max[600];

	if (max_paths(t, cur, max, sizeof(cur)))
		return -1;
	if (!t->max_hdr && max_make(t, max))
		return -1;
	if (syscall(SYS_renameat2, AT_FDCWD, cur, AT_FDCWD, max, RENAME_EXCHANGE) < 0)
		return -1;
	t->busy = UT_BUSY();
	prctl(PR_GET_NAME, t->w.hdr->comm, 0, 0, 0);
	memcpy(t->max_hdr->comm, t->w.hdr->comm, sizeof(t->max_hdr->comm));
	t->max_hdr = rb_writer_swap(&t->w, t->max_hdr, ts);
	/* the new buffer's reader learns the open calls from its first records */
	ut_renew_stack(t, ts);
	t->busy = 0;
	return 0;
}

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK	0x40000000
#endif

/*
 * ut_task_get - the calling thread's identity for the latency header's
 * task line: real uid, nice, policy, rt priority (as the kernel's
 * __update_max_tr() copies them from the task).  System calls: for the
 * reports only.  errno is kept.
 */
void ut_task_get(struct ut_ctx_task *ti)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct sched_param sp;
	int err = errno, pol, nice;

	ti->uid = (int32_t)getuid();
	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	ti->nice = nice == -1 && errno ? 0 : nice;
	pol = sched_getscheduler(tid);
	ti->policy = pol < 0 ? 0 : pol & ~SCHED_RESET_ON_FORK;
	ti->rt_prio = sched_getparam(tid, &sp) == 0 ? sp.sched_priority : 0;
	errno = err;
}

/*
 * ut_max_store - @latency won the CAS on max_latency (ut_max_new()), or
 * with @force is at least tracing_thresh (the threshold mode: every such
 * latency replaces the record, larger or not, and is max_latency): keep
 * the trace and the record.  Returns 1 if the record is stored (and the
 * buffers swapped when the session has max buffers), 0 if a larger one
 * came first, -1 if the swap failed (the record is stored, without a
 * trace).
 */
int ut_max_store(uint64_t latency, uint64_t end, uint64_t start_ip, uint64_t end_ip, int force)
{
	struct ut_session_ctl *c = ut_ctl;
	struct ut_thread *t = &ut_self;
	struct ut_max_rec *r = &c->max_rec;
	uint64_t all = ~0ull, saved, ts = ut_clock();
	int32_t tid = (int32_t)syscall(SYS_gettid);
	int ret = 1, swapped = 0;
	struct ut_ctx_task task;

	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, sizeof(all)) < 0)
		return -1;
	/* (its system calls before the lock: the controller spins on it) */
	ut_task_get(&task);
	ut_max_lock(c, tid);
	if (force) {
		__atomic_store_n(&c->max_latency, latency, __ATOMIC_RELAXED);
	} else if (latency <= r->latency) {
		ret = 0;
		goto out;
	}
	if (t->state == UT_TS_READY && (c->flags & UT_CTL_LIVE) &&
	    t->w.hdr->mode == RB_MODE_OVERWRITE) {
		/* inside a write (a signal handler's call): the record alone */
		swapped = !t->busy && max_swap(t, ts) == 0;
		if (!swapped)
			ret = -1;
	}
	r->latency = latency;
	r->ts = end ? end : ts;
	r->start_ip = start_ip;
	r->end_ip = end_ip;
	r->pid = (int32_t)getpid();
	r->tid = tid;
	r->image = t->state == UT_TS_READY ? t->w.hdr->image : 0;
	{
		int cpu = sched_getcpu();

		r->cpu = cpu < 0 ? 0 : (uint32_t)cpu;
	}
	r->swapped = (uint32_t)swapped;
	r->task = task;
	r->count++;
	prctl(PR_GET_NAME, r->comm, 0, 0, 0);
out:
	ut_max_unlock(c);
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, NULL, sizeof(saved));
	return ret;
}

/* the thread exits (@t's writer is closed), or forgets its parent's (fork) */
void ut_max_release(struct ut_thread *t, int close)
{
	struct rb_header *h = t->max_hdr;

	if (!h)
		return;
	t->max_hdr = NULL;
	if (close)
		__atomic_store_n(&h->state, RB_STATE_CLOSED, __ATOMIC_RELEASE);
	munmap(h, rb_file_size(h->nr_pages));
}
