// SPDX-License-Identifier: MIT
/*
 * test_tracefs.c - the tracing directory's files (tracefs/).
 *
 * Each test makes a fake session under /tmp: a control file, an
 * ftrace.<pid> file for this process (its executable is this test, so
 * "test_tracefs" functions show without [module]), and a fake runtime: a
 * thread that acknowledges each settings generation after a delay, as
 * runtime/control.c does.  live.h is stubbed below.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "usertrace/evreg.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "output/stat.h"
#include "output/tracer.h"
#include "tracefs/live.h"
#include "tracefs/tracefs.h"

/* ---- stand-ins for tracefs/live.c ---- */

static uint64_t fake_now = 1000;
static char last_tracer[32];
static uint64_t last_since;
static char last_bufdir[4096], last_ffilter[256], last_fnotrace[256];
static int last_nr_hide;
static uint64_t last_hide[2];
static int last_have_ev;		/* the view had an event set */
static uint64_t last_ev_on0;		/* its first word */
static char last_pids[256];		/* the view's set_ftrace_pid */
static char last_evpids[256];		/* and set_event_pid */
static const char *live_text;		/* what `trace` reads; NULL: a header alone */
static struct trace_lat_info last_lat;	/* the view's maximum; tid -1: none */

uint64_t live_now(const char *session_dir)
{
	(void)session_dir;
	return ++fake_now;
}

uint64_t live_pump_now(struct live_pump *p)
{
	(void)p;
	return ++fake_now;
}

uint64_t live_ns(const char *session_dir, uint64_t raw)
{
	(void)session_dir;
	return raw;
}

int live_trace(const char *session_dir, const struct live_view *v, char **out, size_t *len)
{
	(void)session_dir;
	snprintf(last_tracer, sizeof(last_tracer), "%s", v->tracer);
	last_since = v->since;
	snprintf(last_bufdir, sizeof(last_bufdir), "%s", v->bufdir ? v->bufdir : "");
	snprintf(last_pids, sizeof(last_pids), "%s", v->pids ? v->pids : "");
	snprintf(last_evpids, sizeof(last_evpids), "%s", v->evpids ? v->evpids : "");
	if (v->lat)
		last_lat = *v->lat;
	else
		last_lat.tid = -1;
	snprintf(last_ffilter, sizeof(last_ffilter), "%s", v->ffilter ? v->ffilter : "(none)");
	snprintf(last_fnotrace, sizeof(last_fnotrace), "%s", v->fnotrace ? v->fnotrace : "(none)");
	last_nr_hide = v->nr_hide;
	last_have_ev = v->ev_on != NULL;
	last_ev_on0 = v->ev_on ? v->ev_on[0] : 0;
	if (v->nr_hide)
		memcpy(last_hide, v->hide + 2 * (v->nr_hide - 1), sizeof(last_hide));
	if (live_text) {
		*out = strdup(live_text);
		*len = strlen(*out);
		return 0;
	}
	if (asprintf(out, "# tracer: %s\n#\n", v->tracer) < 0)
		return -ENOMEM;
	*len = strlen(*out);
	return 0;
}

struct live_reader {
	int n;
};

struct live_reader *live_pipe_open(const char *session_dir, const struct live_view *v)
{
	(void)session_dir;
	(void)v;
	return calloc(1, sizeof(struct live_reader));
}

int live_pipe_read(struct live_reader *r, char **out, size_t *len)
{
	/* one line at the first read, then nothing */
	if (r->n++ == 0) {
		*out = strdup("line\n");
		*len = 5;
	} else {
		*out = NULL;
		*len = 0;
	}
	return 0;
}

void live_pipe_set_clock(struct live_reader *r, int clock)
{
	(void)r;
	(void)clock;
}

void live_pipe_close(struct live_reader *r)
{
	free(r);
}

void live_pipe_set_funcs(struct live_reader *r, const char *ffilter, const char *fnotrace)
{
	(void)r;
	(void)ffilter;
	(void)fnotrace;
}

void live_pipe_set_hide(struct live_reader *r, const uint64_t *hide, int nr)
{
	(void)r;
	(void)hide;
	(void)nr;
}

void live_pipe_set_view(struct live_reader *r, const struct live_view *v)
{
	(void)r;
	(void)v;
}

/* trace_marker: what the tracefs layer wrote */
struct live_marker {
	uint32_t nr_pages;
};
static char last_marker[8192];
static size_t last_marker_len;

struct live_marker *live_marker_open(const char *session_dir, const char *dir, uint32_t nr_pages)
{
	struct live_marker *m = calloc(1, sizeof(*m));

	(void)session_dir;
	(void)dir;
	m->nr_pages = nr_pages;
	return m;
}

int live_marker_write(struct live_marker *m, const void *text, size_t len)
{
	(void)m;
	memcpy(last_marker, text, len < sizeof(last_marker) ? len : sizeof(last_marker));
	last_marker_len = len;
	return 0;
}

uint64_t live_marker_last_ts(const struct live_marker *m)
{
	(void)m;
	return 1;
}

void live_marker_resize(struct live_marker *m, uint32_t nr_pages)
{
	m->nr_pages = nr_pages;
}

void live_marker_close(struct live_marker *m)
{
	free(m);
}

/* the pumps: what the tracefs layer asked of them */
struct live_pump {
	char dir[4096];
	uint32_t nr_pages;
	int runs, last_on;
	char pids[64], ffilter[64], fnotrace[64];
	uint64_t ev_on[LIVE_EV_WORDS];	/* the events it was told to take; all: ~0 */
};
static struct live_pump *last_pump;

struct live_pump *live_pump_open(const char *session_dir, const char *dir, uint32_t nr_pages,
				 uint64_t since)
{
	struct live_pump *p = calloc(1, sizeof(*p));

	(void)session_dir;
	(void)since;
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	p->nr_pages = nr_pages;
	last_pump = p;
	return p;
}

int live_pump_run(struct live_pump *p, const char *tracer, int on, const char *pids,
		  const char *evpids,
		  const char *ffilter, const char *fnotrace, const uint64_t *ev_on,
		  const struct ut_evfilter *const *ev_filter, const struct live_timeline *tl)
{
	(void)tracer;
	(void)ev_filter;
	(void)tl;
	(void)evpids;
	p->runs++;
	p->last_on = on;
	snprintf(p->pids, sizeof(p->pids), "%s", pids ? pids : "");
	snprintf(p->ffilter, sizeof(p->ffilter), "%s", ffilter ? ffilter : "");
	snprintf(p->fnotrace, sizeof(p->fnotrace), "%s", fnotrace ? fnotrace : "");
	if (ev_on)
		memcpy(p->ev_on, ev_on, sizeof(p->ev_on));
	else
		memset(p->ev_on, 0xff, sizeof(p->ev_on));
	return 0;
}

void live_pump_resize(struct live_pump *p, uint32_t nr_pages)
{
	p->nr_pages = nr_pages;
}

void live_pump_set_cpumask(struct live_pump *p, const uint32_t *mask)
{
	(void)p;
	(void)mask;
}

int live_pump_buffers(struct live_pump *p)
{
	(void)p;
	return 2;
}

void live_pump_close(struct live_pump *p, int remove)
{
	(void)remove;
	if (p == last_pump)
		last_pump = NULL;
	free(p);
}

static int snapshots;

int live_snapshot(const char *session_dir, const char *srcdir, const char *dst, uint64_t since)
{
	(void)session_dir;
	(void)srcdir;
	(void)since;
	snprintf(last_bufdir, sizeof(last_bufdir), "%s", dst);
	snapshots++;
	return 0;
}

void live_snapshot_free(const char *dst)
{
	(void)dst;
	snapshots--;
}

int live_stats_view(const char *session_dir, const struct live_view *v, struct live_stats *st)
{
	(void)session_dir;
	(void)v;
	memset(st, 0, sizeof(*st));
	st->entries = 7;
	return 0;
}

/* ---- the fake session ---- */

/* what the programs record for the control page's active tracers */
static int ctl_mode(const struct ut_session_ctl *c)
{
	return (int)ut_needs_mode(ut_tracers_needs(c->active_tracers));
}

struct fix {
	char dir[64];
	struct ut_session_ctl *ctl;
	struct ut_evreg *reg;		/* SESSION/events, as the recorder makes it */
	struct tfs_session *s;
	pthread_t ack;
	volatile int stop;
	volatile int ack_on;
};

static void *acknowledger(void *arg)
{
	struct fix *f = arg;

	while (!f->stop) {
		uint32_t g = __atomic_load_n(&f->ctl->gen, __ATOMIC_ACQUIRE);

		usleep(20 * 1000);	/* slower than a write that does not wait */
		if (f->ack_on && f->ctl->procs[0].gen != g) {
			__atomic_store_n(&f->ctl->procs[0].gen, g, __ATOMIC_RELEASE);
			__atomic_add_fetch(&f->ctl->acked, 1, __ATOMIC_RELEASE);
			syscall(SYS_futex, &f->ctl->acked, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		}
	}
	return NULL;
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char path[256], name[64], exe[PATH_MAX], text[PATH_MAX * 5], *base;
	ssize_t n;
	int fd;

	strcpy(f->dir, "/tmp/test_tracefs.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/control", f->dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, UT_CTL_SIZE), 0);
	f->ctl = mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(f->ctl != MAP_FAILED);
	memcpy(f->ctl->magic, UT_CTL_MAGIC, 8);
	f->ctl->version = UT_CTL_VERSION;
	f->ctl->nr_pages = 64;
	f->ctl->clock = UT_CLOCK_MONO;
	f->ctl->tracing_on = 1;
	f->ctl->active_tracers = 1u << ut_tracer_index("nop");
	f->ctl->flags = UT_CTL_LIVE;
	f->ctl->procs[0].pid = getpid();
	/* the event registry, empty: the programs register their events in it */
	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, f->dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, sizeof(*f->reg)), 0);
	f->reg = mmap(NULL, sizeof(*f->reg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(f->reg != MAP_FAILED);
	assert_int_equal(ut_evreg_init(f->reg), 0);
	/* the executable's functions: the module is this program's name */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	snprintf(text, sizeof(text),
		 "main\t%s\tp\nparse_a\t%s\tpe\nparse_b\t%s\tp\nrun\t%s\tp\n"
		 "foo_init\tlibfoo.so\tp\n", base, base, base, base);
	snprintf(name, sizeof(name), "ftrace.%d", (int)getpid());
	put_file(f->dir, name, text);
	f->ack_on = 1;
	assert_int_equal(pthread_create(&f->ack, NULL, acknowledger, f), 0);
	f->s = tfs_session_open(f->dir);
	assert_non_null(f->s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	f->stop = 1;
	pthread_join(f->ack, NULL);
	tfs_session_close(f->s);
	munmap(f->reg, sizeof(*f->reg));
	munmap(f->ctl, UT_CTL_SIZE);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* the whole text of @path, or NULL with *err set */
static char *rd(struct tfs_session *s, const char *path, int *err)
{
	struct tfs_handle *h;
	char *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int ret = tfs_open(s, path, O_RDONLY, &h);

	if (err)
		*err = ret;
	if (ret)
		return NULL;
	do {
		buf = realloc(buf, len + 4097);
		n = tfs_read(h, buf + len, 4096, (off_t)len);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	buf[len] = '\0';
	tfs_release(h);
	if (n < 0) {
		if (err)
			*err = (int)n;
		free(buf);
		return NULL;
	}
	return buf;
}

/* echo TEXT > PATH (or >> with O_APPEND): the open's or the write's error, or 0 */
static int wr(struct tfs_session *s, const char *path, int flags, const char *text)
{
	struct tfs_handle *h;
	ssize_t n;
	int ret = tfs_open(s, path, O_WRONLY | flags, &h);

	if (ret)
		return ret;
	n = tfs_write(h, text, strlen(text), 0);
	tfs_release(h);
	if (n < 0)
		return (int)n;
	assert_int_equal(n, (ssize_t)strlen(text));
	return 0;
}

/* a write of @len bytes (NUL bytes too) into @path opened with @flags */
static int wr_n(struct tfs_session *s, const char *path, int flags, const char *text, size_t len)
{
	struct tfs_handle *h;
	ssize_t n;
	int ret = tfs_open(s, path, O_WRONLY | flags, &h);

	if (ret)
		return ret;
	n = tfs_write(h, text, len, 0);
	tfs_release(h);
	return n < 0 ? (int)n : 0;
}

#define assert_file(s, path, text) do {				\
	char *_t = rd(s, path, NULL);				\
	assert_non_null(_t);					\
	assert_string_equal(_t, text);				\
	free(_t);						\
} while (0)

/* ---- tests ---- */

static void test_available_tracers(void **state)
{
	struct fix *f = *state;

	assert_file(f->s, "available_tracers", "function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace nop\n");
	assert_file(f->s, "current_tracer", "nop\n");
	assert_file(f->s, "tracing_on", "1\n");
}

static void test_current_tracer(void **state)
{
	struct fix *f = *state;
	char *log;

	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "function_graph\n"), 0);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_GRAPH);
	/* the write returned after the (slow) acknowledger applied it */
	assert_true(f->ctl->procs[0].gen == f->ctl->gen);
	assert_int_not_equal(f->ctl->gen, 0);
	assert_file(f->s, "current_tracer", "function_graph\n");
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "function  \n"), 0);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_FUNC);
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "bogus\n"), -EINVAL);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_FUNC);
	log = rd(f->s, "error_log", NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, "] tracing: error: No such tracer\n  Command: bogus\n"));
	assert_int_equal(log[0], '[');
	free(log);
	assert_int_equal(wr(f->s, "error_log", O_TRUNC, "\n"), 0);
	assert_file(f->s, "error_log", "");
	/* the trace's view follows the tracer */
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_tracer, "function");
}

