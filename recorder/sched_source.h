/* SPDX-License-Identifier: MIT */
/*
 * sched_source.h - the sched events of the traced threads (sched_switch,
 * sched_wakeup, sched_waking, sched_migrate_task), collected outside
 * the threads by the recorder (recorder/sched_source.c).
 *
 * Two sources, chosen when the recording starts:
 *
 *   tracefs  the kernel's own events, through an instance of the
 *            kernel's tracing directory (root, tracefs mounted): the
 *            program's pid in its set_event_pid with event-fork, so
 *            every thread and child follows, trace_clock mono
 *   perf     perf_event_open context-switch records (PERF_RECORD_SWITCH)
 *            of the program's threads, one inherited event per CPU
 *            (no privilege at perf_event_paranoid 2): sched_switch and
 *            sched_migrate_task only, the other side of a switch known
 *            only when it is a traced thread
 *
 * USERTRACE_SCHED_SOURCE=tracefs|perf forces one (doc/usertrace.1).
 * The events are written as EVENT records, with the session's ids, into
 * ring buffers of their own in the session directory,
 * buf.<pid>.<tid>.<UT_SCHED_IMAGE>, one per task whose pid is the
 * event's common_pid; the recorder saves them as any thread's buffer.
 */
#ifndef UT_CMDS_SCHEDSRC_H
#define UT_CMDS_SCHEDSRC_H

#include <sys/types.h>

#include "usertrace/evreg.h"

/* the image number of the sched buffers (a process image's is random, never 1) */
#define UT_SCHED_IMAGE		1
#define UT_SCHED_SOURCE_ENV	"USERTRACE_SCHED_SOURCE"

struct sched_src;

/* are any of the sched events recorded (registered in @reg, with UT_EVS_RECORD)? */
int sched_src_wanted(const struct ut_evreg *reg);

/*
 * sched_src_open - set up the source for program @pid, stopped before
 * its exec (nothing of it ran yet): NULL when no source can be used
 * (the reason is printed; the program runs untraced by it).
 * @session: the session directory, @clock its enum ut_clock.
 */
struct sched_src *sched_src_open(const char *session, const struct ut_evreg *reg, int clock,
				 pid_t pid);
/*
 * sched_src_live - the source of a tracing directory's session
 * (recorder/daemon_sources.c): nothing is watched until sched_src_follow(); the
 * buffers are @nr_pages, overwrite mode; nothing is written while
 * *@on (the session's tracing_on) is 0.  NULL after a message when
 * UT_SCHED_SOURCE_ENV names no source.
 */
struct sched_src *sched_src_live(const char *session, const struct ut_evreg *reg, int clock,
				 uint32_t nr_pages, const volatile uint32_t *on);
/*
 * sched_src_follow - watch every thread of process @pid (the kernel's
 * or perf's inheritance then follows the threads and children they
 * make); the source's kernel side is set up at the first.  0, 1 when
 * the process is gone, -1 when no source can be used (said; the
 * source stays off: every later call is -1).
 */
int sched_src_follow(struct sched_src *s, pid_t pid);
/* the events of thread @tid itself are not written (the runtime's own threads) */
void sched_src_skip(struct sched_src *s, pid_t tid);
/* the kernel's events (tracefs) follow which sched events are recorded now */
void sched_src_sync_events(struct sched_src *s);
/* is the kernel side set up (between the first follow and a stop)? */
int sched_src_running(const struct sched_src *s);
/*
 * sched_src_stop - the last poll, then the kernel side released (the
 * instance removed, the perf events closed); the buffers stay, the
 * next sched_src_follow() starts again
 */
void sched_src_stop(struct sched_src *s);
/* "tracefs" or "perf" */
const char *sched_src_name(const struct sched_src *s);
/* write what the source has now into the buffers */
void sched_src_poll(struct sched_src *s);
/* sched_src_stop(), then close the buffers (the recorder then saves them), free @s */
void sched_src_close(struct sched_src *s);

/* helpers the other perf sources share (recorder/hwbranch_source.c) */
/* the process of thread @tid, from /proc; @tid itself if unknown */
int sched_tgid_of(int tid);
/* the name of thread @tid of @pid, from /proc ("<...>" when gone, "<idle>" for 0) */
void sched_comm_of(int pid, int tid, char comm[16]);
/* /proc/sys/kernel/perf_event_paranoid, -100 if unreadable */
int sched_perf_paranoid(void);

#endif /* UT_CMDS_SCHEDSRC_H */
