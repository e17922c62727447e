/* SPDX-License-Identifier: MIT */
/*
 * tracepoint.h - a program's own events, defined as the kernel defines
 * its events with TRACE_EVENT (installed; C and C++).
 *
 * A trace header (see doc/design/framework.md 3.2):
 *
 *	#undef TRACE_SYSTEM
 *	#define TRACE_SYSTEM myapp
 *	#if !defined(MYAPP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
 *	#define MYAPP_TRACE_H
 *	#include <usertrace/tracepoint.h>
 *	TRACE_EVENT(request,
 *		TP_PROTO(int id, const char *path),
 *		TP_ARGS(id, path),
 *		TP_STRUCT__entry(__field(int, id) __string(path, path)),
 *		TP_fast_assign(__entry->id = id; __assign_str(path);),
 *		TP_printk("id=%d path=%s", __entry->id, __get_str(path)));
 *	#endif
 *	#define TRACE_INCLUDE_PATH .
 *	#define TRACE_INCLUDE_FILE myapp_trace
 *	#include <usertrace/define_trace.h>
 *
 * define_trace.h reads the header again from the include path (the
 * path relative to it): build with -I. for a header next to the source
 * file, as the kernel's with -I$(src) (usertrace-tracepoint(3)).
 *
 * Every file that includes it gets, per event:
 *
 *	static inline void trace_request(int id, const char *path);
 *	static inline int trace_request_enabled(void);
 *	static inline int register_trace_request(probe, void *data);
 *	static inline int unregister_trace_request(probe, void *data);
 *
 * with probe of type void (*)(void *data, int id, const char *path).
 * Exactly one file defines CREATE_TRACE_POINTS before including the
 * header; define_trace.h then reads the header again to make the
 * event's layout, descriptor, recording function and its struct
 * ut_tracepoint (named __ut_tp_<system>_<event>), and lists it in the
 * section __ut_tracepoints_ptrs for the runtime to find.
 *
 * Nothing is linked: a program runs the same without usertrace; a
 * tracepoint then only calls the probes registered to it.  When it is
 * off, trace_X() costs one load and one branch not taken.
 *
 * The kernel's macros: TRACE_EVENT, TRACE_EVENT_CONDITION,
 * DECLARE_EVENT_CLASS, DEFINE_EVENT, DEFINE_EVENT_PRINT,
 * DEFINE_EVENT_CONDITION, DECLARE_TRACE and DECLARE_TRACE_CONDITION
 * (probes only: no event, never recorded), DEFINE_TRACE(name) (or
 * (name, proto, args)) for a DECLARE_TRACE outside a trace header;
 * TP_PROTO (also TP_PROTO(void) with TP_ARGS()), TP_ARGS, TP_CONDITION,
 * TP_STRUCT__entry, TP_fast_assign, TP_printk; fields __field,
 * __field_struct, __array, __dynamic_array, __string, __string_len; in
 * TP_fast_assign __entry, __assign_str(name) (or (name, src): src is
 * ignored, __string's is copied), __get_str, __get_dynamic_array,
 * __get_dynamic_array_len.
 *
 * Tracepoints are hidden symbols (UT_TP_VISIBILITY): each executable
 * and library has its own, and trace_X() reaches them without the GOT.
 * A probe may still run on another thread, or be about to, when
 * unregister_trace_X() returns: keep what its data points to alive.
 * register/unregister_trace_X() must not be called from a signal handler.
 */
#ifndef USERTRACE_TRACEPOINT_H
#define USERTRACE_TRACEPOINT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"

#ifndef UT_TP_VISIBILITY
#define UT_TP_VISIBILITY	__attribute__((visibility("hidden")))
#endif

#ifdef __cplusplus
#define __UT_C_BEGIN		extern "C" {
#define __UT_C_END		}
#else
#define __UT_C_BEGIN
#define __UT_C_END
#endif
/* what a trace header defines in a .c file may stay unused */
#define __UT_INLINE		inline UT_NOTRACE __attribute__((unused))
#if defined(__cplusplus) && __cplusplus >= 201103L
#define __UT_NULL		nullptr
#else
#define __UT_NULL		((void *)0)
#endif

/* what the user writes around the parts of an event */
#define TP_PROTO(...)		__VA_ARGS__
#define TP_ARGS(...)		__VA_ARGS__
#define TP_CONDITION(...)	__VA_ARGS__
#define TP_STRUCT__entry(...)	__VA_ARGS__
#define TP_fast_assign(...)	__VA_ARGS__
#ifndef PARAMS
#define PARAMS(...)		__VA_ARGS__
#endif

