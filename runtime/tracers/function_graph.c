// SPDX-License-Identifier: MIT
/*
 * function_graph.c - the runtime part of the function_graph tracer:
 * calls and returns.  Its needs (UT_NEED_GRAPH) make the hooks write
 * ENTRY and EXIT records (graph.c) and the return trampoline time each
 * call; nothing else to set up.
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_function_graph = {
	.name = "function_graph",
};
