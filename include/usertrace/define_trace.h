/* SPDX-License-Identifier: MIT */
/*
 * define_trace.h - the definitions of a trace header's events
 * (installed; C and C++; see tracepoint.h).
 *
 * Included at the end of every trace header; does something only in the
 * one file that defines CREATE_TRACE_POINTS before including it (and,
 * reading 1 alone, in usertrace's files that define UT_TRACE_LAYOUTS:
 * below).  It
 * reads the header again (TRACE_HEADER_MULTI_READ), found as
 * TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h (the file defaults to
 * TRACE_SYSTEM; without a path, the compiler's include path is searched
 * as for <file.h>; a path is searched as "path/file.h", so it is
 * relative to the include path or absolute, as the kernel's: a header
 * next to the source file needs -I.), three times:
 *
 *   1. struct ut_raw_<class>: the common fields, the event's fields
 *      (a dynamic one is a u32 __data_loc_<name>: length << 16 | offset
 *      from the start of the entry), then char __data[];
 *   2. per class the field table (__ut_fields_<class>) and the print
 *      fmt (__ut_print_<class>: TP_printk's text with __entry as REC);
 *      per event its struct ut_event_desc (__ut_desc_<system>_<event>);
 *   3. per class __ut_class_<class>(), which fills the entry on the stack
 *      (dynamic parts cut so that it fits in UT_EVENT_MAX bytes) and
 *      passes it to the runtime's ops->write; per event
 *      __ut_do_trace_<system>_<event>() (probes, then the record), the
 *      struct ut_tracepoint __ut_tp_<system>_<event> and a pointer to it
 *      in the section __ut_tracepoints_ptrs.
 *
 * A class has at most 63 fields.  Two classes, or two events, of one
 * file may not have the same name, even in two systems.
 *
 * No include guard: each trace header includes it.
 */
#ifdef CREATE_TRACE_POINTS

/* the readings below include this file again: they must not recurse */
#undef CREATE_TRACE_POINTS

#ifndef TRACE_SYSTEM
#error "define_trace.h: TRACE_SYSTEM is not defined"
#endif

#include "tracepoint.h"

#ifndef USERTRACE_DEFINE_TRACE_H
#define USERTRACE_DEFINE_TRACE_H

/*
 * __UT_FOREACH(m, d, x1, x2, ...): m(d, x1) m(d, x2) ..., at most 64
 * items.  A row of the field table needs its class (for offsetof), which
 * __field() is not given: reading 2 turns the fields into a list of
 * tuples, walked here with the class.
 */
#define __UT_FOREACH(m, d, ...)								\
	__UT_CAT(__UT_FE_, __UT_NARGS(__VA_ARGS__))(m, d, __VA_ARGS__)