/* preprocessor tools */
#define __UT_ID(...)		__VA_ARGS__
#define __UT_STR_(...)		#__VA_ARGS__
#define __UT_STR(...)		__UT_STR_(__VA_ARGS__)
#define __UT_CAT_(a, b)		a##b
#define __UT_CAT(a, b)		__UT_CAT_(a, b)
#define __UT_FIRST_(a, ...)	a
#define __UT_FIRST(...)		__UT_FIRST_(__VA_ARGS__, ~)
#define __UT_SECOND_(a, b, ...)	b
#define __UT_SECOND(...)	__UT_SECOND_(__VA_ARGS__, ~)

/*
 * 1 if the parenthesized TP_ARGS list is empty (TP_PROTO(void)), else 0.
 * Its first name is pasted to __UT_EMPTY_: only the empty list makes
 * that macro, whose comma moves the 1 into second place.
 */
#define __UT_EMPTY_		~, 1
#define __UT_EMPTY_CAT_(x)	__UT_EMPTY_##x
#define __UT_EMPTY_CAT(x)	__UT_EMPTY_CAT_(x)
#define __UT_NOARGS(pargs)	__UT_SECOND(__UT_EMPTY_CAT(__UT_FIRST pargs), 0)
#define __UT_IF_0(t, f)		__UT_ID f
#define __UT_IF_1(t, f)		__UT_ID t
#define __UT_IF(c, t, f)	__UT_CAT(__UT_IF_, c)(t, f)

/* the parameters @first, then TP_PROTO's (none if it is void) */
#define __UT_PROTO_WITH(first, pproto, pargs)						\
	__UT_IF(__UT_NOARGS(pargs), (first), (first, __UT_ID pproto))
/* the arguments @first, then TP_ARGS's */
#define __UT_ARGS_WITH(first, pargs)							\
	__UT_IF(__UT_NOARGS(pargs), (first), (first, __UT_ID pargs))

/* <system>_<event>: the tracepoint's symbols carry the system */
#define __UT_SYM_(sys, name)	sys##_##name
#define __UT_SYM2(sys, name)	__UT_SYM_(sys, name)
#define __UT_SYM(name)		__UT_SYM2(TRACE_SYSTEM, name)

/*
 * The probes.  Writers (register/unregister) take probes_seq from even
 * to odd, change the slots, and make it even again; a caller copies the
 * slots and keeps the copy if probes_seq was even and did not change.
 * The used slots come first, in the order of registration.
 */
