/* the events of lib-evlib.c: a system of a shared library */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM evlib

#if !defined(EVLIB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVLIB_TRACE_H

#include <usertrace/tracepoint.h>

TRACE_EVENT(hit,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(__field(int, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%d", __entry->v)
);

#endif

#define TRACE_INCLUDE_FILE evlib_trace
#include <usertrace/define_trace.h>
