// SPDX-License-Identifier: MIT
/*
 * tracefs.c - the files of a usertrace tracing directory, defined once.
 *
 * The FUSE mount and `usertrace ctl` both call the tfs_* functions of
 * tracefs.h; this file is the table of files and their handlers.  The
 * settings live in the session's control page (include/usertrace/session.h);
 * a change that the traced processes must act on (the tracer, the filter
 * lists, function commands, max_graph_depth, tracing_thresh) is applied
 * with the generation handshake (ctl_apply() below), so that a write
 * returns once the programs follow it, as the kernel's does.
 *
 * Paths:
 *
 *   ""                        the top instance's files (table files[])
 *   options/NAME              one file per trace option (0/1)
 *   per_cpu/cpuN/{trace,trace_pipe,stats}
 *   events/{enable,header_page,header_event}
 *   events/ftrace/NAME/{format,id}   the ftrace system (usertrace/ftrace.def)
 *   events/SYS/enable, events/SYS/NAME/{enable,format,id}
 *                             the programs' events (the session's registry)
 *   instances/NAME/...        an instance: the files marked W_INST
 *
 * The programs write the session's buffers.  An instance has buffers of
 * its own (SESSION/inst.NAME), which a pump (live_pump, run every
 * TFS_PUMP_MS by pump_main() and before any read of the instance) fills
 * from the session's while the instance is on and has a tracer.  What the
 * programs record is what the top and the instances need together
 * (recording_update(): the most detailed tracer, on while any is on; and
 * rec_filter_update(): the threads and CPUs any of them wants).  The top
 * reads the session's buffers directly and hides the times it was off.
 *
 * The programs' events (tracepoints) are the slots of the session's event
 * registry (SESSION/events, usertrace/evreg.h), which their runtime fills.
 * Each directory has its own set of enabled events (set_event, the enable
 * files); a slot's UT_EVS_RECORD bit, which the programs follow, is the
 * union (ev_publish()), applied with the handshake.  A directory with
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
 *     (lib/trace/tracer.h), so any clock can be chosen at any time, per
 *     instance.  As in the kernel, choosing one clears the trace and the
 *     snapshot.  uptime (jiffies) is not offered.
 *   - tracing_cpumask, set_ftrace_pid: the hooks skip threads and CPUs not
 *     chosen (control page rec_pids, rec_cpumask); the views filter too,
 *     for what instances made the programs record.
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
 *
 * Locking: s->lock protects the session's state (instances, error log,
 * stored values) and the control page's lists.  It is never held while
 * waiting for the handshake or blocking in trace_pipe.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "usertrace/evreg.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "lib/trace/options.h"
#include "lib/trace/tracer.h"
#include "lib/tracefs/live.h"
#include "lib/tracefs/tracefs.h"

#define TFS_ERRLOG_MAX	16	/* entries kept, as the kernel */
#define TFS_ACK_TIMEOUT_NS	(2ull * 1000 * 1000 * 1000)
#define TFS_POLL_MS	10
#define TFS_MAX_CPUS	1024
#define TFS_HIDE_MAX	32
#define TFS_PUMP_MS	50	/* instances take what the programs record this often */
#define TFS_EV_WORDS	(UT_EVREG_SLOTS / 64)	/* a bit per slot of the event registry */

/* ---- the files ---- */

enum tfs_id {
	F_README, F_AVAIL_TRACERS, F_CUR_TRACER, F_TRACING_ON, F_TRACE, F_TRACE_PIPE,
	F_TRACE_OPTIONS, F_OPTION, F_BUFSIZE, F_BUFTOTAL, F_CPUMASK, F_FTRACE_PID,
	F_MARKER, F_CLOCK, F_THRESH, F_MAXLAT, F_STATS, F_CMDLINES, F_ERRLOG,
	F_SNAPSHOT, F_EV_ENABLE, F_SET_EVENT, F_AVAIL_EVENTS, F_AVAIL_FUNCS,
	F_FILTER, F_NOTRACE, F_ENABLED_FUNCS, F_GFUNC, F_GNOTRACE, F_MAXDEPTH,
	F_DYNINFO, F_FTRACE_ENABLED, F_EV_FORMAT, F_EV_ID, F_EV_HDR_PAGE, F_EV_HDR_EVENT,
	F_EVSYS_ENABLE, F_EVT_ENABLE,
};

#define W_TOP	1	/* in the top directory */
#define W_INST	2	/* in instances/NAME */

struct tfs_file {
	const char *name;
	enum tfs_id id;
	mode_t mode;
	unsigned where;
};

