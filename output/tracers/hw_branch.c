// SPDX-License-Identifier: MIT
/*
 * hw_branch.c - the hw-branch tracer: branches taken by the traced
 * threads, as the CPU records them (Intel BTS/PT, branch stacks of LBR
 * or AMD BRS), through perf_event_open.  Available only where the probe
 * (output/hwbranch.c) finds one of them; elsewhere it is left out of
 * available_tracers and `record -t`, with the reason.
 *
 * Its lines are the kernel's (Linux 2.6.29's trace_hw_branches.c), one
 * per ftrace:hw_branch entry (the kernel's layout: the common fields,
 * u64 from, u64 to), which `record` writes (recorder/hwbranch_source.c):
 *
 *   # CPU#        FROM                   TO         FUNCTION
 *   #  |           |                     |             |
 *      1  0x00005555555551a9 -> 0x0000555555555139 main
 */
#include <stddef.h>
#include <string.h>

#include "output/hwbranch.h"
#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/ftrace.h"
#include "reader/data.h"

static int hw_branch_available(char *why, size_t len)
{
	return hwb_probe(why, len) != HWB_NONE;
}

static void hw_branch_header(struct trace_iter *iter)
{
	hwb_print_header(iter);
}

static enum print_line_t hw_branch_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	uint64_t from, to;

	if (ev->type != UT_EV_EVENT || !ev->data || ev->data_len < sizeof(struct ut_ftrace_hw_branch) ||
	    !trace_event_is(iter, ev, "ftrace", "hw_branch"))
		return TRACE_TYPE_UNHANDLED;
	/* the entry, as ftrace.def has it */
	memcpy(&from, ev->data + offsetof(struct ut_ftrace_hw_branch, from), sizeof(from));
	memcpy(&to, ev->data + offsetof(struct ut_ftrace_hw_branch, to), sizeof(to));
	hwb_print_branch(iter, ev, (int)ev->cpu, from, to);
	return TRACE_TYPE_HANDLED;
}

const struct tracer hw_branch_tracer = {
	.name		= "hw-branch",
	.entry_id	= UT_EVENT_ID_HW_BRANCH,
	.available	= hw_branch_available,
	.print_header	= hw_branch_header,
	.print_line	= hw_branch_print_line,
};
