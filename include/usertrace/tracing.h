/* SPDX-License-Identifier: MIT */
/*
 * usertrace/tracing.h - the kernel's tracing calls, for programs (C and
 * C++; installed):
 *
 *   tracing_on(), tracing_off()    start and stop recording (the
 *                                  tracing_on file), as a traceoff
 *                                  trigger does: to stop the trace right
 *                                  after a problem is seen
 *   tracing_is_on()                1 while recording
 *   trace_printk(fmt, ...)         a line of text in the trace: a print
 *                                  event (events/ftrace/print) from the
 *                                  calling function, "main: x=5"
 *   trace_puts(str)                the same, without formatting
 *
 * Nothing to link: each object that uses them has one hidden slot that
 * libusertrace.so fills when it finds the object (at start-up or after
 * the dlopen), through a pointer in the section __ut_api_ptrs.  Without
 * usertrace, or before the runtime has started, the calls do nothing
 * and tracing_is_on() is 0.  trace_printk() formats in the calling
 * thread, into a 1 KiB buffer on its stack (longer text is cut), and
 * only while recording.
 */
#ifndef USERTRACE_TRACING_H
#define USERTRACE_TRACING_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 1: tracing_on to print; 2: the latency sections (irqflags.h,
 * preempt.h); 3: the works of workqueue.h.  The runtime fills slots of any version it knows; calls
 * of a later version check ops->abi first.
 */
#define UT_API_ABI		3
#define UT_API_SECTION		"__ut_api_ptrs"
#define UT_PRINTK_MAX		1024

struct ut_api_ops {
	uint32_t abi;
	void (*tracing_on)(void);
	void (*tracing_off)(void);
	int (*tracing_is_on)(void);
	/* a print event of @len bytes of text from the code at @ip */
	void (*print)(uintptr_t ip, const char *text, size_t len);
	/* abi 2: the sections of irqflags.h and preempt.h, from the code at @ip */
	void (*irq_disable)(uintptr_t ip);
	void (*irq_enable)(uintptr_t ip);
	unsigned long (*irq_save)(uintptr_t ip);
	void (*irq_restore)(uintptr_t ip, unsigned long flags);
	int (*irqs_disabled)(void);
	void (*preempt_disable)(uintptr_t ip);
	void (*preempt_enable)(uintptr_t ip);
	int (*preempt_count)(void);
	/*
	 * abi 3: workqueue.h: @work (its @func) queued into queue @wq for
	 * worker @cpu (@req_cpu asked, or WORK_CPU_UNBOUND); worker @cpu starting (@end 0)
	 * or ending (1) it
	 */
	void (*wq_insert)(const char *wq, int req_cpu, int cpu, const void *work, const void *func);
	void (*wq_execute)(const char *wq, int cpu, const void *work, const void *func, int end);
};

struct ut_api_slot {
	uint32_t abi;
	const struct ut_api_ops *ops;	/* set by the runtime */
};

/* one per object: weak, so every file of the object shares it */
__attribute__((weak, visibility("hidden"))) struct ut_api_slot __ut_api_slot = { UT_API_ABI, 0 };
static struct ut_api_slot *const __ut_api_ptr __attribute__((used, section(UT_API_SECTION))) =
	&__ut_api_slot;

/* the calls are not traced themselves, as the kernel's are notrace */
#define __ut_notrace	UT_NOTRACE

static inline __ut_notrace const struct ut_api_ops *__ut_api(void)
{
	return __atomic_load_n(&__ut_api_slot.ops, __ATOMIC_ACQUIRE);
}

/* the ops if the runtime knows version @abi of them, else NULL */
static inline __ut_notrace const struct ut_api_ops *__ut_api_v(uint32_t abi)
{
	const struct ut_api_ops *o = __ut_api();

	return o && o->abi >= abi ? o : NULL;
}

static inline __ut_notrace void tracing_on(void)
{
	const struct ut_api_ops *o = __ut_api();

	if (o)
		o->tracing_on();
}

static inline __ut_notrace void tracing_off(void)
{
	const struct ut_api_ops *o = __ut_api();

	if (o)
		o->tracing_off();
}

static inline __ut_notrace int tracing_is_on(void)
{
	const struct ut_api_ops *o = __ut_api();

	return o ? o->tracing_is_on() : 0;
}

/*
 * After the runtime's call in a section call: no tail call, so that the
 * runtime finds the call (local_irq_disable, ...) as its caller's frame
 */
#define __ut_no_tail_call()	__asm__ __volatile__("" ::: "memory")

/* the address of the caller's code, as the kernel's _THIS_IP_ */
#define __ut_this_ip()	((uintptr_t)__builtin_return_address(0))

static __ut_notrace __attribute__((noinline, unused, format(printf, 1, 2)))
void __ut_trace_printk(const char *fmt, ...)
{
	const struct ut_api_ops *o = __ut_api();
	char buf[UT_PRINTK_MAX];
	va_list ap;
	int n;

	if (!o || !o->tracing_is_on())
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->print(__ut_this_ip(), buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static __ut_notrace __attribute__((noinline, unused)) void __ut_trace_puts(const char *str)
{
	const struct ut_api_ops *o = __ut_api();

	if (o && o->tracing_is_on())
		o->print(__ut_this_ip(), str, strlen(str));
}

#define trace_printk(fmt, ...)	__ut_trace_printk(fmt, ##__VA_ARGS__)
#define trace_puts(str)		__ut_trace_puts(str)

#ifdef __cplusplus
}
#endif

#endif /* USERTRACE_TRACING_H */
