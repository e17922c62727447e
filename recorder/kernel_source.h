/* SPDX-License-Identifier: MIT */
/*
 * kernel_source.h - what the recorder's sources of kernel events share (the
 * sched events, recorder/sched_source.c; the power events, recorder/power_source.c):
 * whether the session records an event, the session's clock for times
 * the kernel stamps in CLOCK_MONOTONIC nanoseconds, and the ring buffers
 * the events go into, one per task.
 */
#ifndef UT_CMDS_KEVSRC_H
#define UT_CMDS_KEVSRC_H

#include <stdint.h>

#include "usertrace/evreg.h"
#include "usertrace/ringbuf.h"

/* @sys:@name's registry slot in *@slot: 1, or 0 when not registered */
int kev_slot(const struct ut_evreg *reg, const char *sys, const char *name, uint32_t *slot);
/* is the event of @slot recorded (enabled, its filter sound)? */
int kev_recorded(const struct ut_evreg *reg, uint32_t slot);
/*
 * is the event of @slot live (recorded, held in soft mode by a trigger,
 * or with triggers of its own, UT_EVS_LIVE), as a program's tracepoint
 * is?  The source then collects it: its triggers run whether it is
 * written or not.
 */
int kev_live(const struct ut_evreg *reg, uint32_t slot);
/* is any of the @n events @names of system @sys live? */
int kev_wanted_live(const struct ut_evreg *reg, const char *sys, const char *const *names, int n);

/*
 * The triggers of a source's events (events/SYS/EVENT/trigger), run as a
 * program runs those of its tracepoints (runtime/triggers.c): traceon,
 * traceoff, snapshot, enable_event and disable_event, of the top and of
 * the instances, with their `if`.  stacktrace is refused by the tracing
 * directory on these events (the task's stack is not the source's to take).
 */
struct kev_trig {
	struct ut_evreg *reg;
	const struct kev_clock *clk;
	volatile uint32_t *on;		/* the session's tracing_on; NULL: none (record) */
};

/*
 * kev_event_begin - event @slot's entry @ent (@size bytes, common fields
 * set) seen: its triggers that run before the write, then whether it is
 * to be written (1) as the switches say (its filter and tracing_on are
 * the caller's).  *@state is for kev_event_end().
 */
int kev_event_begin(const struct kev_trig *k, uint32_t slot, const void *ent, uint32_t size,
		    struct ut_evf_ctx *ctx, uint32_t *state);
/* after the write (done or not): the triggers that run after it */
void kev_event_end(const struct kev_trig *k, uint32_t slot, const void *ent, uint32_t size,
		   struct ut_evf_ctx *ctx, uint32_t state);

/*
 * The session's clock (enum ut_clock): the monotonic time itself, or
 * the TSC, reached by the rate between a calibration at the start (a)
 * and the latest one (b).
 */
struct kev_clock {
	int tsc;
	uint64_t tsc_a, mono_a;
	uint64_t tsc_b, mono_b;
};

void kev_clock_init(struct kev_clock *c, int clock);
/* a new latest calibration (at each poll) */
void kev_clock_update(struct kev_clock *c);
/* the start, in the session's clock (a ring buffer's first time) */
uint64_t kev_clock_start(const struct kev_clock *c);
/* a CLOCK_MONOTONIC time in the session's clock */
uint64_t kev_clock_time(const struct kev_clock *c, uint64_t mono);

/*
 * A source's buffers: SESSION/buf.<pid>.<tid>.<image>, one per task its
 * events are of (the recorder saves them as any thread's), made at the
 * task's first event with the task's name.
 */
#define KEV_TASKS_MAX	4096

struct kev_out {
	int pid, tid;
	int prio;		/* the sched source's: the task's priority when made */
	struct rb_writer w;
	int failed;		/* could not be made: its events are dropped */
};

struct kev_outs {
	const char *session;
	const char *what;	/* the source, for messages ("sched events") */
	int image;		/* the buffers' image number: the source's own */
	uint32_t pages;		/* each buffer's pages */
	int mode;		/* enum rb_mode */
	struct kev_out *outs[KEV_TASKS_MAX];
	int nr;
};

/*
 * kev_out_get - the buffer of task @tid (of process @pid, or 0: looked
 * up), made now if it is new (*@made set, when @made is given), starting
 * at @clk's start.  NULL when it could not be made (said once) or there
 * are too many.
 */
struct kev_out *kev_out_get(struct kev_outs *o, const struct kev_clock *clk, int pid, int tid,
			    int *made);
/* close and unmap every buffer (the recorder then reads them as files) */
void kev_outs_close(struct kev_outs *o);

struct perf_event_attr;

/*
 * kev_perf_attr - @a cleared, then what every source's perf event has:
 * the user side only, inherited by the threads and children made later,
 * CLOCK_MONOTONIC times, and a ring the recorder polls (never a wake-up)
 */
void kev_perf_attr(struct perf_event_attr *a);

/*
 * kev_perf_read - the records now in a perf ring (a struct
 * perf_event_mmap_page, NULL: none), oldest first, each copied whole
 * (it may wrap) into @rec of @size bytes and given to @fn with its
 * header; a record longer than @size is passed over.  The ring's tail
 * then moves past them.
 */
void kev_perf_read(void *ring, unsigned char *rec, size_t size,
		   void (*fn)(unsigned char *rec, size_t len, void *arg), void *arg);

#endif