static const struct tfs_file files[] = {
	{ "README",			F_README,	0440, W_TOP },
	{ "available_events",		F_AVAIL_EVENTS,	0440, W_TOP },
	{ "available_filter_functions",	F_AVAIL_FUNCS,	0440, W_TOP },
	{ "available_tracers",		F_AVAIL_TRACERS, 0440, W_TOP | W_INST },
	{ "buffer_size_kb",		F_BUFSIZE,	0640, W_TOP | W_INST },
	{ "buffer_total_size_kb",	F_BUFTOTAL,	0440, W_TOP | W_INST },
	{ "current_tracer",		F_CUR_TRACER,	0640, W_TOP | W_INST },
	{ "dyn_ftrace_total_info",	F_DYNINFO,	0440, W_TOP },
	{ "enabled_functions",		F_ENABLED_FUNCS, 0440, W_TOP },
	{ "error_log",			F_ERRLOG,	0640, W_TOP | W_INST },
	{ "ftrace_enabled",		F_FTRACE_ENABLED, 0440, W_TOP },
	{ "iter_ctrl",			F_TRACE_OPTIONS, 0640, W_TOP | W_INST },
	{ "max_graph_depth",		F_MAXDEPTH,	0640, W_TOP },
	{ "saved_cmdlines",		F_CMDLINES,	0440, W_TOP },
	{ "set_event",			F_SET_EVENT,	0640, W_TOP | W_INST },
	{ "set_ftrace_filter",		F_FILTER,	0640, W_TOP | W_INST },
	{ "set_ftrace_notrace",		F_NOTRACE,	0640, W_TOP | W_INST },
	{ "set_ftrace_pid",		F_FTRACE_PID,	0640, W_TOP | W_INST },
	{ "set_graph_function",		F_GFUNC,	0640, W_TOP },
	{ "set_graph_notrace",		F_GNOTRACE,	0640, W_TOP },
	{ "snapshot",			F_SNAPSHOT,	0640, W_TOP | W_INST },
	{ "trace",			F_TRACE,	0640, W_TOP | W_INST },
	{ "trace_clock",		F_CLOCK,	0640, W_TOP | W_INST },
	{ "trace_entries",		F_BUFSIZE,	0640, W_TOP },
	{ "trace_marker",		F_MARKER,	0220, W_TOP | W_INST },
	{ "trace_options",		F_TRACE_OPTIONS, 0640, W_TOP | W_INST },
	{ "trace_pipe",			F_TRACE_PIPE,	0440, W_TOP | W_INST },
	{ "tracing_cpumask",		F_CPUMASK,	0640, W_TOP },
	{ "tracing_enabled",		F_TRACING_ON,	0640, W_TOP | W_INST },
	{ "tracing_max_latency",	F_MAXLAT,	0640, W_TOP },
	{ "tracing_on",			F_TRACING_ON,	0640, W_TOP | W_INST },
	{ "tracing_thresh",		F_THRESH,	0640, W_TOP },
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static const struct tfs_file f_option = { NULL, F_OPTION, 0640, 0 };
/* events/ */
static const struct tfs_file f_ev_top_files[] = {
	{ "enable",		F_EV_ENABLE,	0640, 0 },
	{ "header_event",	F_EV_HDR_EVENT,	0440, 0 },
	{ "header_page",	F_EV_HDR_PAGE,	0440, 0 },
};
/*
 * events/ftrace/NAME, one per entry of usertrace/ftrace.def: as the
 * kernel's, format and id only (the tracers write them; no enable)
 */
static const struct tfs_file f_ev_files[] = {
	{ "format",	F_EV_FORMAT,	0440, 0 },
	{ "id",		F_EV_ID,	0440, 0 },
};
/* events/SYS of the programs' events (the session's registry) */
static const struct tfs_file f_evsys_files[] = {
	{ "enable",	F_EVSYS_ENABLE,	0640, 0 },
};
/* events/SYS/NAME of a program's event */
static const struct tfs_file f_evt_files[] = {
	{ "enable",	F_EVT_ENABLE,	0640, 0 },
	{ "format",	F_EV_FORMAT,	0440, 0 },
	{ "id",		F_EV_ID,	0440, 0 },
};
static const struct tfs_file f_cpu_files[] = {
	{ "buffer_size_kb", F_BUFSIZE,	0640, 0 },
	{ "stats",	F_STATS,	0440, 0 },
	{ "trace",	F_TRACE,	0640, 0 },
	{ "trace_pipe",	F_TRACE_PIPE,	0440, 0 },
};

/*
 * trace options: lib/trace/options.def, in the kernel's order; opt_mask
 * holds their bits (trace_opts[i].bit).  A tracer's own option shows and
 * applies with that tracer only (trace_opt_hidden()).
 */


/* ---- the session ---- */

struct tfs_inst {
	char name[NAME_MAX + 1];	/* "" for the top instance */
	int refs;			/* open handles */
	uint64_t since;			/* clear point */
	int on;				/* tracing_on (top: see top_sync()) */
	char tracer[32];		/* current_tracer */
	unsigned tracer_gen;		/* bumped at each change of tracer */
	uint32_t opt_mask;		/* the set options' trace_opts[].bit */
	int clock;			/* trace_clock: enum trace_clock_id */
	int snap_alloc;
	int snap_taken;			/* snapdir holds a copy of the buffers */
	char snapdir[PATH_MAX];
	uint64_t snap_since;
	char pids[UT_LIST_MAX];		/* set_ftrace_pid, blank separated */
	/*
	 * set_ftrace_filter and set_ftrace_notrace, the directory's own; the
	 * control page has what the programs record (lists_update())
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
	 * union (the slots' UT_EVS_RECORD, ev_publish()).
	 */
	uint64_t ev_on[TFS_EV_WORDS];
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
	unsigned long long max_latency;
	unsigned long long thresh_us;
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
	 * (ev_refresh(); evd[i] NULL: a slot that does not unpack).
	 */
	struct ut_evreg *evreg;
	struct ut_event_desc **evd;
	uint32_t nr_evd;
	/* the programs recorded events the top did not enable: its views drop them */
	int top_ev_wide;
	/* a write changed the registry's enable bits before it failed: apply them */
	int ev_apply;
};

static void inst_pump(struct tfs_inst *in);
static int lists_update(struct tfs_session *s);

/* what a path names */
enum { D_NONE, D_ROOT, D_OPTIONS, D_PERCPU, D_CPU, D_INSTANCES, D_EVENTS, D_EVSYS, D_EVENT };

/* the kernel's modes: the top 0700, its directories 0750, eventfs 0755 */
static mode_t dir_mode(int dir, int top)
{
	switch (dir) {
	case D_ROOT:
		return top ? 0700 : 0750;
	case D_EVENTS:
	case D_EVSYS:
	case D_EVENT:
		return 0755;
	default:
		return 0750;
	}
}

struct tfs_node {
	int dir;			/* D_*, D_NONE for a file */
	const struct tfs_file *f;
	int opt;			/* F_OPTION: index in trace_opts[] */
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

/* ---- small helpers ---- */

static long tfs_futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* a growing text buffer */
struct sbuf {
	char *p;
	size_t len, cap;
	int err;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (b->len + n + 1 > cap)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		sb_add(b, small, (size_t)n);
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		sb_add(b, big, (size_t)n);
		free(big);
	}
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* a written value: its text without surrounding blanks, NUL-terminated */
static char *strip_dup(const char *buf, size_t size)
{
	char *s;

	while (size && isspace((unsigned char)*buf)) {
		buf++;
		size--;
	}
	while (size && isspace((unsigned char)buf[size - 1]))
		size--;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, buf, size);
	s[size] = '\0';
	return s;
}

/*
 * A written number, as the kernel's kstrtoull_from_user(base 10): an
 * optional '+', decimal digits, one optional trailing newline; nothing
 * else (no blanks).  -EINVAL, or -ERANGE when it does not fit.
 */
static int parse_ull(const char *buf, size_t size, unsigned long long *v)
{
	unsigned long long x = 0;
	size_t i = 0;

	if (size && buf[size - 1] == '\n')
		size--;
	if (i < size && buf[i] == '+')
		i++;
	if (i == size)
		return -EINVAL;
	for (; i < size; i++) {
		unsigned d = (unsigned char)buf[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (x > (ULLONG_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/* ---- error_log ---- */

/*
 * tfs_err - add an entry to error_log, in the kernel's format:
 *   [  123.456789] tracing: error: No such tracer
 *     Command: foo
 *                ^
 * Context: s->lock held.
 */
static void tfs_err(struct tfs_session *s, const char *msg, const char *cmd)
{
	uint64_t ns = mono_ns();
	char *e = NULL;

	if (asprintf(&e, "[%5llu.%06llu] tracing: error: %s\n  Command: %s\n%11s^\n",
		     (unsigned long long)(ns / 1000000000ull),
		     (unsigned long long)(ns % 1000000000ull / 1000), msg, cmd ? cmd : "", "") < 0)
		return;
	struct tfs_inst *in = s->err_inst ? s->err_inst : &s->top;

	if (in->nr_err == TFS_ERRLOG_MAX) {
		free(in->errlog[0]);
		memmove(in->errlog, in->errlog + 1, sizeof(in->errlog[0]) * (TFS_ERRLOG_MAX - 1));
		in->nr_err--;
	}
	in->errlog[in->nr_err++] = e;
}

static void errlog_clear(struct tfs_inst *in)
{
	for (int i = 0; i < in->nr_err; i++)
		free(in->errlog[i]);
	in->nr_err = 0;
}

/* ---- the handshake with the traced processes ---- */

static int proc_alive(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) != 0)
		return 0;
	/* a zombie answers kill() but will never acknowledge */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/*
 * ctl_apply - make the traced processes take the settings now in the
 * control page: bump gen, wake it, wait until every live process applied
 * it (at most 2 s, then an error_log line; the write still succeeds).
 * Context: s->lock not held.
 */
/*
 * Is the process's control thread still there?  After an exec into a
 * program that is not traced, the pid lives on without it.  A tid of 0:
 * the thread is starting.
 */
static int control_alive(pid_t pid, pid_t tid)
{
	char path[64];

	if (!tid)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

static void ctl_apply(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t g = __atomic_add_fetch(&c->gen, 1, __ATOMIC_SEQ_CST);
	uint64_t deadline = mono_ns() + TFS_ACK_TIMEOUT_NS;

	tfs_futex(&c->gen, FUTEX_WAKE, INT_MAX, NULL);
	for (;;) {
		uint32_t acked = __atomic_load_n(&c->acked, __ATOMIC_ACQUIRE);
		struct timespec ts = { 0, TFS_POLL_MS * 1000000L };
		int waiting = 0;

		for (int i = 0; i < UT_CTL_PROCS; i++) {
			pid_t pid = c->procs[i].pid;
			uint32_t pg = __atomic_load_n(&c->procs[i].gen, __ATOMIC_ACQUIRE);

			if (pid && (int32_t)(pg - g) < 0 && proc_alive(pid) &&
			    control_alive(pid, c->procs[i].tid))
				waiting = 1;
		}
		if (!waiting)
			return;
		if (mono_ns() > deadline) {
			pthread_mutex_lock(&s->lock);
			tfs_err(s, "Timed out waiting for the traced processes to apply the settings", "");
			pthread_mutex_unlock(&s->lock);
			return;
		}
		tfs_futex(&c->acked, FUTEX_WAIT, acked, &ts);
	}
}

/* ---- clock units ---- */

static void tsc_rate(struct tfs_session *s)
{
#if defined(__x86_64__) || defined(__i386__)
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t t0, m0, t1, m1;

	if (s->ticks_per_ns > 0)
		return;
	m0 = mono_ns();
	t0 = __rdtsc();
	nanosleep(&ts, NULL);
	m1 = mono_ns();
	t1 = __rdtsc();
	if (m1 > m0 && t1 > t0)
		s->ticks_per_ns = (double)(t1 - t0) / (double)(m1 - m0);
	else
		s->ticks_per_ns = 1;
#else
	s->ticks_per_ns = 1;
#endif
}

static uint64_t us_to_ticks(struct tfs_session *s, unsigned long long us)
{
	uint64_t t;

	if (!us)
		return 0;
	if (s->ctl->clock != UT_CLOCK_TSC)
		return (uint64_t)us * 1000;
	tsc_rate(s);
	t = (uint64_t)((long double)us * 1000 * s->ticks_per_ns);
	return t ? t : 1;
}

/* ---- the functions of the traced processes (ftrace.<pid>) ---- */

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

static uint64_t str_hash(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ '\t') * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

static int funcs_rehash(struct tfs_funcs *fs)
{
	size_t size = fs->tab_size ? fs->tab_size * 2 : 1024;
	size_t *tab = calloc(size, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n; i++) {
		size_t k = str_hash(fs->f[i].name, fs->f[i].mod) & (size - 1);

		while (tab[k])
			k = (k + 1) & (size - 1);
		tab[k] = i + 1;
	}
	free(fs->tab);
	fs->tab = tab;
	fs->tab_size = size;
	return 0;
}

static void funcs_add(struct tfs_funcs *fs, const char *name, const char *mod, int exe,
		      const char *flags)
{
	struct tfs_func *f;
	size_t k;

	if ((fs->n + 1) * 2 > fs->tab_size && funcs_rehash(fs))
		return;
	k = str_hash(name, mod) & (fs->tab_size - 1);
	while (fs->tab[k]) {
		f = &fs->f[fs->tab[k] - 1];
		if (!strcmp(f->name, name) && !strcmp(f->mod, mod)) {
			f->patchable |= !!strchr(flags, 'p');
			f->enabled |= !!strchr(flags, 'e');
			return;
		}
		k = (k + 1) & (fs->tab_size - 1);
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		struct tfs_func *nf = realloc(fs->f, cap * sizeof(*nf));

		if (!nf)
			return;
		fs->f = nf;
		fs->cap = cap;
	}
	f = &fs->f[fs->n];
	f->name = strdup(name);
	f->mod = strdup(mod);
	if (!f->name || !f->mod) {
		free(f->name);
		free(f->mod);
		return;
	}
	f->exe = exe;
	f->patchable = !!strchr(flags, 'p');
	f->enabled = !!strchr(flags, 'e');
	fs->tab[k] = ++fs->n;
}

static void funcs_free(struct tfs_funcs *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->f[i].name);
		free(fs->f[i].mod);
	}
	free(fs->f);
	free(fs->tab);
	memset(fs, 0, sizeof(*fs));
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static void funcs_load_file(struct tfs_funcs *fs, const char *dir, const char *fname, int pid)
{
	char path[PATH_MAX], exe[PATH_MAX] = "", *line = NULL;
	size_t cap = 0;
	ssize_t n, k;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, fname);
	fp = fopen(path, "re");
	if (!fp)
		return;
	fs->present = 1;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	k = readlink(path, exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = '\0';
		/* a deleted executable: "/path/app (deleted)" */
		if (k > 10 && !strcmp(exe + k - 10, " (deleted)"))
			exe[k - 10] = '\0';
		memmove(exe, base_name(exe), strlen(base_name(exe)) + 1);
	} else {
		exe[0] = '\0';
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		char *name = line, *mod, *flags;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		mod = strchr(name, '\t');
		if (!mod)
			continue;
		*mod++ = '\0';
		flags = strchr(mod, '\t');
		if (flags)
			*flags++ = '\0';
		else
			flags = "";
		if (!exe[0])
			snprintf(exe, sizeof(exe), "%s", base_name(mod));
		funcs_add(fs, name, mod, !strcmp(base_name(mod), exe), flags);
	}
	free(line);
	fclose(fp);
}

static int name_pid(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, l) || !isdigit((unsigned char)name[l]))
		return -1;
	v = strtol(name + l, &end, 10);
	if (v <= 0 || v > INT_MAX)
		return -1;
	if (*end && *end != '.')
		return -1;
	return (int)v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* append @v to the growing array *@a of *@nr (capacity *@cap); -1 if out of memory */
static int ints_push(int **a, int *nr, int *cap, int v)
{
	if (*nr == *cap) {
		int c = *cap ? *cap * 2 : 16;
		int *n = realloc(*a, (size_t)c * sizeof(*n));

		if (!n)
			return -1;
		*a = n;
		*cap = c;
	}
	(*a)[(*nr)++] = v;
	return 0;
}

/* every ftrace.<pid> of the session, in pid order */
static void funcs_load(struct tfs_session *s, struct tfs_funcs *fs)
{
	int *pids = NULL, nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	memset(fs, 0, sizeof(*fs));
	d = opendir(s->dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int pid = name_pid(de->d_name, "ftrace.");

		if (pid < 0 || strchr(de->d_name + 7, '.'))
			continue;
		if (ints_push(&pids, &nr, &cap, pid) < 0)
			break;
	}
	closedir(d);
	if (nr)
		qsort(pids, (size_t)nr, sizeof(*pids), cmp_int);
	for (int i = 0; i < nr; i++) {
		char fname[32];

		snprintf(fname, sizeof(fname), "ftrace.%d", pids[i]);
		funcs_load_file(fs, s->dir, fname, pids[i]);
	}
	free(pids);
}

static void func_print(struct sbuf *b, const struct tfs_func *f)
{
	if (f->exe)
		sb_puts(b, f->name);
	else
		sb_printf(b, "%s [%s]", f->name, f->mod);
}

/* does module @mod (a path or a name) match a `:mod:` glob */
static int mod_match(const char *glob, const char *mod)
{
	return !fnmatch(glob, mod, 0) || !fnmatch(glob, base_name(mod), 0);
}

/* ---- the lists: words in the kernel's syntax ---- */

static const char *const cmd_names[] = { "traceon", "traceoff", "stacktrace" };
static const char *const known_cmds[] = {
	"traceon", "traceoff", "stacktrace", "dump", "cpudump", "snapshot",
	"enable_event", "disable_event",
};

struct words {
	char **w;
	int n;
};

static void words_free(struct words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
	ws->w = NULL;
	ws->n = 0;
}

static int words_add(struct words *ws, const char *s, size_t len)
{
	char **nw = realloc(ws->w, (size_t)(ws->n + 1) * sizeof(*nw));

	if (!nw)
		return -ENOMEM;
	ws->w = nw;
	ws->w[ws->n] = strndup(s, len);
	if (!ws->w[ws->n])
		return -ENOMEM;
	ws->n++;
	return 0;
}

static int words_split(struct words *ws, const char *buf, size_t size)
{
	size_t i = 0;

	while (i < size) {
		size_t j;

		while (i < size && (isspace((unsigned char)buf[i]) || !buf[i]))
			i++;
		for (j = i; j < size && buf[j] && !isspace((unsigned char)buf[j]); j++)
			;
		if (j > i && words_add(ws, buf + i, j - i))
			return -ENOMEM;
		i = j;
	}
	return 0;
}

static void words_del(struct words *ws, int i)
{
	free(ws->w[i]);
	memmove(ws->w + i, ws->w + i + 1, sizeof(*ws->w) * (size_t)(ws->n - i - 1));
	ws->n--;
}

static int words_find(const struct words *ws, const char *w)
{
	for (int i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i], w))
			return i;
	return -1;
}

/* the list back into the control page; -ENOSPC if it does not fit */
static int words_join(const struct words *ws, char *dst)
{
	size_t len = 0;

	for (int i = 0; i < ws->n; i++)
		len += strlen(ws->w[i]) + 1;
	if (len >= UT_LIST_MAX)
		return -ENOSPC;
	dst[0] = '\0';
	for (int i = 0, off = 0; i < ws->n; i++)
		off += sprintf(dst + off, "%s%s", i ? " " : "", ws->w[i]);
	return 0;
}

/* a filter word split as the kernel's: glob[:mod:M] or glob:cmd[:N] */
struct fword {
	char glob[256];
	char mod[256];		/* :mod: */
	int has_mod;
	char cmd[32];		/* a command */
	char arg[64];		/* its count or argument */
	int has_arg;
};

static int fword_parse(const char *w, struct fword *fw)
{
	const char *c1 = strchr(w, ':'), *c2;

	memset(fw, 0, sizeof(*fw));
	if (!c1) {
		snprintf(fw->glob, sizeof(fw->glob), "%s", w);
		return strlen(w) < sizeof(fw->glob) ? 0 : -EINVAL;
	}
	if ((size_t)(c1 - w) >= sizeof(fw->glob))
		return -EINVAL;
	memcpy(fw->glob, w, (size_t)(c1 - w));
	c2 = strchr(c1 + 1, ':');
	if (c2 && (size_t)(c2 - c1 - 1) == 3 && !strncmp(c1 + 1, "mod", 3)) {
		fw->has_mod = 1;
		snprintf(fw->mod, sizeof(fw->mod), "%s", c2 + 1);
		return 0;
	}
	if ((c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)) >= sizeof(fw->cmd))
		return -EINVAL;
	memcpy(fw->cmd, c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1));
	if (c2) {
		fw->has_arg = 1;
		snprintf(fw->arg, sizeof(fw->arg), "%s", c2 + 1);
	}
	return fw->cmd[0] ? 0 : -EINVAL;
}

/* functions of @fs a glob (with an optional :mod:) selects */
static int fword_matches(const struct fword *fw, const struct tfs_func *f)
{
	if (fw->has_mod && !mod_match(fw->mod, f->mod))
		return 0;
	return !fw->glob[0] || !fnmatch(fw->glob, f->name, 0);
}

static int glob_has_match(const struct tfs_funcs *fs, const char *glob)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!fnmatch(glob, fs->f[i].name, 0))
			return 1;
	return 0;
}

static char *list_of(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id)
{
	switch (id) {
	case F_FILTER:	 return in->filter;
	case F_NOTRACE:	 return in->notrace;
	case F_GFUNC:	 return s->ctl->graph_function;
	case F_GNOTRACE: return s->ctl->graph_notrace;
	default:	 return NULL;
	}
}

static int is_cmd(const char *name, const char *const *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, tab[i]))
			return 1;
	return 0;
}

/*
 * check_words - refuse what the kernel refuses: a pattern that selects no
 * function (when the processes listed theirs), a command on a file that
 * takes none, an unknown command.  Context: s->lock held.
 */
static int check_words(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id,
		       const struct words *ws, const struct tfs_funcs *fs)
{
	for (int i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];
		struct fword fw;
		int neg = w[0] == '!';

		if (fword_parse(w + neg, &fw)) {
			tfs_err(s, "Invalid argument", w);
			return -EINVAL;
		}
		if (fw.cmd[0]) {
			if (id != F_FILTER) {
				tfs_err(s, "Function commands are not accepted here", w);
				return -EINVAL;
			}
			if (in != &s->top) {
				tfs_err(s, "Function commands are set at the top level only", w);
				return -EINVAL;
			}
			if (!is_cmd(fw.cmd, known_cmds, sizeof(known_cmds) / sizeof(known_cmds[0]))) {
				tfs_err(s, "Unknown function command", w);
				return -EINVAL;
			}
			if (!is_cmd(fw.cmd, cmd_names, sizeof(cmd_names) / sizeof(cmd_names[0]))) {
				tfs_err(s, "Function command not supported in user space", w);
				return -EINVAL;
			}
			if (fw.has_arg && !neg) {
				char *end;

				errno = 0;
				strtoul(fw.arg, &end, 10);
				if (!fw.arg[0] || *end || errno) {
					tfs_err(s, "Invalid count", w);
					return -EINVAL;
				}
			}
		}
		if (fw.has_mod || neg || !fs->present)
			continue;
		if (!glob_has_match(fs, fw.glob[0] ? fw.glob : "*")) {
			tfs_err(s, "Function not found", w);
			return -EINVAL;
		}
	}
	return 0;
}

/* the command words of @list whose function and command match @fw */
static void cmds_remove(struct words *list, const struct fword *fw)
{
	for (int i = list->n - 1; i >= 0; i--) {
		struct fword e;

		if (fword_parse(list->w[i], &e))
			continue;
		if (strcmp(e.cmd, fw->cmd))
			continue;
		if (strcmp(e.glob, fw->glob) && fnmatch(fw->glob, e.glob, 0))
			continue;
		words_del(list, i);
	}
}

/*
 * filter_remove - `!pat`: the list no longer selects the functions @pat
 * matches.  A word equal to @pat, or a name @pat matches, goes; a glob
 * that selects other functions as well is replaced by the names it still
 * selects (as the kernel, whose lists are sets of functions).
 */
static void filter_remove(struct words *list, const char *pat, const struct tfs_funcs *fs)
{
	struct fword rm;

	if (fword_parse(pat, &rm))
		return;
	for (int i = list->n - 1; i >= 0; i--) {
		struct fword e;
		struct words keep = { 0 };
		int hit = 0;

		if (!strcmp(list->w[i], pat)) {
			words_del(list, i);
			continue;
		}
		if (list->w[i][0] == '!' || fword_parse(list->w[i], &e))
			continue;
		if (!strpbrk(e.glob, "*?[") && !e.has_mod) {
			if (!rm.has_mod && !fnmatch(rm.glob[0] ? rm.glob : "*", e.glob, 0))
				words_del(list, i);
			continue;
		}
		/* a glob: expand what it keeps */
		for (size_t k = 0; k < fs->n; k++) {
			if (!fword_matches(&e, &fs->f[k]))
				continue;
			if (fword_matches(&rm, &fs->f[k])) {
				hit = 1;
				continue;
			}
			if (words_find(&keep, fs->f[k].name) < 0)
				words_add(&keep, fs->f[k].name, strlen(fs->f[k].name));
		}
		if (!hit) {
			words_free(&keep);
			continue;
		}
		words_del(list, i);
		for (int k = keep.n - 1; k >= 0; k--) {
			char **nw = realloc(list->w, (size_t)(list->n + 1) * sizeof(*nw));

			if (!nw)
				break;
			list->w = nw;
			memmove(list->w + i + 1, list->w + i, sizeof(*nw) * (size_t)(list->n - i));
			list->w[i] = keep.w[k];
			keep.w[k] = NULL;
			list->n++;
		}
		words_free(&keep);
	}
}

