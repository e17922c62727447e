// SPDX-License-Identifier: MIT
/*
 * function.c - the runtime part of the function tracer: calls with
 * their callers.  Its needs (UT_NEED_FUNC) make the hooks write FUNC
 * records (graph.c) and hook no returns; nothing else to set up.
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_function = {
	.name = "function",
};
