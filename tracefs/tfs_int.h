/* SPDX-License-Identifier: MIT */
/*
 * tfs_int.h - what the files of tracefs/ share: the registry of
 * files, the session, its directories (struct tfs_inst), resolved paths,
 * open handles, and the helpers of each file.  Private to tracefs/.
 *
 * The files of a usertrace tracing directory are defined once: each
 * source file of tracefs/ registers those of its job (TFS_FILE()
 * below).  The FUSE mount and `usertrace ctl` both call the tfs_*
 * functions of tracefs.h, which go through that registry.  The
 * settings live in the session's control page (include/usertrace/session.h);
 * a change that the traced processes must act on (the tracer, the filter
 * lists, function commands, max_graph_depth, tracing_thresh) is applied
 * with the generation handshake (tfs_ctl_apply(), handshake.c), so that a write
 * returns once the programs follow it, as the kernel's does.
 *
 * Paths:
 *
 *   ""                        the top instance's files (W_TOP)
 *   options/NAME              one file per trace option (0/1; W_OPTIONS)
 *   trace_stat/NAME           one file per registered stat tracer (top only; W_STAT)
 *   per_cpu/cpuN/{trace,trace_pipe,stats,buffer_size_kb}   (W_CPU)
 *   events/{enable,header_page,header_event}               (W_EVENTS)
 *   events/ftrace/NAME/{format,id}   the ftrace system (usertrace/ftrace.def;
 *                             W_FTEVENT)
 *   events/SYS/enable, events/SYS/NAME/{enable,format,id}
 *                             the programs' events (the session's registry;
 *                             W_EVSYS, W_EVENT)
 *   instances/NAME/...        an instance: the files marked W_INST
 *
 * The programs write the session's buffers.  An instance has buffers of
 * its own (SESSION/inst.NAME), which a pump (live_pump, run every
 * TFS_PUMP_MS by pump_main() and before any read of the instance) fills
 * from the session's while the instance is on and has a tracer.  What the
 * programs record is what the top and the instances need together
 * (tfs_recording_update(): the most detailed tracer, on while any is on; and
 * rec_filter_update(): the threads and CPUs any of them wants).  The top
 * reads the session's buffers directly and hides the times it was off.
 *
 * The programs' events (tracepoints) are the slots of the session's event
 * registry (SESSION/events, usertrace/evreg.h), which their runtime fills.
 * Each directory has its own set of enabled events (set_event, the enable
 * files); a slot's UT_EVS_RECORD bit, which the programs follow, is the
 * union (tfs_ev_publish()), applied with the handshake.  A directory with
 * events enabled records even with the nop tracer.  An instance's pump
 * takes only its events; the top's views drop those it did not enable
 * (top_ev_wide).
 *
 * Choices where user space differs from the kernel:
 *   - buffer_size_kb: a write stores the size in the control page; each
 *     thread moves to a buffer of that size at its next page (runtime.c,
 *     ut_renew()), the old one staying readable.  0 or a non-number:
 *     -EINVAL; more than the machine's memory: -ENOMEM.
 *   - trace_clock: the buffers hold one clock (the TSC, or CLOCK_MONOTONIC
 *     without one) and every event is shown in nanoseconds of
 *     CLOCK_MONOTONIC; each trace_clock is a way of showing those times
 *     (output/tracer.h), so any clock can be chosen at any time, per
 *     instance.  As in the kernel, choosing one clears the trace and the
 *     snapshot.  uptime (jiffies) is not offered.
 *   - tracing_cpumask, set_ftrace_pid: the hooks skip threads and CPUs not
 *     chosen (control page rec_pids, rec_cpumask); the views filter too,
 *     for what instances made the programs record.
 *   - function commands of instances: in the control page's one list,
 *     after the instance's registry index ("D|func:cmd", lists.c); the
 *     programs act on its words (dirs[D]) as its triggers do.
 *   - trace_marker: a print event (a DATA record) in a ring of the
 *     directory's own that the daemon writes (live_marker, in live.c),
 *     shown with the daemon's pid: the writer is not recorded.
 *   - trace_pipe: one reader per directory (and per CPU) shared by every
 *     open trace_pipe, so consuming is as from the kernel's buffer.
 *   - available_filter_functions: a function of a process's executable is
 *     shown as `name`, others as `name [module]`.  The executable of
 *     ftrace.<pid> is the basename of /proc/<pid>/exe while the process
 *     lives, else the module of the file's first line (the runtime lists
 *     the executable first).
 *   - ftrace_enabled: always 1, read-only.
 *   - tracing_max_latency, max buffers: the programs' latency tracers keep
 *     the trace of the maximum in SESSION/max/ (runtime/max.c); `snapshot`
 *     shows it when the tracer has use_max_tr, `trace` when it has
 *     print_max, both with the thread of the maximum only (the other
 *     threads' max buffers hold older maxima).
 *
 * Locking: s->lock protects the session's state (instances, error log,
 * stored values) and the control page's lists.  It is never held while
 * waiting for the handshake or blocking in trace_pipe.
 */
