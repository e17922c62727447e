/* SPDX-License-Identifier: MIT */
/*
 * latency.h - what the latency tracers share (irqsoff, preemptoff,
 * preemptirqsoff: tracers/irqsoff.c; wakeup, wakeup_rt: tracers/wakeup.c):
 * a thread's sections and the context its records last stated, the gate
 * on calls, and the entry points of the generic code that feeds them
 * (signal handlers, longjmp, the irqflags.h and preempt.h API).
 * Included by runtime.h for its union ut_tracer_thread.
 */
#ifndef USERTRACE_RT_LATENCY_H
#define USERTRACE_RT_LATENCY_H

#include <signal.h>
#include <stdint.h>

/* a thread's sections (union ut_tracer_thread's lat) */
#define UT_LAT_HANDLERS	8	/* nested handlers whose frames are known */
enum { UT_LAT_IRQ = 1, UT_LAT_PREEMPT = 2 };

struct ut_lat {
	uint64_t mask;		/* the signal mask, as the wrappers saw it set */
	uint64_t base;		/* the mask when first seen: its signals open no section */
	uint64_t start;		/* the open section's start (clock); 0: not measured */
	uint64_t start_ip;	/* where it started (the disabling call's caller) */
	uint32_t known;		/* mask and base are read */
	uint32_t api_irq;	/* local_irq_disable() */
	uint32_t preempt;	/* preempt_disable() depth, spin locks held */
	uint32_t hardirq;	/* signal handlers running */
	uint32_t open;		/* a section is open */
	uint32_t resched;	/* a blocked signal waits for the section's end */
	uint8_t wctx, wpreempt;	/* the context the records last stated */
	uintptr_t hsp[UT_LAT_HANDLERS];	/* the handlers' frames */
};

/* the sections, the gate, the wrappers the generic code calls */
extern int ut_lat_mode;		/* UT_LAT_*: the sections measured; 0: none */
extern int ut_lat_gate;		/* 1: calls only inside a section; 2: none */
void ut_lat_resolve(void);
/*
 * The latency and wakeup tracers' gate: tracer @t joins (@on, measuring
 * @sections, UT_LAT_*) or leaves; their apply hook is ut_lat_apply().
 */
struct ut_rt_tracer;
void ut_lat_join(const struct ut_rt_tracer *t, int sections, int on);
void ut_lat_apply(void);
int ut_lat_handler_enter(int sig, uint64_t sa_mask, unsigned long flags, void *h, void *uc);
void ut_lat_handler_exit(void *h, void *uc);
void ut_lat_longjmp(uintptr_t sp, const sigset_t *mask, uintptr_t ip);
void ut_api_irq_disable(uintptr_t parent);
void ut_api_irq_enable(uintptr_t parent);
unsigned long ut_api_irq_save(uintptr_t parent);
void ut_api_irq_restore(uintptr_t parent, unsigned long flags);
int ut_api_irqs_disabled(void);
void ut_api_preempt_disable(uintptr_t parent);
void ut_api_preempt_enable(uintptr_t parent);
int ut_api_preempt_count(void);

#endif /* USERTRACE_RT_LATENCY_H */