/* a command word's count as written: N, or -1 (unlimited) */
static int64_t cmd_count_of(const char *w)
{
	struct fword fw;

	if (fword_parse(w, &fw) || !fw.has_arg)
		return -1;
	return strtoll(fw.arg, NULL, 10);
}

/*
 * The commands' list @text into the control page, with the counts in the
 * other bank: a command that stays keeps its runs left, a new one starts
 * from its count (session.h, cmd_count).  Context: s->lock held.
 */
static void cmds_publish(struct tfs_session *s, const char *text)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t ob = __atomic_load_n(&c->cmd_bank, __ATOMIC_ACQUIRE) & 1, nb = ob ^ 1;
	struct words old = { 0 }, now = { 0 };

	words_split(&old, c->commands, strlen(c->commands));
	words_split(&now, text, strlen(text));
	for (int i = 0; i < now.n && i < UT_CTL_CMDS; i++) {
		int j = words_find(&old, now.w[i]);

		c->cmd_count[nb][i] = j >= 0 && j < UT_CTL_CMDS ?
				      __atomic_load_n(&c->cmd_count[ob][j], __ATOMIC_RELAXED) :
				      cmd_count_of(now.w[i]);
	}
	words_free(&old);
	words_free(&now);
	strcpy(c->commands, text);
	__atomic_store_n(&c->cmd_bank, nb, __ATOMIC_RELEASE);
}

/*
 * list_write - one write(2) to a list file: @trunc starts from an empty
 * list.  Returns 1 if the control page changed (the caller applies it).
 * Context: s->lock held.
 */
static int list_write(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id, const char *buf,
		      size_t size, int trunc)
{
	struct words ws = { 0 }, list = { 0 }, cmds = { 0 };
	struct tfs_funcs fs;
	char *dst = list_of(s, in, id);
	int ret;

	funcs_load(s, &fs);
	ret = words_split(&ws, buf, size);
	if (!ret)
		ret = check_words(s, in, id, &ws, &fs);
	if (ret)
		goto out;
	if (!trunc) {
		words_split(&list, dst, strlen(dst));
		if (id == F_FILTER)
			words_split(&cmds, s->ctl->commands, strlen(s->ctl->commands));
	} else if (id == F_FILTER) {
		/* '>' replaces the functions; commands stay, as the kernel's */
		words_split(&cmds, s->ctl->commands, strlen(s->ctl->commands));
	}
	for (int i = 0; i < ws.n; i++) {
		const char *w = ws.w[i];
		int neg = w[0] == '!';
		struct fword fw;

		fword_parse(w + neg, &fw);
		if (fw.cmd[0]) {
			cmds_remove(&cmds, &fw);
			if (!neg)
				words_add(&cmds, w, strlen(w));
		} else if (neg) {
			filter_remove(&list, w + 1, &fs);
		} else if (words_find(&list, w) < 0) {
			words_add(&list, w, strlen(w));
		}
	}
	{
		char tmp[UT_LIST_MAX], tmpc[UT_LIST_MAX];

		ret = words_join(&list, tmp);
		if (!ret && id == F_FILTER)
			ret = words_join(&cmds, tmpc);
		if (ret) {
			tfs_err(s, "List too long", "");
			goto out;
		}
		ret = strcmp(tmp, dst) != 0;
		if (ret && in != &s->top)
			inst_pump(in);	/* what came before is taken with the old lists */
		strcpy(dst, tmp);
		if (id == F_FILTER || id == F_NOTRACE)
			ret = lists_update(s);
		if (id == F_FILTER && in == &s->top && strcmp(tmpc, s->ctl->commands)) {
			cmds_publish(s, tmpc);
			ret = 1;
		}
	}
out:
	words_free(&ws);
	words_free(&list);
	words_free(&cmds);
	funcs_free(&fs);
	return ret;
}

/* the text of a list file: the functions it selects, then the commands */
static void list_show(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id, struct sbuf *b)
{
	struct words list = { 0 };
	struct tfs_funcs fs;
	char *sel = NULL;
	const char *src = list_of(s, in, id);

	words_split(&list, src, strlen(src));
	if (!list.n) {
		if (id == F_FILTER || id == F_GFUNC)
			sb_puts(b, "#### all functions enabled ####\n");
		else
			sb_puts(b, "#### no functions disabled ####\n");
	} else {
		funcs_load(s, &fs);
		sel = calloc(fs.n + 1, 1);
		for (int i = 0; sel && i < list.n; i++) {
			int neg = list.w[i][0] == '!', any = 0;
			struct fword fw;

			if (fword_parse(list.w[i] + neg, &fw))
				continue;
			for (size_t k = 0; k < fs.n; k++) {
				if (fword_matches(&fw, &fs.f[k])) {
					sel[k] = !neg;
					any = 1;
				}
			}
			if (!any && !neg) {
				/* nothing known matches yet (not loaded): the pattern */
				sb_puts(b, list.w[i]);
				sb_puts(b, "\n");
			}
		}
		for (size_t k = 0; sel && k < fs.n; k++) {
			if (sel[k]) {
				func_print(b, &fs.f[k]);
				sb_puts(b, "\n");
			}
		}
		free(sel);
		funcs_free(&fs);
	}
	words_free(&list);
	if (id != F_FILTER || in != &s->top)
		return;
	words_split(&list, s->ctl->commands, strlen(s->ctl->commands));
	for (int i = 0; i < list.n; i++) {
		uint32_t bank = __atomic_load_n(&s->ctl->cmd_bank, __ATOMIC_ACQUIRE) & 1;
		struct fword fw;

		if (fword_parse(list.w[i], &fw))
			continue;
		/* as the kernel: the runs left, shared by the processes */
		if (fw.has_arg && i < UT_CTL_CMDS)
			sb_printf(b, "%s:%s:count=%lld\n", fw.glob, fw.cmd,
				  (long long)__atomic_load_n(&s->ctl->cmd_count[bank][i],
							     __ATOMIC_RELAXED));
		else if (fw.has_arg)
			sb_printf(b, "%s:%s:count=%s\n", fw.glob, fw.cmd, fw.arg);
		else
			sb_printf(b, "%s:%s:unlimited\n", fw.glob, fw.cmd);
	}
	words_free(&list);
}

/* ---- the programs' events (the session's registry) ---- */

/* the descriptors of the slots registered since the last call.  Context: s->lock held. */
static void ev_refresh(struct tfs_session *s)
{
	uint32_t nr;

	if (!s->evreg)
		return;
	nr = __atomic_load_n(&s->evreg->nr, __ATOMIC_ACQUIRE);
	if (nr > UT_EVREG_SLOTS)
		nr = UT_EVREG_SLOTS;
	for (; s->nr_evd < nr; s->nr_evd++)
		s->evd[s->nr_evd] = ut_evreg_desc(s->evreg, s->nr_evd);
}

static int ev_bit(const uint64_t *set, uint32_t i)
{
	return (int)(set[i / 64] >> (i % 64) & 1);
}

static void ev_bit_set(uint64_t *set, uint32_t i, int on)
{
	if (on)
		set[i / 64] |= 1ull << (i % 64);
	else
		set[i / 64] &= ~(1ull << (i % 64));
}

/* does slot @i hold event @sys:@name (@name NULL: any of @sys, @sys NULL: any)? */
static int ev_is(const struct tfs_session *s, uint32_t i, const char *sys, const char *name)
{
	const struct ut_event_desc *d = s->evd[i];

	return d && (!sys || !strcmp(d->system, sys)) && (!name || !strcmp(d->name, name));
}

/*
 * Is slot @i the first of its event?  Another layout of an event (two
 * versions of a library) has a slot of its own; the files show the first.
 */
static int ev_first_of(const struct tfs_session *s, uint32_t i)
{
	if (!s->evd[i])
		return 0;
	for (uint32_t j = 0; j < i; j++)
		if (ev_is(s, j, s->evd[i]->system, s->evd[i]->name))
			return 0;
	return 1;
}

/* the first slot of the event (or system: @name NULL) named by @len bytes at @c; -1 if none */
static int ev_find(struct tfs_session *s, const char *sys, const char *c, size_t len)
{
	ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		const struct ut_event_desc *d = s->evd[i];
		const char *w;

		if (!d || (sys && strcmp(d->system, sys)))
			continue;
		w = sys ? d->name : d->system;
		if (strlen(w) == len && !strncmp(w, c, len))
			return (int)i;
	}
	return -1;
}

/* does the directory enable an event? */
static int ev_any(const struct tfs_inst *in)
{
	for (int i = 0; i < TFS_EV_WORDS; i++)
		if (in->ev_on[i])
			return 1;
	return 0;
}

/* what every directory enables together into @set.  Context: s->lock held. */
static void ev_union(struct tfs_session *s, uint64_t *set)
{
	memcpy(set, s->top.ev_on, sizeof(s->top.ev_on));
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		for (int i = 0; i < TFS_EV_WORDS; i++)
			set[i] |= in->ev_on[i];
}

/*
 * The registry's enable bits from the directories' sets: an event is
 * recorded while some directory enables it.  Returns 1 when a bit changed
 * (the programs must apply it: ctl_apply()).  Context: s->lock held.
 */
static int ev_publish(struct tfs_session *s)
{
	uint64_t all[TFS_EV_WORDS];
	int changed = 0;

	if (!s->evreg)
		return 0;
	ev_union(s, all);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		volatile uint32_t *st = &s->evreg->slots[i].state;
		int want = ev_bit(all, i);

		if (!!(__atomic_load_n(st, __ATOMIC_ACQUIRE) & UT_EVS_RECORD) == want)
			continue;
		if (want)
			__atomic_fetch_or(st, UT_EVS_RECORD, __ATOMIC_ACQ_REL);
		else
			__atomic_fetch_and(st, ~UT_EVS_RECORD, __ATOMIC_ACQ_REL);
		changed = 1;
	}
	/* the session's buffers get events the top did not enable: its views drop them */
	for (int i = 0; i < TFS_EV_WORDS; i++)
		if (all[i] & ~s->top.ev_on[i])
			s->top_ev_wide = 1;
	return changed;
}

/*
 * "0", "1" or "X" (some), as the kernel's enable files: the events of
 * system @sys (NULL: all) that directory @in enables; "?" when there is
 * no event.  Context: s->lock held.
 */
static char ev_state(struct tfs_session *s, struct tfs_inst *in, const char *sys)
{
	unsigned set = 0;

	ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd && set != 3; i++)
		if (ev_is(s, i, sys, NULL))
			set |= 1u << ev_bit(in->ev_on, i);
	return "?01X"[set];
}

/* a line "system:name" per event (@in NULL: all of them, else those @in enables) */
static void ev_list(struct tfs_session *s, struct tfs_inst *in, struct sbuf *b)
{
	ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		if (ev_first_of(s, i) && (!in || ev_bit(in->ev_on, i)))
			sb_printf(b, "%s:%s\n", s->evd[i]->system, s->evd[i]->name);
}

/*
 * Enable (@on) or disable the events in directory @in that @match (NULL:
 * any), @sys and @name (NULL: any) select as the kernel's set_event does:
 * @match is an event's name or its system.  Returns how many slots it
 * selected; the caller publishes.  Context: s->lock held.
 */
static int ev_set(struct tfs_session *s, struct tfs_inst *in, const char *match, const char *sys,
		  const char *name, int on)
{
	int n = 0;

	ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++) {
		const struct ut_event_desc *d = s->evd[i];

		if (!d || (match && strcmp(match, d->name) && strcmp(match, d->system)) ||
		    !ev_is(s, i, sys, name))
			continue;
		/* an instance's buffers take what came before with the set of before */
		if (!n && in != &s->top)
			inst_pump(in);
		ev_bit_set(in->ev_on, i, on);
		n++;
	}
	return n;
}

/* ---- instances and views ---- */

static const char *inst_tracer(struct tfs_session *s, struct tfs_inst *in)
{
	(void)s;
	return in->tracer;
}

static int tracer_index(const char *name);
static int tracer_mode(const char *name);
static uint32_t tracer_bit(const char *name);
static int rec_filter_update(struct tfs_session *s);

static int inst_records(struct tfs_inst *in);

/* does an instance need the programs to record?  Context: s->lock held. */
static int insts_recording(struct tfs_session *s)
{
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		if (inst_records(in))
			return 1;
	return 0;
}

/*
 * The top instance's tracing_on.  The control page's word is what the
 * programs follow: the top's state or an instance's (recording_update()).
 * Function commands (traceon, traceoff) in the programs change the word
 * too; they are the top's commands, so such a change is the top's new
 * state.  Context: s->lock held.
 */
static void top_state(struct tfs_session *s, int on);

static void top_sync(struct tfs_session *s)
{
	uint32_t v = __atomic_load_n(&s->ctl->tracing_on, __ATOMIC_ACQUIRE);

	if (v != s->on_stored) {
		s->on_stored = v;
		top_state(s, v != 0);
	}
}

/* the snapshot's contents go; allocated or not, it stays so */
static void snap_empty(struct tfs_inst *in)
{
	if (in->snap_taken)
		live_snapshot_free(in->snapdir);
	in->snap_taken = 0;
}

static int inst_on(struct tfs_session *s, struct tfs_inst *in)
{
	if (in == &s->top)
		top_sync(s);
	return in->on;
}

/*
 * What the programs record: the top instance's tracer and every
 * instance's are the active tracers (the programs record what they need
 * together), while the top or an instance with a tracer is on.  Returns 1 when
 * the tracer changed (the programs must apply it: ctl_apply()).
 * Context: s->lock held.
 */
static int recording_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t set;
	int changed;

	/* a traceoff in the programs since: keep it */
	top_sync(s);
	set = tracer_bit(s->top.tracer);
	/*
	 * Instances that are off count too: switching tracing_on then needs
	 * no handshake, and keeps the recording's kind.
	 */
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		set |= tracer_bit(in->tracer);
	s->on_stored = (uint32_t)(s->top.on || insts_recording(s));
	__atomic_store_n(&c->tracing_on, s->on_stored, __ATOMIC_RELEASE);
	changed = c->active_tracers != set;
	c->active_tracers = set;
	changed |= rec_filter_update(s);
	changed |= lists_update(s);
	return changed;
}

/* does the directory's tracer make the programs record function calls now? */
static int inst_traces(struct tfs_inst *in)
{
	return in->on && tracer_mode(in->tracer) > 0;
}