#ifndef USERTRACE_TFS_INT_H
#define USERTRACE_TFS_INT_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "usertrace/evreg.h"
#include "lib/event/evfilter.h"
#include "lib/event/trigger.h"
#include "usertrace/session.h"
#include "output/options.h"
#include "output/tracer.h"
#include "tracefs/live.h"
#include "tracefs/tracefs.h"

#define TFS_ERRLOG_MAX	16	/* entries kept, as the kernel */
#define TFS_ACK_TIMEOUT_NS	(2ull * 1000 * 1000 * 1000)
#define TFS_POLL_MS	10
#define TFS_MAX_CPUS	1024
#define TFS_HIDE_MAX	32
#define TFS_PUMP_MS	50	/* instances take what the programs record this often */
#define TFS_STUCK_RUNS	100	/* pump runs an instance waits for a trigger change half written */
#define TFS_EV_WORDS	(UT_EVREG_SLOTS / 64)	/* a bit per slot of the event registry */

/*
 * ---- the registry of files ----
 *
 * Each source file registers the files of its job in a table,
 *
 *	const struct tfs_file tfs_tracer_files[] = {
 *		TFS_FILE("current_tracer", 0640, W_TOP | W_INST,
 *			 .show = current_tracer_show, .write = current_tracer_write),
 *		...
 *		TFS_FILES_END
 *	};
 *
 * and files.c lists the tables (tfs_file_tables[]).  Path resolution,
 * stat, readdir and the open/read/write/truncate/release calls all go
 * through the registry: no other list of files exists.  The directories
 * are fixed (the top, instances/NAME, options/, per_cpu/cpuN/, events/...);
 * a file appears in those its @where bits name.  The events' directories
 * come from the event registries (ftrace.def, the session's registry),
 * not from tables.
 */
#define W_TOP		0x01	/* the top directory */
#define W_INST		0x02	/* instances/NAME */
#define W_CPU		0x04	/* per_cpu/cpuN/ of the top and of instances */
#define W_EVENTS	0x08	/* events/ */
#define W_EVSYS		0x10	/* events/SYS/ of the programs' events */
#define W_EVENT		0x20	/* events/SYS/NAME/ of a program's event */
#define W_FTEVENT	0x40	/* events/ftrace/NAME/ (usertrace/ftrace.def) */
#define W_OPTIONS	0x80	/* options/NAME, one per trace option: the name is the option's */
#define W_STAT		0x100	/* trace_stat/NAME, one per stat tracer (output/stat.h) */
#define W_FTPRINT	0x200	/* events/ftrace/print/: trace_marker's event, which has triggers */

/* what a write handler returns when it succeeded */
#define TFS_WR_DONE	0	/* nothing more to do */
#define TFS_WR_APPLY	1	/* the control page changed: the programs apply it (tfs_ctl_apply()) */
#define TFS_WR_THRESH	2	/* tracing_thresh: converted to ticks unlocked, then applied */

struct tfs_handle;
struct tfs_sbuf;

