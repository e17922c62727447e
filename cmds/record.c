// SPDX-License-Identifier: MIT
/*
 * record.c - usertrace record: run a program with the runtime and save
 * its trace.
 *
 *   usertrace record [-o DIR] [-b SIZE] [-t TRACER] [--overwrite]
 *                    [-F PATTERN]... [-N PATTERN]... -- PROG ARGS
 *
 * The recorder makes a private session directory on /dev/shm, starts PROG
 * with LD_PRELOAD=libusertrace.so, and drains every thread's ring buffer
 * into DIR while PROG runs.  It becomes a child subreaper, so that forked
 * and daemonised descendants stay its children: the recording ends when
 * the last of them has exited, and then whatever is left in the buffers
 * (also of processes killed by SIGKILL) is saved.  PROG's stdin, stdout and
 * stderr are its own: the recorder writes nothing to them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "cmds/record.h"
#include "cmds/session.h"
#include "lib/trace/tracer.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "utils/symtab.h"
#include "utils/utils.h"

#define DEFAULT_BUF_SIZE	(8u << 20)
#define DRAIN_INTERVAL_MS	20

struct buffer {
	char name[256];
	struct rb_reader r;
	int out;		/* the .dat file */
	uint64_t next;		/* next page to save */
	int final;		/* no writer any more: save everything and close */
	struct buffer *next_buf;
};

static volatile sig_atomic_t child_pid;
static struct ut_session_ctl *volatile sig_ctl;

