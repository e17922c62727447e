// SPDX-License-Identifier: MIT
#include "lib/trace/output.h"
#include "lib/trace/tracer.h"

const struct tracer initcall_tracer = {
	.name		= "initcall",
	.print_header	= trace_default_header,
};