static void test_tracing_on(void **state)
{
	struct fix *f = *state;

	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0\n"), 0);
	assert_int_equal(f->ctl->tracing_on, 0);
	assert_file(f->s, "tracing_on", "0\n");
	assert_file(f->s, "tracing_enabled", "0\n");
	assert_int_equal(wr(f->s, "tracing_enabled", O_TRUNC, "1\n"), 0);
	assert_int_equal(f->ctl->tracing_on, 1);
	/* the kernel takes any number: nonzero is on */
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0\n"), 0);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "2\n"), 0);
	assert_int_equal(f->ctl->tracing_on, 1);
	assert_file(f->s, "tracing_on", "1\n");
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "x\n"), -EINVAL);
	assert_int_equal(f->ctl->tracing_on, 1);
}

static void test_filter(void **state)
{
	struct fix *f = *state;

	assert_file(f->s, "set_ftrace_filter", "#### all functions enabled ####\n");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "parse_* run\n"), 0);
	assert_string_equal(f->ctl->filter, "parse_* run");
	assert_true(f->ctl->procs[0].gen == f->ctl->gen);
	assert_file(f->s, "set_ftrace_filter", "parse_a\nparse_b\nrun\n");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "foo_init\n"), 0);
	assert_string_equal(f->ctl->filter, "parse_* run foo_init");
	assert_file(f->s, "set_ftrace_filter", "parse_a\nparse_b\nrun\nfoo_init [libfoo.so]\n");
	/* '!' removes; a glob that keeps other functions is expanded */
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "!parse_b\n"), 0);
	assert_string_equal(f->ctl->filter, "parse_a run foo_init");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "!run"), 0);
	assert_string_equal(f->ctl->filter, "parse_a foo_init");
	/* '>' replaces */
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "main"), 0);
	assert_string_equal(f->ctl->filter, "main");
	/* a '>' with nothing written empties it */
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "\n"), 0);
	assert_string_equal(f->ctl->filter, "");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, ":mod:libnothere.so"), 0);
	assert_string_equal(f->ctl->filter, ":mod:libnothere.so");
	assert_int_equal(tfs_truncate(f->s, "set_ftrace_filter"), 0);
	assert_string_equal(f->ctl->filter, "");
	/* the other lists */
	assert_file(f->s, "set_ftrace_notrace", "#### no functions disabled ####\n");
	assert_file(f->s, "set_graph_function", "#### all functions enabled ####\n");
	assert_int_equal(wr(f->s, "set_graph_function", O_TRUNC, "run"), 0);
	assert_string_equal(f->ctl->graph_function, "run");
	assert_int_equal(wr(f->s, "set_ftrace_notrace", O_TRUNC, "run:traceon"), -EINVAL);
}

static void test_filter_nomatch(void **state)
{
	struct fix *f = *state;
	uint32_t gen = f->ctl->gen;
	char *log;

	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "run nosuch_*\n"), -EINVAL);
	assert_string_equal(f->ctl->filter, "");
	assert_int_equal(f->ctl->gen, gen);
	log = rd(f->s, "error_log", NULL);
	assert_non_null(strstr(log, "tracing: error: Function not found\n  Command: nosuch_*\n"));
	free(log);
	assert_int_equal(wr(f->s, "set_graph_notrace", O_TRUNC, "nosuch"), -EINVAL);
}

static void test_commands(void **state)
{
	struct fix *f = *state;

	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "run:traceoff parse_a:traceon:3\n"), 0);
	assert_string_equal(f->ctl->commands, "run:traceoff parse_a:traceon:3");
	assert_string_equal(f->ctl->filter, "");
	assert_file(f->s, "set_ftrace_filter",
		    "#### all functions enabled ####\nrun:traceoff:unlimited\nparse_a:traceon:count=3\n");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "!run:traceoff"), 0);
	assert_string_equal(f->ctl->commands, "parse_a:traceon:3");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "run:bogus"), -EINVAL);
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "nosuch:traceon"), -EINVAL);
	assert_string_equal(f->ctl->commands, "parse_a:traceon:3");
	/* a glob: a probe per function, a library's shown with its module as the kernel's %ps */
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "*_*:stacktrace"), 0);
	assert_string_equal(f->ctl->commands,
			    "parse_a:traceon:3 parse_a:stacktrace parse_b:stacktrace foo_init:stacktrace");
	assert_file(f->s, "set_ftrace_filter",
		    "#### all functions enabled ####\nparse_a:traceon:count=3\nparse_a:stacktrace:unlimited\n"
		    "parse_b:stacktrace:unlimited\nfoo_init [libfoo.so]:stacktrace:unlimited\n");
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_APPEND, "!parse_*:stacktrace"), 0);
	assert_string_equal(f->ctl->commands, "parse_a:traceon:3 foo_init:stacktrace");
}

static void test_errnos(void **state)
{
	struct fix *f = *state;
	struct tfs_handle *h;
	struct tfs_stat st;

	assert_int_equal(tfs_stat(f->s, "nosuch", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "trace/x", &st), -ENOTDIR);
	assert_int_equal(tfs_stat(f->s, "options/nosuch", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "instances/nosuch/trace", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "per_cpu/cpu99999", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "trace", &st), 0);
	assert_int_equal(st.is_dir, 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "trace_marker", &st), 0);
	assert_int_equal(st.mode, 0220);
	assert_int_equal(tfs_stat(f->s, "README", &st), 0);
	assert_int_equal(st.mode, 0440);
	assert_int_equal(tfs_stat(f->s, "per_cpu/cpu0", &st), 0);
	assert_int_equal(st.is_dir, 1);
	assert_int_equal(st.mode, 0750);
	assert_int_equal(tfs_stat(f->s, "", &st), 0);
	assert_int_equal(st.mode, 0700);
	assert_int_equal(tfs_stat(f->s, "events/ftrace/print", &st), 0);
	assert_int_equal(st.mode, 0755);
	/* as the kernel: the file opens; the write or the read is EINVAL */
	assert_int_equal(wr(f->s, "available_tracers", 0, "x"), -EINVAL);
	assert_int_equal(tfs_open(f->s, "trace_marker", O_RDONLY, &h), 0);
	{
		char buf[16];

		assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), -EINVAL);
	}
	tfs_release(h);
	assert_int_equal(tfs_open(f->s, "options", O_WRONLY, &h), -EISDIR);
	assert_int_equal(tfs_truncate(f->s, "README"), -EINVAL);
	assert_int_equal(wr(f->s, "max_graph_depth", O_TRUNC, "abc"), -EINVAL);
	assert_int_equal(wr(f->s, "max_graph_depth", O_TRUNC, "5\n"), 0);
	assert_int_equal(f->ctl->max_graph_depth, 5);
	assert_file(f->s, "max_graph_depth", "5\n");
	assert_file(f->s, "trace_clock",
		    "[local] global counter perf mono mono_raw boot tai x86-tsc\n");
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "mono\n"), 0);
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "nosuch\n"), -EINVAL);
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "uptime\n"), -EINVAL);
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "\n"), -EINVAL);
	assert_file(f->s, "trace_clock",
		    "local global counter perf [mono] mono_raw boot tai x86-tsc\n");
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "x86-tsc"), 0);
	assert_file(f->s, "trace_clock",
		    "local global counter perf mono mono_raw boot tai [x86-tsc]\n");
	/* per instance */
	assert_int_equal(tfs_mkdir(f->s, "instances/clk"), 0);
	assert_file(f->s, "instances/clk/trace_clock",
		    "[local] global counter perf mono mono_raw boot tai x86-tsc\n");
	assert_int_equal(wr(f->s, "instances/clk/trace_clock", O_TRUNC, "counter\n"), 0);
	assert_file(f->s, "instances/clk/trace_clock",
		    "local global [counter] perf mono mono_raw boot tai x86-tsc\n");
	assert_file(f->s, "trace_clock",
		    "local global counter perf mono mono_raw boot tai [x86-tsc]\n");
	assert_int_equal(tfs_rmdir(f->s, "instances/clk"), 0);
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "local\n"), 0);
	assert_file(f->s, "buffer_size_kb", "256\n");
	assert_int_equal(wr(f->s, "trace_entries", O_TRUNC, "1024\n"), 0);
	assert_int_equal(f->ctl->nr_pages, 256);
	assert_int_equal(wr(f->s, "tracing_thresh", O_TRUNC, "100\n"), 0);
	assert_int_equal(f->ctl->tracing_thresh, 100000);
	assert_file(f->s, "tracing_thresh", "100\n");
	/* sysprof_sample_period: us, 1000 at first, at least 100, the kernel's errnos */
	assert_file(f->s, "sysprof_sample_period", "1000\n");
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "250\n"), 0);
	assert_int_equal(f->ctl->sysprof_period_us, 250);
	assert_file(f->s, "sysprof_sample_period", "250\n");
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "0\n"), 0);
	assert_file(f->s, "sysprof_sample_period", "100\n");
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "+5000"), 0);
	assert_file(f->s, "sysprof_sample_period", "5000\n");
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "1 ms\n"), -EINVAL);
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "-1\n"), -EINVAL);
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "\n"), -EINVAL);
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "4294967296"), -EINVAL);
	assert_int_equal(wr(f->s, "sysprof_sample_period", O_TRUNC, "18446744073709551616"), -ERANGE);
	assert_file(f->s, "sysprof_sample_period", "5000\n");
	/* the top's alone, as the kernel's */
	assert_int_equal(tfs_mkdir(f->s, "instances/sp"), 0);
	assert_null(rd(f->s, "instances/sp/sysprof_sample_period", NULL));
	assert_int_equal(tfs_rmdir(f->s, "instances/sp"), 0);
}