static inline UT_NOTRACE uint32_t __ut_tp_probes_lock(struct ut_tracepoint *tp)
{
	uint32_t s = __atomic_load_n(&tp->probes_seq, __ATOMIC_RELAXED);

	for (;;) {
		if (!(s & 1) && __atomic_compare_exchange_n(&tp->probes_seq, &s, s + 1, 0,
							   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		s = __atomic_load_n(&tp->probes_seq, __ATOMIC_RELAXED);
	}
	/* the odd sequence before any slot changes */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s + 1;
}

static inline UT_NOTRACE void __ut_tp_probes_unlock(struct ut_tracepoint *tp, uint32_t seq)
{
	__atomic_store_n(&tp->probes_seq, seq + 1, __ATOMIC_RELEASE);
}

static inline UT_NOTRACE void __ut_tp_probe_set(struct ut_tracepoint *tp, int i, void *func, void *data)
{
	__atomic_store_n(&tp->probes[i].func, func, __ATOMIC_RELAXED);
	__atomic_store_n(&tp->probes[i].data, data, __ATOMIC_RELAXED);
}

/* 0, -EEXIST (this func with this data is there), -ENOMEM (full) */
static inline UT_NOTRACE int __ut_tp_probe_add(struct ut_tracepoint *tp, void *func, void *data)
{
	uint32_t seq;
	int i, ret = 0;

	if (!func)
		return -EINVAL;
	seq = __ut_tp_probes_lock(tp);
	for (i = 0; i < UT_TP_PROBES && tp->probes[i].func; i++)
		if (tp->probes[i].func == func && tp->probes[i].data == data)
			ret = -EEXIST;
	if (!ret && i == UT_TP_PROBES)
		ret = -ENOMEM;
	if (!ret) {
		__ut_tp_probe_set(tp, i, func, data);
		__atomic_fetch_or(&tp->state, UT_TP_STATE_PROBES, __ATOMIC_RELAXED);
	}
	__ut_tp_probes_unlock(tp, seq);
	return ret;
}

/* 0, or -ENOENT (not registered) */
static inline UT_NOTRACE int __ut_tp_probe_del(struct ut_tracepoint *tp, void *func, void *data)
{
	uint32_t seq = __ut_tp_probes_lock(tp);
	int i, ret = -ENOENT;

	for (i = 0; i < UT_TP_PROBES && tp->probes[i].func; i++)
		if (tp->probes[i].func == func && tp->probes[i].data == data)
			break;
	if (i < UT_TP_PROBES && tp->probes[i].func) {
		for (; i + 1 < UT_TP_PROBES && tp->probes[i + 1].func; i++)
			__ut_tp_probe_set(tp, i, tp->probes[i + 1].func, tp->probes[i + 1].data);
		__ut_tp_probe_set(tp, i, __UT_NULL, __UT_NULL);
		if (!tp->probes[0].func)
			__atomic_fetch_and(&tp->state, ~UT_TP_STATE_PROBES, __ATOMIC_RELAXED);
		ret = 0;
	}
	__ut_tp_probes_unlock(tp, seq);
	return ret;
}

/*
 * Copy the probes to @p; returns how many.  Gives up (0) if a writer
 * keeps the lock: it may be what this thread's signal handler broke in.
 */
static inline UT_NOTRACE unsigned __ut_tp_probes_get(struct ut_tracepoint *tp, struct ut_tp_probe *p)
{
	unsigned n, tries;

	for (tries = 0; tries < 1000; tries++) {
		uint32_t seq = __atomic_load_n(&tp->probes_seq, __ATOMIC_ACQUIRE);

		if (seq & 1)
			continue;
		for (n = 0; n < UT_TP_PROBES; n++) {
			p[n].func = __atomic_load_n(&tp->probes[n].func, __ATOMIC_RELAXED);
			if (!p[n].func)
				break;
			p[n].data = __atomic_load_n(&tp->probes[n].data, __ATOMIC_RELAXED);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&tp->probes_seq, __ATOMIC_RELAXED) == seq)
			return n;
	}
	return 0;
}

/* call the probes of the tracepoint @tp (symbol part @sym) with TP_ARGS */
#define __UT_CALL_PROBES(sym, tp, pargs)						\
	do {										\
		struct ut_tp_probe __ut_p[UT_TP_PROBES];				\
		unsigned __ut_n = __ut_tp_probes_get(tp, __ut_p), __ut_i;		\
											\
		for (__ut_i = 0; __ut_i < __ut_n; __ut_i++)				\
			((__ut_probe_##sym##_t)__ut_p[__ut_i].func)(			\
				__UT_ARGS_WITH(__ut_p[__ut_i].data, pargs));		\
	} while (0)

/* what every includer gets: the probe type, the tracepoint, trace_X() */
#define __UT_DECL_HEAD(sym, pproto, pargs)						\
	typedef void (*__ut_probe_##sym##_t)(__UT_PROTO_WITH(void *__ut_data, pproto, pargs)); \
	extern UT_TP_VISIBILITY struct ut_tracepoint __ut_tp_##sym;

#define __UT_DECL_TAIL(name, sym, pproto, pargs, pcond)					\
	static __UT_INLINE void trace_##name(__UT_ID pproto)				\
	{										\
		if (__builtin_expect(__atomic_load_n(&__ut_tp_##sym.state,		\
						     __ATOMIC_RELAXED) != 0, 0) &&	\
		    (__UT_ID pcond))							\
			__ut_do_trace_##sym(__UT_ID pargs);				\
	}										\
	static __UT_INLINE int trace_##name##_enabled(void)				\
	{										\
		return __atomic_load_n(&__ut_tp_##sym.state, __ATOMIC_RELAXED) != 0;	\
	}										\
	static __UT_INLINE int register_trace_##name(__ut_probe_##sym##_t __ut_probe,	\
						void *__ut_data)			\
	{										\
		return __ut_tp_probe_add(&__ut_tp_##sym, (void *)__ut_probe, __ut_data); \
	}										\
	static __UT_INLINE int unregister_trace_##name(__ut_probe_##sym##_t __ut_probe,	\
						  void *__ut_data)			\
	{										\
		return __ut_tp_probe_del(&__ut_tp_##sym, (void *)__ut_probe, __ut_data); \
	}

/* an event: __ut_do_trace_<sym>() is in the CREATE_TRACE_POINTS file */
#define __UT_DECL_EVENT(...)	__UT_DECL_EVENT_(__VA_ARGS__)
#define __UT_DECL_EVENT_(name, sym, pproto, pargs, pcond)				\
	__UT_C_BEGIN									\
	__UT_DECL_HEAD(sym, pproto, pargs)						\
	UT_TP_VISIBILITY UT_NOTRACE void __ut_do_trace_##sym(__UT_ID pproto) __attribute__((cold)); \
	__UT_DECL_TAIL(name, sym, pproto, pargs, pcond)					\
	__UT_C_END

/* probes only (DECLARE_TRACE): each file has its own __ut_do_trace_<name>() */
#define __UT_DECL_PROBES(name, pproto, pargs, pcond)					\
	__UT_C_BEGIN									\
	__UT_DECL_HEAD(name, pproto, pargs)						\
	static UT_NOTRACE __attribute__((cold, noinline, unused))					\
	void __ut_do_trace_##name(__UT_ID pproto)					\
	{										\
		__UT_CALL_PROBES(name, &__ut_tp_##name, pargs);				\
	}										\
	__UT_DECL_TAIL(name, name, pproto, pargs, pcond)				\
	__UT_C_END

/* the tracepoint __ut_tp_<sym> and its pointer in __ut_tracepoints_ptrs */
#define __UT_DEFINE_TP(sym, namestr, desc)						\
	__UT_C_BEGIN									\
	UT_TP_VISIBILITY struct ut_tracepoint __ut_tp_##sym = {				\
		0, UT_TP_ABI, 0, namestr, desc, __UT_NULL, __UT_NULL,			\
		{ { __UT_NULL, __UT_NULL } }, 0, 0					\
	};										\
	static struct ut_tracepoint *__ut_tp_ptr_##sym					\
		__attribute__((used, section(UT_TP_SECTION))) = &__ut_tp_##sym;		\
	__UT_C_END

/*
 * DEFINE_TRACE(name): the tracepoint of DECLARE_TRACE(name, ...), in one
 * file that does not define CREATE_TRACE_POINTS for its header (with it,
 * define_trace.h defines it).  The kernel's DEFINE_TRACE(name, proto,
 * args) is taken too.
 */
#define DEFINE_TRACE(...)		__UT_DEFINE_TRACE1(__UT_FIRST(__VA_ARGS__))
#define __UT_DEFINE_TRACE1(name)	__UT_DEFINE_TRACE2(name)
#define __UT_DEFINE_TRACE2(name)	__UT_DEFINE_TP(name, #name, __UT_NULL)

#endif /* USERTRACE_TRACEPOINT_H */

/*
 * The event macros, as an includer sees them.  define_trace.h redefines
 * them for each of its readings of the header and undefines them at its
 * end, so that the next trace header gets them again from here.
 */
#ifndef TRACE_EVENT

#define TRACE_EVENT(name, proto, args, tstruct, assign, print)				\
	DECLARE_EVENT_CLASS(name, __UT_ID(proto), __UT_ID(args),			\
			    __UT_ID(tstruct), __UT_ID(assign), __UT_ID(print))		\
	DEFINE_EVENT(name, name, __UT_ID(proto), __UT_ID(args))

#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, __UT_ID(proto), __UT_ID(args),			\
			    __UT_ID(tstruct), __UT_ID(assign), __UT_ID(print))		\
	DEFINE_EVENT_CONDITION(name, name, __UT_ID(proto), __UT_ID(args), __UT_ID(cond))

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)

#define DEFINE_EVENT(template, name, proto, args)					\
	__UT_DECL_EVENT(name, __UT_SYM(name), (proto), (args), (1))

#define DEFINE_EVENT_PRINT(template, name, proto, args, print)				\
	__UT_DECL_EVENT(name, __UT_SYM(name), (proto), (args), (1))

#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)			\
	__UT_DECL_EVENT(name, __UT_SYM(name), (proto), (args), (cond))

#define DECLARE_TRACE(name, proto, args)						\
	__UT_DECL_PROBES(name, (proto), (args), (1))

#define DECLARE_TRACE_CONDITION(name, proto, args, cond)				\
	__UT_DECL_PROBES(name, (proto), (args), (cond))

#endif /* TRACE_EVENT */
