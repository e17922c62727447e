// SPDX-License-Identifier: MIT
#include "runtime/tracer.h"

const struct ut_rt_tracer ut_rt_tracer_initcall = {
	.name = "initcall",
};
