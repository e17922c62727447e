// SPDX-License-Identifier: MIT
/*
 * hwbranch_source.c - the hw-branch tracer's recorder side (see hwbranch_source.h): perf
 * branch-stack samples of the traced threads, decoded by output/'s
 * hwb_decode(), written as ftrace:hw_branch entries with the session's
 * clock (recorder/kernel_source.h).  Modelled on the perf source of the sched
 * events (recorder/sched_source.c), whose /proc helpers it shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/hwbranch_source.h"
#include "recorder/kernel_source.h"
#include "recorder/sched_source.h"
#include "recorder/source.h"
#include "output/hwbranch.h"
#include "usertrace/ftrace.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "utils/utils.h"

#define OUT_PAGES	64		/* 256 KiB per thread's buffer */
#define PERF_PAGES	64		/* per CPU */
#define SAMPLE_PERIOD	100003		/* branch instructions per sample (the probe's) */

static const uint64_t SAMPLE_TYPE = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				    PERF_SAMPLE_BRANCH_STACK;
static const uint64_t BRANCH_TYPE = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;

/* a process followed: its inherited events, one per CPU */
struct hwb_proc {
	pid_t pid;
	int *fd;
	void **ring;
};

#define MAX_PROCS	64

struct hwb_src {
	char session[4096];
	pid_t pid;			/* the program (live: the first process followed) */
	struct kev_clock clk;		/* the session's clock for perf's monotonic times */
	const char *file;		/* UT_HWB_RECORDS_ENV's, read at the first poll */
	int perf;			/* the source is branch-stack sampling, not the file */
	int ncpu;
	struct hwb_proc procs[MAX_PROCS];
	int nr_procs;
	const volatile uint32_t *on;	/* live: the session's tracing_on; NULL: always */
	int live;			/* a tracing directory's session (hwb_src_live()) */
	int running;			/* between the first follow and hwb_src_stop() */
	struct kev_outs outs;		/* the threads' buffers: consumer (record) or overwrite (live) */
	unsigned long long lost;		/* branches dropped (perf ring overflow, a full buffer) */
};

/* one branch: an ftrace:hw_branch entry in its thread's buffer */
static int put_branch(const struct hwb_branch *b, void *arg)
{
	struct hwb_src *s = arg;
	struct ut_ftrace_hw_branch e;
	int pid = b->pid ? (int)b->pid : (int)s->pid, tid = b->tid ? (int)b->tid : pid;
	uint64_t ts = kev_clock_time(&s->clk, b->time ? b->time : ut_mono_ns());
	uint32_t c = b->cpu;
	struct kev_out *o;

	if (s->on && !__atomic_load_n(s->on, __ATOMIC_ACQUIRE))
		return 0;		/* tracing_on 0: nothing written, as the kernel's */
	if (!(o = kev_out_get(&s->outs, &s->clk, pid, tid, NULL)))
		return 0;
	memset(&e, 0, sizeof(e));
	e.ent.type = UT_EVENT_ID_HW_BRANCH;
	e.ent.pid = tid;
	e.from = b->from;
	e.to = b->to;
	ut_rec_write_cpu(&o->w, ts, c);
	if (!ut_rec_write_event(&o->w, ts, &e, sizeof(e)))
		s->lost++;
	return 0;
}

/* the records at @buf: their branches written; a corrupt record said */
static void decode(struct hwb_src *s, const void *buf, size_t len, const char *where)
{
	if (hwb_decode(buf, len, SAMPLE_TYPE, BRANCH_TYPE, put_branch, s) < 0)
		pr_warn("hw-branch: %s: a perf record is cut or inconsistent; the records after it "
			"are dropped", where);
}

/* UT_HWB_RECORDS_ENV's file, whole */
static void read_records(struct hwb_src *s)
{
	const char *path = s->file;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;
	int fd;

	s->file = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_warn("hw-branch: %s=%s: %s", UT_HWB_RECORDS_ENV, path, strerror(errno));
		return;
	}
	do {
		if (len == cap)
			buf = xrealloc(buf, cap = cap ? 2 * cap : 65536);
		n = read(fd, buf + len, cap - len);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	close(fd);
	decode(s, buf, len, path);
	free(buf);
}

