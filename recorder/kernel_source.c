// SPDX-License-Identifier: MIT
/* kernel_source.c - what the recorder's kernel event sources share (kernel_source.h) */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "recorder/kernel_source.h"
#include "recorder/sched_source.h"
#include "lib/event/switch.h"
#include "lib/event/trigger.h"
#include "usertrace/session.h"
#include "utils/utils.h"

int kev_slot(const struct ut_evreg *reg, const char *sys, const char *name, uint32_t *slot)
{
	uint32_t s[4];

	if (ut_evreg_find(reg, sys, name, s, 4) < 1)
		return 0;
	*slot = s[0];
	return 1;
}

int kev_recorded(const struct ut_evreg *reg, uint32_t slot)
{
	uint32_t st = __atomic_load_n(&reg->slots[slot].state, __ATOMIC_ACQUIRE);

	return (st & UT_EVS_RECORD) && !(st & UT_EVS_FILTER_ERR);
}

void kev_clock_init(struct kev_clock *c, int clock)
{
	c->tsc = clock == UT_CLOCK_TSC;
	ut_calibrate(&c->tsc_a, &c->mono_a);
	c->tsc_b = c->tsc_a;
	c->mono_b = c->mono_a;
}

void kev_clock_update(struct kev_clock *c)
{
	ut_calibrate(&c->tsc_b, &c->mono_b);
}

uint64_t kev_clock_start(const struct kev_clock *c)
{
	return c->tsc ? c->tsc_a : c->mono_a;
}

uint64_t kev_clock_time(const struct kev_clock *c, uint64_t mono)
{
	long double rate;

	if (!c->tsc)
		return mono;
	if (c->mono_b <= c->mono_a)
		return c->tsc_b;
	rate = (long double)(c->tsc_b - c->tsc_a) / (long double)(c->mono_b - c->mono_a);
	return (uint64_t)((long double)c->tsc_b - (long double)((int64_t)(c->mono_b - mono)) * rate);
}

struct kev_out *kev_out_get(struct kev_outs *o, const struct kev_clock *clk, int pid, int tid,
			    int *made)
{
	char path[4200];
	struct rb_header *h;
	struct kev_out *t;
	int err;

	if (made)
		*made = 0;
	for (int i = 0; i < o->nr; i++)
		if (o->outs[i]->tid == tid)
			return o->outs[i]->failed ? NULL : o->outs[i];
	if (o->nr == KEV_TASKS_MAX)
		return NULL;
	t = xcalloc(1, sizeof(*t));
	o->outs[o->nr++] = t;
	t->tid = tid;
	t->pid = pid ? pid : sched_tgid_of(tid);
	snprintf(path, sizeof(path), "%s/buf.%d.%d.%d", o->session, t->pid, tid, o->image);
	err = rb_create(path, o->pages, (enum rb_mode)o->mode, &h);
	if (err) {
		pr_warn("%s: cannot create %s: %s", o->what, path, strerror(err < -1 ? -err : EIO));
		t->failed = 1;
		return NULL;
	}
	h->pid = t->pid;
	h->tid = tid;
	h->image = (uint64_t)o->image;
	h->flags |= RB_HDR_AUX;
	sched_comm_of(t->pid, tid, h->comm);
	t->w.cpu = ~0u;
	/* from the start: no record of the source is older */
	rb_writer_init(&t->w, h, kev_clock_start(clk));
	if (made)
		*made = 1;
	return t;
}

void kev_outs_close(struct kev_outs *o)
{
	for (int i = 0; i < o->nr; i++) {
		struct kev_out *t = o->outs[i];

		if (!t->failed) {
			rb_writer_close(&t->w);
			munmap(t->w.hdr, rb_file_size(t->w.hdr->nr_pages));
		}
		free(t);
	}
	o->nr = 0;
}

void kev_perf_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->watermark = 1;
	a->wakeup_watermark = 1u << 30;
}

void kev_perf_read(void *ring, unsigned char *rec, size_t size,
		   void (*fn)(unsigned char *rec, size_t len, void *arg), void *arg)
{
	struct perf_event_mmap_page *m = ring;
	unsigned char *data;
	uint64_t head, tail, dsize;

	if (!m)
		return;
	data = (unsigned char *)m + m->data_offset;
	dsize = m->data_size;
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = m->data_tail;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header ph;

		for (size_t i = 0; i < sizeof(ph); i++)
			((unsigned char *)&ph)[i] = data[(tail + i) % dsize];
		if (ph.size < sizeof(ph) || tail + ph.size > head)
			break;
		if (ph.size <= size) {
			for (size_t i = 0; i < ph.size; i++)
				rec[i] = data[(tail + i) % dsize];
			fn(rec, ph.size, arg);
		}
		tail += ph.size;
	}
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
}