struct tfs_file {
	const char *name;
	mode_t mode;			/* the kernel's permission bits */
	unsigned where;			/* W_* */
	/*
	 * @show: the whole text of the file, made at the first read (the
	 * reader then sees one consistent text).  0 or -errno.  NULL: a read
	 * is -EINVAL (trace_marker).  Context: s->lock held; it may drop it
	 * while it reads the buffers (tfs_view_print()).
	 */
	int (*show)(struct tfs_handle *h, struct tfs_sbuf *b);
	/*
	 * @read: instead of @show, a file read as a stream from @off on
	 * (trace_pipe: consuming, blocking).  Context: s->lock not held.
	 */
	ssize_t (*read)(struct tfs_handle *h, char *buf, size_t size);
	/*
	 * @write: one write(2) of @size bytes: TFS_WR_* or -errno (after a
	 * line in error_log where the kernel's file adds one).  NULL: a
	 * write is -EINVAL.  Context: s->lock held, s->err_inst the directory.
	 */
	int (*write)(struct tfs_handle *h, const char *buf, size_t size);
	/*
	 * @open (optional): called when the file is opened, @flags open(2)'s
	 * (O_TRUNC: clear the trace, empty a list...).  TFS_WR_* or -errno.
	 * Context: s->lock held.
	 */
	int (*open)(struct tfs_handle *h, int flags);
	/*
	 * @truncate (optional): truncate(2) of a file not open, on a
	 * writable file: TFS_WR_* or -errno.  Context: s->lock held.
	 */
	int (*truncate)(struct tfs_handle *h);
	/*
	 * @release (optional): the last close of a handle: TFS_WR_* (a list
	 * opened with O_TRUNC and never written is emptied now).  Context:
	 * s->lock held.
	 */
	int (*release)(struct tfs_handle *h);
	size_t max_write;		/* a longer write is cut there and short (trace_marker); 0: none */
	/*
	 * @sync: before the text is made, the programs copy their
	 * statistics into their files (tfs_ctl_apply(): usertrace/statarea.h),
	 * so that a read sees the counts of that moment
	 */
	int sync;
	int arg;			/* for handlers that serve several files: which one */
};

#define TFS_FILE(n, m, w, ...)	{ .name = (n), .mode = (m), .where = (w), __VA_ARGS__ }
#define TFS_FILES_END		{ .name = NULL }

/* the tables, one per source file (files.c lists them) */
extern const struct tfs_file tfs_buffers_files[], tfs_errlog_files[], tfs_events_files[],
	tfs_funcs_files[], tfs_lists_files[], tfs_readme_files[], tfs_tracer_files[], tfs_evfilt_files[],
	tfs_evtrig_files[], tfs_views_files[], tfs_stat_files[], tfs_pids_files[];
extern const struct tfs_file tfs_prof_files[];
/* prof.c: the top's graph-time option into the control page (UT_CTL_NOGRAPHTIME) */
void tfs_prof_graph_time_update(struct tfs_session *s);

/* the pid lists of a directory (pids.c), the kernel's four files */
enum tfs_pids {
	TFS_PIDS_FUNC,		/* set_ftrace_pid */
	TFS_PIDS_FUNC_NO,	/* set_ftrace_notrace_pid */
	TFS_PIDS_EVENT,		/* set_event_pid */
	TFS_PIDS_EVENT_NO,	/* set_event_notrace_pid */
	TFS_NR_PIDS
};