/* one record of a CPU's ring: a sample decoded, a loss counted */
static void ring_rec(unsigned char *rec, size_t len, void *arg)
{
	struct hwb_src *s = arg;
	struct perf_event_header ph;

	memcpy(&ph, rec, sizeof(ph));
	if (ph.type == PERF_RECORD_LOST && len >= sizeof(ph) + 16) {
		uint64_t nl;

		memcpy(&nl, rec + sizeof(ph) + 8, 8);
		s->lost += nl;
	} else if (ph.type == PERF_RECORD_SAMPLE) {
		decode(s, rec, len, "perf ring");
	}
}

static void read_rings(struct hwb_src *s, struct hwb_proc *p)
{
	unsigned char rec[8192];

	for (int c = 0; p->ring && c < s->ncpu; c++)
		kev_perf_read(p->ring[c], rec, sizeof(rec), ring_rec, s);
}

static void proc_release(struct hwb_src *s, struct hwb_proc *p)
{
	for (int c = 0; p->fd && c < s->ncpu; c++) {
		if (p->ring[c])
			munmap(p->ring[c], (size_t)(1 + PERF_PAGES) * 4096);
		if (p->fd[c] >= 0)
			close(p->fd[c]);
	}
	free(p->fd);
	free(p->ring);
	p->fd = NULL;
	p->ring = NULL;
}

