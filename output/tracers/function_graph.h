/* SPDX-License-Identifier: MIT */
/*
 * function_graph.h - the function_graph tracer's own options: their bits
 * in its tracer_flags word (the table is in function_graph.c), as the
 * kernel's TRACE_GRAPH_PRINT_* flags.
 */
#ifndef USERTRACE_TRACE_FUNCTION_GRAPH_H
#define USERTRACE_TRACE_FUNCTION_GRAPH_H

enum graph_flags {
	GRAPH_OVERRUN	= 1u << 0,	/* funcgraph-overrun */
	GRAPH_CPU	= 1u << 1,	/* funcgraph-cpu */
	GRAPH_OVERHEAD	= 1u << 2,	/* funcgraph-overhead */
	GRAPH_PROC	= 1u << 3,	/* funcgraph-proc */
	GRAPH_DURATION	= 1u << 4,	/* funcgraph-duration */
	GRAPH_ABS_TIME	= 1u << 5,	/* funcgraph-abstime */
	GRAPH_IRQS	= 1u << 6,	/* funcgraph-irqs: no irqs in user space, accepted */
	GRAPH_TAIL	= 1u << 7,	/* funcgraph-tail */
	/* graph-time: the function profiler's time counts the callees' (output/profile.c) */
	GRAPH_GRAPH_TIME = 1u << 8,
};

#endif /* USERTRACE_TRACE_FUNCTION_GRAPH_H */