struct tfs_inst {
	char name[NAME_MAX + 1];	/* "" for the top instance */
	int refs;			/* open handles */
	uint64_t since;			/* clear point */
	int on;				/* tracing_on (top: see tfs_top_sync()) */
	/*
	 * the tracer state: current_tracer, the options, trace_clock,
	 * tracing_max_latency (output/tracer.h, as the kernel's)
	 */
	struct trace_array tr;
	int snap_alloc;
	int snap_taken;			/* snapdir holds a copy of the buffers */
	char snapdir[PATH_MAX];
	uint64_t snap_since;
	/*
	 * the time of the trigger that took it (live_now() units; 0: none,
	 * `echo 1 > snapshot`): the copy is made later, and shows nothing
	 * recorded after it, as the kernel's swap at the event
	 */
	uint64_t snap_until;
	/* set_ftrace_pid and the other pid lists (enum tfs_pids): ascending, blank separated */
	char pids[TFS_NR_PIDS][UT_LIST_MAX];
	/*
	 * the top's: ids of a list that a -fork option removed when they
	 * exited; its views still show (or hide) what they recorded
	 */
	char pids_gone[TFS_NR_PIDS][UT_LIST_MAX];
	/*
	 * set_ftrace_filter and set_ftrace_notrace, the directory's own; the
	 * control page has what the programs record (tfs_lists_update())
	 */
	char filter[UT_LIST_MAX];
	char notrace[UT_LIST_MAX];
	/* instances: their own buffers (live_pump), in bufdir */
	struct live_pump *pump;
	/*
	 * per_cpu/cpuN/buffer_size_kb: the pages of each CPU's buffer.  The
	 * buffers (the threads', the instance's rings, the marker ring) have
	 * the largest; the views keep each CPU's newest events that fit its
	 * own (live_view.cpu_pages).
	 */
	uint32_t cpu_pages[TFS_MAX_CPUS];
	uint64_t cpu_since[TFS_MAX_CPUS];	/* per_cpu/cpuN/trace cleared (0: never) */
	int cpu_cleared;			/* some cpu_since is set */
	/* an instance's tracing_cpumask (the top's is the session's cpumask): its pump's */
	uint32_t cpumask[TFS_MAX_CPUS / 32];
	struct live_marker *marker;	/* trace_marker's ring, in the directory's buffers */
	/*
	 * trace_pipe: one reader per directory ([0]) and per CPU ([1 + N]),
	 * shared by every open trace_pipe of it, so that what one consumes
	 * is gone for the others, as from the kernel's ring buffer; `trace`
	 * no longer shows what [0] consumed.  pipe_lock serializes their
	 * reads; made at the first open, freed with the directory.
	 */
	struct live_reader **pipes;
	pthread_mutex_t pipe_lock;
	char bufdir[PATH_MAX];
	uint32_t nr_pages;
	/*
	 * top: the times it was off while an instance kept the programs
	 * recording; its views hide them.  [from, to) pairs, to = UINT64_MAX
	 * while off.
	 */
	uint64_t hide[2 * TFS_HIDE_MAX];
	int nr_hide;
	char *errlog[TFS_ERRLOG_MAX];	/* error_log: each directory has its own */
	int nr_err;
	/*
	 * The events the directory enabled (set_event, events/.../enable): a
	 * bit per slot of the session's registry.  The programs record the
	 * union (the slots' UT_EVS_RECORD, tfs_ev_publish()).
	 */
	uint64_t ev_on[TFS_EV_WORDS];
	/*
	 * The events its tracer shows (the sched_switch tracer's
	 * sched:sched_switch and sched_wakeup), enabled with ev_on for the
	 * programs, the views and the pump, but not listed in set_event nor
	 * in the enable files, as the kernel's tracer used its tracepoints
	 * without the events (tfs_ev_dir(), tfs_tracer_events())
	 */
	uint64_t tr_ev[TFS_EV_WORDS];
	/*
	 * The directory's event filters (events/SYS/NAME/filter), by slot
	 * (each layout of an event has its own program), and the system
	 * filters' texts (events/SYS/filter).  Its views and its pump keep
	 * the events they match; the programs run a filter when it is the
	 * same for every directory that enables the event (tfs_evfilt_publish()).
	 */
	struct tfs_evfilt *evfilt[UT_EVREG_SLOTS];
	struct tfs_sysfilt *sysfilt;
	/*
	 * The directory's event triggers, by slot, newest first (evtrig.c),
	 * and how many enable/disable_event triggers (and, in the top,
	 * function commands) hold each event in soft mode.
	 */
	struct tfs_trig *evtrig[UT_EVREG_SLOTS];
	struct tfs_trig *ptrig;		/* events/ftrace/print/trigger (UT_EVREG_TRIGS) */
	uint16_t ev_soft[UT_EVREG_SLOTS];
	int traceon_trigs;		/* its traceon triggers: it may turn on any time */
	int traceon_cmds;		/* its traceon function commands: the same */
	int nr_cmds;			/* its function commands: the programs record their stacks */
	/*
	 * An instance's words in the registry (dirs[rdir], 0: none yet),
	 * which its triggers change: the changes its pump applied (the log's
	 * position), and the soft switches as they left them.
	 */
	uint32_t rdir;
	struct ut_evreg_dir *rd;
	uint64_t log_done;
	uint64_t stuck_pos;		/* a change being written for stuck_runs pump runs */
	int stuck_runs;
	/* changes read after the records its pump took last: applied next run */
	struct live_fire carry[UT_EVREG_DIRLOG];
	int nr_carry;
	uint64_t soft_off[TFS_EV_WORDS];
	uint64_t snap_req_seen;
	struct tfs_inst *next;
};