/* does the directory make the programs record now: calls, or events it enabled? */
static int inst_records(struct tfs_inst *in)
{
	return inst_traces(in) || (in->on && ev_any(in));
}

/*
 * The function lists the programs follow (control page filter, notrace):
 * those of the directories that record, together.  A call is recorded if
 * one of them wants it: no filter if one has none, else all their
 * filters; a notrace list only if all have the same.  Each directory then
 * shows its own choice (the top's views, the instances' pumps).  While
 * none records, the top's lists.  Returns 1 when the control page's lists
 * changed.  Context: s->lock held.
 */
static int lists_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	char filter[UT_LIST_MAX] = "", notrace[UT_LIST_MAX] = "";
	const char *same_notrace = NULL;
	int n = 0, all = 0, differ = 0, changed;

	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next) {
		size_t l = strlen(filter), k = strlen(in->filter);

		if (!inst_traces(in))
			continue;
		n++;
		if (!in->filter[0])
			all = 1;
		else if (l + k + 2 > sizeof(filter))
			all = 1;	/* too long together: everything, each shows its own */
		else
			snprintf(filter + l, sizeof(filter) - l, "%s%s", l ? " " : "", in->filter);
		if (!same_notrace)
			same_notrace = in->notrace;
		else if (strcmp(same_notrace, in->notrace))
			differ = 1;
	}
	if (!n) {
		snprintf(filter, sizeof(filter), "%s", s->top.filter);
		snprintf(notrace, sizeof(notrace), "%s", s->top.notrace);
	} else {
		if (all)
			filter[0] = '\0';
		if (!differ && same_notrace)
			snprintf(notrace, sizeof(notrace), "%s", same_notrace);
	}
	changed = strcmp(filter, c->filter) || strcmp(notrace, c->notrace);
	strcpy(c->filter, filter);
	strcpy(c->notrace, notrace);
	/* the programs record more than the top chose: its views choose, until cleared */
	if (strcmp(filter, s->top.filter) || strcmp(notrace, s->top.notrace))
		s->top_lists_wide = 1;
	return changed;
}

/* pids of set_ftrace_pid @list into @pids (unique); -1 when they do not fit */
static int pids_add(const char *list, int32_t *pids, uint32_t *n)
{
	for (const char *p = list; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		uint32_t i;

		if (end == p) {
			p++;
			continue;
		}
		p = end;
		for (i = 0; i < *n && pids[i] != v; i++)
			;
		if (i < *n)
			continue;
		if (*n == UT_REC_PIDS_MAX)
			return -1;
		pids[(*n)++] = (int32_t)v;
	}
	return 0;
}

/*
 * Who the programs record (set_ftrace_pid, tracing_cpumask): the threads
 * and CPUs the top or an instance that records wants; an instance has no
 * cpumask, and one with an empty pid list wants every thread.  Returns 1
 * when the filter was turned on or off: the programs must apply it.
 * Context: s->lock held.
 */
static int rec_filter_update(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	int32_t pids[UT_REC_PIDS_MAX];
	uint32_t mask[UT_CTL_CPUS / 32], n = 0;
	int all = !s->top.pids[0] || pids_add(s->top.pids, pids, &n) < 0, was = 0, now = 0;
	int inst_rec = 0;

	for (struct tfs_inst *in = s->insts; in; in = in->next) {
		if (!inst_records(in))
			continue;
		inst_rec = 1;
		if (!in->pids[0] || pids_add(in->pids, pids, &n) < 0)
			all = 1;
	}
	if (all)
		n = 0;
	for (int i = 0; i < UT_CTL_CPUS / 32; i++) {
		mask[i] = inst_rec ? ~0u : i < TFS_MAX_CPUS / 32 ? s->cpumask[i] : 0;
		/* CPUs beyond the configured ones: no reason to refuse them */
		for (int b = 0; b < 32; b++)
			if (i * 32 + b >= s->ncpu)
				mask[i] |= 1u << b;
		was |= c->rec_cpumask[i] != ~0u;
		now |= mask[i] != ~0u;
	}
	was |= c->nr_rec_pids != 0;
	now |= n != 0;
	if (c->nr_rec_pids == n && !memcmp(c->rec_pids, pids, n * sizeof(*pids)) &&
	    !memcmp(c->rec_cpumask, mask, sizeof(mask)))
		return 0;
	/* odd while changing: a thread that sees it keeps what it knew */
	__atomic_store_n(&c->rec_filter_gen, (c->rec_filter_gen | 1) , __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c->nr_rec_pids = n;
	memcpy(c->rec_pids, pids, n * sizeof(*pids));
	memcpy(c->rec_cpumask, mask, sizeof(mask));
	__atomic_store_n(&c->rec_filter_gen, c->rec_filter_gen + 1, __ATOMIC_RELEASE);
	return was != now;
}

/* the top instance goes on or off now: its views hide the time it is off */
static void top_set_on(struct tfs_session *s, int on)
{
	top_sync(s);
	top_state(s, on);
}

static void top_state(struct tfs_session *s, int on)
{
	struct tfs_inst *t = &s->top;
	uint64_t now;

	if (t->on == on)
		return;
	t->on = on;
	now = live_now(s->dir);
	if (!on) {
		if (t->nr_hide == TFS_HIDE_MAX) {
			/* no room: what is older than the oldest range goes too */
			if (t->since < t->hide[1])
				t->since = t->hide[1];
			memmove(t->hide, t->hide + 2, sizeof(t->hide) - 2 * sizeof(t->hide[0]));
			t->nr_hide--;
		}
		t->hide[2 * t->nr_hide] = now;
		t->hide[2 * t->nr_hide + 1] = UINT64_MAX;
		t->nr_hide++;
	} else if (t->nr_hide && t->hide[2 * t->nr_hide - 1] == UINT64_MAX) {
		t->hide[2 * t->nr_hide - 1] = now;
	}
}

/* an instance takes what the programs recorded until now.  Context: s->lock held. */
static void inst_pump(struct tfs_inst *in)
{
	if (in->pump)
		live_pump_run(in->pump, in->tracer, inst_records(in), in->pids, in->filter,
			      in->notrace, in->ev_on);
}

static void inst_init(struct tfs_inst *in)
{
	pthread_mutex_init(&in->pipe_lock, NULL);
	in->on = 1;
	in->opt_mask = 0;
	for (int i = 0; i < TRACE_NR_OPTS; i++)
		if (trace_opts[i].def)
			in->opt_mask |= trace_opts[i].bit;
}

static void inst_free(struct tfs_inst *in, int remove)
{
	snap_empty(in);
	errlog_clear(in);
	live_marker_close(in->marker);
	in->marker = NULL;
	for (int i = 0; in->pipes && i <= TFS_MAX_CPUS; i++)
		live_pipe_close(in->pipes[i]);
	free(in->pipes);
	in->pipes = NULL;
	pthread_mutex_destroy(&in->pipe_lock);
	live_pump_close(in->pump, remove);
	in->pump = NULL;
}

static int cpu_of_mask(struct tfs_session *s)
{
	int cpu = -1;

	for (int i = 0; i < s->ncpu; i++) {
		if (s->cpumask[i / 32] & (1u << (i % 32))) {
			if (cpu >= 0)
				return -1;
			cpu = i;
		}
	}
	return cpu;
}

struct view_buf {
	struct live_view v;
	char ffilter[UT_LIST_MAX], fnotrace[UT_LIST_MAX];
	uint64_t hide[2 * TFS_HIDE_MAX];
	char pids[UT_LIST_MAX];
	char words[TRACE_NR_OPTS][40];
	const char *ptrs[TRACE_NR_OPTS + 1];
	char tracer[32];
	struct tfs_inst *inst;
	uint32_t cpu_pages[TFS_MAX_CPUS];
	uint64_t cpu_since[TFS_MAX_CPUS];
	uint64_t ev_on[TFS_EV_WORDS];
};

/* do all CPUs' buffers have one size (*@pages, else the largest)? */
static int cpu_pages_same(struct tfs_session *s, struct tfs_inst *in, uint32_t *pages)
{
	uint32_t max = in->cpu_pages[0];
	int same = 1;

	for (int i = 1; i < s->ncpu; i++) {
		same &= in->cpu_pages[i] == in->cpu_pages[0];
		if (in->cpu_pages[i] > max)
			max = in->cpu_pages[i];
	}
	if (pages)
		*pages = max;
	return same;
}

static void cpu_pages_init(struct tfs_inst *in, uint32_t pages)
{
	for (int i = 0; i < TFS_MAX_CPUS; i++)
		in->cpu_pages[i] = pages;
}

/* the live_view of an instance.  Context: s->lock held. */
static void view_make(struct tfs_session *s, struct tfs_inst *in, int cpu, struct view_buf *vb)
{
	int k = 0;

	vb->inst = in;
	vb->v.consumed = NULL;
	vb->v.cpu_pages = NULL;
	vb->v.nr_cpu_pages = 0;
	if (!cpu_pages_same(s, in, NULL)) {
		memcpy(vb->cpu_pages, in->cpu_pages, sizeof(*vb->cpu_pages) * (size_t)s->ncpu);
		vb->v.cpu_pages = vb->cpu_pages;
		vb->v.nr_cpu_pages = s->ncpu;
	}
	vb->v.cpu_since = NULL;
	vb->v.nr_cpu_since = 0;
	if (in->cpu_cleared) {
		memcpy(vb->cpu_since, in->cpu_since, sizeof(*vb->cpu_since) * (size_t)s->ncpu);
		vb->v.cpu_since = vb->cpu_since;
		vb->v.nr_cpu_since = s->ncpu;
	}
	snprintf(vb->tracer, sizeof(vb->tracer), "%s", inst_tracer(s, in));
	/* a tracer's own options go to that tracer only (live.c refuses others) */
	for (int i = 0; i < TRACE_NR_OPTS; i++) {
		if (trace_opt_hidden(i, vb->tracer))
			continue;
		/* as the kernel's, the option refuses new markers; it hides none */
		if (i == TRACE_ITER_MARKERS_POS)
			continue;
		snprintf(vb->words[k], sizeof(vb->words[k]), "%s%s",
			 in->opt_mask & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
		vb->ptrs[k] = vb->words[k];
		k++;
	}
	vb->ptrs[k] = NULL;
	vb->v.tracer = vb->tracer;
	vb->v.options = vb->ptrs;
	vb->v.cpu = cpu >= 0 ? cpu : cpu_of_mask(s);
	vb->v.since = in->since;
	/* an instance's set_ftrace_pid chose what its buffers took */
	snprintf(vb->pids, sizeof(vb->pids), "%s", in == &s->top ? in->pids : "");
	vb->v.pids = vb->pids;
	vb->v.clock = in->clock;
	vb->v.bufdir = in->pump ? in->bufdir : NULL;
	/* a copy: the view is read after s->lock is dropped */
	memcpy(vb->hide, in->hide, sizeof(vb->hide));
	vb->v.hide = in->nr_hide ? vb->hide : NULL;
	vb->v.nr_hide = in->nr_hide;
	/* the programs recorded more than the top's lists choose: show its choice */
	vb->v.ffilter = vb->v.fnotrace = NULL;
	if (in == &s->top && s->top_lists_wide) {
		memcpy(vb->ffilter, in->filter, sizeof(vb->ffilter));
		memcpy(vb->fnotrace, in->notrace, sizeof(vb->fnotrace));
		vb->v.ffilter = vb->ffilter;
		vb->v.fnotrace = vb->fnotrace;
	}
	/*
	 * the programs recorded events the top did not enable: show its
	 * choice.  An instance's pump took only its own.
	 */
	vb->v.ev_on = NULL;
	if (in == &s->top && s->top_ev_wide) {
		memcpy(vb->ev_on, in->ev_on, sizeof(vb->ev_on));
		vb->v.ev_on = vb->ev_on;
	}
}

static struct tfs_inst *inst_find(struct tfs_session *s, const char *name, size_t len)
{
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		if (strlen(in->name) == len && !strncmp(in->name, name, len))
			return in;
	return NULL;
}

/* ---- paths ---- */

/* the next component of *p: its length, *p moved past it */
static size_t next_comp(const char **p, const char **comp)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	e = strchrnul(s, '/');
	*comp = s;
	*p = e;
	return (size_t)(e - s);
}

static int comp_is(const char *c, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(c, name, len);
}

/* is @name one of the files of events/ (a system of that name would be hidden)? */
static int resolve_top_event_file(const char *name)
{
	for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]); i++)
		if (!strcmp(name, f_ev_top_files[i].name))
			return 1;
	return 0;
}

/* resolve @path.  Context: s->lock held. */
static int resolve(struct tfs_session *s, const char *path, struct tfs_node *n)
{
	const char *p = path ? path : "", *c;
	unsigned where = W_TOP;
	size_t len;

	memset(n, 0, sizeof(*n));
	n->cpu = -1;
	n->slot = -1;
	n->inst = &s->top;
	n->dir = D_ROOT;
	len = next_comp(&p, &c);
	if (!len)
		return 0;
	if (comp_is(c, len, "instances")) {
		len = next_comp(&p, &c);
		if (!len) {
			n->dir = D_INSTANCES;
			return 0;
		}
		n->inst = inst_find(s, c, len);
		if (!n->inst)
			return -ENOENT;
		where = W_INST;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
	}
	if (comp_is(c, len, "options")) {
		n->dir = D_OPTIONS;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		n->opt = trace_opt_index(c, len);
		if (n->opt < 0)
			return -ENOENT;
		n->dir = D_NONE;
		n->f = &f_option;
	} else if (comp_is(c, len, "per_cpu")) {
		char *end;
		long cpu;

		n->dir = D_PERCPU;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		if (len < 4 || strncmp(c, "cpu", 3) || !isdigit((unsigned char)c[3]))
			return -ENOENT;
		cpu = strtol(c + 3, &end, 10);
		if (end != c + len || cpu >= s->ncpu)
			return -ENOENT;
		n->cpu = (int)cpu;
		n->dir = D_CPU;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		n->f = NULL;
		for (size_t i = 0; i < sizeof(f_cpu_files) / sizeof(f_cpu_files[0]); i++)
			if (comp_is(c, len, f_cpu_files[i].name))
				n->f = &f_cpu_files[i];
		if (!n->f)
			return -ENOENT;
		n->dir = D_NONE;
	} else if (comp_is(c, len, "events")) {
		n->dir = D_EVENTS;
		len = next_comp(&p, &c);
		if (!len)
			return 0;
		for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]); i++)
			if (comp_is(c, len, f_ev_top_files[i].name))
				n->f = &f_ev_top_files[i];
		if (n->f) {
			n->dir = D_NONE;
		} else if (comp_is(c, len, "ftrace")) {
			n->dir = D_EVSYS;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
				if (comp_is(c, len, ut_ftrace_events[i].name))
					n->ev = &ut_ftrace_events[i];
			if (!n->ev)
				return -ENOENT;
			n->dir = D_EVENT;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (size_t i = 0; i < sizeof(f_ev_files) / sizeof(f_ev_files[0]); i++)
				if (comp_is(c, len, f_ev_files[i].name))
					n->f = &f_ev_files[i];
			if (!n->f)
				return -ENOENT;
			n->dir = D_NONE;
		} else {
			/* a system of the programs' events */
			int i = ev_find(s, NULL, c, len);
			const struct tfs_file *tab = f_evsys_files;
			size_t nf = sizeof(f_evsys_files) / sizeof(f_evsys_files[0]);

			if (i < 0)
				return -ENOENT;
			n->evsys = s->evd[i]->system;
			n->dir = D_EVSYS;
			len = next_comp(&p, &c);
			if (!len)
				return 0;
			for (size_t k = 0; k < nf; k++)
				if (comp_is(c, len, tab[k].name))
					n->f = &tab[k];
			if (!n->f) {
				i = ev_find(s, n->evsys, c, len);
				if (i < 0)
					return -ENOENT;
				n->slot = i;
				n->ev = s->evd[i];
				n->dir = D_EVENT;
				len = next_comp(&p, &c);
				if (!len)
					return 0;
				tab = f_evt_files;
				nf = sizeof(f_evt_files) / sizeof(f_evt_files[0]);
				for (size_t k = 0; k < nf; k++)
					if (comp_is(c, len, tab[k].name))
						n->f = &tab[k];
				if (!n->f)
					return -ENOENT;
			}
			n->dir = D_NONE;
		}
	} else {
		for (size_t i = 0; i < NR_FILES; i++)
			if ((files[i].where & where) && comp_is(c, len, files[i].name))
				n->f = &files[i];
		if (!n->f)
			return -ENOENT;
		n->dir = D_NONE;
	}
	len = next_comp(&p, &c);
	if (len)
		return n->dir == D_NONE ? -ENOTDIR : -ENOENT;
	return 0;
}

