/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - the tracing directory of a usertrace session: one table of
 * files, each with its read and write handlers, served alike by the FUSE
 * mount (cli/mount.c) and by `usertrace ctl` (cli/ctl.c, through the
 * session daemon's socket).  Neither front end knows any file: both go
 * through these calls, so they cannot drift apart.
 *
 * Paths are relative to the tracing directory, without a leading '/':
 * "" is the directory itself, "trace", "options/funcgraph-proc",
 * "per_cpu/cpu0/trace", "instances/foo/trace", "events/enable".
 *
 * Every call returns 0 (or a length) on success and a negative errno on
 * failure, the errno the kernel's tracefs gives for the same request
 * (EINVAL for an unknown tracer or a bad number, EBUSY, ENOENT, ENOTDIR,
 * EACCES for a write to a read-only file...).  A refused write also
 * appends a line to error_log, except where the kernel's file adds none
 * (set_event and the events' enable files).
 *
 * Threading: the daemon serves several requests at once (a reader blocked
 * in trace_pipe must not stop a write to tracing_on); the calls may be
 * made from several threads and lock what they share.
 */
#ifndef USERTRACE_TRACEFS_H
#define USERTRACE_TRACEFS_H

#include <stddef.h>
#include <sys/types.h>

struct tfs_session;		/* one traced program and its children */
struct tfs_handle;		/* an open file */

struct tfs_stat {
	int is_dir;
	mode_t mode;		/* permission bits: 0444, 0644, 0200, 0755... */
};

/*
 * tfs_session_open - serve the session whose files are in @session_dir
 * (the control page, the ring buffers, the maps snapshots), as created by
 * the recorder code.  Returns NULL after a message on stderr.
 */
struct tfs_session *tfs_session_open(const char *session_dir);
void tfs_session_close(struct tfs_session *s);
/* the instances' pump stops (before the session directory goes) */
void tfs_session_stop_pump(struct tfs_session *s);
/* the traced program has exited: trace_pipe readers waiting for data return */
void tfs_session_ended(struct tfs_session *s);

/*
 * tfs_session_set_collector - @fn(@arg) brings what is collected outside
 * the programs into the session's buffers (the sched events,
 * recorder/daemon_sources.c) and follows what the directories now want (the
 * registry's enable bits): called before each request is served and
 * after each that may change a setting, never with the session's lock
 * held.  Set before the first request.
 */
void tfs_session_set_collector(struct tfs_session *s, void (*fn)(void *arg), void *arg);

int tfs_stat(struct tfs_session *s, const char *path, struct tfs_stat *st);
/* call @fill for each entry of directory @path ("." and ".." not included) */
int tfs_readdir(struct tfs_session *s, const char *path,
		int (*fill)(void *ctx, const char *name, const struct tfs_stat *st), void *ctx);
int tfs_mkdir(struct tfs_session *s, const char *path);	/* instances/NAME */
int tfs_rmdir(struct tfs_session *s, const char *path);

/*
 * tfs_open - open @path; @flags are open(2)'s: O_RDONLY/O_WRONLY/O_RDWR,
 * O_TRUNC (the shell's '>': truncates a list such as set_ftrace_filter,
 * clears `trace`), O_APPEND (the shell's '>>': adds to the list).
 */
int tfs_open(struct tfs_session *s, const char *path, int flags, struct tfs_handle **h);
/*
 * tfs_read - read at @off.  Ordinary files are produced whole at the first
 * read and served from that copy (so `cat` sees one consistent text).
 * trace_pipe consumes and blocks until data is there; it returns 0 (end of
 * file) when the tracer changes or the session has ended and is drained,
 * and -EINTR when tfs_interrupt() is called on the handle.
 */
ssize_t tfs_read(struct tfs_handle *h, char *buf, size_t size, off_t off);
/* tfs_write - a write(2) of @size bytes; returns @size or -errno */
ssize_t tfs_write(struct tfs_handle *h, const char *buf, size_t size, off_t off);
/* tfs_truncate - truncate(2)/O_TRUNC on a path not open */
int tfs_truncate(struct tfs_session *s, const char *path);
void tfs_interrupt(struct tfs_handle *h);
void tfs_release(struct tfs_handle *h);

#endif /* USERTRACE_TRACEFS_H */