struct tfs_session {
	char *dir;
	struct ut_session_ctl *ctl;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* trace_pipe readers: tracer change, end */
	int ended;
	struct tfs_inst top;
	struct tfs_inst *insts;
	struct tfs_inst *err_inst;	/* the directory being written: its error_log */
	int ncpu;
	uint32_t cpumask[TFS_MAX_CPUS / 32];
	unsigned long long thresh_us;
	/* tracing_max_latency as last written, shown while the programs keep it */
	uint64_t maxlat_ticks;
	unsigned long long maxlat_us;
	char maxdir[PATH_MAX];		/* SESSION/max: the max-latency buffers */
	double ticks_per_ns;		/* TSC rate, 0: not measured yet */
	pthread_t pump_thr;		/* runs the instances' pumps */
	int have_pump_thr, closing;
	uint32_t on_stored;		/* ctl->tracing_on as last stored here */
	/*
	 * The top's buffers may hold calls its own lists leave out (the
	 * programs recorded for an instance too): its views apply its lists
	 */
	int top_lists_wide;
	pthread_cond_t pump_cond;
	/*
	 * The programs' events: the registry (SESSION/events, NULL if the
	 * session has none) and its descriptors, unpacked as slots appear
	 * (tfs_ev_refresh(); evd[i] NULL: a slot that does not unpack).
	 */
	struct ut_evreg *evreg;
	uint64_t snap_req_seen;		/* the snapshot triggers' requests taken */
	struct ut_event_desc **evd;
	uint32_t nr_evd;
	/* the programs recorded events the top did not enable: its views drop them */
	int top_ev_wide;
	/* the children the -fork options added to a list (pids.c): theirs to take out */
	char pids_followed[UT_LIST_MAX];
	/*
	 * The registry's trigger entries in use, a bit each (trigs[slot][k],
	 * every directory's), and its instance words (dirs[d]) given out.
	 */
	uint16_t trig_reg[UT_EVREG_SLOTS];
	uint32_t rdirs;
	uint64_t top_log_done;		/* the top's log (registry dirs[0]) applied */
	/*
	 * a write changed what the programs record (the registry's enable
	 * bits, the tracer) before it failed: apply it
	 */
	int ev_apply;
	/* tfs_session_set_collector() */
	void (*collect)(void *arg);
	void *collect_arg;
};

/* the collector's pass (tfs_session_set_collector()); s->lock not held */
static inline void tfs_collect(struct tfs_session *s)
{
	if (s->collect)
		s->collect(s->collect_arg);
}

struct tfs_evfilt {
	char *text;			/* NULL: none */
	int bad;			/* the last write failed: `err` */
	struct ut_evf_error err;
	struct ut_evfilter *prog;	/* text compiled for the slot's layout, NULL: none */
};

struct tfs_sysfilt {
	struct tfs_sysfilt *next;
	char sys[64];
	struct tfs_evfilt f;
};

/* an event's triggers, as the file shows them; reg: its entry in the registry */
struct tfs_trig {
	struct ut_trig_spec spec;	/* spec.filter points into `filter` */
	char *filter;			/* the `if` text, or NULL */
	int reg;			/* index in trigs[slot][] */
	uint32_t prog;			/* the filter's program number, 0: none */
	uint32_t target;		/* enable/disable_event: its slot */
	uint64_t order;			/* newest first */
	int used;
	/* ftrace:print's (run by the daemon at a trace_marker write): its own */
	struct ut_evfilter *local;
	int64_t count;
};

