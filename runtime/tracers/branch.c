// SPDX-License-Identifier: MIT
/*
 * branch.c - the runtime part of the branch tracer: while it is active,
 * each likely()/unlikely() of a program built with
 * -DUSERTRACE_PROFILE_BRANCHES writes a branch entry (runtime/branch.c).
 * It needs no hooks of its own.
 */
#include "runtime/runtime.h"
#include "runtime/tracer.h"

static int branch_init(void)
{
	ut_branch_tracing(1);
	return 0;
}

static void branch_reset(void)
{
	ut_branch_tracing(0);
}

const struct ut_rt_tracer ut_rt_tracer_branch = {
	.name = "branch",
	.init = branch_init,
	.reset = branch_reset,
};