#define __UT_NARGS(...)								\
	__UT_NARGS_(__VA_ARGS__,							\
		    64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49,	\
		    48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33,	\
		    32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,	\
		    16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define __UT_NARGS_(								\
	_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16,		\
	_17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32,	\
	_33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48,	\
	_49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64,	\
	n, ...) n
#define __UT_FE_1(m, d, x) m(d, x)
#define __UT_FE_2(m, d, x, ...) m(d, x) __UT_FE_1(m, d, __VA_ARGS__)
#define __UT_FE_3(m, d, x, ...) m(d, x) __UT_FE_2(m, d, __VA_ARGS__)
#define __UT_FE_4(m, d, x, ...) m(d, x) __UT_FE_3(m, d, __VA_ARGS__)
#define __UT_FE_5(m, d, x, ...) m(d, x) __UT_FE_4(m, d, __VA_ARGS__)
#define __UT_FE_6(m, d, x, ...) m(d, x) __UT_FE_5(m, d, __VA_ARGS__)
#define __UT_FE_7(m, d, x, ...) m(d, x) __UT_FE_6(m, d, __VA_ARGS__)
#define __UT_FE_8(m, d, x, ...) m(d, x) __UT_FE_7(m, d, __VA_ARGS__)
#define __UT_FE_9(m, d, x, ...) m(d, x) __UT_FE_8(m, d, __VA_ARGS__)
#define __UT_FE_10(m, d, x, ...) m(d, x) __UT_FE_9(m, d, __VA_ARGS__)
#define __UT_FE_11(m, d, x, ...) m(d, x) __UT_FE_10(m, d, __VA_ARGS__)
#define __UT_FE_12(m, d, x, ...) m(d, x) __UT_FE_11(m, d, __VA_ARGS__)
#define __UT_FE_13(m, d, x, ...) m(d, x) __UT_FE_12(m, d, __VA_ARGS__)
#define __UT_FE_14(m, d, x, ...) m(d, x) __UT_FE_13(m, d, __VA_ARGS__)
#define __UT_FE_15(m, d, x, ...) m(d, x) __UT_FE_14(m, d, __VA_ARGS__)
#define __UT_FE_16(m, d, x, ...) m(d, x) __UT_FE_15(m, d, __VA_ARGS__)
#define __UT_FE_17(m, d, x, ...) m(d, x) __UT_FE_16(m, d, __VA_ARGS__)
#define __UT_FE_18(m, d, x, ...) m(d, x) __UT_FE_17(m, d, __VA_ARGS__)
#define __UT_FE_19(m, d, x, ...) m(d, x) __UT_FE_18(m, d, __VA_ARGS__)
#define __UT_FE_20(m, d, x, ...) m(d, x) __UT_FE_19(m, d, __VA_ARGS__)
#define __UT_FE_21(m, d, x, ...) m(d, x) __UT_FE_20(m, d, __VA_ARGS__)
#define __UT_FE_22(m, d, x, ...) m(d, x) __UT_FE_21(m, d, __VA_ARGS__)
#define __UT_FE_23(m, d, x, ...) m(d, x) __UT_FE_22(m, d, __VA_ARGS__)
#define __UT_FE_24(m, d, x, ...) m(d, x) __UT_FE_23(m, d, __VA_ARGS__)
#define __UT_FE_25(m, d, x, ...) m(d, x) __UT_FE_24(m, d, __VA_ARGS__)
#define __UT_FE_26(m, d, x, ...) m(d, x) __UT_FE_25(m, d, __VA_ARGS__)
#define __UT_FE_27(m, d, x, ...) m(d, x) __UT_FE_26(m, d, __VA_ARGS__)
#define __UT_FE_28(m, d, x, ...) m(d, x) __UT_FE_27(m, d, __VA_ARGS__)
#define __UT_FE_29(m, d, x, ...) m(d, x) __UT_FE_28(m, d, __VA_ARGS__)
#define __UT_FE_30(m, d, x, ...) m(d, x) __UT_FE_29(m, d, __VA_ARGS__)
#define __UT_FE_31(m, d, x, ...) m(d, x) __UT_FE_30(m, d, __VA_ARGS__)
#define __UT_FE_32(m, d, x, ...) m(d, x) __UT_FE_31(m, d, __VA_ARGS__)
#define __UT_FE_33(m, d, x, ...) m(d, x) __UT_FE_32(m, d, __VA_ARGS__)
#define __UT_FE_34(m, d, x, ...) m(d, x) __UT_FE_33(m, d, __VA_ARGS__)
#define __UT_FE_35(m, d, x, ...) m(d, x) __UT_FE_34(m, d, __VA_ARGS__)
#define __UT_FE_36(m, d, x, ...) m(d, x) __UT_FE_35(m, d, __VA_ARGS__)
#define __UT_FE_37(m, d, x, ...) m(d, x) __UT_FE_36(m, d, __VA_ARGS__)
#define __UT_FE_38(m, d, x, ...) m(d, x) __UT_FE_37(m, d, __VA_ARGS__)
#define __UT_FE_39(m, d, x, ...) m(d, x) __UT_FE_38(m, d, __VA_ARGS__)
#define __UT_FE_40(m, d, x, ...) m(d, x) __UT_FE_39(m, d, __VA_ARGS__)
#define __UT_FE_41(m, d, x, ...) m(d, x) __UT_FE_40(m, d, __VA_ARGS__)
#define __UT_FE_42(m, d, x, ...) m(d, x) __UT_FE_41(m, d, __VA_ARGS__)
#define __UT_FE_43(m, d, x, ...) m(d, x) __UT_FE_42(m, d, __VA_ARGS__)
#define __UT_FE_44(m, d, x, ...) m(d, x) __UT_FE_43(m, d, __VA_ARGS__)
#define __UT_FE_45(m, d, x, ...) m(d, x) __UT_FE_44(m, d, __VA_ARGS__)
#define __UT_FE_46(m, d, x, ...) m(d, x) __UT_FE_45(m, d, __VA_ARGS__)
#define __UT_FE_47(m, d, x, ...) m(d, x) __UT_FE_46(m, d, __VA_ARGS__)
#define __UT_FE_48(m, d, x, ...) m(d, x) __UT_FE_47(m, d, __VA_ARGS__)
#define __UT_FE_49(m, d, x, ...) m(d, x) __UT_FE_48(m, d, __VA_ARGS__)
#define __UT_FE_50(m, d, x, ...) m(d, x) __UT_FE_49(m, d, __VA_ARGS__)
#define __UT_FE_51(m, d, x, ...) m(d, x) __UT_FE_50(m, d, __VA_ARGS__)
#define __UT_FE_52(m, d, x, ...) m(d, x) __UT_FE_51(m, d, __VA_ARGS__)
#define __UT_FE_53(m, d, x, ...) m(d, x) __UT_FE_52(m, d, __VA_ARGS__)
#define __UT_FE_54(m, d, x, ...) m(d, x) __UT_FE_53(m, d, __VA_ARGS__)
#define __UT_FE_55(m, d, x, ...) m(d, x) __UT_FE_54(m, d, __VA_ARGS__)
#define __UT_FE_56(m, d, x, ...) m(d, x) __UT_FE_55(m, d, __VA_ARGS__)
#define __UT_FE_57(m, d, x, ...) m(d, x) __UT_FE_56(m, d, __VA_ARGS__)
#define __UT_FE_58(m, d, x, ...) m(d, x) __UT_FE_57(m, d, __VA_ARGS__)
#define __UT_FE_59(m, d, x, ...) m(d, x) __UT_FE_58(m, d, __VA_ARGS__)
#define __UT_FE_60(m, d, x, ...) m(d, x) __UT_FE_59(m, d, __VA_ARGS__)
#define __UT_FE_61(m, d, x, ...) m(d, x) __UT_FE_60(m, d, __VA_ARGS__)
#define __UT_FE_62(m, d, x, ...) m(d, x) __UT_FE_61(m, d, __VA_ARGS__)
#define __UT_FE_63(m, d, x, ...) m(d, x) __UT_FE_62(m, d, __VA_ARGS__)
#define __UT_FE_64(m, d, x, ...) m(d, x) __UT_FE_63(m, d, __VA_ARGS__)

#if defined(__cplusplus) && __cplusplus >= 201103L
#define __UT_STATIC_ASSERT(c, msg)	static_assert(c, msg)
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define __UT_STATIC_ASSERT(c, msg)	_Static_assert(c, msg)
#else
#define __UT_STATIC_ASSERT(c, msg)	extern char __ut_static_assert[(c) ? 1 : -1]
#endif

/*
 * Is @type signed, as the kernel's format says: (type)-1 < (type)1 for
 * numbers (enums by their underlying type), 0 for pointers.
 */
#ifdef __cplusplus
extern "C++" {
template <typename T, bool E = __is_enum(T)>
struct __ut_signed { static const bool value = (T)-1 < (T)1; };
template <typename T>
struct __ut_signed<T, true> {
	static const bool value = __ut_signed<__underlying_type(T)>::value;
};
template <typename T>
struct __ut_signed<T *, false> { static const bool value = false; };
template <typename T>
struct __ut_signed<T *const, false> { static const bool value = false; };
template <typename T>
struct __ut_signed<T *volatile, false> { static const bool value = false; };
template <typename T>
struct __ut_signed<T *const volatile, false> { static const bool value = false; };
/* plain char is unsigned in the kernel's formats (it builds with -funsigned-char) */
template <>
struct __ut_signed<char, false> { static const bool value = false; };
}
#define __UT_IS_SIGNED(type)	((uint8_t)__ut_signed<type>::value)
#else
#define __UT_IS_SIGNED(type)								\
	((uint8_t)__builtin_choose_expr(__builtin_classify_type(*(type *)0) == 5 /* pointer */ || \
					__builtin_types_compatible_p(type, char),	\
					0, (type)-1 < (type)1))
#endif

/*
 * Place @n more bytes (aligned to @align) at *@end, the end of the entry
 * @e so far; cut to whole units of @unit bytes so that the entry stays
 * within UT_EVENT_MAX.  Returns the __data_loc word.  The alignment's
 * gap is zeroed: no byte of the stack goes to the trace.
 */
static inline UT_NOTRACE uint32_t __ut_tp_dyn(void *e, uint32_t *end, uint64_t n, uint32_t align,
				   uint32_t unit)
{
	uint32_t off = (*end + align - 1) & ~(align - 1);
	uint32_t room;

	if (off > UT_EVENT_MAX)
		off = *end;
	__builtin_memset((char *)e + *end, 0, off - *end);
	room = UT_EVENT_MAX - off;
	if (n > room)
		n = room - room % unit;
	*end = off + (uint32_t)n;
	return (uint32_t)n << 16 | off;
}

/* copy a string cut to @len bytes, NUL included */
static inline UT_NOTRACE void __ut_tp_copy_str(char *dst, const char *src, uint32_t len)
{
	if (len) {
		__builtin_memcpy(dst, src, len - 1);
		dst[len - 1] = 0;
	}
}

/* reading 2: one row of the field table per (kind, type text, name text, type, name, len) */
#define __UT_ROW(call, t)		__UT_ROW_(call, __UT_ID t)
#define __UT_ROW_(...)			__UT_ROW__(__VA_ARGS__)
#define __UT_ROW__(call, kind, ...)	kind(call, __VA_ARGS__)
#define __UT_F_SCALAR(call, tstr, istr, type, item, len)				\
	{ tstr, istr, (uint16_t)offsetof(struct ut_raw_##call, item), (uint16_t)sizeof(type), \
	  __UT_IS_SIGNED(type), UT_FIELD_SCALAR, 0 },
#define __UT_F_STRUCT(call, tstr, istr, type, item, len)				\
	{ tstr, istr, (uint16_t)offsetof(struct ut_raw_##call, item), (uint16_t)sizeof(type), \
	  0, UT_FIELD_SCALAR, 0 },
#define __UT_F_ARRAY(call, tstr, istr, type, item, len)					\
	{ tstr, istr, (uint16_t)offsetof(struct ut_raw_##call, item),			\
	  (uint16_t)(sizeof(type) * (len)), __UT_IS_SIGNED(type), UT_FIELD_ARRAY, (uint16_t)(len) },
#define __UT_F_DYN(call, tstr, istr, type, item, len)					\
	{ tstr, istr, (uint16_t)offsetof(struct ut_raw_##call, __data_loc_##item), 4,	\
	  __UT_IS_SIGNED(type), UT_FIELD_DATA_LOC, 0 },
#define __UT_F_END(call, ...)		{ __UT_NULL, __UT_NULL, 0, 0, 0, 0, 0 }

/* reading 3: __assign_str(name) or the older __assign_str(name, src) */
#define __UT_ASSIGN_STR(item)		__UT_ASSIGN_STR_(item)
#define __UT_ASSIGN_STR_(item)								\
	__ut_tp_copy_str(__get_str(item), __ut_src_##item, __entry->__data_loc_##item >> 16)

#define __UT_P2_DESC(...)		__UT_P2_DESC_(__VA_ARGS__)
#define __UT_P2_DESC_(tmpl, sym, sys, name, print)					\
	__UT_C_BEGIN									\
	static const struct ut_event_desc __ut_desc_##sym = {				\
		UT_TP_ABI, 0, (uint16_t)sizeof(struct ut_raw_##tmpl), sys, name, print,	\
		__ut_fields_##tmpl,							\
		(uint32_t)(sizeof(__ut_fields_##tmpl) / sizeof(__ut_fields_##tmpl[0]) - 1), 0 \
	};										\
	__UT_C_END

#define __UT_P2_PRINT(...)		__UT_P2_PRINT_(__VA_ARGS__)
#define __UT_P2_PRINT_(tmpl, sym, sys, name, print)					\
	static const char __ut_print_##sym[] = print;					\
	__UT_P2_DESC_(tmpl, sym, sys, name, __ut_print_##sym)

#define __UT_P3_EVENT(...)		__UT_P3_EVENT_(__VA_ARGS__)
#define __UT_P3_EVENT_(tmpl, sym, namestr, pproto, pargs)				\
	__UT_DEFINE_TP(sym, namestr, &__ut_desc_##sym)					\
	__UT_C_BEGIN									\
	UT_TP_VISIBILITY UT_NOTRACE __attribute__((cold, noinline))				\
	void __ut_do_trace_##sym(__UT_ID pproto)					\
	{										\
		struct ut_tracepoint *__ut_tp = &__ut_tp_##sym;				\
		uint32_t __ut_st = __atomic_load_n(&__ut_tp->state, __ATOMIC_ACQUIRE);	\
											\
		if (__ut_st & UT_TP_STATE_PROBES)					\
			__UT_CALL_PROBES(sym, __ut_tp, pargs);				\
		if (__ut_st & UT_TP_STATE_RECORD)					\
			__ut_class_##tmpl(__UT_ARGS_WITH(__ut_tp, pargs));		\
	}										\
	__UT_C_END

#endif /* USERTRACE_DEFINE_TRACE_H */

#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE	TRACE_SYSTEM
#endif
#ifdef TRACE_INCLUDE_PATH
#define __UT_INCLUDE_(file)	__UT_STR(TRACE_INCLUDE_PATH/file.h)
#else
#define __UT_INCLUDE_(file)	<file.h>
#endif
#define __UT_INCLUDE(file)	__UT_INCLUDE_(file)

/*
 * The trace header is read again from here, so its own directory is not
 * searched, only define_trace.h's and the include path: a header next to
 * the source file needs -I. (the kernel's need -I$(src)), with or without
 * TRACE_INCLUDE_PATH (a path relative to the include path, or absolute).
 */
#ifdef __has_include
#if !__has_include(__UT_INCLUDE(TRACE_INCLUDE_FILE))
#define __UT_NOT_FOUND(__ut_h)	_Pragma(__UT_STR(GCC error __UT_STR(usertrace: __ut_h not found)))
__UT_NOT_FOUND(__UT_INCLUDE(TRACE_INCLUDE_FILE))
#undef __UT_NOT_FOUND
#error "define_trace.h reads the trace header again from the include path: add -I and its directory (-I. for one next to the source file); TRACE_INCLUDE_PATH is relative to it, as in the kernel"
#endif
#endif

#define TRACE_HEADER_MULTI_READ

/* what the readings redefine */
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION

/* ---- reading 1: the layouts ---- */

#define __field(type, item)		type item;
#define __field_struct(type, item)	type item;
#define __array(type, item, len)	type item[len];
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#define __string(item, src)		uint32_t __data_loc_##item;
#define __string_len(item, src, len)	uint32_t __data_loc_##item;

#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	struct ut_raw_##call {								\
		struct ut_trace_entry ent;						\
		tstruct									\
		char __data[];								\
	};										\
	__UT_STATIC_ASSERT(sizeof(struct ut_raw_##call) <= UT_EVENT_MAX,		\
			   "the fields of " #call " take more than UT_EVENT_MAX bytes");
#define DEFINE_EVENT(template, name, proto, args)
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)
#define DECLARE_TRACE(name, proto, args)
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)

#include __UT_INCLUDE(TRACE_INCLUDE_FILE)

/* ---- reading 2: field tables, print fmt, descriptors ---- */

#undef __field
#undef __field_struct
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION

#define __field(type, item)		(__UT_F_SCALAR, #type, #item, type, item, 0),
#define __field_struct(type, item)	(__UT_F_STRUCT, #type, #item, type, item, 0),
#define __array(type, item, len)							\
	(__UT_F_ARRAY, #type "[" __UT_STR(len) "]", #item, type, item, len),
#define __dynamic_array(type, item, len)						\
	(__UT_F_DYN, "__data_loc " #type "[]", #item, type, item, 0),
#define __string(item, src)		(__UT_F_DYN, "__data_loc char[]", #item, char, item, 0),
#define __string_len(item, src, len)	(__UT_F_DYN, "__data_loc char[]", #item, char, item, 0),

/* the print fmt is TP_printk's text, __entry spelled REC */
#define __entry				REC
#define TP_printk(...)			__UT_STR(__VA_ARGS__)

#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	__UT_C_BEGIN									\
	static const struct ut_event_field __ut_fields_##call[]				\
		__attribute__((unused)) = {						\
		__UT_FOREACH(__UT_ROW, call, tstruct (__UT_F_END, 0, 0, 0, 0, 0))	\
	};										\
	static const char __ut_print_##call[] __attribute__((unused)) = print;		\
	__UT_C_END
#define DEFINE_EVENT(template, name, proto, args)					\
	__UT_P2_DESC(template, __UT_SYM(name), __UT_STR(TRACE_SYSTEM), #name,		\
		     __ut_print_##template)
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)			\
	DEFINE_EVENT(template, name, __UT_ID(proto), __UT_ID(args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)				\
	__UT_P2_PRINT(template, __UT_SYM(name), __UT_STR(TRACE_SYSTEM), #name, print)

#include __UT_INCLUDE(TRACE_INCLUDE_FILE)

/* ---- reading 3: recording, tracepoints ---- */

#undef __field
#undef __field_struct
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __entry
#undef TP_printk
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION

/* the fields: where the dynamic ones go, and how long they are */
#define __field(type, item)
#define __field_struct(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)						\
	__entry->__data_loc_##item = __ut_tp_dyn(__entry, &__ut_end,			\
						 (uint64_t)(len) * sizeof(type),	\
						 __alignof__(type), sizeof(type));
#define __string(item, src)								\
	const char *__ut_src_##item = (const char *)(src);				\
	if (!__ut_src_##item)								\
		__ut_src_##item = "(null)";						\
	__entry->__data_loc_##item = __ut_tp_dyn(__entry, &__ut_end,			\
						 __builtin_strlen(__ut_src_##item) + 1, 1, 1);
#define __string_len(item, src, len)							\
	const char *__ut_src_##item = (const char *)(src);				\
	uint64_t __ut_len_##item = (uint64_t)(len);					\
	if (!__ut_src_##item) {								\
		__ut_src_##item = "(null)";						\
		__ut_len_##item = 6;							\
	}										\
	__entry->__data_loc_##item = __ut_tp_dyn(__entry, &__ut_end, __ut_len_##item + 1, 1, 1);

/* TP_fast_assign's helpers */
#define __get_str(item)		((char *)__entry + (__entry->__data_loc_##item & 0xffff))
#define __get_dynamic_array(item)							\
	((void *)((char *)__entry + (__entry->__data_loc_##item & 0xffff)))
#define __get_dynamic_array_len(item)	(__entry->__data_loc_##item >> 16)
#define __assign_str(...)		__UT_ASSIGN_STR(__UT_FIRST(__VA_ARGS__))

#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	__UT_C_BEGIN									\
	static UT_NOTRACE __attribute__((noinline, unused))					\
	void __ut_class_##call(__UT_PROTO_WITH(struct ut_tracepoint *__ut_tp, (proto), (args))) \
	{										\
		union {									\
			struct ut_raw_##call e;						\
			unsigned char b[UT_EVENT_MAX];					\
		} __ut_u __attribute__((aligned(16)));					\
		struct ut_raw_##call *__entry = &__ut_u.e;				\
		const struct ut_tracepoint_ops *__ut_ops =				\
			__atomic_load_n(&__ut_tp->ops, __ATOMIC_ACQUIRE);		\
		uint32_t __ut_end = (uint32_t)offsetof(struct ut_raw_##call, __data);	\
											\
		if (!__ut_ops || !__ut_ops->write)					\
			return;								\
		__builtin_memset(__entry, 0, sizeof(*__entry));				\
		tstruct									\
		{ assign }								\
		if (__ut_end < sizeof(*__entry))					\
			__ut_end = sizeof(*__entry);					\
		__ut_ops->write(__ut_tp, &__entry->ent, __ut_end);			\
	}										\
	__UT_C_END
#define DEFINE_EVENT(template, name, proto, args)					\
	__UT_P3_EVENT(template, __UT_SYM(name), __UT_STR(TRACE_SYSTEM) ":" #name,	\
		      (proto), (args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)				\
	DEFINE_EVENT(template, name, __UT_ID(proto), __UT_ID(args))
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)			\
	DEFINE_EVENT(template, name, __UT_ID(proto), __UT_ID(args))
#define DECLARE_TRACE(name, proto, args)	__UT_DEFINE_TP(name, #name, __UT_NULL)
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)				\
	__UT_DEFINE_TP(name, #name, __UT_NULL)

/* a class need not use every argument */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include __UT_INCLUDE(TRACE_INCLUDE_FILE)
#pragma GCC diagnostic pop

/* ---- done: leave the includer's view to the next tracepoint.h ---- */

#undef __field
#undef __field_struct
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __assign_str
#undef TRACE_EVENT
#undef TRACE_EVENT_CONDITION
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION
#undef __UT_INCLUDE
#undef __UT_INCLUDE_
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH
#undef TRACE_HEADER_MULTI_READ

/* the file may include more trace headers */
#define CREATE_TRACE_POINTS

#elif defined(UT_TRACE_LAYOUTS) && !defined(TRACE_HEADER_MULTI_READ)

/*
 * UT_TRACE_LAYOUTS (usertrace's own code, not the programs'): reading 1
 * alone, struct ut_raw_<class> of each class of the header, for a file
 * that writes or reads entries of events another file defines (the
 * recorder's sched source writes sched_switch entries; the sched_switch
 * tracer prints them): the fields stay written once, in the header.
 */
#include "tracepoint.h"

#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE	TRACE_SYSTEM
#endif
#ifdef TRACE_INCLUDE_PATH
#define __UT_LAYOUT_INCLUDE_(file)	__UT_STR(TRACE_INCLUDE_PATH/file.h)
#else
#define __UT_LAYOUT_INCLUDE_(file)	<file.h>
#endif
#define __UT_LAYOUT_INCLUDE(file)	__UT_LAYOUT_INCLUDE_(file)

#define TRACE_HEADER_MULTI_READ

#undef TRACE_EVENT
#undef TRACE_EVENT_CONDITION
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)				\
	DECLARE_EVENT_CLASS(name, __UT_ID(proto), __UT_ID(args),			\
			    __UT_ID(tstruct), __UT_ID(assign), __UT_ID(print))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)		\
	DECLARE_EVENT_CLASS(name, __UT_ID(proto), __UT_ID(args),			\
			    __UT_ID(tstruct), __UT_ID(assign), __UT_ID(print))
#define __field(type, item)		type item;
#define __field_struct(type, item)	type item;
#define __array(type, item, len)	type item[len];
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#define __string(item, src)		uint32_t __data_loc_##item;
#define __string_len(item, src, len)	uint32_t __data_loc_##item;
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)			\
	struct ut_raw_##call {								\
		struct ut_trace_entry ent;						\
		tstruct									\
		char __data[];								\
	};
#define DEFINE_EVENT(template, name, proto, args)
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)
#define DECLARE_TRACE(name, proto, args)
#define DECLARE_TRACE_CONDITION(name, proto, args, cond)

#include __UT_LAYOUT_INCLUDE(TRACE_INCLUDE_FILE)

#undef __field
#undef __field_struct
#undef __array
#undef __dynamic_array
#undef __string
#undef __string_len
#undef TRACE_EVENT
#undef TRACE_EVENT_CONDITION
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef DEFINE_EVENT_PRINT
#undef DEFINE_EVENT_CONDITION
#undef DECLARE_TRACE
#undef DECLARE_TRACE_CONDITION
#undef __UT_LAYOUT_INCLUDE
#undef __UT_LAYOUT_INCLUDE_
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH
#undef TRACE_HEADER_MULTI_READ

#endif /* CREATE_TRACE_POINTS, UT_TRACE_LAYOUTS */