void tfs_evfilt_free_all(struct tfs_session *s);
/* a directory's filters, at its rmdir (then tfs_evfilt_publish_all()) */
void tfs_evfilt_free_inst(struct tfs_inst *in);
/* @in's words in the registry (dirs[in->rdir]), given now if it has none: 0 or -ENOSPC */
int tfs_inst_rdir(struct tfs_session *s, struct tfs_inst *in);
/* @in's stacktrace option into the registry's opt_stack: 0 or -errno */
int tfs_opt_stack_update(struct tfs_session *s, struct tfs_inst *in);
/* the programs' filter of event @slot from the directories' (evfilt.c) */
void tfs_evfilt_publish(struct tfs_session *s, uint32_t slot);
/* the programs' filter of each event from the directories' */
void tfs_evfilt_publish_all(struct tfs_session *s);
/* error_log's entry for a refused filter (or a trigger's), in the kernel's words */
void tfs_evfilt_errlog(struct tfs_session *s, const char *expr, const struct ut_evf_error *err);
/* the filters of @in for a view: [slot] a copy of its program, or NULL; NULL if none */
struct ut_evfilter **tfs_evfilt_copy(struct tfs_inst *in, uint32_t nr);
void tfs_evfilt_copy_free(struct ut_evfilter **f, uint32_t nr);
/* @in's programs by slot, NULL if it has none: valid under s->lock, until the next call */
const struct ut_evfilter *const *tfs_evfilt_progs(struct tfs_inst *in);

/* what a path names */
enum { D_NONE, D_ROOT, D_OPTIONS, D_PERCPU, D_CPU, D_INSTANCES, D_EVENTS, D_EVSYS, D_EVENT, D_STAT };

struct tracer_stat;

struct tfs_node {
	int dir;			/* D_*, D_NONE for a file */
	const struct tfs_file *f;	/* the file, from the registry */
	const struct trace_opt_info *opt;	/* options/NAME: the option */
	const struct tracer *opt_tracer;	/* ... a tracer's own, NULL: a global one */
	struct tracer_stat *stat;	/* trace_stat/NAME: the stat tracer */
	int cpu;			/* per_cpu/cpuN: N, else -1 */
	const struct ut_event_desc *ev;	/* events/SYS/NAME and its files */
	const char *evsys;		/* events/SYS of the programs' events, and below */
	int slot;			/* events/SYS/NAME of theirs: its first slot, else -1 */
	struct tfs_inst *inst;
};

struct tfs_handle {
	struct tfs_session *s;
	struct tfs_node n;
	int flags;
	char *text;			/* ordinary files: produced at the first read */
	size_t len;
	int have_text;
	int trunc_pending;		/* lists opened with O_TRUNC, not written yet */
	/* trace_pipe */
	struct live_reader *rd;
	char *pend;
	size_t pend_len, pend_off;
	unsigned tracer_gen;
	volatile int intr;
};

/* a growing text buffer */
struct tfs_sbuf {
	char *p;
	size_t len, cap;
	int err;
};

struct tfs_func {
	char *name;
	char *mod;
	int exe;		/* in the executable: no [module] */
	int patchable, enabled;
};

struct tfs_funcs {
	struct tfs_func *f;
	size_t n, cap;
	int present;		/* some ftrace.<pid> file exists */
	/* a hash of name\tmodule, to list each function once */
	size_t *tab;		/* index + 1, 0: free */
	size_t tab_size;
};

struct tfs_words {
	char **w;
	int n;
};

