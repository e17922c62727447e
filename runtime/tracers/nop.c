// SPDX-License-Identifier: MIT
/*
 * nop.c - the runtime part of the nop tracer: nothing.  It needs no
 * hooks: the programs record only the events and markers asked for.
 */
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_nop = {
	.name = "nop",
};
