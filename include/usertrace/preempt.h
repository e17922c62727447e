/* SPDX-License-Identifier: MIT */
/*
 * usertrace/preempt.h - "preemption off" sections for the preemptoff
 * and preemptirqsoff tracers, in the kernel's names (C and C++;
 * installed):
 *
 *   preempt_disable()    the depth goes up: a section begins at 1
 *   preempt_enable()     the depth goes down: it ends at 0
 *   preempt_count()      the depth (pthread spin locks held count too)
 *
 * For user-space schedulers and real-time loops: code that must not be
 * descheduled, or is measured as if.  The kernel cannot be told not to
 * preempt a thread; the calls mark and measure the section, and the
 * depth is the preempt-depth column of the latency format.  Held
 * pthread spin locks count as one level each, as the kernel's spin_lock
 * disables preemption (doc/design/latency.md).  Without usertrace they
 * do nothing and preempt_count() is 0.
 */
#ifndef USERTRACE_PREEMPT_H
#define USERTRACE_PREEMPT_H

#include "tracing.h"

#ifdef __cplusplus
extern "C" {
#endif

static __ut_notrace __attribute__((noinline, unused)) void preempt_disable(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	if (o)
		o->preempt_disable(__ut_this_ip());
	__ut_no_tail_call();
}

static __ut_notrace __attribute__((noinline, unused)) void preempt_enable(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	if (o)
		o->preempt_enable(__ut_this_ip());
	__ut_no_tail_call();
}

static inline __ut_notrace int preempt_count(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	return o ? o->preempt_count() : 0;
}

#ifdef __cplusplus
}
#endif

#endif /* USERTRACE_PREEMPT_H */