static void test_options(void **state)
{
	struct fix *f = *state;
	char *t;

	t = rd(f->s, "trace_options", NULL);
	assert_non_null(strstr(t, "print-parent\n"));
	assert_null(strstr(t, "funcgraph-proc"));
	free(t);
	/* funcgraph options belong to function_graph */
	assert_int_equal(wr(f->s, "trace_options", O_TRUNC, "funcgraph-proc"), -EINVAL);
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "function_graph"), 0);
	t = rd(f->s, "trace_options", NULL);
	assert_non_null(strstr(t, "\nnofuncgraph-proc\n"));
	free(t);
	assert_file(f->s, "options/funcgraph-proc", "0\n");
	assert_int_equal(wr(f->s, "trace_options", O_TRUNC, "funcgraph-proc\n"), 0);
	assert_file(f->s, "options/funcgraph-proc", "1\n");
	assert_int_equal(wr(f->s, "options/print-parent", O_TRUNC, "0\n"), 0);
	t = rd(f->s, "iter_ctrl", NULL);
	assert_non_null(strstr(t, "noprint-parent\n"));
	assert_non_null(strstr(t, "\nfuncgraph-proc\n"));
	free(t);
	assert_int_equal(wr(f->s, "trace_options", O_TRUNC, "noprint-parent-x"), -EINVAL);
	assert_int_equal(wr(f->s, "options/print-parent", O_TRUNC, "2"), -EINVAL);
}

static void test_instances(void **state)
{
	struct fix *f = *state;
	struct tfs_stat st;
	struct live_pump *pump;
	char *t;

	assert_int_equal(tfs_mkdir(f->s, "instances/foo"), 0);
	assert_int_equal(tfs_mkdir(f->s, "instances/foo"), -EEXIST);
	assert_int_equal(tfs_mkdir(f->s, "instances/foo/bar"), -EACCES);
	pump = last_pump;
	assert_non_null(pump);
	assert_non_null(strstr(pump->dir, "/inst.foo"));
	assert_int_equal(tfs_stat(f->s, "instances/foo/trace", &st), 0);
	assert_int_equal(tfs_stat(f->s, "instances/foo/set_ftrace_filter", &st), 0);
	assert_int_equal(tfs_stat(f->s, "instances/foo/set_graph_function", &st), -ENOENT);
	/* as the kernel: a new instance has the nop tracer */
	assert_file(f->s, "instances/foo/current_tracer", "nop\n");
	assert_file(f->s, "instances/foo/tracing_on", "1\n");
	/* the programs record what the instance's tracer needs */
	assert_int_equal(wr(f->s, "instances/foo/current_tracer", O_TRUNC, "function"), 0);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_FUNC);
	assert_int_equal(f->ctl->active_tracers,
			 1u << ut_tracer_index("nop") | 1u << ut_tracer_index("function"));
	assert_file(f->s, "instances/foo/current_tracer", "function\n");
	assert_file(f->s, "current_tracer", "nop\n");
	/* the instance reads its own buffers, after taking what is new */
	free(rd(f->s, "instances/foo/trace", NULL));
	assert_non_null(strstr(last_bufdir, "/inst.foo"));
	assert_true(pump->runs > 0);
	assert_int_equal(pump->last_on, 1);
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_bufdir, "");
	/* its own clear point */
	assert_int_equal(wr(f->s, "instances/foo/trace", O_TRUNC, ""), 0);
	free(rd(f->s, "instances/foo/trace", NULL));
	assert_true(last_since > 1000);
	free(rd(f->s, "trace", NULL));
	assert_true(last_since == 0);
	/* the top off, the instance on: the programs go on recording, the top hides it */
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0"), 0);
	assert_file(f->s, "tracing_on", "0\n");
	assert_int_equal(f->ctl->tracing_on, 1);
	free(rd(f->s, "trace", NULL));
	assert_int_equal(last_nr_hide, 1);
	assert_true(last_hide[1] == UINT64_MAX);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "1"), 0);
	free(rd(f->s, "trace", NULL));
	assert_int_equal(last_nr_hide, 1);
	assert_true(last_hide[1] > last_hide[0] && last_hide[1] != UINT64_MAX);
	/* the instance off: its pump drops what comes; a marker is refused */
	assert_int_equal(wr(f->s, "instances/foo/tracing_on", O_TRUNC, "0"), 0);
	assert_file(f->s, "instances/foo/tracing_on", "0\n");
	assert_file(f->s, "tracing_on", "1\n");
	free(rd(f->s, "instances/foo/trace", NULL));
	assert_int_equal(pump->last_on, 0);
	assert_int_equal(wr(f->s, "instances/foo/trace_marker", 0, "hello"), -EBADF);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0"), 0);
	assert_int_equal(f->ctl->tracing_on, 0);
	assert_int_equal(wr(f->s, "instances/foo/tracing_on", O_TRUNC, "1"), 0);
	assert_int_equal(f->ctl->tracing_on, 1);
	assert_file(f->s, "tracing_on", "0\n");
	/* a function command in the programs (traceon) is the top's */
	f->ctl->tracing_on = 0;
	assert_file(f->s, "tracing_on", "0\n");
	f->ctl->tracing_on = 1;
	assert_file(f->s, "tracing_on", "1\n");
	/* a traceoff stays the top's state when another file is written */
	f->ctl->tracing_on = 0;
	assert_int_equal(wr(f->s, "tracing_cpumask", O_TRUNC, "1"), 0);
	assert_file(f->s, "tracing_on", "0\n");
	assert_int_equal(f->ctl->tracing_on, 1);	/* the instance records */
	free(rd(f->s, "trace", NULL));
	assert_true(last_nr_hide >= 2 && last_hide[1] == UINT64_MAX);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "1"), 0);
	/* its own size, pid list */
	assert_file(f->s, "instances/foo/buffer_size_kb", "256\n");
	assert_int_equal(wr(f->s, "instances/foo/buffer_size_kb", O_TRUNC, "64"), 0);
	assert_int_equal(pump->nr_pages, 16);
	assert_file(f->s, "instances/foo/buffer_size_kb", "64\n");
	assert_file(f->s, "instances/foo/buffer_total_size_kb", "128\n");
	assert_file(f->s, "buffer_size_kb", "256\n");
	assert_int_equal(wr(f->s, "instances/foo/buffer_size_kb", O_TRUNC, "0"), -EINVAL);
	/* the smallest ring is two pages */
	assert_int_equal(wr(f->s, "instances/foo/buffer_size_kb", O_TRUNC, "1"), 0);
	assert_file(f->s, "instances/foo/buffer_size_kb", "8\n");
	assert_int_equal(wr(f->s, "buffer_size_kb", O_TRUNC, "3"), 0);
	assert_file(f->s, "buffer_size_kb", "8\n");
	assert_int_equal(f->ctl->nr_pages, 2);
	assert_int_equal(wr(f->s, "buffer_size_kb", O_TRUNC, "256"), 0);
	assert_int_equal(wr(f->s, "instances/foo/buffer_size_kb", O_TRUNC, "64"), 0);
	assert_int_equal(wr(f->s, "instances/foo/set_ftrace_pid", O_TRUNC, "42"), 0);
	assert_file(f->s, "instances/foo/set_ftrace_pid", "42\n");
	assert_file(f->s, "set_ftrace_pid", "no pid\n");
	free(rd(f->s, "instances/foo/trace", NULL));
	assert_string_equal(pump->pids, "42");
	/* its own clock and options */
	assert_int_equal(wr(f->s, "instances/foo/options/sym-addr", O_TRUNC, "1"), 0);
	assert_file(f->s, "options/sym-addr", "0\n");
	t = rd(f->s, "instances/foo/trace_options", NULL);
	assert_non_null(strstr(t, "\nsym-addr\n"));
	free(t);
	/* rmdir: the programs no longer record for it */
	assert_int_equal(tfs_rmdir(f->s, "instances/foo"), 0);
	assert_null(last_pump);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_NONE);
	assert_int_equal(f->ctl->active_tracers, 1u << ut_tracer_index("nop"));
	assert_int_equal(tfs_stat(f->s, "instances/foo", &st), -ENOENT);
	assert_int_equal(tfs_rmdir(f->s, "instances/foo"), -ENOENT);
}