/* ---- the session ---- */

/*
 * The instances take what the programs record every TFS_PUMP_MS, so that
 * the programs' buffers (overwrite mode) do not run over it first.
 * Reading an instance's files pumps too.
 */
static void *pump_main(void *arg)
{
	struct tfs_session *s = arg;

	pthread_mutex_lock(&s->lock);
	while (!s->closing) {
		struct timespec ts;

		for (struct tfs_inst *in = s->insts; in; in = in->next)
			inst_pump(in);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TFS_PUMP_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->pump_cond, &s->lock, &ts);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/*
 * The session's event registry, SESSION/events, shared with the programs
 * (they register their events, tracefs sets the enable bits).  A session
 * without one (an older recorder) has no events: *@reg stays NULL.
 * 0, or -1 after a message.
 */
static int evreg_map(const char *session_dir, struct ut_evreg **reg)
{
	char path[PATH_MAX];
	struct stat st;
	void *m;
	int fd;

	*reg = NULL;
	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "usertrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct ut_evreg)) {
		fprintf(stderr, "usertrace: %s: not an event registry\n", path);
		close(fd);
		return -1;
	}
	m = mmap(NULL, sizeof(struct ut_evreg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "usertrace: %s: mmap: %s\n", path, strerror(errno));
		return -1;
	}
	if (memcmp(((struct ut_evreg *)m)->magic, UT_EVREG_MAGIC, 8) ||
	    ((struct ut_evreg *)m)->version != UT_EVREG_VERSION) {
		fprintf(stderr, "usertrace: %s: not an event registry\n", path);
		munmap(m, sizeof(struct ut_evreg));
		return -1;
	}
	*reg = m;
	return 0;
}

struct tfs_session *tfs_session_open(const char *session_dir)
{
	struct tfs_session *s = calloc(1, sizeof(*s));
	char path[PATH_MAX];
	long ncpu;
	void *m;
	int fd;

	if (!s) {
		fprintf(stderr, "usertrace: out of memory\n");
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/control", session_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "usertrace: %s: %s\n", path, strerror(errno));
		free(s);
		return NULL;
	}
	m = mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "usertrace: %s: mmap: %s\n", path, strerror(errno));
		free(s);
		return NULL;
	}
	s->ctl = m;
	if (memcmp(s->ctl->magic, UT_CTL_MAGIC, sizeof(s->ctl->magic))) {
		fprintf(stderr, "usertrace: %s: not a usertrace control file\n", path);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	s->evd = calloc(UT_EVREG_SLOTS, sizeof(*s->evd));
	if (!s->evd || evreg_map(session_dir, &s->evreg) < 0) {
		if (!s->evd)
			fprintf(stderr, "usertrace: out of memory\n");
		free(s->evd);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	s->dir = strdup(session_dir);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->pump_cond, NULL);
	inst_init(&s->top);
	snprintf(s->top.tracer, sizeof(s->top.tracer), "%s",
		 ut_tracers_first(s->ctl->active_tracers));
	s->top.on = s->ctl->tracing_on != 0;
	s->on_stored = s->ctl->tracing_on;
	memcpy(s->top.filter, s->ctl->filter, UT_LIST_MAX);
	memcpy(s->top.notrace, s->ctl->notrace, UT_LIST_MAX);
	s->top.filter[UT_LIST_MAX - 1] = s->top.notrace[UT_LIST_MAX - 1] = '\0';
	/* the events enabled before (by a former daemon of the session): the top's */
	ev_refresh(s);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		if (__atomic_load_n(&s->evreg->slots[i].state, __ATOMIC_ACQUIRE) & UT_EVS_RECORD)
			ev_bit_set(s->top.ev_on, i, 1);
	s->top.marker = live_marker_open(s->dir, s->dir, s->ctl->nr_pages);
	if (!s->top.marker) {
		fprintf(stderr, "usertrace: %s: trace_marker: %s\n", s->dir, strerror(errno));
		for (uint32_t i = 0; i < s->nr_evd; i++)
			free(s->evd[i]);
		free(s->evd);
		if (s->evreg)
			munmap(s->evreg, sizeof(*s->evreg));
		free(s->dir);
		munmap(m, UT_CTL_SIZE);
		free(s);
		return NULL;
	}
	s->have_pump_thr = pthread_create(&s->pump_thr, NULL, pump_main, s) == 0;
	cpu_pages_init(&s->top, s->ctl->nr_pages);
	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	s->ncpu = ncpu < 1 ? 1 : ncpu > TFS_MAX_CPUS ? TFS_MAX_CPUS : (int)ncpu;
	for (int i = 0; i < s->ncpu; i++)
		s->cpumask[i / 32] |= 1u << (i % 32);
	if (s->ctl->tracing_thresh) {
		if (s->ctl->clock == UT_CLOCK_TSC) {
			tsc_rate(s);
			s->thresh_us = (unsigned long long)((double)s->ctl->tracing_thresh /
							    s->ticks_per_ns / 1000 + 0.5);
		} else {
			s->thresh_us = s->ctl->tracing_thresh / 1000;
		}
	}
	return s;
}

void tfs_session_close(struct tfs_session *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = 1;
	pthread_cond_broadcast(&s->pump_cond);
	pthread_mutex_unlock(&s->lock);
	if (s->have_pump_thr)
		pthread_join(s->pump_thr, NULL);
	while (s->insts) {
		struct tfs_inst *in = s->insts;

		s->insts = in->next;
		inst_free(in, 1);
		free(in);
	}
	inst_free(&s->top, 0);
	pthread_cond_destroy(&s->pump_cond);
	for (uint32_t i = 0; i < s->nr_evd; i++)
		free(s->evd[i]);
	free(s->evd);
	if (s->evreg)
		munmap(s->evreg, sizeof(*s->evreg));
	munmap(s->ctl, UT_CTL_SIZE);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->dir);
	free(s);
}

void tfs_session_ended(struct tfs_session *s)
{
	pthread_mutex_lock(&s->lock);
	s->ended = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

static void node_stat(struct tfs_session *s, const struct tfs_node *n, struct tfs_stat *st)
{
	st->is_dir = n->dir != D_NONE;
	st->mode = st->is_dir ? dir_mode(n->dir, n->inst == &s->top) : n->f->mode;
}

int tfs_stat(struct tfs_session *s, const char *path, struct tfs_stat *st)
{
	struct tfs_node n;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	pthread_mutex_unlock(&s->lock);
	if (!ret)
		node_stat(s, &n, st);
	return ret;
}

int tfs_readdir(struct tfs_session *s, const char *path,
		int (*fill)(void *ctx, const char *name, const struct tfs_stat *st), void *ctx)
{
	struct tfs_stat dir = { 1, 0750 }, evdir = { 1, 0755 };
	struct tfs_node n;
	struct words names = { 0 };
	int ret, top;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (ret || n.dir == D_NONE) {
		pthread_mutex_unlock(&s->lock);
		return ret ? ret : -ENOTDIR;
	}
	top = n.inst == &s->top;
	if (n.dir == D_INSTANCES)
		for (struct tfs_inst *in = s->insts; in; in = in->next)
			words_add(&names, in->name, strlen(in->name));
	if (n.dir == D_EVENTS || (n.dir == D_EVSYS && n.evsys)) {
		/* the programs' systems, or the events of one */
		ev_refresh(s);
		for (uint32_t i = 0; i < s->nr_evd; i++) {
			const char *w;

			if (!ev_is(s, i, n.evsys, NULL))
				continue;
			w = n.evsys ? s->evd[i]->name : s->evd[i]->system;
			if (words_find(&names, w) >= 0 || !strcmp(w, "ftrace"))
				continue;
			if (!n.evsys && resolve_top_event_file(w))
				continue;
			if (n.evsys && !strcmp(w, "enable"))
				continue;
			words_add(&names, w, strlen(w));
		}
	}
	pthread_mutex_unlock(&s->lock);

	switch (n.dir) {
	case D_ROOT:
		for (size_t i = 0; i < NR_FILES && !ret; i++) {
			struct tfs_stat st = { 0, files[i].mode };

			if (files[i].where & (top ? W_TOP : W_INST))
				ret = fill(ctx, files[i].name, &st);
		}
		if (!ret)
			ret = fill(ctx, "options", &dir);
		if (!ret)
			ret = fill(ctx, "per_cpu", &dir);
		if (!ret)
			ret = fill(ctx, "events", &evdir);
		if (!ret && top)
			ret = fill(ctx, "instances", &dir);
		break;
	case D_OPTIONS:
		for (int i = 0; i < TRACE_NR_OPTS && !ret; i++) {
			struct tfs_stat st = { 0, 0640 };

			ret = fill(ctx, trace_opts[i].name, &st);
		}
		break;
	case D_PERCPU:
		for (int i = 0; i < s->ncpu && !ret; i++) {
			char name[16];

			snprintf(name, sizeof(name), "cpu%d", i);
			ret = fill(ctx, name, &dir);
		}
		break;
	case D_CPU:
		for (size_t i = 0; i < sizeof(f_cpu_files) / sizeof(f_cpu_files[0]) && !ret; i++) {
			struct tfs_stat st = { 0, f_cpu_files[i].mode };

			ret = fill(ctx, f_cpu_files[i].name, &st);
		}
		break;
	case D_INSTANCES:
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &dir);
		break;
	case D_EVENTS:
		for (size_t i = 0; i < sizeof(f_ev_top_files) / sizeof(f_ev_top_files[0]) && !ret; i++) {
			struct tfs_stat st = { 0, f_ev_top_files[i].mode };

			ret = fill(ctx, f_ev_top_files[i].name, &st);
		}
		if (!ret)
			ret = fill(ctx, "ftrace", &evdir);
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &evdir);
		break;
	case D_EVSYS:
		if (n.evsys) {
			for (size_t i = 0; i < sizeof(f_evsys_files) / sizeof(f_evsys_files[0]) && !ret; i++) {
				struct tfs_stat st = { 0, f_evsys_files[i].mode };

				ret = fill(ctx, f_evsys_files[i].name, &st);
			}
			for (int i = 0; i < names.n && !ret; i++)
				ret = fill(ctx, names.w[i], &evdir);
			break;
		}
		for (unsigned i = 0; i < ut_ftrace_nr_events && !ret; i++)
			ret = fill(ctx, ut_ftrace_events[i].name, &evdir);
		break;
	case D_EVENT: {
		const struct tfs_file *tab = n.slot >= 0 ? f_evt_files : f_ev_files;
		size_t nf = n.slot >= 0 ? sizeof(f_evt_files) / sizeof(f_evt_files[0]) :
			    sizeof(f_ev_files) / sizeof(f_ev_files[0]);

		for (size_t i = 0; i < nf && !ret; i++) {
			struct tfs_stat st = { 0, tab[i].mode };

			ret = fill(ctx, tab[i].name, &st);
		}
		break;
	}
	}
	words_free(&names);
	return ret > 0 ? 0 : ret;
}

