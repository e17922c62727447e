/* SPDX-License-Identifier: MIT */
/*
 * session.h - the shared state between a tracing session (the recorder)
 * and the runtime loaded into every traced process.
 *
 * A session is a private directory (mode 0700) on a tmpfs, named by the
 * environment variable USERTRACE_SESSION.  It holds:
 *
 *   control                 struct ut_session_ctl, mapped by everyone
 *   buf.<pid>.<tid>.<img>   one ring buffer per thread and process image
 *   max/buf.<pid>.<tid>.<img>  its max-latency buffer (runtime/max.c): made at
 *                           the thread's first new maximum, then exchanged
 *                           with buf.* (renameat2 RENAME_EXCHANGE) at each
 *                           new maximum, so buf.* always names the buffer
 *                           being written and max/ the trace of the maximum
 *   maps.<pid>.<img>.<n>    /proc/<pid>/maps at start-up and after dlopen
 *                           (then with a first line "# time <clock>": the
 *                           dlopen's start, see usertrace-data(5))
 *   comm.<pid>              the thread's name before an exec, for the new
 *                           image's task_rename (read and removed there)
 *
 * The control page is created by the recorder before the program starts
 * and only read by the runtime, except for the wake-up word.
 */
#ifndef USERTRACE_SESSION_H
#define USERTRACE_SESSION_H

#include <sched.h>
#include <stdint.h>

#include "record.h"

#define UT_SESSION_ENV		"USERTRACE_SESSION"
#define UT_CTL_MAGIC		"UTCTL\0\0\1"
#define UT_CTL_VERSION		11

enum ut_clock {
	UT_CLOCK_TSC = 0,	/* invariant TSC, converted by the reader */
	UT_CLOCK_MONO = 1,	/* clock_gettime(CLOCK_MONOTONIC) in ns */
};

#define UT_LIST_MAX	4096
#define UT_CTL_PROCS	256
#define UT_REC_PIDS_MAX	256	/* set_ftrace_pid entries the programs filter on */
#define UT_FORKLOG	256	/* the fork log's entries (a ring) */
#define UT_CTL_CPUS	1024
#define UT_CTL_SIZE	(12 * 4096)	/* the control file: the struct, rounded up */
#define UT_CTL_CMDS	64	/* function commands with a shared count */
#define UT_MAX_DIR	"max"	/* the session's directory of max-latency buffers */

/* ut_session_ctl.follow[].what: the list's kind follows forks */
#define UT_FOLLOW_FUNC	1u	/* function-fork: set_ftrace_pid, set_ftrace_notrace_pid */
#define UT_FOLLOW_EVENT	2u	/* event-fork: set_event_pid, set_event_notrace_pid */

enum ut_ctl_flags {
	/* a tracing-directory session: the runtime runs a control thread */
	UT_CTL_LIVE = 1,
	/*
	 * function-trace off in the directory of the latency tracer: its
	 * sections record their marks and stack, not the calls inside
	 */
	UT_CTL_NOFUNC = 2,
	/* the max stack tracer runs (stack_tracer_enabled; runtime/profile.c) */
	UT_CTL_STACK = 4,
	/* the function profiler runs (function_profile_enabled) */
	UT_CTL_PROFILE = 8,
	/* ... with graph-time off: a call's time leaves out its callees' */
	UT_CTL_NOGRAPHTIME = 16,
};

