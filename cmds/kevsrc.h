/* SPDX-License-Identifier: MIT */
/*
 * kevsrc.h - what the recorder's sources of kernel events share (the
 * sched events, cmds/schedsrc.c; the power events, cmds/powersrc.c):
 * whether the session records an event, and the session's clock for
 * times the kernel stamps in CLOCK_MONOTONIC nanoseconds.
 */
#ifndef UT_CMDS_KEVSRC_H
#define UT_CMDS_KEVSRC_H

#include <stdint.h>

#include "usertrace/evreg.h"

/* @sys:@name's registry slot in *@slot: 1, or 0 when not registered */
int kev_slot(const struct ut_evreg *reg, const char *sys, const char *name, uint32_t *slot);
/* is the event of @slot recorded (enabled, its filter sound)? */
int kev_recorded(const struct ut_evreg *reg, uint32_t slot);
/* is any of the @n events @names of system @sys recorded? */
int kev_wanted(const struct ut_evreg *reg, const char *sys, const char *const *names, int n);

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

#endif
