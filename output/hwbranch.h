/* SPDX-License-Identifier: MIT */
/*
 * hwbranch.h - the hw-branch tracer's machine side: whether this machine
 * gives hardware branch records to perf_event_open, and the decoder of
 * the records it gives (PERF_RECORD_SAMPLE with PERF_SAMPLE_BRANCH_STACK)
 * into one branch each, oldest first.
 *
 * What is probed, in order (once per process):
 *   1. an intel_bts or intel_pt PMU in /sys/bus/event_source/devices
 *      (Intel's branch trace store, processor trace);
 *   2. perf_event_open of a branch-instructions sampling event of this
 *      thread with PERF_SAMPLE_BRANCH_STACK, user branches (Intel LBR,
 *      AMD BRS and LBRv2 through the `cpu` PMU).
 * USERTRACE_HW_BRANCH=off makes the tracer unavailable (tests).
 * USERTRACE_HW_BRANCH_RECORDS=FILE (tests, before both): the source is
 * FILE, perf records written as a ring would hold them (recorder/hwbranch_source.h).
 */
#ifndef UT_LIB_TRACE_HWBRANCH_H
#define UT_LIB_TRACE_HWBRANCH_H

#include <stddef.h>
#include <stdint.h>

struct trace_iter;
struct ut_event;

#define UT_HWB_ENV	"USERTRACE_HW_BRANCH"
#define UT_HWB_RECORDS_ENV	"USERTRACE_HW_BRANCH_RECORDS"

/* the source found: */
enum hwb_source { HWB_NONE, HWB_BTS, HWB_PT, HWB_BRANCH_STACK, HWB_FILE };

/*
 * hwb_probe - what this machine offers (the first call probes, the
 * others return the same): a source, or HWB_NONE with the reason in
 * @why (what was checked and what failed)
 */
enum hwb_source hwb_probe(char *why, size_t len);
/* "intel_bts", "intel_pt", "branch-stack", "file", "none" */
const char *hwb_source_name(enum hwb_source src);

/* one branch taken */
struct hwb_branch {
	uint32_t pid, tid, cpu;
	uint64_t time;		/* the sample's (PERF_SAMPLE_TIME), 0 without it */
	uint64_t from, to;
};

/*
 * hwb_decode - the branches of the perf records at @buf (@len bytes, as
 * read from a perf ring's data part, records whole): for each
 * PERF_RECORD_SAMPLE, @fn for each entry of its branch stack, oldest
 * first (the stack has the newest first).  @sample_type is the event's
 * attr.sample_type (PERF_SAMPLE_BRANCH_STACK in it; PERF_SAMPLE_READ,
 * which needs read_format, is refused), @branch_sample_type its
 * attr.branch_sample_type (PERF_SAMPLE_BRANCH_HW_INDEX adds a word).
 * Other records are skipped.  @fn returning nonzero stops.  Returns the
 * number of branches given, or -1 when a record is cut or inconsistent
 * (those before it were given).
 */
int hwb_decode(const void *buf, size_t len, uint64_t sample_type, uint64_t branch_sample_type,
	       int (*fn)(const struct hwb_branch *b, void *arg), void *arg);

/*
 * The kernel's hw-branch lines (trace_hw_branches.c, Linux 2.6.29):
 *   # CPU#        FROM                   TO         FUNCTION
 *   #  |           |                     |             |
 *      1  0x00005555555551a9 -> 0x0000555555555139 main
 * FUNCTION is the symbol of FROM (sym-offset, sym-addr honoured), none
 * when FROM is 0.
 */
void hwb_print_header(struct trace_iter *iter);
void hwb_print_branch(struct trace_iter *iter, const struct ut_event *ev, int cpu,
		      uint64_t from, uint64_t to);

#endif