/* set_ftrace_pid and tracing_cpumask choose who records: the top's and the recording instances' */
static void test_rec_filter(void **state)
{
	struct fix *f = *state;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint32_t g;

	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "5 6"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 2);
	assert_int_equal(f->ctl->rec_pids[0], 5);
	assert_int_equal(f->ctl->rec_pids[1], 6);
	assert_int_equal(f->ctl->rec_filter_gen % 2, 0);
	g = f->ctl->rec_filter_gen;
	/* the same list again: nothing changes */
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "6 5"), 0);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "5 6"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 2);
	/* as the kernel's: the open emptied it, the write failed */
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "x"), -EINVAL);
	assert_int_equal(f->ctl->nr_rec_pids, 0);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "5 6"), 0);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_APPEND, "x"), -EINVAL);
	assert_int_equal(f->ctl->nr_rec_pids, 2);
	/* an instance that records every thread: every thread records */
	assert_int_equal(tfs_mkdir(f->s, "instances/i"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 2);
	assert_int_equal(wr(f->s, "instances/i/current_tracer", O_TRUNC, "function"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 0);
	assert_true(f->ctl->rec_filter_gen > g);
	/* its own list joins the top's */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_pid", O_TRUNC, "9 5"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 3);
	assert_int_equal(f->ctl->rec_pids[2], 9);
	/* off, it wants nothing */
	assert_int_equal(wr(f->s, "instances/i/tracing_on", O_TRUNC, "0"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 2);
	/* the cpumask: CPUs beyond the machine's stay set */
	assert_int_equal(wr(f->s, "tracing_cpumask", O_TRUNC, "1"), 0);
	assert_int_equal(f->ctl->rec_cpumask[0] & 1, 1);
	if (ncpu >= 2)
		assert_int_equal(f->ctl->rec_cpumask[0] & 2, 0);
	assert_int_equal(f->ctl->rec_cpumask[UT_CTL_CPUS / 32 - 1], ~0u);
	/* a recording instance has no cpumask: every CPU records */
	assert_int_equal(wr(f->s, "instances/i/tracing_on", O_TRUNC, "1"), 0);
	assert_int_equal(f->ctl->rec_cpumask[0], ~0u);
	assert_int_equal(tfs_rmdir(f->s, "instances/i"), 0);
	assert_int_equal(f->ctl->rec_cpumask[0] & 1, 1);
	if (ncpu >= 2)
		assert_int_equal(f->ctl->rec_cpumask[0] & 2, 0);
	assert_int_equal(tfs_truncate(f->s, "set_ftrace_pid"), 0);
	assert_int_equal(f->ctl->nr_rec_pids, 0);
}

struct names {
	char all[4096];
};

static int fill(void *ctx, const char *name, const struct tfs_stat *st)
{
	struct names *n = ctx;

	strcat(n->all, name);
	strcat(n->all, st->is_dir ? "/ " : " ");
	return 0;
}

/* an instance's set_ftrace_filter/notrace: what its buffers take; the programs record for all */
static void test_inst_lists(void **state)
{
	struct fix *f = *state;
	struct live_pump *pump;
	char *log;

	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "function"), 0);
	assert_int_equal(wr(f->s, "set_ftrace_filter", O_TRUNC, "parse_a"), 0);
	assert_string_equal(f->ctl->filter, "parse_a");
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_ffilter, "(none)");	/* the programs record just that */
	assert_int_equal(tfs_mkdir(f->s, "instances/i"), 0);
	pump = last_pump;
	assert_file(f->s, "instances/i/set_ftrace_filter", "#### all functions enabled ####\n");
	assert_file(f->s, "instances/i/set_ftrace_notrace", "#### no functions disabled ####\n");
	/* a recording instance without a filter: every function records */
	assert_int_equal(wr(f->s, "instances/i/current_tracer", O_TRUNC, "function"), 0);
	assert_string_equal(f->ctl->filter, "");
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_ffilter, "parse_a");	/* the top shows its choice */
	/* its own filter: the programs record both */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_filter", O_TRUNC, "parse_b"), 0);
	assert_string_equal(f->ctl->filter, "parse_a parse_b");
	assert_file(f->s, "instances/i/set_ftrace_filter", "parse_b\n");
	assert_file(f->s, "set_ftrace_filter", "parse_a\n");
	free(rd(f->s, "instances/i/trace", NULL));
	assert_string_equal(pump->ffilter, "parse_b");
	assert_string_equal(last_ffilter, "(none)");	/* the pump chose */
	/* notrace: recorded unless all directories leave it out */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_notrace", O_TRUNC, "run"), 0);
	assert_string_equal(f->ctl->notrace, "");
	assert_int_equal(wr(f->s, "set_ftrace_notrace", O_TRUNC, "run"), 0);
	assert_string_equal(f->ctl->notrace, "run");
	/* bad input, as at the top */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_filter", O_TRUNC, "nosuch"), -EINVAL);
	/* an instance's commands: its own, after its registry index in the programs' list */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_filter", 0, "parse_a:traceoff"), 0);
	assert_non_null(strstr(f->ctl->commands, "|parse_a:traceoff"));
	log = rd(f->s, "instances/i/set_ftrace_filter", NULL);
	assert_non_null(strstr(log, "\nparse_a:traceoff:unlimited\n"));
	free(log);
	assert_file(f->s, "set_ftrace_filter", "parse_a\n");
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_filter", 0, "!parse_a:traceoff"), 0);
	assert_string_equal(f->ctl->commands, "");
	/* the instance off: the programs follow the top's lists */
	assert_int_equal(wr(f->s, "instances/i/tracing_on", O_TRUNC, "0"), 0);
	assert_string_equal(f->ctl->filter, "parse_a");
	assert_int_equal(wr(f->s, "instances/i/tracing_on", O_TRUNC, "1"), 0);
	/* the top off: the instance's */
	assert_int_equal(wr(f->s, "instances/i/set_ftrace_filter", O_TRUNC, "parse_b"), 0);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0"), 0);
	assert_string_equal(f->ctl->filter, "parse_b");
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "1"), 0);
	assert_int_equal(tfs_truncate(f->s, "instances/i/set_ftrace_filter"), 0);
	assert_string_equal(f->ctl->filter, "");
	assert_int_equal(tfs_rmdir(f->s, "instances/i"), 0);
	assert_string_equal(f->ctl->filter, "parse_a");
	assert_string_equal(f->ctl->notrace, "run");
	/* what was recorded for the instance stays in the buffers: still hidden */
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_ffilter, "parse_a");
	assert_string_equal(last_fnotrace, "run");
	/* until cleared */
	assert_int_equal(wr(f->s, "trace", O_TRUNC, ""), 0);
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_ffilter, "(none)");
}

static void test_readdir(void **state)
{
	struct fix *f = *state;
	static const char *const want[] = {
		"README ", "available_tracers ", "current_tracer ", "tracing_on ", "trace ",
		"trace_pipe ", "trace_options ", "set_ftrace_filter ", "set_ftrace_notrace ",
		"available_filter_functions ", "enabled_functions ", "error_log ",
		"options/ ", "per_cpu/ ", "instances/ ", "events/ ", "tracing_enabled ",
		"snapshot ", "saved_cmdlines ", "trace_marker ", "set_graph_function ",
	};
	struct names n = { "" };

	assert_int_equal(tfs_readdir(f->s, "", fill, &n), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char key[64];

		snprintf(key, sizeof(key), " %s", want[i]);
		assert_true(!strncmp(n.all, want[i], strlen(want[i])) || strstr(n.all, key));
	}
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "per_cpu/cpu0", fill, &n), 0);
	assert_string_equal(n.all, "buffer_size_kb stats trace trace_pipe ");
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "trace", fill, &n), -ENOTDIR);
	assert_int_equal(tfs_mkdir(f->s, "instances/bar"), 0);
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "instances", fill, &n), 0);
	assert_string_equal(n.all, "bar/ ");
}

static void test_functions(void **state)
{
	struct fix *f = *state;

	assert_file(f->s, "available_filter_functions",
		    "main\nparse_a\nparse_b\nrun\nfoo_init [libfoo.so]\n");
	assert_file(f->s, "enabled_functions", "parse_a (1)\n");
	assert_file(f->s, "dyn_ftrace_total_info", "5 pages:1 groups: 2\n");
	assert_file(f->s, "per_cpu/cpu0/stats",
		    "entries: 7\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
		    "oldest event ts:     0.000000\nnow ts:     0.000000\n"
		    "dropped events: 0\nread events: 0\n");
	assert_file(f->s, "available_events", "");
	assert_file(f->s, "events/ftrace/print/id", "5\n");
	assert_file(f->s, "ftrace_enabled", "1\n");
}

/* events/: the top files, and every ftrace entry's format and id, in instances too */
static void test_events(void **state)
{
	static const char *const dirs[] = { "", "instances/ev/" };
	struct fix *f = *state;
	struct tfs_stat st;
	char path[256];

	assert_int_equal(tfs_mkdir(f->s, "instances/ev"), 0);
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		struct names n = { "" };

		snprintf(path, sizeof(path), "%sevents", dirs[d]);
		assert_int_equal(tfs_readdir(f->s, path, fill, &n), 0);
		assert_string_equal(n.all, "enable header_event header_page ftrace/ ");
		memset(&n, 0, sizeof(n));
		snprintf(path, sizeof(path), "%sevents/ftrace", dirs[d]);
		assert_int_equal(tfs_readdir(f->s, path, fill, &n), 0);
		assert_string_equal(n.all, "function/ kernel_stack/ print/ bprint/ branch/ funcgraph_exit/ "
					   "funcgraph_entry/ user_stack/ bputs/ hw_branch/ ");
		snprintf(path, sizeof(path), "%sevents/header_page", dirs[d]);
		assert_file(f->s, path, ut_event_header_page());
		assert_int_equal(tfs_stat(f->s, path, &st), 0);
		assert_int_equal(st.mode, 0440);
		assert_int_equal(wr(f->s, path, 0, "x"), -EINVAL);
		snprintf(path, sizeof(path), "%sevents/header_event", dirs[d]);
		assert_file(f->s, path, ut_event_header_event());
		for (unsigned i = 0; i < ut_ftrace_nr_events; i++) {
			const struct ut_event_desc *e = &ut_ftrace_events[i];
			char *text = ut_event_format(e), id[16];

			memset(&n, 0, sizeof(n));
			snprintf(path, sizeof(path), "%sevents/ftrace/%s", dirs[d], e->name);
			assert_int_equal(tfs_readdir(f->s, path, fill, &n), 0);
			/* as the kernel's: of the ftrace events, print alone has triggers */
			assert_string_equal(n.all, e->id == UT_EVENT_ID_PRINT ? "format id trigger " :
									  "format id ");
			snprintf(path, sizeof(path), "%sevents/ftrace/%s/format", dirs[d], e->name);
			assert_file(f->s, path, text);
			free(text);
			assert_int_equal(tfs_stat(f->s, path, &st), 0);
			assert_int_equal(st.mode, 0440);
			/* as the kernel: a read-only file takes no write */
			assert_int_equal(wr(f->s, path, 0, "x"), -EINVAL);
			snprintf(path, sizeof(path), "%sevents/ftrace/%s/id", dirs[d], e->name);
			snprintf(id, sizeof(id), "%u\n", (unsigned)e->id);
			assert_file(f->s, path, id);
			snprintf(path, sizeof(path), "%sevents/ftrace/%s/enable", dirs[d], e->name);
			assert_int_equal(tfs_stat(f->s, path, &st), -ENOENT);
		}
		snprintf(path, sizeof(path), "%sevents/ftrace/nosuch", dirs[d]);
		assert_int_equal(tfs_stat(f->s, path, &st), -ENOENT);
		snprintf(path, sizeof(path), "%sevents/ftrace/print/format/x", dirs[d]);
		assert_int_equal(tfs_stat(f->s, path, &st), -ENOTDIR);
		snprintf(path, sizeof(path), "%sevents/ftrace/enable", dirs[d]);
		assert_int_equal(tfs_stat(f->s, path, &st), -ENOENT);
	}
	assert_file(f->s, "events/ftrace/function/id", "1\n");
	assert_file(f->s, "events/ftrace/bputs/id", "15\n");
}

/* a program's events, as its runtime registers them */
static const struct ut_event_field ev_fields[] = {
	{ "int", "id", 8, 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "status", 12, 4, 1, UT_FIELD_SCALAR, 0 },
};
static const struct ut_event_desc ev_request = {
	UT_TP_ABI, 0, 12, "myapp", "request", "\"id=%d\", REC->id", ev_fields, 1, 0,
};
static const struct ut_event_desc ev_response = {
	UT_TP_ABI, 0, 16, "myapp", "response", "\"id=%d status=%d\", REC->id, REC->status",
	ev_fields, 2, 0,
};

/* myapp:request (id 1000) and myapp:response (1001) */
static void reg_events(struct fix *f)
{
	assert_int_equal(ut_evreg_register(f->reg, &ev_request), 0);
	assert_int_equal(ut_evreg_register(f->reg, &ev_response), 1);
}

/* the registry's enable bit of slot @i: do the programs record its event? */
static int slot_on(struct fix *f, int i)
{
	return (f->reg->slots[i].state & UT_EVS_RECORD) != 0;
}

