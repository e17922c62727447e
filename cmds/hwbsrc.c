// SPDX-License-Identifier: MIT
/*
 * hwbsrc.c - the hw-branch tracer's recorder side (see hwbsrc.h): perf
 * branch-stack samples of the traced threads, decoded by lib/trace's
 * hwb_decode(), written as ftrace:hw_branch entries with the session's
 * clock (cmds/kevsrc.h).  Modelled on the perf source of the sched
 * events (cmds/schedsrc.c), whose /proc helpers it shares.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cmds/hwbsrc.h"
#include "cmds/kevsrc.h"
#include "cmds/schedsrc.h"
#include "lib/trace/hwbranch.h"
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

struct hwb_src {
	char session[4096];
	pid_t pid;			/* the program */
	struct kev_clock clk;		/* the session's clock for perf's monotonic times */
	const char *file;		/* UT_HWB_RECORDS_ENV's, read at the first poll */
	int ncpu;
	int *fd;
	void **ring;
	struct kev_outs outs;		/* the threads' buffers */
	unsigned long long written, lost;
};

/* one branch: an ftrace:hw_branch entry in its thread's buffer */
static int put_branch(const struct hwb_branch *b, void *arg)
{
	struct hwb_src *s = arg;
	struct ut_ftrace_hw_branch e;
	int pid = b->pid ? (int)b->pid : (int)s->pid, tid = b->tid ? (int)b->tid : pid;
	uint64_t ts = kev_clock_time(&s->clk, b->time ? b->time : ut_mono_ns());
	uint16_t n16 = sizeof(e);
	uint32_t hdr, c = b->cpu;
	unsigned char *p;
	struct kev_out *o;

	if (!(o = kev_out_get(&s->outs, &s->clk, pid, tid, NULL)))
		return 0;
	memset(&e, 0, sizeof(e));
	e.ent.type = UT_EVENT_ID_HW_BRANCH;
	e.ent.pid = tid;
	e.from = b->from;
	e.to = b->to;
	if (c != o->w.cpu) {
		o->w.cpu = c;
		if ((p = rb_reserve(&o->w, 8, &ts))) {
			hdr = RB_HDR(UT_REC_CPU, ts - o->w.last_ts);
			memcpy(p, &hdr, 4);
			memcpy(p + 4, &c, 4);
			rb_commit(&o->w, 8, ts, ut_rec_counts(UT_REC_CPU));
		}
	}
	if (!(p = rb_reserve(&o->w, 6 + sizeof(e), &ts))) {
		s->lost++;
		return 0;
	}
	hdr = RB_HDR(UT_REC_EVENT, ts - o->w.last_ts);
	memcpy(p, &hdr, 4);
	memcpy(p + 4, &n16, 2);
	memcpy(p + 6, &e, sizeof(e));
	rb_commit(&o->w, 6 + sizeof(e), ts, ut_rec_counts(UT_REC_EVENT));
	s->written++;
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

static void read_ring(struct hwb_src *s, int c)
{
	unsigned char rec[8192];

	kev_perf_read(s->ring[c], rec, sizeof(rec), ring_rec, s);
}

/* one inherited branch-stack sampling event per CPU for @pid: 0, or -1 (said) */
static int perf_setup(struct hwb_src *s)
{
	struct perf_event_attr a;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int opened = 0;

	s->ncpu = n > 0 ? (int)n : 1;
	s->fd = xcalloc((size_t)s->ncpu, sizeof(*s->fd));
	s->ring = xcalloc((size_t)s->ncpu, sizeof(*s->ring));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = SAMPLE_PERIOD;
	a.sample_type = SAMPLE_TYPE;
	a.branch_sample_type = BRANCH_TYPE;
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = 1u << 30;	/* the recorder polls; never woken */
	for (int c = 0; c < s->ncpu; c++) {
		s->fd[c] = (int)syscall(SYS_perf_event_open, &a, s->pid, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (s->fd[c] < 0) {
			int err = errno;

			s->fd[c] = -1;
			if (err == ENODEV || err == EINVAL)	/* an offline CPU */
				continue;
			if (err == EACCES || err == EPERM)
				pr_warn("hw-branch: perf_event_open: %s (perf_event_paranoid is %d); "
					"no branches are recorded", strerror(err), sched_perf_paranoid());
			else
				pr_warn("hw-branch: perf_event_open of branch-stack sampling: %s; "
					"no branches are recorded", strerror(err));
			return -1;
		}
		s->ring[c] = mmap(NULL, (size_t)(1 + PERF_PAGES) * 4096, PROT_READ | PROT_WRITE,
				  MAP_SHARED, s->fd[c], 0);
		if (s->ring[c] == MAP_FAILED) {
			s->ring[c] = NULL;
			pr_warn("hw-branch: mmap of the perf buffer: %s; no branches are recorded",
				strerror(errno));
			return -1;
		}
		opened++;
	}
	if (!opened) {
		pr_warn("hw-branch: perf_event_open: no CPU took the event; no branches are recorded");
		return -1;
	}
	return 0;
}

static void perf_release(struct hwb_src *s)
{
	for (int c = 0; s->fd && c < s->ncpu; c++) {
		if (s->ring[c])
			munmap(s->ring[c], (size_t)(1 + PERF_PAGES) * 4096);
		s->ring[c] = NULL;
		if (s->fd[c] >= 0)
			close(s->fd[c]);
		s->fd[c] = -1;
	}
}

struct hwb_src *hwb_src_open(const char *session, int clock, pid_t pid)
{
	char why[256];
	enum hwb_source src = hwb_probe(why, sizeof(why));
	struct hwb_src *s;

	if (src == HWB_NONE) {
		pr_warn("hw-branch: not available: %s", why);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	snprintf(s->session, sizeof(s->session), "%s", session);
	s->outs.session = s->session;
	s->outs.what = "hw-branch";
	s->outs.image = UT_HWB_IMAGE;
	s->outs.pages = OUT_PAGES;
	s->outs.mode = RB_MODE_CONSUMER;
	s->pid = pid;
	kev_clock_init(&s->clk, clock);
	if (src == HWB_FILE) {
		s->file = getenv(UT_HWB_RECORDS_ENV);
		return s;
	}
	/*
	 * intel_bts and intel_pt write an AUX area whose data is not
	 * decoded here: their CPUs have LBR, sampled as branch stacks
	 */
	if (perf_setup(s) < 0) {
		hwb_src_close(s);
		return NULL;
	}
	return s;
}

const char *hwb_src_name(const struct hwb_src *s)
{
	return s->fd ? "branch-stack" : "file";
}

void hwb_src_poll(struct hwb_src *s)
{
	if (!s)
		return;
	kev_clock_update(&s->clk);
	if (s->file)
		read_records(s);
	for (int c = 0; s->ring && c < s->ncpu; c++)
		read_ring(s, c);
}

void hwb_src_close(struct hwb_src *s)
{
	if (!s)
		return;
	hwb_src_poll(s);
	perf_release(s);
	if (s->lost)
		pr_warn("hw-branch: %llu branch samples or entries lost (the buffers were full)",
			s->lost);
	kev_outs_close(&s->outs);
	free(s->fd);
	free(s->ring);
	free(s);
}
