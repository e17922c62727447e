/* SPDX-License-Identifier: MIT */
/*
 * hwbranch_source.h - the hw-branch tracer's recorder side: the branches the CPU
 * records for the traced threads, read through perf_event_open and
 * written as ftrace:hw_branch entries (recorder/hwbranch_source.c).
 *
 * Where the probe (output/hwbranch.h) finds branch-stack sampling
 * (Intel LBR, AMD BRS/LBRv2 through the cpu PMU): one sampling event of
 * branch instructions per CPU for the program, inherited by its threads
 * and children (PERF_SAMPLE_TID | TIME | CPU | BRANCH_STACK, user
 * branches only, exclude_kernel, CLOCK_MONOTONIC), each CPU's ring read
 * at every pass of the recorder; each sample's branch stack decoded by
 * hwb_decode(), oldest first, one entry per branch (from, to) at the
 * sample's time into the buffer of the sample's thread,
 * buf.<pid>.<tid>.<UT_HWB_IMAGE>.
 *
 * UT_HWB_RECORDS_ENV=FILE (tests): no perf event; FILE holds perf
 * records as a ring's data part would (sample_type TID|TIME|CPU|
 * BRANCH_STACK, branch_sample_type ANY|USER), decoded and written the
 * same way at the first poll.  A sample's pid or tid 0 stands for the
 * program's, a time 0 for the time it is read.
 */
#ifndef UT_CMDS_HWBSRC_H
#define UT_CMDS_HWBSRC_H

#include <stdint.h>
#include <sys/types.h>

#define UT_HWB_IMAGE		3

struct hwb_src;

/*
 * A sample every 100003 branches: its stack is the last branches the
 * CPU kept (16 to 32 on LBR), a part of them all, as perf's sampling
 * is.  Branches that do not fit (the perf ring's overflow, a full
 * buffer) are counted and said at the end.
 *
 * hwb_src_open - the source for program @pid, stopped before its exec:
 * NULL when none can be used (the reason is printed; the program runs).
 * @session: the session directory, @clock its enum ut_clock.
 */
struct hwb_src *hwb_src_open(const char *session, int clock, pid_t pid);
/*
 * hwb_src_live - the source of a tracing directory's session
 * (recorder/daemon_sources.c runs it while a directory's tracer is hw-branch): no
 * process until hwb_src_follow(); each thread's buffer is @nr_pages,
 * overwrite mode; nothing is written while *@on (the session's
 * tracing_on) is 0.  NULL when the machine has no source (said).
 */
struct hwb_src *hwb_src_live(const char *session, int clock, uint32_t nr_pages,
			     const volatile uint32_t *on);
/*
 * hwb_src_follow - the branches of process @pid (and its threads and
 * children) recorded too; the first process after a start is the one a
 * record of UT_HWB_RECORDS_ENV's file with pid 0 stands for, and the
 * file is read again at each start.  0, or -1 (said).
 */
int hwb_src_follow(struct hwb_src *s, pid_t pid);
/* stop: the last poll, every process's events closed; the buffers stay */
void hwb_src_stop(struct hwb_src *s);
/* between a follow and a stop? */
int hwb_src_running(const struct hwb_src *s);
/* "branch-stack" or "file" */
const char *hwb_src_name(const struct hwb_src *s);
/* write the branches read since the last poll */
void hwb_src_poll(struct hwb_src *s);
/* the last poll, the events closed, the buffers closed (the recorder saves them), @s freed */
void hwb_src_close(struct hwb_src *s);

#endif /* UT_CMDS_HWBSRC_H */