struct tfs_view_buf {
	struct live_view v;
	char ffilter[UT_LIST_MAX], fnotrace[UT_LIST_MAX];
	uint64_t hide[2 * TFS_HIDE_MAX];
	char pids[LIVE_PIDS_MAX], evpids[LIVE_PIDS_MAX];
	char words[TRACE_NR_OPTS + TRACER_MAX_OPTS][40];
	const char *ptrs[TRACE_NR_OPTS + TRACER_MAX_OPTS + 1];
	char tracer[32];
	struct tfs_inst *inst;
	uint32_t cpu_pages[TFS_MAX_CPUS];
	uint64_t cpu_since[TFS_MAX_CPUS];
	uint64_t ev_on[TFS_EV_WORDS];
	struct trace_lat_info lat;		/* tfs_view_max(): the maximum shown */
	struct ut_evfilter **evf;	/* copies of the directory's filters (v.ev_filter) */
	uint32_t nr_evf;
};


/* the name of the directory's tracer */
static inline const char *tfs_tracer_name(const struct tfs_inst *in)
{
	return in->tr.current_trace->name;
}

/* core.c: a session */
uint64_t tfs_us_to_ticks(struct tfs_session *s, unsigned long long us);
/* clock units of the programs to microseconds, truncated (nsecs_to_usecs) */
unsigned long long tfs_ticks_to_us(struct tfs_session *s, uint64_t ticks);
uint64_t tfs_ticks_to_ns(struct tfs_session *s, uint64_t ticks);
/* the view of the max-latency buffers (tracers with use_max_tr); s->lock held */
void tfs_view_max(struct tfs_session *s, struct tfs_view_buf *vb);

/* files.c: the registry of files, paths */
size_t tfs_next_comp(const char **p, const char **comp);
int tfs_comp_is(const char *c, size_t len, const char *name);
int tfs_resolve(struct tfs_session *s, const char *path, struct tfs_node *n);
int tfs_open_trunc(int flags);
int tfs_list_open(struct tfs_handle *h, int flags);
int tfs_list_release(struct tfs_handle *h);

/* util.c: text and number helpers */
uint64_t tfs_mono_ns(void);
void tfs_sb_add(struct tfs_sbuf *b, const char *s, size_t n);
__attribute__((format(printf, 2, 3)))
void tfs_sb_printf(struct tfs_sbuf *b, const char *fmt, ...);
void tfs_sb_puts(struct tfs_sbuf *b, const char *s);
char *tfs_strip_dup(const char *buf, size_t size);
int tfs_parse_ull(const char *buf, size_t size, unsigned long long *v);
int tfs_name_pid(const char *name, const char *prefix);
int tfs_cmp_int(const void *a, const void *b);
int tfs_ints_push(int **a, int *nr, int *cap, int v);
void tfs_words_free(struct tfs_words *ws);
int tfs_words_add(struct tfs_words *ws, const char *s, size_t len);
int tfs_words_split(struct tfs_words *ws, const char *buf, size_t size);
void tfs_words_del(struct tfs_words *ws, int i);
int tfs_words_find(const struct tfs_words *ws, const char *w);
int tfs_words_join(const struct tfs_words *ws, char *dst);
int tfs_word_index(struct tfs_session *s, const char *buf, size_t size,
		int (*find)(const char *), const char *err);

/* errlog.c: error_log */
void tfs_err(struct tfs_session *s, const char *msg, const char *cmd);
void tfs_err_raw(struct tfs_session *s, const char *text);
/* evtrig.c: soft mode */
int tfs_ev_soft_state(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int *recorded);
void tfs_ev_soft_enable(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int on);
int tfs_ev_soft_ref(struct tfs_session *s, struct tfs_inst *in, uint32_t slot, int delta);
/* lists.c: an instance's function commands go (its rmdir): 1 if the programs must apply it */
int tfs_cmds_free_inst(struct tfs_session *s, struct tfs_inst *in);
/* every slot's trigger and soft-mode bits in the registry; 1: liveness changed */
int tfs_soft_publish_all(struct tfs_session *s);
/* an instance's triggers and registry words, at its rmdir */
void tfs_evtrig_free_inst(struct tfs_session *s, struct tfs_inst *in);
void tfs_evtrig_free_mem(struct tfs_inst *in);
/* a trace_marker write of @len bytes at @text was recorded in @in: its print triggers; TFS_WR_* */
int tfs_print_triggers(struct tfs_session *s, struct tfs_inst *in, const char *text, size_t len);
void tfs_errlog_clear(struct tfs_inst *in);