/* set_event_pid: the kernel's syntax, and the control page's list */
static void test_set_event_pid(void **state)
{
	struct fix *f = *state;
	struct ut_session_ctl *c = f->ctl;
	char *log;

	assert_file(f->s, "set_event_pid", "");
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, "456 123\n456"), 0);
	assert_file(f->s, "set_event_pid", "123\n456\n");
	assert_int_equal(c->nr_ev_pids, 2);
	assert_int_equal(c->ev_pids[0], 123);
	assert_int_equal(c->ev_pids[1], 456);
	assert_int_equal(c->nr_rec_pids, 0);	/* set_ftrace_pid's list stays empty */
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "0"), 0);
	assert_file(f->s, "set_event_pid", "0\n123\n456\n");
	/* a bad word fails the whole write, which changes nothing */
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "7 x"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "-5"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "!123"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "1,2"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "08"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "0x"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "-0"), -EINVAL);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "2147483648"), -EPERM);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "1073741824"), -EPERM);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "99999999999"), -EPERM);
	assert_int_equal(wr(f->s, "set_event_pid", O_APPEND, "99999999999999999999999"), -EINVAL);
	assert_file(f->s, "set_event_pid", "0\n123\n456\n");
	/* as C writes numbers, modulo 2^32 (what a 6.18 kernel answered) */
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, "+5 0x10 010 4294967301 1073741823"), 0);
	assert_file(f->s, "set_event_pid", "5\n8\n16\n1073741823\n");
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, "0 123 456"), 0);
	log = rd(f->s, "error_log", NULL);
	assert_non_null(strstr(log, "Invalid pid"));
	free(log);
	/* O_TRUNC empties it at the open, whatever the write then does */
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, "abc"), -EINVAL);
	assert_file(f->s, "set_event_pid", "");
	assert_int_equal(c->nr_ev_pids, 0);
	/* an instance's list is its own */
	assert_int_equal(tfs_mkdir(f->s, "instances/ep"), 0);
	assert_int_equal(wr(f->s, "instances/ep/set_event_pid", O_TRUNC, "9"), 0);
	assert_file(f->s, "instances/ep/set_event_pid", "9\n");
	assert_file(f->s, "set_event_pid", "");
	assert_int_equal(tfs_rmdir(f->s, "instances/ep"), 0);
}

/*
 * The four pid files, one parser as the kernel's trace_pid_write() (what
 * a 6.18 kernel answered for set_event_notrace_pid): the same answers
 * from each, in the top and in an instance
 */
static void test_pid_files(void **state)
{
	static const char *const files[] = {
		"set_ftrace_pid", "set_ftrace_notrace_pid", "set_event_pid", "set_event_notrace_pid",
		"instances/pf/set_ftrace_pid", "instances/pf/set_ftrace_notrace_pid",
		"instances/pf/set_event_pid", "instances/pf/set_event_notrace_pid",
	};
	struct fix *f = *state;
	char word[160];

	assert_int_equal(tfs_mkdir(f->s, "instances/pf"), 0);
	for (int i = 0; i < 8; i++) {
		const char *p = files[i];
		/* as the kernel's: the function lists say so when empty */
		const char *none = strstr(p, "ftrace") ? "no pid\n" : "";

		assert_file(f->s, p, none);
		assert_int_equal(wr(f->s, p, O_TRUNC, "456 123\n456"), 0);
		assert_file(f->s, p, "123\n456\n");
		/* NUL bytes and every blank part words */
		assert_int_equal(wr_n(f->s, p, O_APPEND, "11\0" "12\t13\v14\f15\r16",
				      sizeof("11\0" "12\t13\v14\f15\r16") - 1), 0);
		assert_file(f->s, p, "11\n12\n13\n14\n15\n16\n123\n456\n");
		/* nothing, or blanks only: no change (the kernel keeps the list) */
		assert_int_equal(wr_n(f->s, p, O_APPEND, "", 0), 0);
		assert_int_equal(wr(f->s, p, O_APPEND, " \n"), 0);
		assert_file(f->s, p, "11\n12\n13\n14\n15\n16\n123\n456\n");
		/* the first bad word fails the whole write, which changes nothing */
		assert_int_equal(wr(f->s, p, O_APPEND, "7 x"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "!123"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "-5"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "+"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "1,2"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "08"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "0x"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "99999999999999999999999"), -EINVAL);
		assert_int_equal(wr(f->s, p, O_APPEND, "8 1073741824 x"), -EPERM);
		assert_int_equal(wr(f->s, p, O_APPEND, "x 1073741824"), -EINVAL);
		/* a word of 127 bytes is read, one of 128 is too long */
		snprintf(word, sizeof(word), "0x%0124d5", 0);
		assert_int_equal(strlen(word), 127);
		assert_int_equal(wr(f->s, p, O_APPEND, word), 0);
		snprintf(word, sizeof(word), "0x%0125d5", 0);
		assert_int_equal(wr(f->s, p, O_APPEND, word), -EINVAL);
		assert_file(f->s, p, "5\n11\n12\n13\n14\n15\n16\n123\n456\n");
		/* C's numbers modulo 2^32 */
		assert_int_equal(wr(f->s, p, O_TRUNC, "+5 0x10 010 4294967301 0 1073741823"), 0);
		assert_file(f->s, p, "0\n5\n8\n16\n1073741823\n");
		/* O_TRUNC empties it at the open, appending or not, whatever the write does */
		assert_int_equal(wr(f->s, p, O_TRUNC, "abc"), -EINVAL);
		assert_file(f->s, p, none);
		assert_int_equal(wr(f->s, p, O_APPEND, "3"), 0);
		assert_int_equal(wr(f->s, p, O_TRUNC | O_APPEND, "4"), 0);
		assert_file(f->s, p, "4\n");
		assert_int_equal(tfs_truncate(f->s, p), 0);
		assert_file(f->s, p, none);
	}
	assert_int_equal(tfs_rmdir(f->s, "instances/pf"), 0);
}

/*
 * The notrace lists: the programs leave out whom every recording
 * directory excludes, the views whom theirs does
 */
