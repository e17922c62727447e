/* SPDX-License-Identifier: MIT */
/*
 * dl.h - the built-in `dl` events: objects the program loads and unloads
 * at run time (dlopen, dlclose; runtime/interpose.c).  The kernel has no
 * such events; the fields say what the calls took and returned.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dl

#if !defined(USERTRACE_EVENTS_DL_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_DL_H

#include "usertrace/tracepoint.h"

/* dlopen(@filename, @flags) returned @handle (0: it failed; dlerror says why) */
TRACE_EVENT(dlopen,
	TP_PROTO(const char *filename, int flags, void *handle),
	TP_ARGS(filename, flags, handle),
	TP_STRUCT__entry(
		__string(filename, filename)
		__field(int, flags)
		__field(void *, handle)
	),
	TP_fast_assign(
		__assign_str(filename);
		__entry->flags = flags;
		__entry->handle = handle;
	),
	TP_printk("filename=%s flags=0x%x handle=%p", __get_str(filename), __entry->flags, __entry->handle)
);

/* dlclose(@handle) returned @ret (0, or nonzero: it failed) */
TRACE_EVENT(dlclose,
	TP_PROTO(void *handle, int ret),
	TP_ARGS(handle, ret),
	TP_STRUCT__entry(
		__field(void *, handle)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__entry->ret = ret;
	),
	TP_printk("handle=%p ret=%d", __entry->handle, __entry->ret)
);

#endif /* USERTRACE_EVENTS_DL_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE dl
#include "usertrace/define_trace.h"
