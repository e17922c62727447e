/* SPDX-License-Identifier: MIT */
/*
 * usertrace/irqflags.h - "interrupts off" sections for the irqsoff and
 * preemptirqsoff tracers, in the kernel's names (C and C++; installed):
 *
 *   local_irq_disable()         a section begins (the kernel's cli)
 *   local_irq_enable()          it ends
 *   local_irq_save(flags)       flags = the state, then disable
 *   local_irq_restore(flags)    back to the state saved
 *   irqs_disabled()             1 inside such a section, a signal
 *                               handler, or with signals blocked
 *
 * For runtimes with interrupts of their own (an emulator's interrupt
 * flag, a green-thread scheduler's timer tick) whose sections should be
 * measured as the kernel measures cli/sti.  They mark the section only:
 * they do not block signals (sigprocmask() does, and the tracers see it
 * too).  Not nested: one disable, then one enable, as in the kernel.
 * Without usertrace they do nothing and irqs_disabled() is 0.
 */
#ifndef USERTRACE_IRQFLAGS_H
#define USERTRACE_IRQFLAGS_H

#include "tracing.h"

#ifdef __cplusplus
extern "C" {
#endif

static __ut_notrace __attribute__((noinline, unused)) void local_irq_disable(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	if (o)
		o->irq_disable(__ut_this_ip());
	__ut_no_tail_call();
}

static __ut_notrace __attribute__((noinline, unused)) void local_irq_enable(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	if (o)
		o->irq_enable(__ut_this_ip());
	__ut_no_tail_call();
}

static __ut_notrace __attribute__((noinline, unused)) unsigned long __ut_irq_save(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);
	unsigned long f = o ? o->irq_save(__ut_this_ip()) : 0;

	__ut_no_tail_call();
	return f;
}

static __ut_notrace __attribute__((noinline, unused)) void __ut_irq_restore(unsigned long f)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	if (o)
		o->irq_restore(__ut_this_ip(), f);
	__ut_no_tail_call();
}

static inline __ut_notrace int irqs_disabled(void)
{
	const struct ut_api_ops *o = __ut_api_v(2);

	return o ? o->irqs_disabled() : 0;
}

#define local_irq_save(flags)		do { (flags) = __ut_irq_save(); } while (0)
#define local_irq_restore(flags)	__ut_irq_restore(flags)

#ifdef __cplusplus
}
#endif

#endif /* USERTRACE_IRQFLAGS_H */