static void test_notrace_pid(void **state)
{
	struct fix *f = *state;
	struct ut_session_ctl *c = f->ctl;

	assert_int_equal(wr(f->s, "set_ftrace_notrace_pid", O_TRUNC, "7 3"), 0);
	assert_int_equal(c->nr_rec_nopids, 2);
	assert_int_equal(c->rec_nopids[0], 3);
	assert_int_equal(c->rec_nopids[1], 7);
	assert_int_equal(c->nr_rec_pids, 0);
	assert_int_equal(c->nr_ev_nopids, 0);
	assert_int_equal(wr(f->s, "set_event_notrace_pid", O_TRUNC, "9"), 0);
	assert_int_equal(c->nr_ev_nopids, 1);
	assert_int_equal(c->ev_nopids[0], 9);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "3 4"), 0);
	assert_int_equal(c->nr_rec_pids, 2);
	/* the views: the pid list, then what the notrace list hides */
	free(rd(f->s, "trace", NULL));
	assert_string_equal(last_pids, "3 4 !3 !7");
	assert_string_equal(last_evpids, "!9");
	/* a recording instance that excludes only 7: 3 is recorded for it */
	assert_int_equal(tfs_mkdir(f->s, "instances/n"), 0);
	assert_int_equal(wr(f->s, "instances/n/set_ftrace_notrace_pid", O_TRUNC, "7"), 0);
	assert_int_equal(c->nr_rec_nopids, 2);	/* it does not record yet */
	assert_int_equal(wr(f->s, "instances/n/current_tracer", O_TRUNC, "function"), 0);
	assert_int_equal(c->nr_rec_nopids, 1);
	assert_int_equal(c->rec_nopids[0], 7);
	assert_int_equal(c->nr_rec_pids, 0);	/* its empty set_ftrace_pid wants all */
	free(rd(f->s, "instances/n/trace", NULL));
	assert_string_equal(last_pump->pids, "!7");
	/* one excluding nothing: nobody is left out */
	assert_int_equal(wr(f->s, "instances/n/set_ftrace_notrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(c->nr_rec_nopids, 0);
	assert_int_equal(tfs_rmdir(f->s, "instances/n"), 0);
	assert_int_equal(c->nr_rec_nopids, 2);
	assert_int_equal(wr(f->s, "set_ftrace_notrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(wr(f->s, "set_event_notrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(c->nr_rec_nopids + c->nr_rec_pids + c->nr_ev_nopids, 0);
}

/* a program's fork log entry: thread @ptid of @ppid made @child */
static void fork_log(struct ut_session_ctl *c, int32_t ptid, int32_t ppid, int32_t child)
{
	uint32_t n = c->forklog_head++;

	c->forklog[n % UT_FORKLOG].ptid = ptid;
	c->forklog[n % UT_FORKLOG].ppid = ppid;
	c->forklog[n % UT_FORKLOG].child = child;
	c->forklog[n % UT_FORKLOG].seq = n + 1;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* the text of a pid file holding the @n ids of @ids (sorted here) */
static const char *ids_text(int n, ...)
{
	static char buf[256];
	int v[16];
	size_t len = 0;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		v[i] = va_arg(ap, int);
	va_end(ap);
	qsort(v, (size_t)n, sizeof(*v), int_cmp);
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%d\n", v[i]);
	return buf;
}

/* a process that lives until killed: a child's id that stays */
static pid_t sleeper(void)
{
	pid_t p = fork();

	if (!p) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	assert_true(p > 0);
	return p;
}

/* function-fork, event-fork: children join their parent's lists, ended threads leave them */
static void test_pid_fork(void **state)
{
	struct fix *f = *state;
	struct ut_session_ctl *c = f->ctl;
	char path[128], want[128];
	pid_t dead = fork(), k[8];
	int fd;

	if (!dead)
		_exit(0);
	assert_true(dead > 0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	for (int i = 0; i < 8; i++)
		k[i] = sleeper();
	assert_file(f->s, "options/function-fork", "0\n");
	assert_file(f->s, "options/event-fork", "0\n");
	/* off: a fork of a listed thread changes nothing */
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "100"), 0);
	assert_int_equal(c->nr_follow, 0);
	fork_log(c, 100, 100, k[0]);
	assert_file(f->s, "set_ftrace_pid", "100\n");
	assert_int_equal(c->forklog_done, c->forklog_head);
	/* on: the programs learn whose forks to tell */
	assert_int_equal(wr(f->s, "options/function-fork", O_TRUNC, "1"), 0);
	assert_int_equal(c->nr_follow, 1);
	assert_int_equal(c->follow[0].id, 100);
	assert_int_equal(c->follow[0].what, UT_FOLLOW_FUNC);
	assert_int_equal(wr(f->s, "set_ftrace_notrace_pid", O_TRUNC, "200"), 0);
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, "300"), 0);
	assert_int_equal(c->nr_follow, 2);	/* event-fork is off */
	/* a child of a listed thread (or of its process) joins its list */
	fork_log(c, 100, 100, k[1]);
	fork_log(c, 150, 100, k[2]);	/* a thread of process 100 */
	fork_log(c, 200, 200, k[3]);
	fork_log(c, 300, 300, k[4]);	/* set_event_pid: event-fork is off */
	fork_log(c, 999, 999, k[5]);	/* nobody's */
	assert_file(f->s, "set_ftrace_pid", ids_text(3, 100, k[1], k[2]));
	assert_file(f->s, "set_ftrace_notrace_pid", ids_text(2, 200, k[3]));
	assert_file(f->s, "set_event_pid", "300\n");
	assert_int_equal(c->forklog_done, c->forklog_head);
	assert_int_equal(c->nr_rec_pids, 3);
	assert_int_equal(c->nr_rec_nopids, 2);
	assert_int_equal(c->nr_follow, 5);
	/* an entry being written (its seq not yet stored) waits */
	c->forklog_head++;
	assert_file(f->s, "set_ftrace_pid", ids_text(3, 100, k[1], k[2]));
	assert_int_equal(c->forklog_done, c->forklog_head - 1);
	c->forklog[(c->forklog_head - 1) % UT_FORKLOG] =
		(struct ut_forklog){ .seq = c->forklog_head, .ptid = k[1], .ppid = k[1], .child = k[6] };
	assert_file(f->s, "set_ftrace_pid", ids_text(4, 100, k[1], k[2], k[6]));
	/* event-fork on: the event lists follow too */
	assert_int_equal(wr(f->s, "options/event-fork", O_TRUNC, "1"), 0);
	fork_log(c, 300, 300, k[7]);
	assert_file(f->s, "set_event_pid", ids_text(2, 300, k[7]));
	/* a child that ended leaves the lists; the top's views still show its past */
	kill(k[2], SIGKILL);
	kill(k[3], SIGKILL);
	assert_int_equal(waitpid(k[2], NULL, 0), k[2]);
	assert_int_equal(waitpid(k[3], NULL, 0), k[3]);
	assert_file(f->s, "set_ftrace_pid", ids_text(3, 100, k[1], k[6]));
	assert_file(f->s, "set_ftrace_notrace_pid", "200\n");
	/* so does a thread of the session (its buffer), listed by the user */
	snprintf(path, sizeof(path), "%s/buf.%d.%d.1", f->dir, (int)dead, (int)dead);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(want, sizeof(want), "%d", (int)dead);
	assert_int_equal(wr(f->s, "set_ftrace_notrace_pid", O_APPEND, want), 0);
	assert_file(f->s, "set_ftrace_notrace_pid", "200\n");
	free(rd(f->s, "trace", NULL));
	/* (the user's append to the notrace list made its views follow it again: no k[3]) */
	snprintf(want, sizeof(want), "%s %d !200 !%d", strchr(ids_text(3, 100, k[1], k[6]), '1'),
		 (int)k[2], (int)dead);
	for (char *nl; (nl = strchr(want, '\n'));)
		*nl = ' ';
	{
		/* "100 A B  K2 ..." from the lines: one blank */
		char *dbl = strstr(want, "  ");

		memmove(dbl, dbl + 1, strlen(dbl));
	}
	assert_string_equal(last_pids, want);
	/* ids that named no thread of the programs stay (100, 200...) */
	assert_int_equal(c->nr_rec_pids, 3);
	/* the user's write: the views follow the list again */
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, "100"), 0);
	free(rd(f->s, "trace", NULL));
	snprintf(want, sizeof(want), "100 !200 !%d", (int)dead);
	assert_string_equal(last_pids, want);
	/* an instance follows by its own options */
	assert_int_equal(tfs_mkdir(f->s, "instances/fk"), 0);
	assert_int_equal(wr(f->s, "instances/fk/set_ftrace_pid", O_TRUNC, "100"), 0);
	fork_log(c, 100, 100, k[0]);
	assert_file(f->s, "instances/fk/set_ftrace_pid", "100\n");
	assert_file(f->s, "set_ftrace_pid", ids_text(2, 100, k[0]));
	assert_int_equal(wr(f->s, "instances/fk/options/function-fork", O_TRUNC, "1"), 0);
	fork_log(c, 100, 100, k[5]);
	assert_file(f->s, "instances/fk/set_ftrace_pid", ids_text(2, 100, k[5]));
	assert_int_equal(tfs_rmdir(f->s, "instances/fk"), 0);
	/* off again: the programs tell no more forks */
	assert_int_equal(wr(f->s, "options/function-fork", O_TRUNC, "0"), 0);
	assert_int_equal(wr(f->s, "options/event-fork", O_TRUNC, "0"), 0);
	assert_int_equal(c->nr_follow, 0);
	unlink(path);
	assert_int_equal(wr(f->s, "set_ftrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(wr(f->s, "set_ftrace_notrace_pid", O_TRUNC, ""), 0);
	assert_int_equal(wr(f->s, "set_event_pid", O_TRUNC, ""), 0);
	for (int i = 0; i < 8; i++)
		if (i != 2 && i != 3) {
			kill(k[i], SIGKILL);
			waitpid(k[i], NULL, 0);
		}
}

/* set_event: the kernel's syntax, the registry's bits, the handshake */
static void test_set_event(void **state)
{
	struct fix *f = *state;
	struct ut_event_desc other = ev_request, v2 = ev_response;
	uint32_t gen;

	/* no event yet: nothing to select, as the kernel's with none */
	assert_file(f->s, "events/enable", "?\n");
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "myapp:request\n"), -EINVAL);
	assert_int_equal(wr(f->s, "events/enable", O_TRUNC, "1\n"), -EINVAL);
	reg_events(f);
	assert_file(f->s, "available_events", "myapp:request\nmyapp:response\n");
	assert_file(f->s, "set_event", "");
	gen = f->ctl->gen;
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "myapp:request\n"), 0);
	assert_file(f->s, "set_event", "myapp:request\n");
	assert_true(slot_on(f, 0) && !slot_on(f, 1));
	/* the write returned after the programs applied it */
	assert_int_not_equal(f->ctl->gen, gen);
	assert_true(f->ctl->procs[0].gen == f->ctl->gen);
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "!myapp:request\n"), 0);
	assert_file(f->s, "set_event", "");
	assert_true(!slot_on(f, 0) && !slot_on(f, 1));
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "myapp:*"), 0);
	assert_file(f->s, "set_event", "myapp:request\nmyapp:response\n");
	assert_true(slot_on(f, 0) && slot_on(f, 1));
	/* '>' disables all first; a bare word is an event's or a system's name */
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "response"), 0);
	assert_file(f->s, "set_event", "myapp:response\n");
	assert_true(!slot_on(f, 0) && slot_on(f, 1));
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "myapp"), 0);
	assert_file(f->s, "set_event", "myapp:request\nmyapp:response\n");
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, ":request"), 0);
	assert_file(f->s, "set_event", "myapp:request\n");
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "*:*"), 0);
	assert_file(f->s, "set_event", "myapp:request\nmyapp:response\n");
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "!*:response"), 0);
	assert_file(f->s, "set_event", "myapp:request\n");
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "!myapp:"), 0);
	assert_file(f->s, "set_event", "");
	/* several words in one write */
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "  request\tmyapp:response \n"), 0);
	assert_file(f->s, "set_event", "myapp:request\nmyapp:response\n");
	/* whole names, no globs; refused words leave the set, and error_log, as they were */
	static const char *const bad[] = {
		"nosuch:x", "nosuch", "myapp:req", "myapp:req*", "my*:request", "*", "!nosuch",
		"ftrace:print", "myapp:request:x", "!",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wr(f->s, "set_event", O_APPEND, bad[i]), -EINVAL);
	assert_file(f->s, "set_event", "myapp:request\nmyapp:response\n");
	assert_file(f->s, "error_log", "");
	/* the words before a refused one are taken, and applied */
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "myapp:request nosuch myapp:response"),
			 -EINVAL);
	assert_file(f->s, "set_event", "myapp:request\n");
	assert_true(slot_on(f, 0) && !slot_on(f, 1));
	assert_true(f->ctl->procs[0].gen == f->ctl->gen);
	/* '>' with nothing written, and truncate(2): none */
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, ""), 0);
	assert_file(f->s, "set_event", "");
	assert_false(slot_on(f, 0));
	assert_int_equal(wr(f->s, "set_event", O_APPEND, "myapp"), 0);
	assert_int_equal(tfs_truncate(f->s, "set_event"), 0);
	assert_file(f->s, "set_event", "");
	/* a bare name selects a system and the events of that name */
	other.system = "other";
	assert_int_equal(ut_evreg_register(f->reg, &other), 2);
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "request"), 0);
	assert_file(f->s, "set_event", "myapp:request\nother:request\n");
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "other"), 0);
	assert_file(f->s, "set_event", "other:request\n");
	/* another layout of an event (a slot of its own) is listed once, and follows it */
	v2.size = 20;
	assert_int_equal(ut_evreg_register(f->reg, &v2), 3);
	assert_file(f->s, "available_events", "myapp:request\nmyapp:response\nother:request\n");
	assert_int_equal(wr(f->s, "set_event", O_TRUNC, "myapp:response"), 0);
	assert_file(f->s, "set_event", "myapp:response\n");
	assert_true(slot_on(f, 1) && slot_on(f, 3) && !slot_on(f, 0) && !slot_on(f, 2));
	assert_file(f->s, "events/myapp/response/id", "1001\n");
}

/* events/: the programs' systems and events, with the kernel's enable files */
static void test_event_files(void **state)
{
	struct fix *f = *state;
	struct ut_event_desc d = ev_request;
	struct names n = { "" };
	struct tfs_stat st;
	char *text;

	reg_events(f);
	assert_int_equal(tfs_readdir(f->s, "events", fill, &n), 0);
	assert_string_equal(n.all, "enable header_event header_page ftrace/ myapp/ ");
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "events/myapp", fill, &n), 0);
	assert_string_equal(n.all, "enable filter request/ response/ ");
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "events/myapp/request", fill, &n), 0);
	assert_string_equal(n.all, "enable filter format id trigger ");
	assert_int_equal(tfs_stat(f->s, "events/myapp", &st), 0);
	assert_true(st.is_dir && st.mode == 0755);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request", &st), 0);
	assert_true(st.is_dir && st.mode == 0755);
	assert_int_equal(tfs_stat(f->s, "events/myapp/enable", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/enable", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/format", &st), 0);
	assert_int_equal(st.mode, 0440);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/id", &st), 0);
	assert_int_equal(st.mode, 0440);
	assert_int_equal(tfs_stat(f->s, "events/myapp/nosuch", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "events/nosuch", &st), -ENOENT);
	/* filter and trigger, as the kernel's: 0640 */
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/filter", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/trigger", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/myapp/filter", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/ftrace/print/trigger", &st), 0);
	assert_int_equal(st.mode, 0640);
	assert_int_equal(tfs_stat(f->s, "events/ftrace/function/trigger", &st), -ENOENT);
	assert_int_equal(tfs_stat(f->s, "events/myapp/request/format/x", &st), -ENOTDIR);
	/* format and id, the registry's id */
	d.id = 1000;
	text = ut_event_format(&d);
	assert_file(f->s, "events/myapp/request/format", text);
	free(text);
	assert_file(f->s, "events/myapp/request/id", "1000\n");
	assert_int_equal(wr(f->s, "events/myapp/request/id", O_TRUNC, "1"), -EINVAL);
	/* enable: 0, 1, X */
	assert_file(f->s, "events/enable", "0\n");
	assert_file(f->s, "events/myapp/enable", "0\n");
	assert_file(f->s, "events/myapp/request/enable", "0\n");
	assert_int_equal(wr(f->s, "events/myapp/request/enable", O_TRUNC, "1\n"), 0);
	assert_file(f->s, "events/myapp/request/enable", "1\n");
	assert_file(f->s, "events/myapp/response/enable", "0\n");
	assert_file(f->s, "events/myapp/enable", "X\n");
	assert_file(f->s, "events/enable", "X\n");
	assert_file(f->s, "set_event", "myapp:request\n");
	assert_true(slot_on(f, 0) && !slot_on(f, 1));
	assert_true(f->ctl->procs[0].gen == f->ctl->gen);
	/* as the kernel's: 0 or 1 only, and nothing in error_log */
	static const char *const bad[] = { "2", "x", "", "-1", "1 1", "01x" };
	static const char *const files[] = {
		"events/enable", "events/myapp/enable", "events/myapp/request/enable",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++)
			assert_int_equal(wr(f->s, files[k], O_TRUNC, bad[i]), -EINVAL);
	assert_file(f->s, "error_log", "");
	assert_file(f->s, "events/myapp/enable", "X\n");
	assert_int_equal(wr(f->s, "events/myapp/enable", O_TRUNC, "1"), 0);
	assert_file(f->s, "events/myapp/enable", "1\n");
	assert_file(f->s, "events/enable", "1\n");
	assert_true(slot_on(f, 0) && slot_on(f, 1));
	assert_int_equal(wr(f->s, "events/enable", O_TRUNC, "0\n"), 0);
	assert_file(f->s, "events/myapp/enable", "0\n");
	assert_false(slot_on(f, 0) || slot_on(f, 1));
	assert_int_equal(wr(f->s, "events/myapp/response/enable", O_TRUNC, "+1\n"), 0);
	assert_file(f->s, "set_event", "myapp:response\n");
}

