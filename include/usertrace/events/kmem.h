/* SPDX-License-Identifier: MIT */
/*
 * kmem.h - the built-in `kmem` events: the malloc family as the kernel's
 * kmalloc and kfree (runtime/tracers/kmemtrace.c; C++'s new and delete, kmemtrace_cxx.c;
 * anonymous mappings under the kmemtrace tracer, bytes_alloc their pages).  As the kernel's
 * events/kmem/NAME/format (see sched.h): call_site is the caller's return
 * address, bytes_alloc the allocator's malloc_usable_size() (bytes_req
 * if it has none), gfp_flags 0 and node -1 (NUMA_NO_NODE).
 *
 * kmalloc's print fmt is the kernel's text as its format file shows it,
 * the gfp flag names expanded (one blank where it has one; a line break
 * here is one blank): gfp_flags 0 prints "none", accounted "false".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem

#if !defined(USERTRACE_EVENTS_KMEM_H) || defined(TRACE_HEADER_MULTI_READ)
#define USERTRACE_EVENTS_KMEM_H

#include <stddef.h>
#include "usertrace/tracepoint.h"

TRACE_EVENT(kmalloc,
	TP_PROTO(unsigned long call_site, const void *ptr, size_t bytes_req, size_t bytes_alloc,
		 unsigned long gfp_flags, int node),
	TP_ARGS(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node),
	TP_STRUCT__entry(
		__field(unsigned long, call_site)
		__field(const void *, ptr)
		__field(size_t, bytes_req)
		__field(size_t, bytes_alloc)
		__field(unsigned long, gfp_flags)
		__field(int, node)
	),
	TP_fast_assign(
		__entry->call_site = call_site;
		__entry->ptr = ptr;
		__entry->bytes_req = bytes_req;
		__entry->bytes_alloc = bytes_alloc;
		__entry->gfp_flags = gfp_flags;
		__entry->node = node;
	),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s",
		(void *)__entry->call_site, __entry->ptr, __entry->bytes_req, __entry->bytes_alloc,
		(__entry->gfp_flags) ? __print_flags(__entry->gfp_flags, "|",
		{( unsigned long)(((((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | ((
			gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | ((
			gfp_t)((((1UL))) << (3))) | (( gfp_t)0)) | (( gfp_t)((((1UL))) << (18))) |
			(( gfp_t)((((1UL))) << (19))) | (( gfp_t)((((1UL))) << (13)))) & ~((
			gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))) | (( gfp_t)((((1UL))) <<
			(10)))), "GFP_TRANSHUGE"},
		{( unsigned long)((((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | ((
			gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | ((
			gfp_t)((((1UL))) << (3))) | (( gfp_t)0)) | (( gfp_t)((((1UL))) << (18))) |
			(( gfp_t)((((1UL))) << (19))) | (( gfp_t)((((1UL))) << (13)))) & ~((
			gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))), "GFP_TRANSHUGE_LIGHT"},
		{( unsigned long)((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | ((
			gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | ((
			gfp_t)((((1UL))) << (3))) | (( gfp_t)0)), "GFP_HIGHUSER_MOVABLE"},
		{( unsigned long)(((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | ((
			gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))),
			"GFP_HIGHUSER"},
		{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | ((
			gfp_t)((((1UL))) << (20)))), "GFP_USER"},
		{( unsigned long)(((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7)))) | ((
			gfp_t)((((1UL))) << (22)))), "GFP_KERNEL_ACCOUNT"},
		{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7)))), "GFP_KERNEL"},
		{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | ((
			gfp_t)((((1UL))) << (6)))), "GFP_NOFS"},
		{( unsigned long)((( gfp_t)((((1UL))) << (5)))|(( gfp_t)((((1UL))) << (11)))),
			"GFP_ATOMIC"},
		{( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))), "GFP_NOIO"},
		{( unsigned long)((( gfp_t)((((1UL))) << (11))) | (( gfp_t)((((1UL))) << (13)))),
			"GFP_NOWAIT"},
		{( unsigned long)(( gfp_t)((((1UL))) << (0))), "GFP_DMA"},
		{( unsigned long)(( gfp_t)((((1UL))) << (2))), "GFP_DMA32"},
		{( unsigned long)(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))),
			"__GFP_RECLAIM"},
		{( unsigned long)(( gfp_t)((((1UL))) << (0))), "__GFP_DMA"},
		{( unsigned long)(( gfp_t)((((1UL))) << (1))), "__GFP_HIGHMEM"},
		{( unsigned long)(( gfp_t)((((1UL))) << (2))), "__GFP_DMA32"},
		{( unsigned long)(( gfp_t)((((1UL))) << (3))), "__GFP_MOVABLE"},
		{( unsigned long)(( gfp_t)((((1UL))) << (4))), "__GFP_RECLAIMABLE"},
		{( unsigned long)(( gfp_t)((((1UL))) << (5))), "__GFP_HIGH"},
		{( unsigned long)(( gfp_t)((((1UL))) << (6))), "__GFP_IO"},
		{( unsigned long)(( gfp_t)((((1UL))) << (7))), "__GFP_FS"},
		{( unsigned long)(( gfp_t)((((1UL))) << (8))), "__GFP_ZERO"},
		{( unsigned long)(( gfp_t)((((1UL))) << (10))), "__GFP_DIRECT_RECLAIM"},
		{( unsigned long)(( gfp_t)((((1UL))) << (11))), "__GFP_KSWAPD_RECLAIM"},
		{( unsigned long)(( gfp_t)((((1UL))) << (12))), "__GFP_WRITE"},
		{( unsigned long)(( gfp_t)((((1UL))) << (13))), "__GFP_NOWARN"},
		{( unsigned long)(( gfp_t)((((1UL))) << (14))), "__GFP_RETRY_MAYFAIL"},
		{( unsigned long)(( gfp_t)((((1UL))) << (15))), "__GFP_NOFAIL"},
		{( unsigned long)(( gfp_t)((((1UL))) << (16))), "__GFP_NORETRY"},
		{( unsigned long)(( gfp_t)((((1UL))) << (17))), "__GFP_MEMALLOC"},
		{( unsigned long)(( gfp_t)((((1UL))) << (18))), "__GFP_COMP"},
		{( unsigned long)(( gfp_t)((((1UL))) << (19))), "__GFP_NOMEMALLOC"},
		{( unsigned long)(( gfp_t)((((1UL))) << (20))), "__GFP_HARDWALL"},
		{( unsigned long)(( gfp_t)((((1UL))) << (21))), "__GFP_THISNODE"},
		{( unsigned long)(( gfp_t)((((1UL))) << (22))), "__GFP_ACCOUNT"},
		{( unsigned long)(( gfp_t)((((1UL))) << (23))), "__GFP_ZEROTAGS"},
		{( unsigned long)(( gfp_t)((((1UL))) << (24))), "__GFP_NO_OBJ_EXT"},
		{ 0, ((void *)0) } ) : "none", __entry->node, (1 && (__entry->gfp_flags & ( unsigned
			long)(( gfp_t)((((1UL))) << (22))))) ? "true" : "false")
);

TRACE_EVENT(kfree,
	TP_PROTO(unsigned long call_site, const void *ptr),
	TP_ARGS(call_site, ptr),
	TP_STRUCT__entry(
		__field(unsigned long, call_site)
		__field(const void *, ptr)
	),
	TP_fast_assign(
		__entry->call_site = call_site;
		__entry->ptr = ptr;
	),
	TP_printk("call_site=%pS ptr=%p", (void *)__entry->call_site, __entry->ptr)
);

#endif /* USERTRACE_EVENTS_KMEM_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH usertrace/events
#define TRACE_INCLUDE_FILE kmem
#include "usertrace/define_trace.h"