int kev_live(const struct ut_evreg *reg, uint32_t slot)
{
	uint32_t st = __atomic_load_n(&reg->slots[slot].state, __ATOMIC_ACQUIRE);

	return (st & UT_EVS_LIVE) && !(st & UT_EVS_FILTER_ERR);
}

int kev_wanted_live(const struct ut_evreg *reg, const char *sys, const char *const *names, int n)
{
	uint32_t slot;

	for (int i = 0; i < n; i++)
		if (kev_slot(reg, sys, names[i], &slot) && kev_live(reg, slot))
			return 1;
	return 0;
}

/* ---- the triggers of the sources' events, as runtime/triggers.c runs the programs' ---- */

/* the session's time now, for a change logged for the tracing directory (lib/event/switch.h) */
static uint64_t clock_now(const void *arg)
{
	struct timespec ts;
	uint64_t mono;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return kev_clock_time(arg, mono);
}

static void trig_run(const struct kev_trig *k, uint32_t slot, const void *ent, uint32_t size,
		     struct ut_evf_ctx *ctx, int after)
{
	struct ut_evreg *r = k->reg;

	for (int i = 0; i < UT_EVREG_TRIGS; i++) {
		struct ut_evreg_trig *t = &r->trigs[slot][i];
		uint32_t cmd = __atomic_load_n(&t->cmd, __ATOMIC_ACQUIRE);
		struct ut_evreg_dir *d = NULL;

		if (!cmd || __atomic_load_n(&t->after, __ATOMIC_RELAXED) != after)
			continue;
		if (t->filter) {
			if (t->filter > UT_EVREG_PROGS ||
			    !ut_evfilter_match(&r->progs[t->filter - 1].f, ent, size, ctx))
				continue;
		}
		if (t->dir) {
			if (t->dir >= UT_EVREG_DIRS)
				continue;
			d = &r->dirs[t->dir];
		}
		switch (cmd - 1) {
		case UT_TRIG_TRACEON:
		case UT_TRIG_TRACEOFF:
			if (d)
				ut_sw_dir(d, cmd - 1 == UT_TRIG_TRACEON, &t->count, clock_now, k->clk);
			else
				ut_sw_top(r, k->on, cmd - 1 == UT_TRIG_TRACEON, &t->count, clock_now,
					  k->clk);
			break;
		case UT_TRIG_SNAPSHOT:
			if (ut_take_run(&t->count))
				ut_sw_snapshot(d ? d : &r->dirs[0], d ? &d->snapshot_req : &r->snapshot_req,
					       clock_now, k->clk);
			break;
		case UT_TRIG_ENABLE_EVENT:
		case UT_TRIG_DISABLE_EVENT:
			if (d)
				ut_sw_dir_soft(r, d, t->target, cmd - 1 == UT_TRIG_ENABLE_EVENT,
					       &t->count, clock_now, k->clk);
			else
				ut_sw_soft(r, t->target, cmd - 1 == UT_TRIG_ENABLE_EVENT, &t->count);
			break;
		default:
			/* stacktrace: the tracing directory refuses it on these events */
			break;
		}
	}
}

int kev_event_begin(const struct kev_trig *k, uint32_t slot, const void *ent, uint32_t size,
		    struct ut_evf_ctx *ctx, uint32_t *state)
{
	struct ut_evreg *r = k->reg;
	uint32_t st;

	if (slot >= UT_EVREG_SLOTS)
		return 0;
	st = __atomic_load_n(&r->slots[slot].state, __ATOMIC_RELAXED);
	if (st & UT_EVS_TRIGGERS) {
		trig_run(k, slot, ent, size, ctx, 0);
		/* a trigger may have switched this very event */
		st = __atomic_load_n(&r->slots[slot].state, __ATOMIC_RELAXED);
	}
	*state = st;
	if (st & UT_EVS_FILTER_ERR)
		return 0;
	return (st & UT_EVS_OTHERS) ||
	       ((st & (UT_EVS_RECORD | UT_EVS_SOFT_MODE)) && !(st & UT_EVS_SOFT_DISABLED)) ||
	       ((st & UT_EVS_INST_SOFT) && __atomic_load_n(&r->soft_on[slot], __ATOMIC_RELAXED) > 0);
}

void kev_event_end(const struct kev_trig *k, uint32_t slot, const void *ent, uint32_t size,
		   struct ut_evf_ctx *ctx, uint32_t state)
{
	if (slot < UT_EVREG_SLOTS && (state & UT_EVS_TRIG_AFTER))
		trig_run(k, slot, ent, size, ctx, 1);
}
