/* SPDX-License-Identifier: MIT */
/*
 * session.h - creating a session and starting the traced program, shared
 * by `record` (and `live`) and `mount`.
 */
#ifndef USERTRACE_CMD_SESSION_H
#define USERTRACE_CMD_SESSION_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct ut_session_ctl;

struct session {
	char dir[64];			/* /dev/shm/usertrace.XXXXXX, mode 0700 */
	struct ut_session_ctl *ctl;	/* its control file, mapped */
	struct ut_evreg *events;	/* its event registry, mapped */
	/*
	 * Optional: called by session_start() with the program's pid while
	 * it is stopped before its exec (to watch it from its first
	 * instruction: the sched events' source, recorder/sched_source.c)
	 */
	void (*before_exec)(pid_t pid, void *arg);
	void *before_exec_arg;
	/*
	 * The program's SIGPIPE goes back to the default before its exec:
	 * the recorder ignores its own (a reader of its stderr that goes
	 * away must not end it before the session is cleaned up)
	 */
	int sigpipe_default;
};

/* where libusertrace.so is: $USERTRACE_LIB, next to the binary or installed beside it */
int session_find_runtime(char *out, size_t size);

/* the clock the runtime should use: the invariant TSC if the CPU has one */
int session_default_clock(void);

/*
 * session_create - make a private session directory in /dev/shm and its
 * control file (0600, UT_CTL_SIZE bytes, mapped in s->ctl) with the magic
 * and version set; the caller sets the other fields.  -1 after a message.
 */
int session_create(struct session *s);

/* a session's file naming the process that made it: "PID STARTTIME" */
#define SESSION_OWNER	"owner"

/* remove the sessions whose maker is gone (killed, crashed): session_create() does */
void session_sweep(void);

/*
 * session_start - become a child subreaper and run @argv with @lib
 * preloaded and USERTRACE_SESSION set; @child_mask, if not NULL, is the
 * signal mask the program starts with.  Returns the pid, or -1 after a
 * message (also when exec failed: the child has been reaped).
 */
pid_t session_start(const struct session *s, char **argv, const char *lib,
		    const sigset_t *child_mask);

/* unmap the control file and remove the directory */
void session_destroy(struct session *s);



/*
 * The session daemon's socket (usertrace mount serves it, usertrace ctl
 * and umount talk to it); the protocol is described in cli/mount.c and
 * usertrace-ctl(1).
 */
#define SESSION_SOCK		"ctl.sock"	/* in the session directory, 0600 */
#define SESSION_MOUNTPOINT	"mountpoint"	/* the mount point's absolute path */
#define SESSION_DAEMON		"daemon"	/* the daemon's pid */

/* connect to the session of process @pid (any process of it, or the daemon); -1 after a message */
int session_connect_pid(pid_t pid);
/* connect to the session mounted at @dir; -1 after a message (quiet if @quiet and none is there) */
int session_connect_mount(const char *dir, int quiet);
#endif