/* each directory its own set; the programs record the union, and for whom is on */
static void test_event_instances(void **state)
{
	struct fix *f = *state;
	struct names n = { "" };

	reg_events(f);
	assert_int_equal(tfs_mkdir(f->s, "instances/a"), 0);
	assert_int_equal(tfs_readdir(f->s, "instances/a/events", fill, &n), 0);
	assert_string_equal(n.all, "enable header_event header_page ftrace/ myapp/ ");
	assert_file(f->s, "instances/a/events/enable", "0\n");
	assert_int_equal(wr(f->s, "instances/a/set_event", O_TRUNC, "myapp:response"), 0);
	assert_file(f->s, "instances/a/set_event", "myapp:response\n");
	assert_file(f->s, "instances/a/events/myapp/enable", "X\n");
	assert_file(f->s, "set_event", "");
	assert_file(f->s, "events/enable", "0\n");
	assert_true(!slot_on(f, 0) && slot_on(f, 1));
	/* its pump takes its events; the top's views drop what it did not enable */
	free(rd(f->s, "instances/a/trace", NULL));
	assert_int_equal(last_pump->ev_on[0], 2);
	assert_int_equal(last_pump->last_on, 1);
	free(rd(f->s, "trace", NULL));
	assert_true(last_have_ev);
	assert_int_equal(last_ev_on0, 0);
	assert_int_equal(wr(f->s, "events/myapp/request/enable", O_TRUNC, "1"), 0);
	assert_true(slot_on(f, 0) && slot_on(f, 1));
	free(rd(f->s, "trace", NULL));
	assert_int_equal(last_ev_on0, 1);
	free(rd(f->s, "instances/a/trace", NULL));
	assert_int_equal(last_pump->ev_on[0], 2);
	/* the top off: the instance's events keep the programs recording */
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0"), 0);
	assert_int_equal(f->ctl->tracing_on, 1);
	assert_int_equal(wr(f->s, "instances/a/events/enable", O_TRUNC, "0"), 0);
	assert_int_equal(f->ctl->tracing_on, 0);
	assert_false(slot_on(f, 1));
	assert_true(slot_on(f, 0));
	assert_int_equal(wr(f->s, "instances/a/set_event", O_APPEND, "response"), 0);
	assert_int_equal(f->ctl->tracing_on, 1);
	/* the instance goes: so do its events, and the recording */
	assert_int_equal(tfs_rmdir(f->s, "instances/a"), 0);
	assert_false(slot_on(f, 1));
	assert_true(slot_on(f, 0));
	assert_int_equal(f->ctl->tracing_on, 0);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "1"), 0);
	/* cleared: the top's buffers hold only what it enabled, its views drop nothing */
	free(rd(f->s, "trace", NULL));
	assert_true(last_have_ev);
	assert_int_equal(wr(f->s, "trace", O_TRUNC, ""), 0);
	free(rd(f->s, "trace", NULL));
	assert_false(last_have_ev);
}

static void test_trace_pipe(void **state)
{
	struct fix *f = *state;
	struct tfs_handle *h;
	char buf[64];

	assert_int_equal(tfs_open(f->s, "trace_pipe", O_RDONLY, &h), 0);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), 5);
	assert_memory_equal(buf, "line\n", 5);
	tfs_interrupt(h);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), -EINTR);
	tfs_session_ended(f->s);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), 0);
	tfs_release(h);
}

/* O_NONBLOCK: the line there is, then EAGAIN, as the kernel's trace_pipe */
static void test_trace_pipe_nonblock(void **state)
{
	struct fix *f = *state;
	struct tfs_handle *h;
	char buf[64];

	assert_int_equal(tfs_open(f->s, "trace_pipe", O_RDONLY | O_NONBLOCK, &h), 0);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), 5);
	assert_memory_equal(buf, "line\n", 5);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), -EAGAIN);
	assert_int_equal(tfs_read(h, buf, sizeof(buf), 0), -EAGAIN);
	tfs_release(h);
}

static void test_snapshot_marker(void **state)
{
	struct fix *f = *state;
	char *t;

	t = rd(f->s, "snapshot", NULL);
	assert_non_null(strstr(t, "# * Snapshot is freed *\n"));
	assert_non_null(strstr(t, "# echo 1 > snapshot : Allocates snapshot buffer"));
	free(t);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
	assert_int_equal(snapshots, 1);
	/* read: the copy's directory, in the format of now; no event: the help */
	t = rd(f->s, "snapshot", NULL);
	assert_non_null(strstr(t, "#\n#\n# * Snapshot is allocated *\n#\n# Snapshot commands:\n"));
	free(t);
	assert_non_null(strstr(last_bufdir, "/snap"));
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
	assert_int_equal(snapshots, 1);
	/* 2: the contents go, the buffer stays allocated */
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "2\n"), 0);
	assert_int_equal(snapshots, 0);
	t = rd(f->s, "snapshot", NULL);
	assert_non_null(strstr(t, "# * Snapshot is allocated *\n"));
	free(t);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
	/* a new clock empties it, as the kernel */
	assert_int_equal(wr(f->s, "trace_clock", O_TRUNC, "mono\n"), 0);
	assert_int_equal(snapshots, 0);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "0\n"), 0);
	assert_int_equal(snapshots, 0);
	t = rd(f->s, "snapshot", NULL);
	assert_non_null(strstr(t, "# * Snapshot is freed *\n"));
	free(t);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "x\n"), -EINVAL);
	/* the marker, as written, to the directory's ring */
	assert_int_equal(wr(f->s, "trace_marker", O_TRUNC, "hello world\n"), 0);
	assert_int_equal(last_marker_len, 12);
	assert_memory_equal(last_marker, "hello world\n", 12);
	/* the markers option off refuses it */
	assert_int_equal(wr(f->s, "options/markers", O_TRUNC, "0"), 0);
	assert_int_equal(wr(f->s, "trace_marker", O_TRUNC, "no"), -EINVAL);
}

static void test_ack_timeout(void **state)
{
	struct fix *f = *state;
	char *log;

	f->ack_on = 0;
	assert_int_equal(wr(f->s, "max_graph_depth", O_TRUNC, "3"), 0);
	log = rd(f->s, "error_log", NULL);
	assert_non_null(strstr(log, "tracing: error: Timed out"));
	free(log);
}

/* ---- the tracer hooks (output/tracer.h), with tracers of the test's own ---- */

static int hook_inits, hook_resets, hook_starts, hook_stops;

/* a tracer that cannot run: its init refuses */
static int refuse_init(struct trace_array *tr)
{
	(void)tr;
	hook_inits++;
	return -EINVAL;
}

static const struct tracer refusing_tracer = {
	.name	= "test_refuse",
	.init	= refuse_init,
};

static int counted_init(struct trace_array *tr)
{
	hook_inits++;
	tr->priv = &hook_inits;
	return 0;
}

static void counted_reset(struct trace_array *tr)
{
	assert_ptr_equal(tr->priv, &hook_inits);
	hook_resets++;
}

static void counted_start(struct trace_array *tr)
{
	(void)tr;
	hook_starts++;
}

static void counted_stop(struct trace_array *tr)
{
	(void)tr;
	hook_stops++;
}

static const struct tracer counted_tracer = {
	.name	= "test_hooks",
	.init	= counted_init,
	.reset	= counted_reset,
	.start	= counted_start,
	.stop	= counted_stop,
};

static void test_tracer_hooks(void **state)
{
	struct fix *f = *state;
	char *log;
	int ret;

	/* registered for the rest of the process: this test runs last */
	ret = register_tracer(&refusing_tracer);
	assert_true(ret == 0 || ret == -EEXIST);
	ret = register_tracer(&counted_tracer);
	assert_true(ret == 0 || ret == -EEXIST);
	assert_int_equal(register_tracer(&counted_tracer), -EEXIST);
	assert_file(f->s, "available_tracers", "function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace nop test_refuse test_hooks\n");
	hook_inits = hook_resets = hook_starts = hook_stops = 0;

	/*
	 * As the kernel's tracing_set_tracer(): the old tracer is reset, and
	 * an init that refuses fails the write with its errno, the directory
	 * left with nop; error_log says so.
	 */
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "function\n"), 0);
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_FUNC);
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "test_refuse\n"), -EINVAL);
	assert_int_equal(hook_inits, 1);
	assert_file(f->s, "current_tracer", "nop\n");
	assert_int_equal(ctl_mode(f->ctl), UT_MODE_NONE);
	log = rd(f->s, "error_log", NULL);
	assert_non_null(log);
	assert_non_null(strstr(log, "] tracing: error: The tracer failed to initialize\n"
				    "  Command: test_refuse\n"));
	free(log);

	/* init at the switch, stop and start with tracing_on, reset when it goes */
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "test_hooks\n"), 0);
	assert_int_equal(hook_inits, 2);
	assert_file(f->s, "current_tracer", "test_hooks\n");
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0\n"), 0);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "0\n"), 0);
	assert_int_equal(hook_stops, 1);
	assert_int_equal(wr(f->s, "tracing_on", O_TRUNC, "1\n"), 0);
	assert_int_equal(hook_starts, 1);
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "nop\n"), 0);
	assert_int_equal(hook_resets, 1);

	/* an instance has its own: removing it resets its tracer */
	assert_int_equal(tfs_mkdir(f->s, "instances/hk"), 0);
	assert_int_equal(wr(f->s, "instances/hk/current_tracer", O_TRUNC, "test_hooks\n"), 0);
	assert_int_equal(hook_inits, 3);
	assert_file(f->s, "current_tracer", "nop\n");
	assert_int_equal(tfs_rmdir(f->s, "instances/hk"), 0);
	assert_int_equal(hook_resets, 2);
}

/*
 * A test-only latency tracer: its runtime part would call
 * ut_update_max_tr(); here the test stores the control page's max record
 * as runtime/max.c does.
 */
static const struct tracer maxlat_tracer = {
	.name		= "test_maxlat",
	.use_max_tr	= 1,
	.print_max	= 1,
};

