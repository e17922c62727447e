// SPDX-License-Identifier: MIT
/*
 * live_marker.c - trace_marker: each directory (the session's, an
 * instance's) has a ring of its own, LIVE_MARKER_RING, written here
 * (overwrite mode, the directory's buffer size): every marker is a DATA
 * record (ftrace:print), read, consumed, cleared and overwritten as the
 * threads' events are.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracefs/live_int.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "utils/utils.h"

struct live_marker {
	char dir[PATH_MAX];
	char path[PATH_MAX + 32];	/* the ring in use; "" before the first marker */
	char old[PATH_MAX + 32];	/* the one a resize replaced, still readable */
	uint32_t nr_pages;
	unsigned gen;
	int tsc;			/* the session's clock is the TSC */
	int open;
	struct rb_writer w;
};

struct live_marker *live_marker_open(const char *session_dir, const char *dir, uint32_t nr_pages)
{
	struct live_marker *m;
	int clock = live_session_clock(session_dir);

	if (clock < 0 || nr_pages < 2) {
		errno = clock < 0 ? -clock : EINVAL;
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	snprintf(m->dir, sizeof(m->dir), "%s", dir);
	m->nr_pages = nr_pages;
	m->tsc = clock == UT_CLOCK_TSC;
	return m;
}

static void marker_ring_close(struct live_marker *m)
{
	if (!m->open)
		return;
	rb_writer_close(&m->w);
	munmap(m->w.hdr, rb_file_size(m->w.hdr->nr_pages));
	m->open = 0;
}

/* the ring, made at the first marker (and after a resize); -errno */
static int marker_ring_open(struct live_marker *m, uint64_t now)
{
	struct rb_header *h;
	int ret;

	if (m->open)
		return 0;
	if (m->gen)
		snprintf(m->path, sizeof(m->path), "%s/%s.%u", m->dir, LIVE_MARKER_RING, m->gen);
	else
		snprintf(m->path, sizeof(m->path), "%s/%s", m->dir, LIVE_MARKER_RING);
	ret = rb_create(m->path, m->nr_pages, RB_MODE_OVERWRITE, &h);
	if (ret < 0)
		return ret < -1 ? ret : -EIO;
	h->pid = h->tid = (int32_t)getpid();
	snprintf(h->comm, sizeof(h->comm), "trace_marker");
	m->w.cpu = (uint32_t)sched_getcpu();
	rb_writer_init(&m->w, h, now);
	m->open = 1;
	return 0;
}

int live_marker_write(struct live_marker *m, const void *text, size_t len)
{
	uint64_t ts;
	uint32_t cpu;
	int ret, c;

	if (len > LIVE_MARKER_MAX)
		len = LIVE_MARKER_MAX;
	ts = m->tsc ? ut_rdtsc() : ut_mono_ns();
	ret = marker_ring_open(m, ts);
	if (ret)
		return ret;
	c = sched_getcpu();
	cpu = c < 0 ? 0 : (uint32_t)c;
	ut_rec_write_cpu(&m->w, ts, cpu);
	if (!ut_rec_write_bytes(&m->w, UT_REC_DATA, ts, text, (uint32_t)len))
		return -EBADF;	/* as a ring buffer that takes nothing */
	return 0;
}

uint64_t live_marker_last_ts(const struct live_marker *m)
{
	return m && m->w.hdr ? m->w.last_ts : 0;
}

void live_marker_resize(struct live_marker *m, uint32_t nr_pages)
{
	if (nr_pages < 2 || nr_pages == m->nr_pages)
		return;
	m->nr_pages = nr_pages;
	if (!m->open)
		return;
	/* the ring a former resize replaced goes; the current one stays readable */
	if (m->old[0])
		unlink(m->old);
	snprintf(m->old, sizeof(m->old), "%s", m->path);
	marker_ring_close(m);
	m->gen++;
}

void live_marker_close(struct live_marker *m)
{
	if (!m)
		return;
	marker_ring_close(m);
	free(m);
}
