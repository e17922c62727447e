/* SPDX-License-Identifier: MIT */
/*
 * tp_sample.h - the trace header of tests/unit/test_tracepoint.c: one
 * event of each kind the macros offer (system "sample").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

#if !defined(TP_SAMPLE_H) || defined(TRACE_HEADER_MULTI_READ)
#define TP_SAMPLE_H

#include <string.h>
#include <usertrace/tracepoint.h>

#ifndef TP_SAMPLE_TYPES
#define TP_SAMPLE_TYPES
struct sample_pair {
	short lo;
	long long hi;
};
#endif

/* the example of doc/design/framework.md 3.2 */
TRACE_EVENT(request,
	TP_PROTO(int id, const char *path),
	TP_ARGS(id, path),
	TP_STRUCT__entry(__field(int, id) __string(path, path)),
	TP_fast_assign(__entry->id = id; __assign_str(path);),
	TP_printk("id=%d path=%s", __entry->id, __get_str(path)));

/* every kind of field; __assign_str with the older two arguments */
TRACE_EVENT(mixed,
	TP_PROTO(int a, unsigned long b, const char *comm, const char *name,
		 const short *vals, int n, struct sample_pair pair),
	TP_ARGS(a, b, comm, name, vals, n, pair),
	TP_STRUCT__entry(
		__field(int, a)
		__field(unsigned long, b)
		__array(char, comm, 16)
		__string(name, name)
		__dynamic_array(short, vals, n)
		__field_struct(struct sample_pair, pair)
		__field(unsigned char, flag)
	),
	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		strncpy(__entry->comm, comm, sizeof(__entry->comm) - 1);
		__assign_str(name, name);
		memcpy(__get_dynamic_array(vals), vals, __get_dynamic_array_len(vals));
		__entry->pair = pair;
		__entry->flag = 0xff;
	),
	TP_printk("a=%d b=%lu comm=%s name=%s vals=%s",
		  __entry->a, __entry->b, __entry->comm, __get_str(name),
		  __print_array(__get_dynamic_array(vals),
				__get_dynamic_array_len(vals) / 2, 2))
);

/* a class with three events, one printing its own way */
DECLARE_EVENT_CLASS(obj,
	TP_PROTO(const void *ptr, long delta),
	TP_ARGS(ptr, delta),
	TP_STRUCT__entry(
		__field(const void *, ptr)
		__field(long, delta)
	),
	TP_fast_assign(
		__entry->ptr = ptr;
		__entry->delta = delta;
	),
	TP_printk("ptr=%p delta=%ld", __entry->ptr, __entry->delta)
);

DEFINE_EVENT(obj, obj_get,
	TP_PROTO(const void *ptr, long delta),
	TP_ARGS(ptr, delta));

DEFINE_EVENT(obj, obj_put,
	TP_PROTO(const void *ptr, long delta),
	TP_ARGS(ptr, delta));

DEFINE_EVENT_PRINT(obj, obj_dump,
	TP_PROTO(const void *ptr, long delta),
	TP_ARGS(ptr, delta),
	TP_printk("dump %p", __entry->ptr));

/* no arguments; no fields */
TRACE_EVENT(tick,
	TP_PROTO(void),
	TP_ARGS(),
	TP_STRUCT__entry(),
	TP_fast_assign(),
	TP_printk("tick"));

/* __string_len; an argument the entry does not keep; a condition */
TRACE_EVENT_CONDITION(blob,
	TP_PROTO(const char *buf, unsigned int len, int unused),
	TP_ARGS(buf, len, unused),
	TP_CONDITION(len != 13),
	TP_STRUCT__entry(
		__field(unsigned int, len)
		__string_len(buf, buf, len)
	),
	TP_fast_assign(
		__entry->len = len;
		__assign_str(buf);
	),
	TP_printk("len=%u buf=%s", __entry->len, __get_str(buf)));

/* probes only */
DECLARE_TRACE(sample_hook,
	TP_PROTO(int x, const char *why),
	TP_ARGS(x, why));

DECLARE_TRACE(sample_void_hook,
	TP_PROTO(void),
	TP_ARGS());

#endif /* TP_SAMPLE_H */

#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE tp_sample
#include <usertrace/define_trace.h>