static void test_max_latency(void **state)
{
	struct fix *f = *state;
	char want[4200], *log;
	int ret;

	ret = register_tracer(&maxlat_tracer);
	assert_true(ret == 0 || ret == -EEXIST);
	/* the programs' maximum, clock units (CLOCK_MONOTONIC ns here), read in us */
	assert_file(f->s, "tracing_max_latency", "0\n");
	f->ctl->max_latency = 1234999;
	assert_file(f->s, "tracing_max_latency", "1234\n");
	/* a write is the new floor, in us, and forgets the record */
	f->ctl->max_rec.latency = 1234999;
	f->ctl->max_rec.swapped = 1;
	assert_int_equal(wr(f->s, "tracing_max_latency", O_TRUNC, "7\n"), 0);
	assert_int_equal(f->ctl->max_latency, 7000);
	assert_int_equal(f->ctl->max_rec.latency, 0);
	assert_int_equal(f->ctl->max_lock, 0);
	assert_file(f->s, "tracing_max_latency", "7\n");
	/* as the kernel's tracing_nsecs_write(): EINVAL, ERANGE, no error_log line */
	assert_int_equal(wr(f->s, "tracing_max_latency", O_TRUNC, "abc\n"), -EINVAL);
	assert_int_equal(wr(f->s, "tracing_max_latency", O_TRUNC, "-1\n"), -EINVAL);
	assert_int_equal(wr(f->s, "tracing_max_latency", O_TRUNC, "99999999999999999999999\n"),
			 -ERANGE);
	assert_file(f->s, "tracing_max_latency", "7\n");
	log = rd(f->s, "error_log", NULL);
	assert_string_equal(log, "");
	free(log);

	/* a tracer without max buffers: snapshot and trace are the usual ones */
	assert_file(f->s, "trace", "# tracer: nop\n#\n");
	assert_string_equal(last_bufdir, "");
	assert_int_equal(last_lat.tid, -1);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "0\n"), 0);

	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "test_maxlat\n"), 0);
	/* use_max_tr: the tracer owns the snapshot buffer */
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), -EBUSY);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "0\n"), -EBUSY);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "x\n"), -EINVAL);
	/* no maximum yet: the max buffers of no thread; empty, so the help, allocated */
	snprintf(want, sizeof(want), "%s/max", f->dir);
	log = rd(f->s, "snapshot", NULL);
	assert_non_null(log);
	{
		static const char pre[] = "# tracer: test_maxlat\n#\n#\n# * Snapshot is allocated *\n#\n"
					  "# Snapshot commands:\n";

		assert_true(!strncmp(log, pre, strlen(pre)));
	}
	free(log);
	assert_string_equal(last_bufdir, want);
	assert_string_equal(last_pids, "0");
	/* a maximum with its trace: that thread's max buffer, in snapshot and trace */
	f->ctl->max_rec.latency = 5000;
	f->ctl->max_rec.tid = 4321;
	f->ctl->max_rec.pid = 4320;
	f->ctl->max_rec.cpu = 3;
	f->ctl->max_rec.start_ip = 0x1234;
	f->ctl->max_rec.end_ip = 0x5678;
	f->ctl->max_rec.image = 99;
	strcpy(f->ctl->max_rec.comm, "worker");
	f->ctl->max_rec.swapped = 1;
	live_text = "# tracer: test_maxlat\n#\n  worker-4321 [003] ..... 1.000000: main <-0\n";
	assert_file(f->s, "snapshot", live_text);
	assert_string_equal(last_bufdir, want);
	assert_string_equal(last_pids, "4321");
	/* the latency header's maximum */
	assert_int_equal(last_lat.latency_ns, 5000);
	assert_int_equal(last_lat.tid, 4321);
	assert_int_equal(last_lat.pid, 4320);
	assert_int_equal(last_lat.cpu, 3);
	assert_int_equal(last_lat.start_ip, 0x1234);
	assert_int_equal(last_lat.end_ip, 0x5678);
	assert_int_equal(last_lat.image, 99);
	assert_int_equal(last_lat.time_start, 0);
	assert_string_equal(last_lat.comm, "worker");
	last_bufdir[0] = 0;
	assert_file(f->s, "trace", live_text);
	live_text = NULL;
	assert_string_equal(last_bufdir, want);
	assert_string_equal(last_pids, "4321");
	/* a maximum kept without its trace (record mode): nothing to show */
	f->ctl->max_rec.swapped = 0;
	assert_file(f->s, "trace", "# tracer: test_maxlat\n#\n");
	assert_string_equal(last_pids, "0");
	/* back to nop: snapshot is the usual one again */
	assert_int_equal(wr(f->s, "current_tracer", O_TRUNC, "nop\n"), 0);
	assert_int_equal(wr(f->s, "snapshot", O_TRUNC, "1\n"), 0);
}

/* ---- trace_stat/ with stat tracers of the test's own (output/stat.h) ---- */

struct hit {
	const char *name;
	unsigned long hits;
};

static struct hit hits[] = {
	{ "parse", 3 }, { "run", 10 }, { "main", 1 }, { "log", 3 }, { "idle", 10 },
};
static int hit_releases;

static void *hit_start(struct tracer_stat *trace, const char *dir)
{
	(void)trace;
	assert_non_null(dir);
	return &hits[0];
}

static void *hit_next(void *prev, int idx)
{
	assert_ptr_equal(prev, &hits[idx - 1]);
	return idx < (int)(sizeof(hits) / sizeof(hits[0])) ? &hits[idx] : NULL;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	return x->hits > y->hits ? 1 : x->hits < y->hits ? -1 : 0;
}

static int hit_show(FILE *m, void *p)
{
	const struct hit *h = p;

	fprintf(m, "  %-10s %8lu\n", h->name, h->hits);
	return 0;
}

static int hit_headers(FILE *m)
{
	fputs("  Function        Hit\n  --------        ---\n", m);
	return 0;
}

static void hit_release(void *stat)
{
	(void)stat;
	hit_releases++;
}

static struct tracer_stat hit_stat = {
	.name = "test_hits", .stat_start = hit_start, .stat_next = hit_next, .stat_cmp = hit_cmp,
	.stat_show = hit_show, .stat_release = hit_release, .stat_headers = hit_headers,
};
/* no stat_cmp: in stat_next's order; no headers */
static struct tracer_stat order_stat = {
	.name = "test_order", .stat_start = hit_start, .stat_next = hit_next, .stat_show = hit_show,
};

static void *none_start(struct tracer_stat *trace, const char *dir)
{
	(void)trace;
	(void)dir;
	return NULL;
}

static struct tracer_stat empty_stat = {
	.name = "test_empty", .stat_start = none_start, .stat_next = hit_next,
	.stat_show = hit_show, .stat_headers = hit_headers,
};

static void test_trace_stat(void **state)
{
	struct fix *f = *state;
	struct names n = { "" };
	struct tracer_stat bad = { .name = "a/b", .stat_start = hit_start, .stat_next = hit_next,
				   .stat_show = hit_show };
	int err;

	struct tracer_stat *builtin[TRACE_STAT_MAX], *t;
	unsigned nr_builtin = 0;

	/* the tracers' own (branch_annotated...) out of the way for this test */
	while ((t = stat_tracer_at(0))) {
		builtin[nr_builtin++] = t;
		unregister_stat_tracer(t);
	}
	/* as this machine's kernel: no stat tracer, no trace_stat/ */
	assert_int_equal(tfs_readdir(f->s, "", fill, &n), 0);
	assert_null(strstr(n.all, "trace_stat"));
	assert_null(rd(f->s, "trace_stat/test_hits", &err));
	assert_int_equal(err, -ENOENT);

	assert_int_equal(register_stat_tracer(&hit_stat), 0);
	assert_int_equal(register_stat_tracer(&order_stat), 0);
	assert_int_equal(register_stat_tracer(&empty_stat), 0);
	assert_int_equal(register_stat_tracer(&hit_stat), -EEXIST);
	assert_int_equal(register_stat_tracer(&bad), -EINVAL);
	bad.name = "";
	assert_int_equal(register_stat_tracer(&bad), -EINVAL);
	bad.name = "noshow";
	bad.stat_show = NULL;
	assert_int_equal(register_stat_tracer(&bad), -EINVAL);

	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "", fill, &n), 0);
	assert_non_null(strstr(n.all, " trace_stat/ "));
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "trace_stat", fill, &n), 0);
	assert_string_equal(n.all, "test_hits test_order test_empty ");
	/* largest first; of equal ones the later first, as the kernel's rbtree */
	hit_releases = 0;
	assert_file(f->s, "trace_stat/test_hits",
		    "  Function        Hit\n"
		    "  --------        ---\n"
		    "  idle             10\n"
		    "  run              10\n"
		    "  log               3\n"
		    "  parse             3\n"
		    "  main              1\n");
	assert_int_equal(hit_releases, 5);
	assert_file(f->s, "trace_stat/test_order",
		    "  parse             3\n"
		    "  run              10\n"
		    "  main              1\n"
		    "  log               3\n"
		    "  idle             10\n");
	/* the headers even with no entry */
	assert_file(f->s, "trace_stat/test_empty", "  Function        Hit\n  --------        ---\n");
	/* read-only; no other name; none in an instance (the kernel's are top-only) */
	assert_int_equal(wr(f->s, "trace_stat/test_hits", O_TRUNC, "1\n"), -EINVAL);
	assert_null(rd(f->s, "trace_stat/nothing", &err));
	assert_int_equal(err, -ENOENT);
	assert_null(rd(f->s, "trace_stat/test_hits/x", &err));
	assert_int_equal(err, -ENOTDIR);
	assert_int_equal(tfs_mkdir(f->s, "instances/st"), 0);
	assert_null(rd(f->s, "instances/st/trace_stat/test_hits", &err));
	assert_int_equal(err, -ENOENT);

	unregister_stat_tracer(&empty_stat);
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "trace_stat", fill, &n), 0);
	assert_string_equal(n.all, "test_hits test_order ");
	unregister_stat_tracer(&order_stat);
	unregister_stat_tracer(&hit_stat);
	memset(&n, 0, sizeof(n));
	assert_int_equal(tfs_readdir(f->s, "", fill, &n), 0);
	assert_null(strstr(n.all, "trace_stat"));
	for (unsigned i = 0; i < nr_builtin; i++)
		assert_int_equal(register_stat_tracer(builtin[i]), 0);
	/* usertrace's own: with no statistics file, their headers alone */
	assert_file(f->s, "trace_stat/workqueue",
		    "# CPU  INSERTED  EXECUTED   NAME\n"
		    "# |      |         |          |\n");
	assert_file(f->s, "trace_stat/kmem",
		    "#     HITS  FAILED    BYTES_ALLOC      BYTES_REQ  ALLOC/HIT    REQ/HIT   FRAG%"
		    "     FREES  LIVE_BLOCKS     LIVE_BYTES  CALL_SITE\n"
		    "#        |       |              |              |          |          |       |"
		    "         |            |              |  |\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_available_tracers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_current_tracer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracing_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_nomatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errnos, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rec_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inst_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readdir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_functions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_event_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notrace_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_pipe_nonblock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ack_timeout, setup, teardown),
		/* last: they register tracers (available_tracers lists them) */
		cmocka_unit_test_setup_teardown(test_tracer_hooks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_stat, setup, teardown),
	};

	setenv("USERTRACE_HW_BRANCH", "off", 1);	/* the same lists on every machine */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
