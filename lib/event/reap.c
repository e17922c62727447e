// SPDX-License-Identifier: MIT
/*
 * reap.c - sched:sched_process_exit for threads that could not write it:
 * their process died of a signal (SIGKILL included), or another thread's
 * exit() or exec ended them with no code of theirs running.  The kernel
 * writes the event in do_exit(), which every dying thread runs; in user
 * space the process that sees the death (the recorder, which is every
 * traced process's subreaper) writes it for the thread, into the
 * thread's own buffer, after its last record.
 *
 * A thread that wrote its own end (runtime/sched.c: exit, _exit, the end
 * of a thread) set RB_HDR_ENDED, or closed its buffer; the others get
 * the event, when it is recorded and its filter passes it: comm from the
 * buffer header (the runtime keeps it up to date at renames), prio from
 * /proc while the task is still there, else the caller's last look at
 * it.  group_dead is true for one thread of the process, the thread
 * group leader if it is among them, unless a thread's own event said so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/event/builtin.h"
#include "lib/event/evfilter.h"
#include "lib/event/reap.h"
#include "usertrace/event.h"
#include "usertrace/record.h"

/* the kernel's prio of thread @tid of @pid from /proc (field 18 is prio - 100); -1 if gone */
int ut_reap_prio(pid_t pid, pid_t tid)
{
	char path[64], buf[1024], *p;
	int fd, field = 2;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* the name may hold blanks and parentheses: count from the last ')' */
	if (!(p = strrchr(buf, ')')))
		return -1;
	while (*p && field < 18)
		if (*p++ == ' ')
			field++;
	if (!*p)
		return -1;
	return (int)strtol(p, NULL, 10) + 100;
}

/* the time of the page the writer was on: the latest of its image */
static uint64_t head_time(const struct rb_header *h)
{
	return rb_page_slot((struct rb_header *)h, h->head)->ts;
}

/*
 * Another process claimed the buffer (the waiting parent, or the
 * recorder): let it finish, so that what is saved next has its event.
 * A few microseconds; 100 ms at most (it may have died meanwhile).
 */
static void wait_closed(const struct rb_header *h)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 1000; i++) {
		if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED)
			return;
		nanosleep(&ts, NULL);
	}
}

static void no_fill(struct ut_evf_ctx *ctx, unsigned needs)
{
	(void)ctx;
	(void)needs;
}

/* write the entry @ent of @size bytes at @ts after the last record of @h; 1 if written */
static int append(struct rb_header *h, struct ut_trace_entry *ent, uint32_t size, uint64_t ts)
{
	struct rb_writer w;

	if (rb_writer_adopt(&w, h, ut_rec_len) < 0)
		return 0;
	return ut_rec_write_event(&w, ts, ent, size);
}

int ut_reap_exit(const struct ut_evreg *reg, int tracing_on, struct ut_reap_thread *t, int n,
		 uint64_t (*now)(void))
{
	uint64_t image = 0, latest = 0;
	int have_image = 0;
	uint32_t slot[4];
	int written = 0, leader = -1, last = -1, own_group = 0, nslots, dead_at;

	if (!n)
		return 0;
	/* threads of earlier images ended at an exec: the last image's are the process's */
	for (int i = 0; i < n; i++) {
		uint64_t at = head_time(t[i].h);

		/* the sched events' buffers (recorder/sched_source.c): their writer is the recorder or daemon */
		if (__atomic_load_n(&t[i].h->flags, __ATOMIC_ACQUIRE) & RB_HDR_AUX)
			continue;
		if (!have_image || at > latest) {
			have_image = 1;
			latest = at;
			image = t[i].h->image;
		}
	}
	for (int i = 0; i < n; i++) {
		struct rb_header *h = t[i].h;
		uint32_t fl;

		t[i].reap = 0;
		if (h->image != image || (__atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & RB_HDR_AUX))
			continue;
		fl = __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE);
		if (fl & RB_HDR_ENDED)
			own_group = 1;	/* exit() and _exit() write group_dead themselves */
		if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED ||
		    (fl & RB_HDR_ENDED))
			continue;
		/* the first to set REAPED writes the end */
		if (__atomic_fetch_or(&h->flags, RB_HDR_REAPED, __ATOMIC_ACQ_REL) &
		    (RB_HDR_ENDED | RB_HDR_REAPED)) {
			wait_closed(h);
			continue;
		}
		t[i].reap = 1;
		if (h->tid == h->pid)
			leader = i;
		if (last < 0 || h->tid > t[last].h->tid)
			last = i;
	}
	nslots = reg ? ut_evreg_find(reg, "sched", "sched_process_exit", slot, 4) : 0;
	dead_at = own_group ? n : leader >= 0 ? leader : last >= 0 ? last : n;
	/* the process's last thread last, as its group_dead says */
	for (int k = 0; k < n; k++) {
		int i = k < dead_at ? k : k == n - 1 ? dead_at : k + 1;
		union {
			struct ut_trace_entry ent;
			char bytes[UT_EVENT_MAX];
		} u;
		struct rb_header *h = t[i].h;
		int dead = i == dead_at, prio;
		uint32_t size, st;
		char comm[16];

		if (!t[i].reap)
			continue;
		if (tracing_on && nslots > 0) {
			st = __atomic_load_n(&reg->slots[slot[0]].state, __ATOMIC_ACQUIRE);
			memcpy(comm, h->comm, 15);
			comm[15] = 0;
			prio = ut_reap_prio(h->pid, h->tid);
			if (prio < 0)
				prio = t[i].prio > 0 ? t[i].prio : 120;
			size = ut_builtin_exit_entry(&u, comm, h->tid, prio, dead);
			u.ent.type = UT_EVREG_ID(slot[0]);
			if ((st & (UT_EVS_RECORD | UT_EVS_SOFT_MODE)) && !(st & UT_EVS_SOFT_DISABLED)) {
				struct ut_evf_ctx ctx = { (int)rb_page_slot(h, h->head)->cpu, comm, NULL };

				if (ut_evreg_filter_match(reg, slot[0], &u.ent, size, &ctx, no_fill))
					written += append(h, &u.ent, size, now());
			}
		}
		__atomic_store_n(&h->state, RB_STATE_CLOSED, __ATOMIC_RELEASE);
	}
	return written;
}
