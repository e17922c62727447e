/* SPDX-License-Identifier: MIT */
/*
 * source.h - the recorder's sources: what collects, outside the traced
 * programs, the events they cannot write themselves (the kernel's
 * sched and power events, the branches the CPU records), into ring
 * buffers of the session directory that the recorder then saves as any
 * thread's.
 *
 * A source is one struct src_ops.  `usertrace record` (cli/record.c)
 * and a tracing directory's daemon (recorder/daemon_sources.c) run every source
 * of ut_sources[] the same way, by its ops alone:
 *
 *	wanted?  -> open -> follow each new process -> poll, poll, ...
 *	         -> stop (live: wanted no more) -> close
 *
 * Who asks for a source:
 *   - a tracer, by a UT_NEED_SRC_* bit in its needs (its row of
 *     include/usertrace/tracers.def): the source's @need.  hw-branch
 *     names UT_NEED_SRC_HWBRANCH.
 *   - an event system, the source's @system: its events are the
 *     source's (the kernel's sched events, the power events); the
 *     source is wanted while one of them is recorded or held live in
 *     the session's registry (@wanted).  A tracer that shows such events
 *     names them in its output part's .events (output/tracer.h):
 *     sched_switch and the wakeup tracers the sched events, power the
 *     power events; recording them brings their source.
 *
 * Adding a source: its file with a `const struct src_ops NAME_source`,
 * its lines in recorder/source.c (declared, and in ut_sources[]), and its
 * UT_NEED_SRC_* bit in include/usertrace/record.h if a tracer asks for it
 * (doc/design/adding-a-tracer.md).
 */
#ifndef UT_CMDS_SOURCE_H
#define UT_CMDS_SOURCE_H

#include <stdint.h>
#include <sys/types.h>

struct ut_evreg;

/* what a source is opened with */
struct src_env {
	const char *session;		/* the session directory: the buffers go there */
	struct ut_evreg *events;	/* the session's event registry */
	int clock;			/* enum ut_clock */
	/* a tracing directory's session (open's @pid 0) */
	uint32_t nr_pages;		/* each buffer's pages, overwrite mode */
	const volatile uint32_t *on;	/* the session's tracing_on: nothing written while 0 */
};

struct src_ops {
	/* the source, for messages: "sched events", "power events", "hw-branch" */
	const char *name;
	/* the event system whose events it collects; NULL: none (a tracer's own entries) */
	const char *system;
	/* the UT_NEED_SRC_* bit of the tracers that need it (record.h); 0: none does */
	uint32_t need;
	/*
	 * wanted - is one of its events recorded, or live, in @events?
	 * NULL: only a tracer's @need asks for it.
	 */
	int (*wanted)(const struct ut_evreg *events);
	/*
	 * open - the source for program @pid, stopped before its exec
	 * (record: it is followed from now on); @pid 0: of a tracing
	 * directory's session, nothing followed until follow().  NULL when
	 * none can be used (the reason said; the programs run untraced by it).
	 */
	void *(*open)(const struct src_env *env, pid_t pid);
	/*
	 * follow - a new process @pid of the session (its threads and the
	 * children they make follow too): 0, 1 when it is gone, -1 when it
	 * cannot be followed (said)
	 */
	int (*follow)(void *s, pid_t pid);
	/* optional: the events of thread @tid itself are not written (the runtime's own threads) */
	void (*skip)(void *s, pid_t tid);
	/* optional: the kernel's side follows which of its events are recorded now */
	void (*sync)(void *s);
	/* write what the source has now into its buffers */
	void (*poll)(void *s);
	/*
	 * optional: the last poll, the kernel's side released; the buffers
	 * stay, a follow() starts it again.  NULL: it runs until closed.
	 */
	void (*stop)(void *s);
	/* optional: between a follow and a stop?  NULL: while it is wanted */
	int (*running)(const void *s);
	/* the last poll, the buffers closed (the recorder then saves them), @s freed */
	void (*close)(void *s);
	/* the way it gets its events: "tracefs", "perf", "sysfs", "branch-stack", "file" */
	const char *(*backend)(const void *s);
	/* record's message, "usertrace: NAME from ...": where @backend's events come from */
	const char *(*from)(const char *backend);
	/* the key of the backend in a recording's info file ("sched_source"); NULL: none */
	const char *info_key;
};

/* the sources, in the order they are opened and run; NULL ended */
extern const struct src_ops *const ut_sources[];
#define SRC_MAX		8

/* is source @o wanted by @events or by tracers needing @needs together? */
int src_wanted(const struct src_ops *o, const struct ut_evreg *events, uint32_t needs);
/* is any source wanted? */
int src_any_wanted(const struct ut_evreg *events, uint32_t needs);

#endif /* UT_CMDS_SOURCE_H */
