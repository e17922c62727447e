/* SPDX-License-Identifier: MIT */
/*
 * usertrace/branch.h - likely() and unlikely(), and the branch profilers
 * (C; installed):
 *
 *   likely(x), unlikely(x)      the compiler's hint that x is mostly true
 *                               (false): __builtin_expect
 *
 * Built as is, that is all they are: no cost, nothing recorded.  Built
 * with
 *
 *   -DUSERTRACE_PROFILE_BRANCHES      each likely()/unlikely() site counts
 *                                     how often its guess was right
 *                                     (trace_stat/branch_annotated) and,
 *                                     while the tracer `branch` is on,
 *                                     writes a branch event per outcome
 *   -DUSERTRACE_PROFILE_ALL_BRANCHES  the same, and every `if` of the
 *                                     files that include this header
 *                                     (after it) counts how often its
 *                                     condition was false (miss) and true
 *                                     (hit): trace_stat/branch_all
 *
 * as the kernel's CONFIG_PROFILE_ANNOTATED_BRANCHES and
 * CONFIG_PROFILE_ALL_BRANCHES.  A condition the compiler knows to be
 * constant is not counted (__builtin_constant_p).  Each site is a static
 * record (function, file, line, two counters) in the section
 * __ut_branch_annotated or __ut_branch_all of its object; the runtime
 * finds the sections of the executable and of each library (dlopen'ed
 * ones too) and copies the counts for the tools.  The counters are plain
 * increments, not atomic, as the kernel's: threads that take one site
 * at the same moment may lose a count.  The branch tracer's check costs
 * one load and a branch not taken while it is off.  Without usertrace
 * the counts are kept and nobody reads them.
 *
 * Include it after the system headers when the `if` profiler is on: it
 * redefines the keyword for what follows.  A child of fork starts its
 * counts from zero.  C++: the sites in templates are not profiled (g++
 * puts their static records in a section of their own, which the
 * runtime does not read); those of other functions, inline ones too, are.
 */
#ifndef USERTRACE_BRANCH_H
#define USERTRACE_BRANCH_H

#if defined(USERTRACE_PROFILE_ALL_BRANCHES) && !defined(USERTRACE_PROFILE_BRANCHES)
#define USERTRACE_PROFILE_BRANCHES 1
#endif

#if defined(USERTRACE_PROFILE_BRANCHES) || defined(__UT_BRANCH_TYPES)

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UT_BRANCH_ABI			1
#define UT_BRANCH_ANNOTATED_SECTION	"__ut_branch_annotated"
#define UT_BRANCH_ALL_SECTION		"__ut_branch_all"
#define UT_BRANCH_SLOT_SECTION		"__ut_branch_slots"

/*
 * A profiled site.  miss_hit[0] counts the guesses that were right
 * (likely/unlikely: correct) or the conditions that were false (if:
 * miss), miss_hit[1] the wrong guesses (incorrect) or true conditions
 * (hit), as the kernel's union does.
 */
struct ut_branch_site {
	const char *func;
	const char *file;
	uint32_t line;
	uint32_t abi;			/* UT_BRANCH_ABI */
	unsigned long miss_hit[2];
};

/* one per object: the branch tracer's switch, and the runtime's writer */
struct ut_branch_slot {
	uint32_t abi;			/* UT_BRANCH_ABI */
	int on;				/* the branch tracer is on: call hit */
	void (*hit)(const struct ut_branch_site *site, int val, int expect);
};

#ifdef __cplusplus
}
#endif

#endif /* the types */

#ifndef USERTRACE_PROFILE_BRANCHES

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#else /* USERTRACE_PROFILE_BRANCHES */

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((weak, visibility("hidden"))) struct ut_branch_slot __ut_branch_slot = {
	UT_BRANCH_ABI, 0, 0 };
/* retain: kept by --gc-sections too, though no code refers to it */
#if defined(__has_attribute) && __has_attribute(retain)
#define __UT_BRANCH_RETAIN	__attribute__((retain))
#else
#define __UT_BRANCH_RETAIN
#endif
static struct ut_branch_slot *const __ut_branch_slot_ptr
	__attribute__((used, section(UT_BRANCH_SLOT_SECTION))) __UT_BRANCH_RETAIN = &__ut_branch_slot;

static inline __attribute__((always_inline, unused))
int __ut_branch_update(struct ut_branch_site *f, int val, int expect)
{
	if (__builtin_expect(__atomic_load_n(&__ut_branch_slot.on, __ATOMIC_RELAXED), 0))
		__ut_branch_slot.hit(f, val, expect);
	f->miss_hit[val != expect]++;
	return val;
}

#define __ut_branch_check(x, expect) ({						\
	static struct ut_branch_site __attribute__((used, aligned(8),	\
		section(UT_BRANCH_ANNOTATED_SECTION))) __ut_bf = {		\
		__func__, __FILE__, __LINE__, UT_BRANCH_ABI, { 0, 0 } };	\
	__ut_branch_update(&__ut_bf, __builtin_expect(!!(x), expect), expect);	\
})

#undef likely
#undef unlikely
#define likely(x)	(__builtin_constant_p(x) ? !!(x) : __ut_branch_check(x, 1))
#define unlikely(x)	(__builtin_constant_p(x) ? !!(x) : __ut_branch_check(x, 0))

#ifdef USERTRACE_PROFILE_ALL_BRANCHES
#define __ut_trace_if_value(cond) ({						\
	static struct ut_branch_site __attribute__((used, aligned(8),	\
		section(UT_BRANCH_ALL_SECTION))) __ut_if = {			\
		__func__, __FILE__, __LINE__, UT_BRANCH_ABI, { 0, 0 } };	\
	(cond) ? (__ut_if.miss_hit[1]++, 1) : (__ut_if.miss_hit[0]++, 0);	\
})
#define __ut_trace_if_var(cond)	(__builtin_constant_p(cond) ? (cond) : __ut_trace_if_value(cond))
#define if(cond, ...)	if (__ut_trace_if_var(!!(cond, ## __VA_ARGS__)))
#endif

#ifdef __cplusplus
}
#endif

#endif /* USERTRACE_PROFILE_BRANCHES */

#endif /* USERTRACE_BRANCH_H */