static int inst_name_ok(const char *name)
{
	if (!*name || strlen(name) > NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return !strchr(name, '/');
}

int tfs_mkdir(struct tfs_session *s, const char *path)
{
	const char *p = path, *c;
	struct tfs_inst *in;
	size_t len = next_comp(&p, &c);
	char name[NAME_MAX + 1];

	if (!comp_is(c, len, "instances")) {
		struct tfs_node n;
		int ret;

		pthread_mutex_lock(&s->lock);
		ret = resolve(s, path, &n);
		pthread_mutex_unlock(&s->lock);
		return ret == 0 ? -EEXIST : ret == -ENOENT ? -EACCES : ret;
	}
	len = next_comp(&p, &c);
	if (!len)
		return -EEXIST;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, c, len);
	name[len] = '\0';
	while (*p == '/')
		p++;
	if (*p)
		return inst_find(s, c, len) ? -EACCES : -ENOENT;
	if (!inst_name_ok(name))
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (inst_find(s, name, len)) {
		pthread_mutex_unlock(&s->lock);
		return -EEXIST;
	}
	in = calloc(1, sizeof(*in));
	if (!in) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	memcpy(in->name, name, len + 1);
	inst_init(in);
	/* as the kernel: a new instance has the nop tracer and an empty buffer */
	snprintf(in->tracer, sizeof(in->tracer), "nop");
	snprintf(in->bufdir, sizeof(in->bufdir), "%s/inst.%s", s->dir, name);
	in->nr_pages = s->ctl->nr_pages;
	cpu_pages_init(in, in->nr_pages);
	in->since = live_now(s->dir);
	in->pump = live_pump_open(s->dir, in->bufdir, in->nr_pages, in->since);
	if (in->pump)
		in->marker = live_marker_open(s->dir, in->bufdir, in->nr_pages);
	if (!in->pump || !in->marker) {
		int err = errno ? -errno : -ENOMEM;

		live_pump_close(in->pump, 1);
		pthread_mutex_unlock(&s->lock);
		free(in);
		return err;
	}
	in->next = s->insts;
	s->insts = in;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int tfs_rmdir(struct tfs_session *s, const char *path)
{
	const char *p = path, *c;
	struct tfs_inst **pp, *in;
	struct tfs_node n;
	size_t len = next_comp(&p, &c);
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (ret)
		goto out;
	ret = n.dir == D_NONE ? -ENOTDIR : -EPERM;
	if (!comp_is(c, len, "instances") || n.dir != D_ROOT || n.inst == &s->top)
		goto out;
	ret = -EBUSY;
	if (n.inst->refs)
		goto out;
	top_sync(s);
	for (pp = &s->insts; (in = *pp); pp = &in->next) {
		if (in == n.inst) {
			*pp = in->next;
			inst_free(in, 1);
			free(in);
			break;
		}
	}
	top_sync(s);
	ret = 0;
	/* the programs may no longer record the events it enabled, nor at all */
	if (ev_publish(s) | recording_update(s)) {
		/* the programs may record less now */
		pthread_mutex_unlock(&s->lock);
		ctl_apply(s);
		return 0;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* ---- the contents of the files ---- */

static const char readme_text[] =
	"tracing mini-HOWTO (usertrace: ftrace for a user-space program):\n"
	"\n"
	"The files are those of the program's tracing directory, served by\n"
	"usertrace mount (FUSE) and by usertrace ctl; they have the kernel's\n"
	"permission bits, and only the user who started the session may use them.\n"
	"\n"
	"# echo 0 > tracing_on : quick way to disable tracing\n"
	"# echo 1 > tracing_on : quick way to re-enable tracing\n"
	"\n"
	" Important files:\n"
	"  trace\t\t\t- The static contents of the buffers\n"
	"\t\t\t  To clear the buffers write into this file: echo > trace\n"
	"  trace_pipe\t\t- A consuming read to see the contents of the buffers\n"
	"  current_tracer\t- function and function graph tracers\n"
	"  available_tracers\t- list of configured tracers for current_tracer\n"
	"  error_log\t- error log for failed commands (that support it)\n"
	"  buffer_size_kb\t- view and modify size of per thread buffer\n"
	"  buffer_total_size_kb  - view total size of all thread buffers\n"
	"  per_cpu/cpuN/buffer_size_kb - view and modify size of the events kept\n"
	"\t\t\t  of cpu N\n"
	"\n"
	"  trace_clock\t\t- change the clock used to show time stamps\n"
	"       local:   Per thread clock (CLOCK_MONOTONIC, from the TSC)\n"
	"      global:   Synced across CPUs (the same times as local)\n"
	"     counter:   Not a clock, but just an increment\n"
	"        perf:   The same times as local\n"
	"        mono:   CLOCK_MONOTONIC\n"
	"    mono_raw:   CLOCK_MONOTONIC_RAW\n"
	"        boot:   CLOCK_BOOTTIME\n"
	"         tai:   CLOCK_TAI\n"
	"     x86-tsc:   TSC cycle counter\n"
	"\n"
	"  trace_marker\t\t- Writes into this file writes into the trace buffer\n"
	"\n"
	"  tracing_cpumask\t- Limit which CPUs to trace\n"
	"  instances\t\t- Make sub-buffers with: mkdir instances/foo\n"
	"\t\t\t  Remove sub-buffer with rmdir\n"
	"  trace_options\t\t- Set format or modify how tracing happens\n"
	"\t\t\t  Disable an option by prefixing 'no' to the\n"
	"\t\t\t  option name\n"
	"  saved_cmdlines\t- the pid and comm of the traced processes and threads\n"
	"\n"
	"  snapshot\t\t- Like 'trace' but shows the content of the static\n"
	"\t\t\t  snapshot buffer. Read the contents for more\n"
	"\t\t\t  information\n"
	"  tracing_thresh\t- only trace calls that last longer than this (usecs)\n"
	"  tracing_max_latency\t- stored only: no latency tracer\n"
	"  max_graph_depth\t- Trace a limited depth of nested calls (0 is unlimited)\n"
	"\n"
	"  available_filter_functions - list of functions that can be filtered on\n"
	"  enabled_functions\t- list of the functions whose call sites are hooked\n"
	"  dyn_ftrace_total_info\t- number of patchable call sites\n"
	"  set_ftrace_filter\t- echo function name in here to only trace these\n"
	"\t\t\t  functions\n"
	"\t     accepts: func_full_name or glob-matching-pattern\n"
	"\t     modules: Can select a group via module (a shared object)\n"
	"\t      Format: :mod:<module-name>\n"
	"\t     example: echo :mod:libfoo.so > set_ftrace_filter\n"
	"\t    triggers: a command to perform when function is hit\n"
	"\t      Format: <function>:<trigger>[:count]\n"
	"\t     trigger: traceon, traceoff\n"
	"\t\t      stacktrace\n"
	"\t     example: echo do_fault:traceoff > set_ftrace_filter\n"
	"\t              echo do_trap:traceoff:3 > set_ftrace_filter\n"
	"\t     The first one will disable tracing every time do_fault is hit\n"
	"\t     The second will disable tracing at most 3 times when do_trap is hit\n"
	"\t       The counter only decrements when the trigger did work\n"
	"\t     Triggers fire whatever the current tracer, nop included\n"
	"\t     To remove trigger without count:\n"
	"\t       echo '!<function>:<trigger> > set_ftrace_filter\n"
	"\t     To remove trigger with a count:\n"
	"\t       echo '!<function>:<trigger>:0 > set_ftrace_filter\n"
	"  set_ftrace_notrace\t- echo function name in here to never trace.\n"
	"\t    accepts: func_full_name, *func_end, func_begin*, *func_middle*\n"
	"\t    modules: Can select a group via module command :mod:\n"
	"\t    Does not accept triggers\n"
	"  set_ftrace_pid\t- Write pid(s) to only function trace those pids\n"
	"\t\t    (function)\n"
	"  set_graph_function\t- Trace the nested calls of a function (function_graph)\n"
	"  set_graph_notrace\t- Do not trace the nested calls of a function (function_graph)\n"
	"  available_events\t- the programs' events (tracepoints), <system>:<event>\n"
	"  set_event\t\t- Enables events by name written into it\n"
	"\t\t\t  <system>:<event>, <system>:*, *:*, <event> or <system>;\n"
	"\t\t\t  '!' disables; '>' disables all the others first\n"
	"  events/\t\t- Directory containing all trace event subsystems:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of all events\n"
	"      header_page\t- the layout of a ring-buffer page\n"
	"      header_event\t- the layout of a record header\n"
	"  events/<system>/\t- Directory containing all trace events for <system>:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of all <system>\n"
	"\t\t\t  events\n"
	"  events/<system>/<event>/\t- Directory containing control files for\n"
	"\t\t\t  <event>:\n"
	"      enable\t\t- Write 0/1 to enable/disable tracing of <event>\n"
	"      format\t\t- its fields and print format\n"
	"      id\t\t- its id\n"
	"  events/ftrace/<event>/\t- the entries the tracers write (no enable):\n"
	"      format\t\t- its fields and print format\n"
	"      id\t\t- its id\n";

/* print_snapshot_help(): an empty snapshot, allocated or not */
static const char snapshot_help[] =
	"# Snapshot commands:\n"
	"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer.\n"
	"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";

/* the session's thread and process ids: buffers' names and procs[] */
static int session_ids(struct tfs_session *s, int **out)
{
	int *ids = NULL, nr = 0, cap = 0, k = 0;
	struct dirent *de;
	DIR *d = opendir(s->dir);

	while (d && (de = readdir(d))) {
		int pid = name_pid(de->d_name, "buf."), tid;
		const char *t;

		if (pid < 0)
			continue;
		t = strchr(de->d_name + 4, '.');
		tid = t ? name_pid(t, ".") : -1;
		for (int j = 0; j < 2; j++) {
			int v = j ? tid : pid;

			if (v > 0)
				ints_push(&ids, &nr, &cap, v);
		}
	}
	if (d)
		closedir(d);
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		int pid = s->ctl->procs[i].pid;

		if (pid && ints_push(&ids, &nr, &cap, pid) < 0)
			break;
	}
	if (nr)
		qsort(ids, (size_t)nr, sizeof(*ids), cmp_int);
	for (int i = 0; i < nr; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	*out = ids;
	return k;
}

static unsigned long long phys_kb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)(psz / 1024)
				    : ULLONG_MAX;
}

/*
 * A buffer's name: buf.<pid>.<tid>.<image>, then .<n> for the n-th buffer
 * that replaced it after a resize (runtime.c, ut_renew()).
 */
struct buf_name {
	int pid, tid;
	unsigned long long image;
	unsigned gen;
	char name[NAME_MAX + 1];
};

static int buf_name_parse(const char *name, struct buf_name *bn)
{
	int n = 0;

	bn->gen = 0;
	if (strlen(name) > NAME_MAX ||
	    sscanf(name, "buf.%d.%d.%llu%n.%u%n", &bn->pid, &bn->tid, &bn->image, &n, &bn->gen,
		   &n) < 3 || name[n] || bn->pid <= 0)
		return -1;
	strcpy(bn->name, name);
	return 0;
}

/* the session's buffers; *@cur: how many are in use (not replaced by a resize) */
static int list_buffers(struct tfs_session *s, struct buf_name **out, int *cur)
{
	struct buf_name *v = NULL;
	struct dirent *de;
	DIR *d = opendir(s->dir);
	int n = 0;

	while (d && (de = readdir(d))) {
		struct buf_name bn;

		struct buf_name *nv;

		if (buf_name_parse(de->d_name, &bn) < 0)
			continue;
		nv = realloc(v, sizeof(*v) * ((size_t)n + 1));
		if (!nv)
			break;
		v = nv;
		v[n++] = bn;
	}
	if (d)
		closedir(d);
	*cur = 0;
	for (int i = 0; i < n; i++) {
		int newest = 1;

		for (int j = 0; j < n && newest; j++)
			newest = !(v[j].pid == v[i].pid && v[j].tid == v[i].tid &&
				   v[j].image == v[i].image && v[j].gen > v[i].gen);
		v[i].gen = newest ? UINT_MAX : v[i].gen;	/* UINT_MAX: in use */
		*cur += newest;
	}
	*out = v;
	return n;
}

static int count_buffers(struct tfs_session *s)
{
	struct buf_name *v;
	int cur;

	list_buffers(s, &v, &cur);
	free(v);
	return cur;
}

/*
 * buffer_size_kb: the threads move to buffers of the new size at their
 * next page; their old buffers stay readable.  Those that a former resize
 * replaced go now, so a thread has at most two.
 */
static void drop_replaced_buffers(struct tfs_session *s)
{
	struct buf_name *v;
	int cur, n = list_buffers(s, &v, &cur);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + NAME_MAX + 2];

		if (v[i].gen == UINT_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, v[i].name);
		unlink(path);
	}
	free(v);
}

static void show_cmdlines(struct tfs_session *s, struct sbuf *b)
{
	int *ids, n = session_ids(s, &ids);

	for (int i = 0; i < n; i++) {
		char path[64], comm[64] = "<...>";
		ssize_t r;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/comm", ids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			r = read(fd, comm, sizeof(comm) - 1);
			if (r > 0) {
				comm[r] = '\0';
				comm[strcspn(comm, "\n")] = '\0';
			} else {
				strcpy(comm, "<...>");
			}
			close(fd);
		}
		sb_printf(b, "%d %s\n", ids[i], comm);
	}
	free(ids);
}

static void show_cpumask(struct tfs_session *s, struct sbuf *b)
{
	int nw = (s->ncpu + 31) / 32;

	sb_printf(b, "%x", s->cpumask[nw - 1]);
	for (int i = nw - 2; i >= 0; i--)
		sb_printf(b, ",%08x", s->cpumask[i]);
	sb_puts(b, "\n");
}

/*
 * tracing_cpumask, as the kernel's bitmap_parse(): 32-bit words in hex,
 * the last one lowest, separated by commas; empty is no CPU.  A bit past
 * the CPUs (or a word of more than 8 digits): -EOVERFLOW.
 */
static int write_cpumask(struct tfs_session *s, const char *buf, size_t size)
{
	uint32_t mask[TFS_MAX_CPUS / 32] = { 0 };
	size_t end;
	int word = 0;

	if (size && buf[size - 1] == '\n')
		size--;
	end = size;
	for (;;) {
		size_t start = end;
		uint64_t w = 0;

		while (start && buf[start - 1] != ',')
			start--;
		if (end - start > 8)
			return -EOVERFLOW;
		for (size_t i = start; i < end; i++) {
			if (!isxdigit((unsigned char)buf[i]))
				return -EINVAL;
			w = w << 4 | (uint64_t)(isdigit((unsigned char)buf[i]) ? buf[i] - '0' :
						tolower((unsigned char)buf[i]) - 'a' + 10);
		}
		for (int b = 0; b < 32; b++) {
			if (!(w >> b & 1))
				continue;
			if (word * 32 + b >= s->ncpu)
				return -EOVERFLOW;
			mask[word] |= 1u << b;
		}
		if (!start)
			break;
		end = start - 1;
		if (++word >= TFS_MAX_CPUS / 32)
			return -EOVERFLOW;
	}
	memcpy(s->cpumask, mask, sizeof(mask));
	return 0;
}

static void show_funcs(struct tfs_session *s, enum tfs_id id, struct sbuf *b)
{
	struct tfs_funcs fs;
	size_t patchable = 0;
	struct words mods = { 0 };

	funcs_load(s, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		const struct tfs_func *f = &fs.f[i];

		if (id == F_AVAIL_FUNCS) {
			func_print(b, f);
			sb_puts(b, "\n");
		} else if (id == F_ENABLED_FUNCS && f->enabled) {
			func_print(b, f);
			sb_puts(b, " (1)\n");
		} else if (id == F_DYNINFO && f->patchable) {
			patchable++;
			if (words_find(&mods, f->mod) < 0)
				words_add(&mods, f->mod, strlen(f->mod));
		}
	}
	/* the kernel's dyn_ftrace records are 16 bytes, in 4 KiB pages */
	if (id == F_DYNINFO)
		sb_printf(b, "%zu pages:%zu groups: %d\n", patchable,
			  (patchable * 16 + 4095) / 4096, mods.n);
	words_free(&mods);
	funcs_free(&fs);
}

static void show_stats(struct tfs_session *s, struct tfs_inst *in, int cpu, struct sbuf *b)
{
	struct live_stats st = { 0 };
	struct view_buf *vb = malloc(sizeof(*vb));

	if (vb) {
		view_make(s, in, cpu, vb);
		vb->v.cpu = cpu;
		live_stats_view(s->dir, &vb->v, &st);
		free(vb);
	}
	sb_printf(b, "entries: %llu\n", (unsigned long long)st.entries);
	sb_printf(b, "overrun: %llu\n", (unsigned long long)st.overrun);
	sb_puts(b, "commit overrun: 0\n");
	sb_printf(b, "bytes: %llu\n", (unsigned long long)st.bytes);
	sb_printf(b, "oldest event ts: %5llu.%06llu\n", (unsigned long long)st.oldest_event_ts,
		  (unsigned long long)((st.oldest_event_ts - (double)(unsigned long long)st.oldest_event_ts) * 1e6));
	sb_printf(b, "now ts: %5llu.%06llu\n", (unsigned long long)st.now_ts,
		  (unsigned long long)((st.now_ts - (double)(unsigned long long)st.now_ts) * 1e6));
	sb_puts(b, "dropped events: 0\n");
	sb_puts(b, "read events: 0\n");
}