/* one inherited branch-stack sampling event per CPU for process @pid: 0, or -1 (said) */
static int perf_follow(struct hwb_src *s, pid_t pid)
{
	struct hwb_proc *p;
	struct perf_event_attr a;
	int opened = 0;

	if (s->nr_procs == MAX_PROCS) {
		pr_warn("hw-branch: more than %d processes; the branches of %d are not recorded",
			MAX_PROCS, (int)pid);
		return -1;
	}
	p = &s->procs[s->nr_procs];
	p->pid = pid;
	p->fd = xcalloc((size_t)s->ncpu, sizeof(*p->fd));
	p->ring = xcalloc((size_t)s->ncpu, sizeof(*p->ring));
	for (int c = 0; c < s->ncpu; c++)
		p->fd[c] = -1;
	kev_perf_attr(&a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = SAMPLE_PERIOD;
	a.sample_type = SAMPLE_TYPE;
	a.branch_sample_type = BRANCH_TYPE;
	for (int c = 0; c < s->ncpu; c++) {
		p->fd[c] = (int)syscall(SYS_perf_event_open, &a, pid, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (p->fd[c] < 0) {
			int err = errno;

			p->fd[c] = -1;
			if (err == ENODEV || err == EINVAL)	/* an offline CPU */
				continue;
			if (err == EACCES || err == EPERM)
				pr_warn("hw-branch: perf_event_open: %s (perf_event_paranoid is %d); "
					"no branches are recorded", strerror(err), sched_perf_paranoid());
			else if (err == ESRCH)
				pr_warn("hw-branch: process %d has ended; its branches are not recorded",
					(int)pid);
			else
				pr_warn("hw-branch: perf_event_open of branch-stack sampling: %s; "
					"no branches are recorded", strerror(err));
			proc_release(s, p);
			return -1;
		}
		p->ring[c] = mmap(NULL, (size_t)(1 + PERF_PAGES) * 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED, p->fd[c], 0);
		if (p->ring[c] == MAP_FAILED) {
			p->ring[c] = NULL;
			pr_warn("hw-branch: mmap of the perf buffer: %s; no branches are recorded",
				strerror(errno));
			proc_release(s, p);
			return -1;
		}
		opened++;
	}
	if (!opened) {
		pr_warn("hw-branch: perf_event_open: no CPU took the event; no branches are recorded");
		proc_release(s, p);
		return -1;
	}
	s->nr_procs++;
	return 0;
}

/* a new source, no process followed yet; NULL when the machine has none (said) */
static struct hwb_src *src_new(const char *session, int clock, uint32_t pages, int mode)
{
	char why[256];
	enum hwb_source src = hwb_probe(why, sizeof(why));
	struct hwb_src *s;
	long n;

	if (src == HWB_NONE) {
		pr_warn("hw-branch: not available: %s", why);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	snprintf(s->session, sizeof(s->session), "%s", session);
	s->outs.session = s->session;
	s->outs.what = "hw-branch";
	s->outs.image = UT_HWB_IMAGE;
	s->outs.pages = pages;
	s->outs.mode = mode;
	kev_clock_init(&s->clk, clock);
	/*
	 * intel_bts and intel_pt write an AUX area whose data is not
	 * decoded here: their CPUs have LBR, sampled as branch stacks
	 */
	s->perf = src != HWB_FILE;
	n = sysconf(_SC_NPROCESSORS_CONF);
	s->ncpu = n > 0 ? (int)n : 1;
	return s;
}

struct hwb_src *hwb_src_open(const char *session, int clock, pid_t pid)
{
	struct hwb_src *s = src_new(session, clock, OUT_PAGES, RB_MODE_CONSUMER);

	if (s && hwb_src_follow(s, pid) < 0) {
		hwb_src_close(s);
		return NULL;
	}
	return s;
}

struct hwb_src *hwb_src_live(const char *session, int clock, uint32_t nr_pages,
			     const volatile uint32_t *on)
{
	struct hwb_src *s = src_new(session, clock, nr_pages >= 2 ? nr_pages : OUT_PAGES,
				    RB_MODE_OVERWRITE);

	if (s) {
		s->live = 1;
		s->on = on;
	}
	return s;
}

int hwb_src_follow(struct hwb_src *s, pid_t pid)
{
	if (!s->running) {
		s->running = 1;
		s->pid = pid;
		if (!s->perf)
			s->file = getenv(UT_HWB_RECORDS_ENV);	/* read at the next poll */
	}
	for (int i = 0; i < s->nr_procs; i++)
		if (s->procs[i].pid == pid)
			return 0;
	return s->perf ? perf_follow(s, pid) : 0;
}

const char *hwb_src_name(const struct hwb_src *s)
{
	return s->perf ? "branch-stack" : "file";
}

void hwb_src_poll(struct hwb_src *s)
{
	if (!s)
		return;
	kev_clock_update(&s->clk);
	if (s->file)
		read_records(s);
	for (int i = 0; i < s->nr_procs; i++) {
		struct hwb_proc *p = &s->procs[i];

		read_rings(s, p);
		/* a live session's process that has ended: its last branches were read */
		if (s->live && kill(p->pid, 0) < 0 && errno == ESRCH) {
			proc_release(s, p);
			s->procs[i--] = s->procs[--s->nr_procs];
		}
	}
}

void hwb_src_stop(struct hwb_src *s)
{
	if (!s || !s->running)
		return;
	hwb_src_poll(s);
	for (int i = 0; i < s->nr_procs; i++)
		proc_release(s, &s->procs[i]);
	s->nr_procs = 0;
	s->file = NULL;
	s->running = 0;
}

int hwb_src_running(const struct hwb_src *s)
{
	return s && s->running;
}

void hwb_src_close(struct hwb_src *s)
{
	if (!s)
		return;
	hwb_src_stop(s);
	if (s->lost)
		pr_warn("hw-branch: %llu branch samples or entries lost (the buffers were full)",
			s->lost);
	kev_outs_close(&s->outs);
	free(s);
}

/* ---- the source's ops (recorder/source.h) ---- */

static void *ops_open(const struct src_env *env, pid_t pid)
{
	if (pid)
		return hwb_src_open(env->session, env->clock, pid);
	return hwb_src_live(env->session, env->clock, env->nr_pages, env->on);
}

static int ops_follow(void *s, pid_t pid)
{
	return hwb_src_follow(s, pid);
}

static void ops_poll(void *s)
{
	hwb_src_poll(s);
}

static void ops_stop(void *s)
{
	hwb_src_stop(s);
}

static int ops_running(const void *s)
{
	return hwb_src_running(s);
}

static void ops_close(void *s)
{
	hwb_src_close(s);
}

static const char *ops_backend(const void *s)
{
	return hwb_src_name(s);
}

static const char *ops_from(const char *backend)
{
	return !strcmp(backend, "file") ? "the perf records of " UT_HWB_RECORDS_ENV :
					  "perf_event_open branch-stack sampling";
}

/* the hw-branch tracer's (UT_NEED_SRC_HWBRANCH in its tracers.def row): no event system */
const struct src_ops hwb_source = {
	.name		= "hw-branch",
	.need		= UT_NEED_SRC_HWBRANCH,
	.open		= ops_open,
	.follow		= ops_follow,
	.poll		= ops_poll,
	.stop		= ops_stop,
	.running	= ops_running,
	.close		= ops_close,
	.backend	= ops_backend,
	.from		= ops_from,
};
