// SPDX-License-Identifier: MIT
/*
 * nop.c - the nop tracer: records no function calls.  Its output is the
 * default header and whatever else the buffer holds: trace_marker writes
 * and events.
 */
#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/record.h"

/*
 * no print_line: every event goes to the generic printer, which shows
 * markers, stack traces (a stacktrace function command's, as in the
 * kernel) and events; function records of another tracer are not shown,
 * as after a tracer switch
 */
const struct tracer nop_tracer = {
	.name		= "nop",
	.print_header	= trace_default_header,
};
