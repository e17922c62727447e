/* sample:request again, with another layout: two versions of one event */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

#if !defined(EVLAYOUT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define EVLAYOUT_TRACE_H

#include <usertrace/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(long id),
	TP_ARGS(id),
	TP_STRUCT__entry(__field(long, id)),
	TP_fast_assign(__entry->id = id;),
	TP_printk("id=%ld (v2)", __entry->id)
);

#endif

#define TRACE_INCLUDE_FILE evlayout_trace
#include <usertrace/define_trace.h>