/* a child changed state: stop sleeping now, not at the next drain */
static void child_signal(int sig)
{
	struct ut_session_ctl *ctl = sig_ctl;

	(void)sig;
	if (ctl) {
		__atomic_add_fetch(&ctl->wake, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &ctl->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int prepare_output(const char *dir)
{
	char info[PATH_MAX], old[PATH_MAX];
	struct stat st;

	if (stat(dir, &st) == 0) {
		snprintf(info, sizeof(info), "%s/info", dir);
		if (!S_ISDIR(st.st_mode) || access(info, F_OK) != 0) {
			DIR *d = opendir(dir);
			int entries = 0;
			struct dirent *de;

			while (d && (de = readdir(d)))
				entries += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
			if (d)
				closedir(d);
			if (!S_ISDIR(st.st_mode) || entries) {
				pr_err("%s exists and is not a usertrace data directory; not overwriting it", dir);
				return -1;
			}
		} else {
			/* keep the previous recording once, as DIR.old */
			snprintf(old, sizeof(old), "%s.old", dir);
			remove_tree(old);
			if (rename(dir, old) < 0) {
				pr_err("cannot rename %s to %s: %s", dir, old, strerror(errno));
				return -1;
			}
		}
	}
	if (mkdir_p(dir, 0755) < 0) {
		pr_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

#define STAGE_PAGES	64	/* pages per write(): fewer system calls while the program runs */

static int stage_flush(struct buffer *b, unsigned char *stage, size_t *n)
{
	size_t len = *n * RB_PAGE_SIZE, done = 0;

	while (done < len) {
		ssize_t w = write(b->out, stage + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			pr_err("writing %s: %s", b->name, w < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += (size_t)w;
	}
	*n = 0;
	return 0;
}

/* save the pages [b->next, upto) and, if final, the partial head page */
static int drain_buffer(struct buffer *b, int final)
{
	static unsigned char stage[STAGE_PAGES * RB_PAGE_SIZE];
	struct rb_header *h = b->r.hdr;
	unsigned char page[RB_PAGE_SIZE];
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	uint64_t upto = final ? head + 1 : head;
	size_t staged = 0;

	if (h->mode == RB_MODE_OVERWRITE) {
		/* a flight recorder is read once, when it is over */
		if (!final)
			return 0;
		if (head + 1 > h->nr_pages && b->next < head + 1 - h->nr_pages)
			b->next = head + 1 - h->nr_pages;
	}
	while (b->next < upto) {
		unsigned char *dst = stage + staged * RB_PAGE_SIZE;
		int n = rb_copy_page(h, b->next, dst);

		if (n >= 0 && (n > 0 || b->next != head)) {
			memset(dst + RB_PAGE_HDR + n, 0, RB_PAGE_SIZE - RB_PAGE_HDR - (size_t)n);
			h->read_entries += ((struct rb_page *)dst)->entries;
			if (++staged == STAGE_PAGES && stage_flush(b, stage, &staged))
				return -1;
		} else if (n >= 0) {
			h->read_entries += ((struct rb_page *)dst)->entries;
		}
		b->next++;
		/* the copy is ours now: the writer may have the page back */
		if (h->mode == RB_MODE_CONSUMER)
			__atomic_store_n(&h->tail, b->next, __ATOMIC_RELEASE);
	}
	if (staged && stage_flush(b, stage, &staged))
		return -1;
	if (final) {
		/* the header page last: it carries the final accounting */
		memcpy(page, h, sizeof(*h));
		memset(page + sizeof(*h), 0, RB_PAGE_SIZE - sizeof(*h));
		if (pwrite(b->out, page, RB_PAGE_SIZE, 0) != RB_PAGE_SIZE) {
			pr_err("writing %s: %s", b->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

struct recorder {
	const char *session;
	const char *outdir;
	struct ut_session_ctl *ctl;
	struct buffer *bufs;
	int error;
};

/* pick up buffers created since the last scan */
static void scan_buffers(struct recorder *rec)
{
	struct dirent *de;
	DIR *d = opendir(rec->session);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX], out[PATH_MAX];
		struct buffer *b;
		int known = 0;

		if (strncmp(de->d_name, "buf.", 4))
			continue;
		for (b = rec->bufs; b; b = b->next_buf)
			known |= !strcmp(b->name, de->d_name);
		if (known || strlen(de->d_name) >= sizeof(b->name))
			continue;
		b = xcalloc(1, sizeof(*b));
		snprintf(b->name, sizeof(b->name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", rec->session, de->d_name);
		if (rb_open(path, &b->r) < 0) {
			/* still being created: next time */
			free(b);
			continue;
		}
		/* buf.<pid>.<tid>.<image> -> <pid>.<tid>.<image>.dat */
		snprintf(out, sizeof(out), "%s/%s.dat", rec->outdir, de->d_name + 4);
		b->out = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (b->out < 0 || ftruncate(b->out, RB_PAGE_SIZE) < 0 ||
		    lseek(b->out, RB_PAGE_SIZE, SEEK_SET) < 0) {
			pr_err("cannot create %s: %s", out, strerror(errno));
			rec->error = 1;
			rb_close(&b->r);
			if (b->out >= 0)
				close(b->out);
			free(b);
			continue;
		}
		b->next_buf = rec->bufs;
		rec->bufs = b;
	}
	closedir(d);
}

static void drain_all(struct recorder *rec, int final)
{
	for (struct buffer *b = rec->bufs; b; b = b->next_buf) {
		int closed;

		if (b->final)
			continue;
		closed = final || __atomic_load_n(&b->r.hdr->state, __ATOMIC_ACQUIRE) == RB_STATE_CLOSED;
		if (drain_buffer(b, closed) < 0)
			rec->error = 1;
		if (closed) {
			char path[PATH_MAX];

			b->final = 1;
			close(b->out);
			rb_close(&b->r);
			snprintf(path, sizeof(path), "%s/%s", rec->session, b->name);
			unlink(path);
		}
	}
}

static void wait_wake(struct recorder *rec, uint32_t seen)
{
	struct timespec to = { 0, DRAIN_INTERVAL_MS * 1000000L };

	__atomic_store_n(&rec->ctl->sleeping, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rec->ctl->wake, __ATOMIC_ACQUIRE) == seen)
		syscall(SYS_futex, &rec->ctl->wake, FUTEX_WAIT, seen, &to, NULL, 0);
	__atomic_store_n(&rec->ctl->sleeping, 0, __ATOMIC_SEQ_CST);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace record [-o DIR] [-b SIZE] [-t TRACER] [--overwrite] [--drop]\n"
		"                        [-F PAT]... [-N PAT]... [-G PAT]... [--graph-notrace PAT]...\n"
		"                        [-D DEPTH] [--thresh TIME] [-T FUNC:CMD[:N]]...\n"
		"                        -- PROG [ARGS...]\n"
		"\n"
		"  -o, --output DIR     write the trace to DIR (default usertrace.data)\n"
		"  -b, --buffer SIZE    ring buffer per thread, e.g. 512K, 8M (default 8M)\n"
		"  -t, --tracer NAME    function_graph (default), function or nop\n"
		"      --overwrite      flight recorder: keep the last SIZE per thread\n"
		"      --drop           a full buffer drops events and counts them,\n"
		"                       instead of growing (fixed memory)\n"
		"  -F, --filter PAT     trace only matching functions (set_ftrace_filter):\n"
		"                       globs, !PAT removes, PAT:mod:LIB limits to a library\n"
		"  -N, --notrace PAT    never trace matching functions (set_ftrace_notrace)\n"
		"                       (filters select the patched call sites of programs\n"
		"                       built with -fpatchable-function-entry=5 or\n"
		"                       -pg -mfentry -mnop-mcount -mrecord-mcount; other\n"
		"                       builds are filtered in the hooks)\n"
		"  -G, --graph-function PAT\n"
		"                       function_graph: only these functions and their\n"
		"                       callees (set_graph_function)\n"
		"      --graph-notrace PAT\n"
		"                       neither these functions nor their callees\n"
		"  -D, --max-depth N    function_graph: at most N levels (max_graph_depth)\n"
		"      --thresh TIME    function_graph: only calls lasting TIME or more\n"
		"                       (tracing_thresh), e.g. 10us, 2ms; plain = us\n"
		"  -T, --trigger FUNC:CMD[:N]\n"
		"                       function command when FUNC is hit: traceon,\n"
		"                       traceoff or stacktrace, N times (default always);\n"
		"                       !FUNC:CMD removes one given before\n");
}

/* -T: [!]FUNC:COMMAND[:COUNT], as the kernel's set_ftrace_filter takes it */
static int check_command(const char *w)
{
	static const char *const names[] = { "traceon", "traceoff", "stacktrace" };
	const char *c = strchr(w + (w[0] == '!'), ':');
	const char *cnt;
	size_t n;

	if (!c || c == w + (w[0] == '!') || !c[1]) {
		pr_err("-T '%s': expected FUNC:COMMAND[:COUNT]", w);
		return -1;
	}
	c++;
	cnt = strchr(c, ':');
	n = cnt ? (size_t)(cnt - c) : strlen(c);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) != n || strncmp(c, names[i], n))
			continue;
		if (cnt && (!cnt[1] || strspn(cnt + 1, "0123456789") != strlen(cnt + 1))) {
			pr_err("-T '%s': invalid count '%s'", w, cnt + 1);
			return -1;
		}
		return 0;
	}
	pr_err("-T '%s': unknown command '%.*s' (traceon, traceoff, stacktrace)", w, (int)n, c);
	return -1;
}

/* append a -F/-N pattern; the kernel's syntax is checked by the runtime */
static int add_pattern(char *list, size_t size, const char *pat)
{
	size_t len = strlen(list), n = strlen(pat);

	if (!n || strspn(pat, " \t\n,") == n) {
		pr_err("empty filter pattern");
		return -1;
	}
	if (len + n + 2 > size) {
		pr_err("too many filter patterns");
		return -1;
	}
	if (len)
		list[len++] = ' ';
	memcpy(list + len, pat, n + 1);
	return 0;
}

int record_options(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "tracer", required_argument, NULL, 't' },
		{ "overwrite", no_argument, NULL, 'W' },
		{ "drop", no_argument, NULL, 'R' },
		{ "filter", required_argument, NULL, 'F' },
		{ "notrace", required_argument, NULL, 'N' },
		{ "graph-function", required_argument, NULL, 'G' },
		{ "graph-notrace", required_argument, NULL, 'g' },
		{ "max-depth", required_argument, NULL, 'D' },
		{ "thresh", required_argument, NULL, 'H' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long size;
	int c;

	memset(o, 0, sizeof(*o));
	o->outdir = "usertrace.data";
	o->buf_size = DEFAULT_BUF_SIZE;
	o->tracer = &function_graph_tracer;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:b:t:F:N:G:D:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->outdir = optarg;
			break;
		case 'b':
			size = parse_size(optarg);
			if (size < 2 * (long long)RB_PAGE_SIZE || size > (1ll << 34)) {
				pr_err("invalid buffer size '%s' (from 8K to 16G, e.g. 64K, 8M)", optarg);
				return -1;
			}
			o->buf_size = (size_t)size;
			break;
		case 't':
			o->tracer = tracer_find(optarg);
			if (!o->tracer) {
				pr_err("unknown tracer '%s' (available: function_graph function nop)", optarg);
				return -1;
			}
			break;
		case 'W':
			o->overwrite = 1;
			break;
		case 'R':
			o->drop = 1;
			break;
		case 'F':
		case 'N':
		case 'G':
		case 'g':
		case 'T': {
			char *list = c == 'F' ? o->filter : c == 'N' ? o->notrace :
				     c == 'G' ? o->gfunc : c == 'g' ? o->gnotrace : o->cmds;

			if ((c == 'T' && check_command(optarg) < 0) ||
			    add_pattern(list, sizeof(o->filter), optarg) < 0)
				return -1;
			break;
		}
		case 'D': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > 4096) {
				pr_err("invalid depth '%s' (from 0 = no limit to 4096)", optarg);
				return -1;
			}
			o->max_depth = (unsigned int)v;
			break;
		}
		case 'H':
			o->thresh_ns = parse_time(optarg);
			if (o->thresh_ns < 0) {
				pr_err("invalid time '%s' (e.g. 10us, 2ms, 500ns; plain = us)", optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind >= argc) {
		pr_err("no program to run: usertrace record [options] -- PROG [ARGS...]");
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}

static int write_info(const struct record_opts *o, const char *dir, int clock, uint64_t tsc0,
		      uint64_t mono0, uint64_t tsc1, uint64_t mono1, int status)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# usertrace data, see usertrace-data(5)\n");
	fprintf(f, "version=1\ntracer=%s\nclock=%s\n", o->tracer->name,
		clock == UT_CLOCK_TSC ? "tsc" : "mono");
	fprintf(f, "tsc0=%llu\nmono0=%llu\ntsc1=%llu\nmono1=%llu\n", (unsigned long long)tsc0,
		(unsigned long long)mono0, (unsigned long long)tsc1, (unsigned long long)mono1);
	fprintf(f, "nr_cpus=%ld\n", sysconf(_SC_NPROCESSORS_CONF));
	fprintf(f, "buffer_size=%zu\nbuffer_mode=%s\n", o->buf_size,
		o->overwrite ? "overwrite" : "consumer");
	fprintf(f, "exit_status=%d\ncmdline=", status);
	for (char **a = o->argv; *a; a++)
		fprintf(f, "%s%s", a == o->argv ? "" : " ", *a);
	fputc('\n', f);
	return fclose(f);
}

/* tracing_thresh in the clock's units: the TSC's rate is measured here */
static uint64_t thresh_ticks(long long ns, int clock)
{
	uint64_t t0, m0, t1, m1;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	if (ns <= 0)
		return 0;
	if (clock != UT_CLOCK_TSC)
		return (uint64_t)ns;
	ut_calibrate(&t0, &m0);
	nanosleep(&ts, NULL);
	ut_calibrate(&t1, &m1);
	if (m1 <= m0 || t1 <= t0)
		return (uint64_t)ns;
	return (uint64_t)((long double)ns * (t1 - t0) / (m1 - m0)) ?: 1;
}

/* what the runtime could not do (e.g. a filter that matched nothing) */
static void report_session_errors(const char *session)
{
	char path[PATH_MAX], *buf, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/errors", session);
	buf = read_file(path, NULL);
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		pr_err("%s (EINVAL)", line);
	free(buf);
}

/* copy the maps snapshots; the symbol tables are made from them */
static void save_maps(const char *session, const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(session);

	while (d && (de = readdir(d))) {
		char from[PATH_MAX], to[PATH_MAX];

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(from, sizeof(from), "%s/%s", session, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", dir, de->d_name);
		if (ut_copy_file(from, to, 0644) < 0)
			pr_warn("cannot save %s", de->d_name);
	}
	if (d)
		closedir(d);
}

/**
 * record_run - run o->argv under the runtime and save its trace in o->outdir
 * @status: PROG's exit status, as a shell would give it
 *
 * Returns 0, or -1 after a message when nothing could be recorded.
 */
int record_run(const struct record_opts *o, int *status)
{
	char lib[PATH_MAX];
	struct session sess;
	const char *session;
	struct recorder rec = { 0 };
	struct ut_session_ctl *ctl;
	uint64_t tsc0 = 0, mono0 = 0, tsc1 = 0, mono1 = 0;
	int clock = session_default_clock();
	int wstatus = 0, main_status = -1;
	struct sigaction sa = { 0 };
	uint32_t seen;
	pid_t pid;

	if (session_find_runtime(lib, sizeof(lib)) < 0) {
		pr_err("cannot find libusertrace.so (next to the usertrace binary; or set USERTRACE_LIB)");
		return -1;
	}
	if (prepare_output(o->outdir) < 0)
		return -1;
	if (session_create(&sess) < 0)
		return -1;
	session = sess.dir;
	ctl = sess.ctl;
	ctl->rec_mode = (uint32_t)o->tracer->rec_mode;
	ctl->nr_pages = (uint32_t)(o->buf_size / RB_PAGE_SIZE);
	ctl->buf_mode = o->overwrite ? RB_MODE_OVERWRITE : RB_MODE_CONSUMER;
	ctl->clock = (uint32_t)clock;
	ctl->tracing_on = 1;
	ctl->max_graph_depth = o->max_depth;
	ctl->tracing_thresh = thresh_ticks(o->thresh_ns, clock);
	/* the lists fit: record_options() bounds them by UT_LIST_MAX */
	strcpy(ctl->filter, o->filter);
	strcpy(ctl->notrace, o->notrace);
	strcpy(ctl->graph_function, o->gfunc);
	strcpy(ctl->graph_notrace, o->gnotrace);
	strcpy(ctl->commands, o->cmds);
	rec.session = session;
	rec.outdir = o->outdir;
	rec.ctl = ctl;

	ut_calibrate(&tsc0, &mono0);
	pid = session_start(&sess, o->argv, lib, NULL);
	if (pid < 0)
		goto fail;
	child_pid = pid;
	/* ^C and friends are for the program; we stop when it does */
	sa.sa_handler = forward_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sig_ctl = ctl;
	sa.sa_handler = child_signal;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	for (;;) {
		pid_t w;

		seen = __atomic_load_n(&ctl->wake, __ATOMIC_ACQUIRE);
		scan_buffers(&rec);
		drain_all(&rec, 0);
		while ((w = waitpid(-1, &wstatus, WNOHANG)) > 0)
			if (w == pid)
				main_status = wstatus;
		if (w < 0 && errno == ECHILD)
			break;
		wait_wake(&rec, seen);
	}
	signal(SIGCHLD, SIG_DFL);
	sig_ctl = NULL;
	scan_buffers(&rec);
	drain_all(&rec, 1);
	/*
	 * The two calibration points are the start and the end of the run;
	 * 2 ms between them already pins the TSC rate to a few parts in 10^5
	 * (clock_gettime's jitter is ~100 ns), better than a duration needs.
	 */
	while (ut_mono_ns() - mono0 < 2000000ull)
		usleep(200);
	ut_calibrate(&tsc1, &mono1);

	if (WIFEXITED(main_status))
		*status = WEXITSTATUS(main_status);
	else if (WIFSIGNALED(main_status))
		*status = 128 + WTERMSIG(main_status);
	else
		*status = 1;
	report_session_errors(session);
	save_maps(session, o->outdir);
	if (write_info(o, o->outdir, clock, tsc0, mono0, tsc1, mono1, *status) < 0) {
		pr_err("cannot write %s/info: %s", o->outdir, strerror(errno));
		rec.error = 1;
	}
	ut_symtab_save(o->outdir);
	while (rec.bufs) {
		struct buffer *b = rec.bufs;

		rec.bufs = b->next_buf;
		free(b);
	}
	session_destroy(&sess);
	return rec.error ? -1 : 0;
fail:
	session_destroy(&sess);
	return -1;
}

int command_record(int argc, char **argv)
{
	struct record_opts o;
	int status = 0;

	if (record_options(argc, argv, &o) < 0)
		return 2;
	if (record_run(&o, &status) < 0)
		return status ? status : 1;
	return status;
}
