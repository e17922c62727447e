/* SPDX-License-Identifier: MIT */
/*
 * power_source.h - the power events (power:cpu_frequency, power:cpu_idle)
 * of the CPUs the traced threads run on, collected by the recorder.
 *
 * Two sources, chosen when the recording starts:
 *
 *   tracefs  the kernel's own events, through an instance of the
 *            kernel's tracing directory (root, tracefs mounted, the
 *            events readable): every CPU's, kept for the CPUs the
 *            program's threads may run on
 *   sysfs    sampled at each poll of the recorder from
 *            /sys/devices/system/cpu/cpuN: cpufreq/scaling_cur_freq
 *            (a cpu_frequency event when it changes, and at the first
 *            sample), cpuidle/stateK/usage and time (a CPU idle since
 *            the last sample gets a cpu_idle of the state it spent the
 *            most time in, then one of PWR_EVENT_EXIT, both at the
 *            sample's time)
 *
 * USERTRACE_POWER_SOURCE=tracefs|sysfs forces one; USERTRACE_POWER_SYSFS
 * names another directory of cpuN directories (tests).  Neither (no
 * readable tracefs, no cpufreq nor cpuidle in sysfs): no source, with
 * the reason.  The CPUs of the program are those its threads may run
 * on: each thread's affinity (sched_getaffinity) when the source starts
 * following its process and at each poll, added up (of the processes
 * followed and their threads).  Not where a thread was seen at a poll:
 * it moves between CPUs faster than that.  The events go into one
 * buffer of the session, buf.0.0.<UT_POWER_IMAGE>, the idle task's, as
 * the kernel's idle events are.
 */
#ifndef UT_CMDS_POWERSRC_H
#define UT_CMDS_POWERSRC_H

#include <stdint.h>
#include <sys/types.h>

#include "usertrace/evreg.h"

#define UT_POWER_IMAGE		2
#define UT_POWER_SOURCE_ENV	"USERTRACE_POWER_SOURCE"
/* the directory of the cpuN directories the sysfs source reads (tests) */
#define UT_POWER_SYSFS_ENV	"USERTRACE_POWER_SYSFS"

struct power_src;

/* is a power event recorded (registered in @reg with UT_EVS_RECORD)? */
int power_src_wanted(const struct ut_evreg *reg);
/*
 * power_src_open - the source for program @pid: NULL when none can be
 * used (the reason is printed).  @session: the session directory,
 * @clock its enum ut_clock.
 */
struct power_src *power_src_open(const char *session, const struct ut_evreg *reg, int clock,
				 pid_t pid);
/*
 * power_src_live - the source of a tracing directory's session
 * (recorder/daemon_sources.c runs it): no process until power_src_follow(); the
 * buffer is @nr_pages, overwrite mode; nothing is written while *@on
 * (the session's tracing_on) is 0.  NULL when no source can be used.
 */
struct power_src *power_src_live(const char *session, const struct ut_evreg *reg, int clock,
				 uint32_t nr_pages, const volatile uint32_t *on);
/* the CPUs of process @pid's threads count too (at most 64 processes) */
void power_src_follow(struct power_src *s, pid_t pid);
/* "tracefs" or "sysfs" */
const char *power_src_name(const struct power_src *s);
/* write what the source has now into the buffer */
void power_src_poll(struct power_src *s);
/* the last poll, the kernel side released, the buffer closed (saved by the recorder), @s freed */
void power_src_close(struct power_src *s);

#endif /* UT_CMDS_POWERSRC_H */
