/* SPDX-License-Identifier: MIT */
/*
 * recorder.h - the recorder's drain/save engine (recorder/recorder.c), for
 * the subcommands that run a program under it (cli/record.c)
 */
#ifndef USERTRACE_CMD_RECORDER_H
#define USERTRACE_CMD_RECORDER_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <zstd.h>

#include "recorder/chunk_writer.h"
#include "recorder/source.h"
#include "usertrace/datfile.h"
#include "usertrace/ringbuf.h"

struct ut_evreg;
struct ut_session_ctl;

/*
 * One ring-buffer file of a thread.  A thread whose buffer filled up
 * while the recorder was behind went on in another file (growth, or a
 * resize): buf.<key> is its first buffer, buf.<key>.<n> the n-th after it.
 */
struct buffer {
	char name[256];
	unsigned int gen;	/* 0 for buf.<key>, n for buf.<key>.<n> */
	struct rb_reader r;
	uint64_t next;		/* next page to save */
	struct buffer *next_gen;
};

/* one thread (one process image of it): its buffers, saved into one .dat */
struct stream {
	char key[256];		/* <pid>.<tid>.<image> */
	char path[PATH_MAX];	/* the .dat file */
	struct cw_file out;	/* the chunk writer's side of it */
	struct buffer *bufs;	/* not yet saved, by generation */
	unsigned int next_gen;	/* the generation to save next */
	int done;		/* the thread is over and saved: out is closed */
	uint64_t backlog;	/* pages to save, when sorting by it */
	struct rb_header acc;	/* its last buffer's header, lost and overrun summed */
	struct ut_dat_ext ext;
	unsigned char *stage;	/* pages not yet written */
	uint32_t staged, stage_cap, stage_entries;
	int prio;		/* the thread's prio when its buffer was found */
	struct stream *next;
};

/* a recorder source of the run (recorder/source.h) */
struct rec_src {
	void *s;		/* NULL: none */
	const char *backend;	/* for info: its backend, or "none"; NULL: not wanted */
};

struct recorder {
	const char *session;
	struct ut_evreg *events;
	const char *outdir;
	struct ut_session_ctl *ctl;
	struct stream *streams;
	int compress;		/* enum ut_compress */
	int level;
	int error;		/* set on the main thread only */
	struct cw_pool *cw;	/* compresses and writes the saved pages */
	int nr_cpus;		/* threads to save with, once the program has ended */
	int ending;		/* the program has ended */
	struct rec_src srcs[SRC_MAX];	/* the sources of ut_sources[], in its order */
	uint32_t needs;			/* the tracer's (tracers.def): the sources it names */
	int sched_clock;
};

/* what a thread that saves streams needs of its own */
struct saver {
	ZSTD_CCtx *zc;
	void *zbuf;
};

/* what is saved whole, and by whom: threads take the next stream */
struct save_list {
	struct recorder *rec;
	struct stream **st;
	int n;
	int next;		/* atomic */
};

/* the program's pid, for its signals; a child changed state (SIGCHLD) */
extern volatile sig_atomic_t recorder_child_pid;
extern volatile sig_atomic_t recorder_child_changed;
/* the session's control page, for recorder_child_signal() to wake the recorder */
extern struct ut_session_ctl *volatile recorder_sig_ctl;

void recorder_child_signal(int sig);
void recorder_srcs_poll(struct recorder *rec);
void recorder_srcs_close(struct recorder *rec);
int recorder_nr_cpus(void);
int recorder_saver_init(struct saver *sv, int compress);
void recorder_saver_fini(struct saver *sv);
void recorder_scan_buffers(struct recorder *rec);
void recorder_set_ending(struct recorder *rec);
void recorder_drain_all(struct recorder *rec, struct saver *sv, int final);
void recorder_reap_threads(struct recorder *rec, struct save_list *l);
void recorder_drain_dead(struct recorder *rec, struct saver *sv, pid_t pid);
void recorder_wait_wake(struct recorder *rec, uint32_t seen);

#endif