struct ut_session_ctl {
	char magic[8];
	uint32_t version;
	/*
	 * The tracers in use (a bit per id of tracers.def): record's, or the
	 * tracing directory's and its instances'.  The runtime records what
	 * they need together and runs their runtime parts.
	 */
	uint32_t active_tracers;
	uint32_t nr_pages;		/* pages per thread buffer */
	uint32_t buf_mode;		/* enum rb_mode */
	uint32_t clock;			/* enum ut_clock */
	volatile uint32_t tracing_on;
	/*
	 * Wake-up word: a writer whose buffer passes half full, or a new
	 * buffer, bumps it and FUTEX_WAKEs the recorder if it sleeps.
	 */
	volatile uint32_t wake;
	volatile uint32_t sleeping;
	volatile uint32_t max_graph_depth;	/* 0: no limit */
	volatile uint64_t tracing_thresh;	/* clock units; 0: off */
	uint32_t flags;				/* UT_CTL_* */
	/*
	 * Settings changes while the program runs (tracing directory).  The
	 * controller changes active_tracers, max_graph_depth, tracing_thresh or the
	 * lists below, then bumps `gen` and FUTEX_WAKEs it.  Each traced
	 * process has a control thread waiting on `gen`: it applies the
	 * settings (patches call sites, rebuilds its filters), stores the
	 * generation it applied in its procs[] slot, bumps `acked` and
	 * FUTEX_WAKEs it.  The controller waits until every live process has
	 * applied its generation (see doc/design/tracing-dir.md).
	 * tracing_on needs none of this: the hooks read it directly.
	 */
	volatile uint32_t gen;
	volatile uint32_t acked;
	struct {
		volatile int32_t pid;		/* 0: free slot */
		volatile uint32_t gen;		/* settings generation applied */
		volatile int32_t tid;		/* its control thread; gone after an exec */
		uint32_t pad;
	} procs[UT_CTL_PROCS];
	/* the lists, in the kernel's syntax (blanks between patterns) */
	char filter[UT_LIST_MAX];		/* set_ftrace_filter */
	char notrace[UT_LIST_MAX];		/* set_ftrace_notrace */
	char graph_function[UT_LIST_MAX];	/* set_graph_function */
	char graph_notrace[UT_LIST_MAX];	/* set_graph_notrace */
	char commands[UT_LIST_MAX];		/* func:traceon[:N] ... */
	/*
	 * Who records (set_ftrace_pid, tracing_cpumask): a thread records if
	 * its thread or process id is in rec_pids (or nr_rec_pids is 0) and it
	 * runs on a CPU of rec_cpumask.  The controller makes rec_filter_gen
	 * odd, changes the fields, then makes it even; a thread takes the
	 * fields again when the generation it saw changes.  Turning the
	 * filter on or off goes through the gen/acked handshake (the hooks'
	 * fast path steps aside while it is on).
	 */
	volatile uint32_t rec_filter_gen;
	uint32_t nr_rec_pids;
	int32_t rec_pids[UT_REC_PIDS_MAX];
	uint32_t rec_cpumask[UT_CTL_CPUS / 32];	/* set at creation: every CPU */
	/*
	 * Who records events (set_event_pid): a thread whose thread or
	 * process id is in ev_pids, or every thread if nr_ev_pids is 0, on a
	 * CPU of rec_cpumask.  Changed under rec_filter_gen, as rec_pids.
	 */
	uint32_t nr_ev_pids;
	int32_t ev_pids[UT_REC_PIDS_MAX];
	/*
	 * Who never records (set_ftrace_notrace_pid, set_event_notrace_pid):
	 * the threads whose thread or process id is listed here, whatever
	 * rec_pids and ev_pids say; nobody while empty.  The controller lists
	 * the ids that every recording directory excludes.  Changed under
	 * rec_filter_gen, as rec_pids.
	 */
	uint32_t nr_rec_nopids;
	int32_t rec_nopids[UT_REC_PIDS_MAX];
	uint32_t nr_ev_nopids;
	int32_t ev_nopids[UT_REC_PIDS_MAX];
	/*
	 * The -fork options (function-fork, event-fork): the ids of the pid
	 * lists of the directories that set them, with the lists' kind
	 * (UT_FOLLOW_*).  A thread of them that forks, or creates a thread,
	 * writes an entry into forklog (in the child, before the child runs
	 * any of the program's code), and the child records as its parent
	 * does until the controller has taken the entry (forklog_done
	 * passed it): the controller adds the child to the lists that hold
	 * the parent, then publishes them, then advances forklog_done.
	 * Changed under rec_filter_gen, as rec_pids.
	 */
	uint32_t nr_follow;
	struct {
		int32_t id;
		uint32_t what;			/* UT_FOLLOW_FUNC, UT_FOLLOW_EVENT */
	} follow[UT_REC_PIDS_MAX];
	/*
	 * The fork log: a writer takes a number n with an atomic add on
	 * forklog_head, fills forklog[n % UT_FORKLOG], then stores n + 1 in
	 * its seq.  The controller reads from forklog_done on; an entry
	 * overwritten before it was read is lost (the child is then listed
	 * only as the controller finds it, by no list).
	 */
	volatile uint32_t forklog_head;
	volatile uint32_t forklog_done;
	struct ut_forklog {
		volatile uint32_t seq;		/* n + 1 once written */
		int32_t ptid, ppid;		/* the thread that forked or created, its process */
		int32_t child;			/* the new process's pid or the new thread's id */
	} forklog[UT_FORKLOG];
	/*
	 * Growth (record, consumer mode; see doc/design/lossless.md).  A
	 * writer whose buffer is full goes on in a new buffer of nr_pages
	 * if grow_used + its size stays within grow_limit (0: never grow,
	 * the --drop behaviour).  Writers add to grow_used when they create
	 * such a buffer; the recorder subtracts when it has saved and
	 * removed one.  grow_fails counts the refusals (budget or error).
	 */
	uint64_t grow_limit;			/* bytes */
	volatile uint64_t grow_used;		/* bytes */
	volatile uint64_t grow_count;		/* buffers made by growth */
	volatile uint64_t grow_fails;
	/*
	 * Start-up: the first process image with traced code checks that
	 * each pattern of the lists selects a function (the others only
	 * warn).  If one does not, it writes why in the session's errors
	 * file, sets startup_error and exits with status 2 before main.
	 */
	volatile uint32_t traced_images;
	volatile uint32_t startup_error;
	/*
	 * Function commands' runs left, one count per command for every
	 * process, as the kernel's (a live session, UT_CTL_LIVE; a recording
	 * counts in each process).  Word i of `commands` counts in
	 * cmd_count[cmd_bank][i], -1: unlimited.  The controller writes a
	 * new list's counts into the other bank (the runs left of the
	 * commands that stay), then the list, then switches cmd_bank, then
	 * makes the processes apply it.
	 */
	volatile uint32_t cmd_bank;
	uint32_t pad1;
	volatile int64_t cmd_count[2][UT_CTL_CMDS];
	/*
	 * The maximum latency (tracing_max_latency) of the latency tracers,
	 * in clock units like tracing_thresh; the runtime's
	 * ut_update_max_tr() sets a new maximum with a CAS on it.  The
	 * winner then takes max_lock (0: free, else its tid), swaps its
	 * thread's buffer with its max buffer and stores max_rec, unless a
	 * larger record is there already.  The controller takes max_lock to
	 * read max_rec or to reset both (a write of tracing_max_latency).
	 */
	volatile uint64_t max_latency;
	volatile int32_t max_lock;
	/* sysprof_sample_period in microseconds (runtime/tracers/sysprof.c); 0: 1000 */
	volatile uint32_t sysprof_period_us;
	struct ut_max_rec {
		uint64_t latency;	/* clock units; 0: no record */
		uint64_t ts;		/* its end (clock): start = ts - latency */
		uint64_t start_ip;	/* where it started and ended, in the image */
		uint64_t end_ip;
		uint64_t image;		/* the process image of the ips (record.h) */
		int32_t pid, tid;
		uint32_t cpu;
		uint32_t swapped;	/* 1: max/buf.<pid>.<tid>.<image> holds its trace */
		uint64_t count;		/* records stored since the session began */
		char comm[16];
		struct ut_ctx_task task;	/* the thread's identity at the record */
	} max_rec;
	/*
	 * stack_trace_filter: the functions whose entry the max stack tracer
	 * measures (set_ftrace_filter's syntax; empty: all)
	 */
	char stack_filter[UT_LIST_MAX];
};

_Static_assert(sizeof(struct ut_session_ctl) <= UT_CTL_SIZE, "control file too small");

#define UT_MAX_SPINS	100000	/* then max_lock's holder is taken for dead */

/*
 * Take @c->max_lock for @tid (nonzero).  After a long wait it is taken
 * over: its holder died with it (a process of the session killed).
 */
static inline void ut_max_lock(struct ut_session_ctl *c, int32_t tid)
{
	for (int i = 0; i < UT_MAX_SPINS; i++) {
		int32_t free_ = 0;

		if (__atomic_compare_exchange_n(&c->max_lock, &free_, tid, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		if (!(i & 63))
			sched_yield();
#if defined(__x86_64__) || defined(__i386__)
		else
			__builtin_ia32_pause();
#endif
	}
	__atomic_store_n(&c->max_lock, tid, __ATOMIC_SEQ_CST);
}

static inline void ut_max_unlock(struct ut_session_ctl *c)
{
	__atomic_store_n(&c->max_lock, 0, __ATOMIC_RELEASE);
}

#endif /* USERTRACE_SESSION_H */