/* handshake.c: the handshake with the programs */
void tfs_ctl_apply(struct tfs_session *s);

/* buffers.c: the session's thread and process ids, ascending */
int tfs_session_ids(struct tfs_session *s, int **out);
/* pids.c: the pid lists, the -fork options */
int tfs_pids_parse(const char *list, int32_t *ids, uint32_t max);
int tfs_pids_has(const char *list, long id);
int tfs_pids_follows(const struct tfs_inst *in, int list);
void tfs_pids_follow(struct tfs_session *s);
void tfs_pids_view(const struct tfs_inst *in, int events, char *out, size_t size);

/* instances.c: instances, the recording union */
void tfs_top_sync(struct tfs_session *s);
int tfs_inst_on(struct tfs_session *s, struct tfs_inst *in);
int tfs_recording_update(struct tfs_session *s);
int tfs_lists_update(struct tfs_session *s);
void tfs_top_set_on(struct tfs_session *s, int on);
void tfs_inst_pump(struct tfs_inst *in);
void tfs_inst_trig_sync(struct tfs_session *s);
void tfs_inst_set_on(struct tfs_session *s, struct tfs_inst *in, int on);
void tfs_inst_init(struct tfs_inst *in);
void tfs_inst_free(struct tfs_inst *in, int remove);
struct tfs_inst *tfs_inst_find(struct tfs_session *s, const char *name, size_t len);

/* views.c: what the buffers show */
void tfs_snap_empty(struct tfs_inst *in);
/* the snapshot of @in now, showing nothing after @until (live_now() units; 0: all) */
int tfs_snap_take(struct tfs_session *s, struct tfs_inst *in, uint64_t until);
void tfs_view_make(struct tfs_session *s, struct tfs_inst *in, int cpu, struct tfs_view_buf *vb);
/* what tfs_view_make() allocated */
void tfs_view_release(struct tfs_view_buf *vb);
int tfs_view_print(struct tfs_session *s, const struct tfs_view_buf *vb, struct tfs_sbuf *b);
void tfs_trace_clear(struct tfs_session *s, struct tfs_inst *in);

/* funcs.c: the functions of the processes */
void tfs_funcs_free(struct tfs_funcs *fs);
void tfs_funcs_load(struct tfs_session *s, struct tfs_funcs *fs);
void tfs_func_print(struct tfs_sbuf *b, const struct tfs_func *f);
int tfs_mod_match(const char *glob, const char *mod);

/* tracer.c: the tracer of a directory */
const char *tfs_inst_tracer(struct tfs_session *s, struct tfs_inst *in);
int tfs_tracer_index(const char *name);
int tfs_tracer_mode(const char *name);
uint32_t tfs_tracer_bit(const char *name);

/* buffers.c: buffers, who records */
int tfs_cpu_pages_same(struct tfs_session *s, struct tfs_inst *in, uint32_t *pages);
void tfs_cpu_pages_init(struct tfs_inst *in, uint32_t pages);

/* events.c: the programs' events */
void tfs_ev_refresh(struct tfs_session *s);
int tfs_ev_bit(const uint64_t *set, uint32_t i);
void tfs_ev_bit_set(uint64_t *set, uint32_t i, int on);
int tfs_ev_is(const struct tfs_session *s, uint32_t i, const char *sys, const char *name);
int tfs_ev_find(struct tfs_session *s, const char *sys, const char *c, size_t len);
int tfs_ev_any(const struct tfs_inst *in);
/* the events directory @in records: its ev_on and its tracer's (tr_ev), into @set */
void tfs_ev_dir(const struct tfs_inst *in, uint64_t *set);
/* in->tr_ev for its current tracer.  Context: s->lock held. */
void tfs_tracer_events(struct tfs_session *s, struct tfs_inst *in);
void tfs_ev_union(struct tfs_session *s, uint64_t *set);
int tfs_ev_publish(struct tfs_session *s);
int tfs_ev_set(struct tfs_session *s, struct tfs_inst *in, const char *match, const char *sys,
		const char *name, int on);

#endif /* USERTRACE_TFS_INT_H */
