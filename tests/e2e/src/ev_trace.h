/* events of the e2e test programs (usertrace/tracepoint.h) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

#if !defined(EV_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define EV_TRACE_H

#include <usertrace/tracepoint.h>

TRACE_EVENT(request,
	TP_PROTO(int id, const char *path),
	TP_ARGS(id, path),
	TP_STRUCT__entry(
		__field(int, id)
		__string(path, path)
	),
	TP_fast_assign(
		__entry->id = id;
		__assign_str(path);
	),
	TP_printk("id=%d path=%s", __entry->id, __get_str(path))
);

TRACE_EVENT(tick,
	TP_PROTO(unsigned long n),
	TP_ARGS(n),
	TP_STRUCT__entry(__field(unsigned long, n)),
	TP_fast_assign(__entry->n = n;),
	TP_printk("n=%lu", __entry->n)
);

#endif

#define TRACE_INCLUDE_FILE ev_trace
#include <usertrace/define_trace.h>
