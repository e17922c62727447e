/* SPDX-License-Identifier: MIT */
/*
 * daemon_sources.h - the recorder's sources of a tracing directory's
 * session (the sched events, the power events, hw-branch's branches),
 * run by its daemon (recorder/daemon_sources.c, on recorder/source.h).
 */
#ifndef UT_CMDS_SCHEDLIVE_H
#define UT_CMDS_SCHEDLIVE_H

#include "recorder/session.h"

struct sched_live;

/* start the passes for session @sess (its control page, registry, directory) */
struct sched_live *sched_live_start(struct session *sess);
/*
 * one pass: the source started or stopped as the registry says, new
 * processes followed, the events written (@arg: the sched_live; the
 * tracing directory's collector, tfs_session_set_collector())
 */
void sched_live_sync(void *arg);
/* the programs have all ended: the last events, the kernel side released */
void sched_live_ended(struct sched_live *l);
/* no more passes; the source closed (before the session directory is removed) */
void sched_live_stop(struct sched_live *l);

#endif /* UT_CMDS_SCHEDLIVE_H */