static void show_trace_options(struct tfs_session *s, struct tfs_inst *in, struct sbuf *b)
{
	for (int i = 0; i < TRACE_NR_OPTS; i++) {
		if (trace_opt_hidden(i, inst_tracer(s, in)))
			continue;
		sb_printf(b, "%s%s\n", in->opt_mask & trace_opts[i].bit ? "" : "no", trace_opts[i].name);
	}
}

/*
 * The text of the view @vb into @b.  Context: s->lock held; dropped while
 * the buffers are read, so that the programs' handshakes and other files
 * are not held up.
 */
static int view_print(struct tfs_session *s, const struct view_buf *vb, struct sbuf *b)
{
	char *out = NULL;
	size_t len = 0;
	int ret;

	pthread_mutex_unlock(&s->lock);
	/* a trace_pipe reader of the view changes only under the directory's pipe_lock */
	if (vb->v.consumed)
		pthread_mutex_lock(&vb->inst->pipe_lock);
	ret = live_trace(s->dir, &vb->v, &out, &len);
	if (vb->v.consumed)
		pthread_mutex_unlock(&vb->inst->pipe_lock);
	pthread_mutex_lock(&s->lock);
	if (!ret && out)
		sb_add(b, out, len);
	free(out);
	return ret;
}

/* does a trace text hold an event?  Its header lines all start with '#' */
static int has_event_line(const char *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(p + i, '\n', len - i);

		if (p[i] != '#')
			return 1;
		i = nl ? (size_t)(nl - p) + 1 : len;
	}
	return 0;
}

/*
 * produce - the whole text of an ordinary file.  Context: s->lock held,
 * except around live_trace() (it reads the buffers; see below).
 */
static int produce(struct tfs_handle *h, struct sbuf *b)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_session_ctl *c = s->ctl;
	int ret = 0;

	switch (h->n.f->id) {
	case F_README:
		sb_puts(b, readme_text);
		break;
	case F_AVAIL_TRACERS:
		sb_printf(b, "%s\n", UT_TRACER_NAMES);
		break;
	case F_CUR_TRACER:
		sb_printf(b, "%s\n", inst_tracer(s, in));
		break;
	case F_TRACING_ON:
		sb_printf(b, "%d\n", inst_on(s, in));
		break;
	case F_TRACE: {
		struct view_buf vb;

		inst_pump(in);
		view_make(s, in, h->n.cpu, &vb);
		/* what trace_pipe consumed is gone from the buffers (pipe_lock: see view_print) */
		vb.v.consumed = in->pipes ? in->pipes[0] : NULL;
		ret = view_print(s, &vb, b);
		break;
	}
	case F_TRACE_OPTIONS:
		show_trace_options(s, in, b);
		break;
	case F_OPTION:
		sb_printf(b, "%d\n", !!(in->opt_mask & trace_opts[h->n.opt].bit));
		break;
	case F_BUFSIZE: {
		uint32_t pages;

		/* as the kernel: one CPU's size, the common size, or X when they differ */
		if (h->n.cpu >= 0)
			sb_printf(b, "%u\n", in->cpu_pages[h->n.cpu] * 4);
		else if (cpu_pages_same(s, in, &pages))
			sb_printf(b, "%u\n", pages * 4);
		else
			sb_puts(b, "X\n");
		break;
	}
	case F_BUFTOTAL: {
		int nb = in->pump ? live_pump_buffers(in->pump) : count_buffers(s);

		sb_printf(b, "%llu\n", (unsigned long long)(in->pump ? in->nr_pages : c->nr_pages) *
					  4 * (nb ? nb : 1));
		break;
	}
	case F_CPUMASK:
		show_cpumask(s, b);
		break;
	case F_FTRACE_PID: {
		struct words ws = { 0 };

		words_split(&ws, in->pids, strlen(in->pids));
		for (int i = 0; i < ws.n; i++)
			sb_printf(b, "%s\n", ws.w[i]);
		words_free(&ws);
		break;
	}
	case F_CLOCK:
		for (int i = 0; i < TRACE_NR_CLOCKS; i++)
			sb_printf(b, i == h->n.inst->clock ? "%s[%s]" : "%s%s", i ? " " : "",
				  trace_clock_names[i]);
		sb_puts(b, "\n");
		break;
	case F_THRESH:
		sb_printf(b, "%llu\n", s->thresh_us);
		break;
	case F_MAXLAT:
		sb_printf(b, "%llu\n", s->max_latency);
		break;
	case F_STATS:
		inst_pump(in);
		show_stats(s, in, h->n.cpu, b);
		break;
	case F_CMDLINES:
		show_cmdlines(s, b);
		break;
	case F_ERRLOG:
		for (int i = 0; i < in->nr_err; i++)
			sb_puts(b, in->errlog[i]);
		break;
	case F_SNAPSHOT:
		if (in->snap_taken) {
			struct view_buf vb;
			struct sbuf t = { 0 };

			/* the copy, in the format of now (tracer, options, clock) */
			view_make(s, in, -1, &vb);
			vb.v.bufdir = in->snapdir;
			vb.v.since = in->snap_since;
			ret = view_print(s, &vb, &t);
			/* as the kernel: a snapshot that holds no event shows the help */
			if (!ret && !t.err && has_event_line(t.p, t.len)) {
				sb_add(b, t.p, t.len);
				free(t.p);
				break;
			}
			free(t.p);
			if (ret)
				break;
		}
		sb_printf(b, "# tracer: %s\n#\n", inst_tracer(s, in));
		sb_puts(b, in->snap_alloc ? "#\n# * Snapshot is allocated *\n#\n"
					  : "#\n# * Snapshot is freed *\n#\n");
		sb_puts(b, snapshot_help);
		break;
	case F_EV_ENABLE:
	case F_EVSYS_ENABLE:
		/*
		 * as the kernel's: 0 or 1 when the events (of the system) all
		 * are, else X; the ftrace system's cannot be enabled
		 */
		sb_printf(b, "%c\n", ev_state(s, in, h->n.evsys));
		break;
	case F_EVT_ENABLE:
		sb_printf(b, "%d\n", ev_bit(in->ev_on, (uint32_t)h->n.slot));
		break;
	case F_SET_EVENT:
		ev_list(s, in, b);
		break;
	case F_AVAIL_EVENTS:
		ev_list(s, NULL, b);
		break;
	case F_EV_FORMAT: {
		char *t = ut_event_format(h->n.ev);

		if (!t) {
			ret = -ENOMEM;
			break;
		}
		sb_puts(b, t);
		free(t);
		break;
	}
	case F_EV_ID:
		sb_printf(b, "%u\n", (unsigned)h->n.ev->id);
		break;
	case F_EV_HDR_PAGE:
		sb_puts(b, ut_event_header_page());
		break;
	case F_EV_HDR_EVENT:
		sb_puts(b, ut_event_header_event());
		break;
	case F_AVAIL_FUNCS:
	case F_ENABLED_FUNCS:
	case F_DYNINFO:
		show_funcs(s, h->n.f->id, b);
		break;
	case F_FILTER:
	case F_NOTRACE:
	case F_GFUNC:
	case F_GNOTRACE:
		list_show(s, in, h->n.f->id, b);
		break;
	case F_MAXDEPTH:
		sb_printf(b, "%u\n", c->max_graph_depth);
		break;
	case F_FTRACE_ENABLED:
		sb_puts(b, "1\n");
		break;
	case F_MARKER:
	case F_TRACE_PIPE:
		ret = -EINVAL;
		break;
	}
	if (!ret && b->err)
		ret = -ENOMEM;
	return ret;
}

/* ---- writes ---- */

static int tracer_index(const char *name)
{
	if (!strcmp(name, "none"))
		name = "nop";
	return ut_tracer_index(name);	/* and "ftrace", 2.6.27's name of function */
}

/* what the programs record for tracer @name: enum ut_rec_mode, -1 if unknown */
static int tracer_mode(const char *name)
{
	int i = tracer_index(name);	/* with "none": not ut_tracer_mode() */

	return i < 0 ? -1 : (int)ut_needs_mode(ut_tracers[i].needs);
}

/* tracer @name's bit in active_tracers; 0 if unknown */
static uint32_t tracer_bit(const char *name)
{
	int i = tracer_index(name);

	return i < 0 ? 0 : 1u << i;
}

/* a trace option word ("name" or "noname"); Context: s->lock held */
static int set_option(struct tfs_session *s, struct tfs_inst *in, const char *w)
{
	int neg = !strncmp(w, "no", 2), i;

	i = trace_opt_index(w, strlen(w));
	if (i >= 0) {
		neg = 0;
	} else if (neg) {
		i = trace_opt_index(w + 2, strlen(w + 2));
	}
	if (i < 0 || trace_opt_hidden(i, inst_tracer(s, in))) {
		tfs_err(s, "Invalid option", w);
		return -EINVAL;
	}
	if (neg)
		in->opt_mask &= ~trace_opts[i].bit;
	else
		in->opt_mask |= trace_opts[i].bit;
	return 0;
}

/* clear @in's trace (echo > trace).  Context: s->lock held. */
static void trace_clear(struct tfs_session *s, struct tfs_inst *in)
{
	in->since = live_now(s->dir);
	in->cpu_cleared = 0;
	memset(in->cpu_since, 0, sizeof(in->cpu_since));
	/* nothing older is shown: the lists recorded from now on are enough */
	if (in == &s->top && !strcmp(s->ctl->filter, in->filter) &&
	    !strcmp(s->ctl->notrace, in->notrace))
		s->top_lists_wide = 0;
	if (in == &s->top && s->top_ev_wide) {
		uint64_t all[TFS_EV_WORDS];
		int wide = 0;

		ev_union(s, all);
		for (int i = 0; i < TFS_EV_WORDS; i++)
			wide |= (all[i] & ~in->ev_on[i]) != 0;
		s->top_ev_wide = wide;
	}
}


/* one print event in the directory's ring (live_marker) */
/* O_TRUNC on trace (@cpu -1) or per_cpu/cpuN/trace: as the kernel, that CPU's only */
static void trace_clear_cpu(struct tfs_session *s, struct tfs_inst *in, int cpu)
{
	if (cpu < 0) {
		trace_clear(s, in);
		return;
	}
	in->cpu_since[cpu] = live_now(s->dir);
	in->cpu_cleared = 1;
}

static int write_marker(struct tfs_inst *in, const char *buf, size_t size)
{
	return live_marker_write(in->marker, buf, size);
}

static int write_pids(struct tfs_session *s, struct tfs_inst *in, const char *buf, size_t size,
		      int trunc)
{
	struct words ws = { 0 }, list = { 0 };
	int ret = words_split(&ws, buf, size);

	for (int i = 0; !ret && i < ws.n; i++) {
		const char *w = ws.w[i] + (ws.w[i][0] == '!');
		char *end;

		errno = 0;
		if (strtol(w, &end, 10) <= 0 || *end || errno) {
			tfs_err(s, "Invalid pid", ws.w[i]);
			ret = -EINVAL;
		}
	}
	if (!ret) {
		if (!trunc)
			words_split(&list, in->pids, strlen(in->pids));
		for (int i = 0; i < ws.n; i++) {
			int neg = ws.w[i][0] == '!', k = words_find(&list, ws.w[i] + neg);

			if (neg && k >= 0)
				words_del(&list, k);
			else if (!neg && k < 0)
				words_add(&list, ws.w[i], strlen(ws.w[i]));
		}
		ret = words_join(&list, in->pids);
	}
	words_free(&ws);
	words_free(&list);
	return ret;
}

/*
 * A directory's events changed: the registry's bits and the recording
 * state follow.  Returns 1 when the programs must apply them (ctl_apply();
 * s->ev_apply is set too, for a write that fails after a change).
 * Context: s->lock held.
 */
static int ev_changed(struct tfs_session *s)
{
	int changed = ev_publish(s);

	changed |= recording_update(s);
	s->ev_apply |= changed;
	return changed;
}

/*
 * set_event, as the kernel's ftrace_event_write(): each word enables
 * events, or disables them after a '!'.  "sys:name" selects by system and
 * name, either "" or "*" meaning any ("sys:*", "*:*", ":name"); a word
 * without ':' names an event or a system.  Names are compared whole (no
 * globs).  A word that selects no event is EINVAL (the words before it
 * took effect); as the kernel's, it adds nothing to error_log.
 * Returns 0, 1 (apply) or -errno.  Context: s->lock held.
 */
static int write_set_event(struct tfs_session *s, struct tfs_inst *in, const char *buf,
			   size_t size)
{
	struct words ws = { 0 };
	int ret = words_split(&ws, buf, size), changed;

	for (int i = 0; !ret && i < ws.n; i++) {
		char *w = ws.w[i], *colon;
		int on = w[0] != '!';
		const char *match = NULL, *sys = NULL, *name = NULL;

		w += !on;
		colon = strchr(w, ':');
		if (colon) {
			*colon = '\0';
			sys = w[0] && strcmp(w, "*") ? w : NULL;
			name = colon[1] && strcmp(colon + 1, "*") ? colon + 1 : NULL;
		} else {
			match = w;
		}
		if (!ev_set(s, in, match, sys, name, on))
			ret = -EINVAL;
	}
	words_free(&ws);
	changed = ev_changed(s);
	return ret ? ret : changed;
}

/*
 * events/enable, events/SYS/enable, events/SYS/NAME/enable: 0 or 1, as the
 * kernel's (kstrtoul: anything else is EINVAL or ERANGE, and nothing in
 * error_log); enabling a system or all events when there is none is
 * EINVAL too.  Context: s->lock held.
 */
static int write_ev_enable(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	unsigned long long v;
	int ret = parse_ull(buf, size, &v), n;

	if (ret || v > 1)
		return ret ? ret : -EINVAL;
	if (h->n.f->id == F_EVT_ENABLE)
		n = ev_set(s, h->n.inst, NULL, h->n.ev->system, h->n.ev->name, (int)v);
	else
		n = ev_set(s, h->n.inst, NULL, h->n.evsys, NULL, (int)v);
	if (!n)
		return -EINVAL;
	return ev_changed(s);
}

/* the index of the one word written (@find), or -EINVAL with @err in error_log */
static int word_index(struct tfs_session *s, const char *buf, size_t size,
		      int (*find)(const char *), const char *err)
{
	char *w = strip_dup(buf, size);
	int i;

	if (!w)
		return -ENOMEM;
	i = find(w);
	if (i < 0) {
		tfs_err(s, err, w);
		i = -EINVAL;
	}
	free(w);
	return i;
}

/*
 * do_write - one write(2).  Returns 0, 1 (the control page changed: apply
 * it once the lock is dropped) or -errno.  Context: s->lock held.
 */
