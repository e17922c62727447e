/* the same event for LTTng-UST 2.13 (lttng/tracepoint.h) */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench_lttng

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp_lttng.h"

#if !defined(BENCH_TP_LTTNG_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_LTTNG_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(bench_lttng, tp_int,
	TP_ARGS(int, v),
	TP_FIELDS(ctf_integer(int, v, v))
)

#endif

#include <lttng/tracepoint-event.h>
