/* the benchmark's event: one int field (usertrace/tracepoint.h) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM bench

#if !defined(BENCH_TP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define BENCH_TP_TRACE_H

#include <usertrace/tracepoint.h>

TRACE_EVENT(tp_int,
	TP_PROTO(int v),
	TP_ARGS(v),
	TP_STRUCT__entry(__field(int, v)),
	TP_fast_assign(__entry->v = v;),
	TP_printk("v=%d", __entry->v)
);

#endif

#define TRACE_INCLUDE_FILE tp_trace
#include <usertrace/define_trace.h>