static int do_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_session_ctl *c = s->ctl;
	const char *fname = h->n.f->name ? h->n.f->name : "options";
	unsigned long long v;
	int ret = 0, trunc, perr;

	switch (h->n.f->id) {
	case F_CUR_TRACER: {
		int t = word_index(s, buf, size, tracer_index, "No such tracer");

		if (t < 0)
			return t;
		if (!strcmp(inst_tracer(s, in), ut_tracers[t].name))
			return 0;
		inst_pump(in);
		top_sync(s);
		snprintf(in->tracer, sizeof(in->tracer), "%s", ut_tracers[t].name);
		ret = recording_update(s);
		/* as the kernel, a new tracer starts with an empty buffer */
		trace_clear(s, in);
		in->tracer_gen++;
		pthread_cond_broadcast(&s->cond);
		return ret;
	}
	case F_TRACING_ON:
		/* as the kernel: any number, nonzero is on */
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		v = !!v;
		/* what was recorded before the switch is the buffer's */
		inst_pump(in);
		if (in == &s->top)
			top_set_on(s, (int)v);
		else
			in->on = (int)v;
		return recording_update(s);
	case F_TRACE:
		/* as the kernel: opening with O_TRUNC clears it (tfs_open); a write does nothing */
		return 0;
	case F_TRACE_OPTIONS: {
		/* as the kernel: one option a write, blanks around it */
		char *w = strip_dup(buf, size);

		if (!w)
			return -ENOMEM;
		ret = set_option(s, in, w);
		free(w);
		return ret;
	}
	case F_OPTION:
		if ((perr = parse_ull(buf, size, &v)) || v > 1) {
			tfs_err(s, "Invalid argument", trace_opts[h->n.opt].name);
			return perr ? perr : -EINVAL;
		}
		if (v)
			in->opt_mask |= trace_opts[h->n.opt].bit;
		else
			in->opt_mask &= ~trace_opts[h->n.opt].bit;
		return 0;
	case F_BUFSIZE:
		if ((perr = parse_ull(buf, size, &v)) || !v) {
			tfs_err(s, "Invalid buffer size", fname);
			return perr ? perr : -EINVAL;
		}
		/* the smallest ring: two pages */
		if (v < 8)
			v = 8;
		if (v > phys_kb() || v / 4 >= UINT32_MAX) {
			tfs_err(s, "Buffer larger than the machine's memory", fname);
			return -ENOMEM;
		}
		{
			uint32_t pages = (uint32_t)((v + 3) / 4), max;

			/* per_cpu/cpuN: that CPU's; the top file: every CPU's */
			if (h->n.cpu >= 0)
				in->cpu_pages[h->n.cpu] = pages;
			else
				cpu_pages_init(in, pages);
			cpu_pages_same(s, in, &max);
			pages = max;
			live_marker_resize(in->marker, pages);
			if (in->pump) {
				inst_pump(in);
				live_pump_resize(in->pump, pages);
				in->nr_pages = pages;
			} else if (pages != c->nr_pages) {
				drop_replaced_buffers(s);
				__atomic_store_n(&c->nr_pages, pages, __ATOMIC_RELEASE);
			}
		}
		return 0;
	case F_CPUMASK:
		ret = write_cpumask(s, buf, size);
		if (ret)
			tfs_err(s, ret == -EOVERFLOW ? "CPU mask beyond the CPUs" : "Invalid CPU mask",
				fname);
		return ret ? ret : recording_update(s);
	case F_FTRACE_PID:
		trunc = h->trunc_pending;
		h->trunc_pending = 0;
		/* an instance's buffers take the new choice from now on */
		inst_pump(in);
		ret = write_pids(s, in, buf, size, trunc);
		return ret ? ret : recording_update(s);
	case F_MARKER:
		/* as the kernel: the markers option off refuses them */
		if (!(in->opt_mask & TRACE_ITER_MARKERS))
			return -EINVAL;
		/* a buffer that is off takes no marker */
		if (!inst_on(s, in))
			return -EBADF;
		return write_marker(in, buf, size);
	case F_CLOCK: {
		int id = word_index(s, buf, size, trace_clock_find, "No such clock");

		if (id < 0)
			return id;
		/* as the kernel: a new clock clears the buffer and the snapshot */
		in->clock = id;
		trace_clear(s, in);
		snap_empty(in);
		return 0;
	}
	case F_THRESH:
		if ((perr = parse_ull(buf, size, &v)) || v > UINT64_MAX / 1000000) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		s->thresh_us = v;
		c->tracing_thresh = 0;		/* computed by the caller, unlocked */
		return 2;
	case F_MAXLAT:
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		s->max_latency = v;
		return 0;
	case F_MAXDEPTH:
		if ((perr = parse_ull(buf, size, &v)) || v > UINT32_MAX) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -ERANGE;
		}
		c->max_graph_depth = (uint32_t)v;
		return 1;
	case F_ERRLOG:
		/* as the kernel: opening with O_TRUNC clears it (tfs_open); a write does nothing */
		return 0;
	case F_SNAPSHOT: {
		if ((perr = parse_ull(buf, size, &v))) {
			tfs_err(s, "Invalid argument", fname);
			return perr ? perr : -EINVAL;
		}
		if (v == 0) {
			snap_empty(in);
			in->snap_alloc = 0;
		} else if (v == 1) {
			/* a copy of the buffers as they are now: the kernel swaps them */
			inst_pump(in);
			snap_empty(in);
			snprintf(in->snapdir, sizeof(in->snapdir), "%s/snap%s%s", s->dir,
				 in == &s->top ? "" : ".", in->name);
			ret = live_snapshot(s->dir, in->pump ? in->bufdir : NULL, in->snapdir,
					    in->since);
			if (ret) {
				tfs_err(s, "Cannot take the snapshot", fname);
				return ret;
			}
			in->snap_taken = 1;
			in->snap_since = in->since;
			in->snap_alloc = 1;
		} else {
			snap_empty(in);
		}
		return 0;
	}
	case F_EV_ENABLE:
	case F_EVSYS_ENABLE:
	case F_EVT_ENABLE:
		return write_ev_enable(h, buf, size);
	case F_SET_EVENT:
		/* opening with O_TRUNC cleared the set (tfs_open) */
		return write_set_event(s, in, buf, size);
	case F_FILTER:
	case F_NOTRACE:
	case F_GFUNC:
	case F_GNOTRACE:
		trunc = h->trunc_pending;
		ret = list_write(s, in, h->n.f->id, buf, size, trunc);
		if (ret >= 0)
			h->trunc_pending = 0;
		return ret;
	default:
		return -EINVAL;
	}
}

/* ---- handles ---- */

static int is_list(enum tfs_id id)
{
	return id == F_FILTER || id == F_NOTRACE || id == F_GFUNC || id == F_GNOTRACE ||
	       id == F_FTRACE_PID || id == F_SET_EVENT;
}

/* a list emptied (O_TRUNC with nothing written, or truncate(2)): 1 if changed */
static int list_truncate(struct tfs_session *s, struct tfs_inst *in, enum tfs_id id)
{
	char *l = list_of(s, in, id);

	if (id == F_FTRACE_PID) {
		inst_pump(in);
		in->pids[0] = '\0';
		return recording_update(s);
	}
	if (id == F_SET_EVENT) {
		/* as the kernel: every event of the directory is disabled */
		ev_set(s, in, NULL, NULL, NULL, 0);
		return ev_changed(s);
	}
	if (!l || !l[0])
		return 0;
	if (in != &s->top)
		inst_pump(in);
	l[0] = '\0';
	return id == F_FILTER || id == F_NOTRACE ? lists_update(s) : 1;
}

int tfs_open(struct tfs_session *s, const char *path, int flags, struct tfs_handle **hp)
{
	int acc = flags & O_ACCMODE, wr = acc != O_RDONLY, rd = acc != O_WRONLY;
	struct tfs_handle *h;
	struct tfs_node n;
	int ret, apply = 0;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (ret)
		goto out;
	ret = -EISDIR;
	if (n.dir != D_NONE)
		goto out;
	/*
	 * No mode check: as in the kernel, the owner opens any file; a write
	 * to a file that takes none, or a read of trace_marker, is EINVAL
	 * (the FUSE mount lets the kernel check the modes for other users)
	 */
	(void)rd;
	ret = -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		goto out;
	h->s = s;
	h->n = n;
	h->flags = flags;
	n.inst->refs++;
	ret = 0;
	if (wr && (flags & O_TRUNC)) {
		switch (n.f->id) {
		case F_TRACE:
			trace_clear_cpu(s, n.inst, n.cpu);
			break;
		case F_ERRLOG:
			errlog_clear(n.inst);
			break;
		case F_SET_EVENT:
			/* as the kernel's: the open disables the directory's events */
			apply = list_truncate(s, n.inst, F_SET_EVENT);
			break;
		default:
			/* lists: replaced by the first write, emptied at release without one */
			h->trunc_pending = is_list(n.f->id) && !(flags & O_APPEND);
			break;
		}
	}
	if (n.f->id == F_TRACE_PIPE) {
		struct view_buf vb;
		int k = n.cpu + 1;

		view_make(s, n.inst, n.cpu, &vb);
		h->tracer_gen = n.inst->tracer_gen;
		pthread_mutex_lock(&n.inst->pipe_lock);
		if (!n.inst->pipes)
			n.inst->pipes = calloc(TFS_MAX_CPUS + 1, sizeof(*n.inst->pipes));
		if (n.inst->pipes && !n.inst->pipes[k])
			n.inst->pipes[k] = live_pipe_open(s->dir, &vb.v);
		h->rd = n.inst->pipes ? n.inst->pipes[k] : NULL;
		pthread_mutex_unlock(&n.inst->pipe_lock);
		if (!h->rd) {
			n.inst->refs--;
			free(h);
			ret = -EIO;
			goto out;
		}
	}
	*hp = h;
out:
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	return ret;
}

static ssize_t pipe_read(struct tfs_handle *h, char *buf, size_t size)
{
	struct tfs_session *s = h->s;

	for (;;) {
		struct timespec ts;
		char *out = NULL;
		size_t len = 0;
		int gone, on, ret;

		if (h->pend_off < h->pend_len) {
			size_t n = h->pend_len - h->pend_off;

			if (n > size)
				n = size;
			memcpy(buf, h->pend + h->pend_off, n);
			h->pend_off += n;
			return (ssize_t)n;
		}
		if (h->intr) {
			h->intr = 0;
			return -EINTR;
		}
		pthread_mutex_lock(&s->lock);
		gone = s->ended || h->n.inst->tracer_gen != h->tracer_gen;
		on = h->n.inst == &s->top || h->n.inst->on;
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_lock(&s->lock);
		inst_pump(h->n.inst);
		{
			struct view_buf *vb = malloc(sizeof(*vb));

			if (!vb) {
				pthread_mutex_unlock(&s->lock);
				return -ENOMEM;
			}
			view_make(s, h->n.inst, h->n.cpu, vb);
			pthread_mutex_unlock(&s->lock);
			/* the directory's reader, with the view of now */
			pthread_mutex_lock(&h->n.inst->pipe_lock);
			live_pipe_set_view(h->rd, &vb->v);
			ret = live_pipe_read(h->rd, &out, &len);
			pthread_mutex_unlock(&h->n.inst->pipe_lock);
			free(vb);
		}
		if (ret) {
			free(out);
			return ret;
		}
		if (len && on) {
			free(h->pend);
			h->pend = out;
			h->pend_len = len;
			h->pend_off = 0;
			continue;
		}
		free(out);
		if (gone)
			return 0;
		/* nothing new: the kernel's trace_pipe says so to a reader that will not wait */
		if (h->flags & O_NONBLOCK)
			return -EAGAIN;
		/* nothing new: sleep a little, or until woken */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TFS_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&s->lock);
		if (!h->intr && !s->ended && h->n.inst->tracer_gen == h->tracer_gen)
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		pthread_mutex_unlock(&s->lock);
	}
}

ssize_t tfs_read(struct tfs_handle *h, char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	int ret = 0;

	if ((h->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	if (h->n.f->id == F_TRACE_PIPE)
		return pipe_read(h, buf, size);
	if (off < 0)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (!h->have_text) {
		struct sbuf b = { 0 };

		ret = produce(h, &b);
		if (ret) {
			free(b.p);
		} else {
			h->text = b.p;
			h->len = b.len;
			h->have_text = 1;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (ret)
		return ret;
	if ((size_t)off >= h->len)
		return 0;
	if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->text + off, size);
	return (ssize_t)size;
}

ssize_t tfs_write(struct tfs_handle *h, const char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	int ret, apply;

	(void)off;
	if ((h->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	/* as the kernel, a marker longer than an event can hold is cut: the write is short */
	if (h->n.f->id == F_MARKER && size > LIVE_MARKER_MAX)
		size = LIVE_MARKER_MAX;
	pthread_mutex_lock(&s->lock);
	s->err_inst = h->n.inst;
	s->ev_apply = 0;
	ret = do_write(h, buf, size);
	/* a write that failed after it changed the events: they are applied */
	apply = ret < 0 && s->ev_apply;
	s->err_inst = NULL;
	pthread_mutex_unlock(&s->lock);
	if (ret == 2) {
		/* tracing_thresh: the TSC rate is measured without the lock */
		uint64_t t = us_to_ticks(s, s->thresh_us);

		pthread_mutex_lock(&s->lock);
		s->ctl->tracing_thresh = t;
		pthread_mutex_unlock(&s->lock);
		ret = 1;
	}
	if (ret == 1 || apply)
		ctl_apply(s);
	return ret < 0 ? ret : (ssize_t)size;
}

int tfs_truncate(struct tfs_session *s, const char *path)
{
	struct tfs_node n;
	int ret, apply = 0;

	pthread_mutex_lock(&s->lock);
	ret = resolve(s, path, &n);
	if (!ret && n.dir != D_NONE)
		ret = -EISDIR;
	if (!ret && !(n.f->mode & 0222))
		ret = -EINVAL;
	if (!ret) {
		if (n.f->id == F_TRACE)
			trace_clear_cpu(s, n.inst, n.cpu);
		else if (n.f->id == F_ERRLOG)
			errlog_clear(n.inst);
		else if (is_list(n.f->id))
			apply = list_truncate(s, n.inst, n.f->id);
	}
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	return ret;
}

void tfs_interrupt(struct tfs_handle *h)
{
	pthread_mutex_lock(&h->s->lock);
	h->intr = 1;
	pthread_cond_broadcast(&h->s->cond);
	pthread_mutex_unlock(&h->s->lock);
}

void tfs_release(struct tfs_handle *h)
{
	struct tfs_session *s;
	int apply = 0;

	if (!h)
		return;
	s = h->s;
	pthread_mutex_lock(&s->lock);
	if (h->trunc_pending)
		apply = list_truncate(s, h->n.inst, h->n.f->id);
	h->n.inst->refs--;
	pthread_mutex_unlock(&s->lock);
	if (apply)
		ctl_apply(s);
	/* h->rd is the directory's: it stays */
	free(h->pend);
	free(h->text);
	free(h);
}
