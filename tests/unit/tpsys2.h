/* SPDX-License-Identifier: MIT */
/*
 * tpsys2.h - a second system for tests/unit/test_tracepoint.c, found by
 * define_trace.h's defaults: the file is TRACE_SYSTEM.h on the include
 * path.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpsys2

#if !defined(TPSYS2_H) || defined(TRACE_HEADER_MULTI_READ)
#define TPSYS2_H

#include <usertrace/tracepoint.h>

#ifndef TPSYS2_TYPES
#define TPSYS2_TYPES
enum tpsys2_dir { TPSYS2_IN = -1, TPSYS2_OUT = 1 };
enum tpsys2_mode { TPSYS2_TCP, TPSYS2_UDP };
#endif

/* enums are signed as their type: by the values they hold */
TRACE_EVENT(ping,
	TP_PROTO(unsigned short port, enum tpsys2_dir dir, enum tpsys2_mode mode),
	TP_ARGS(port, dir, mode),
	TP_STRUCT__entry(
		__field(unsigned short, port)
		__field(enum tpsys2_dir, dir)
		__field(enum tpsys2_mode, mode)
	),
	TP_fast_assign(
		__entry->port = port;
		__entry->dir = dir;
		__entry->mode = mode;
	),
	TP_printk("port=%hu dir=%d mode=%u", __entry->port, __entry->dir, __entry->mode));

#endif /* TPSYS2_H */

#include <usertrace/define_trace.h>
