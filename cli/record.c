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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/chunk_writer.h"
#include "cli/cmds.h"
#include "recorder/record.h"
#include "recorder/recorder.h"
#include "recorder/sched_source.h"	/* UT_SCHED_SOURCE_ENV: can the kernel's wake-ups be read */
#include "recorder/session.h"
#include "recorder/source.h"
#include "output/hwbranch.h"
#include "output/tracer.h"
#include "usertrace/datfile.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "lib/event/evfilter.h"
#include "lib/event/builtin.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "usertrace/evreg.h"
#include "usertrace/tracers.h"
#include "reader/symtab.h"
#include "reader/statarea.h"
#include "utils/utils.h"

/* -e patterns go to the session's event registry whole */
_Static_assert(sizeof(((struct record_opts *)0)->events) == UT_EVREG_PATTERNS, "-e patterns");
_Static_assert(sizeof(((struct record_opts *)0)->evfilters) == UT_EVREG_FILTERS, "-f filters");

#define DEFAULT_BUF_SIZE	(4u << 20)
#define DEFAULT_ZSTD_LEVEL	1

static void forward_signal(int sig)
{
	int saved = errno;

	if (recorder_child_pid > 0)
		kill(recorder_child_pid, sig);
	errno = saved;
}

/* *kept_old: a previous recording was renamed DIR.old */
static int prepare_output(const char *dir, int *kept_old)
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
			*kept_old = 1;
		}
	}
	if (mkdir_p(dir, 0755) < 0) {
		pr_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}


/* @cmd: "record", or "live" (whose -o is the file the trace is printed to) */
static void usage(FILE *f, const char *cmd)
{
	int live = !strcmp(cmd, "live");

	fprintf(f,
		"usage: usertrace %s %s [-b SIZE] [-t TRACER] [--overwrite] [--drop]\n"
		"       %*s [--buffer-limit SIZE] [--compress none|zstd[:LEVEL]]\n"
		"       %*s [-F PAT]... [-N PAT]... [-G PAT]... [--graph-notrace PAT]...\n"
		"       %*s [-D DEPTH] [--thresh TIME] [-T FUNC:CMD[:N]]...\n"
		"       %*s [-O [no]function-trace] [-O [no]graph-time]\n"
		"       %*s [--stack-trace] [--func-profile] [-e SYS:EVENT [-f FILTER]]...\n"
		"       %*s -- PROG [ARGS...]\n"
		"\n",
		cmd, live ? "[-o FILE]" : "[-o DIR]", (int)strlen(cmd) + 10, "",
		(int)strlen(cmd) + 10, "", (int)strlen(cmd) + 10, "", (int)strlen(cmd) + 10, "",
		(int)strlen(cmd) + 10, "", (int)strlen(cmd) + 10, "");
	if (live)
		fprintf(f,
			"Run PROG like record, then print its trace as replay would.\n"
			"\n"
			"  -o, --output FILE    print the trace to FILE (default stdout)\n");
	else
		fprintf(f, "  -o, --output DIR     write the trace to DIR (default usertrace.data)\n");
	fprintf(f,
		"  -b, --buffer SIZE    ring buffer per thread, e.g. 512K, 8M (default 4M)\n"
		"  -t, --tracer NAME    one of (default " UT_TRACER_DEFAULT "):\n");
	tracer_help(f, "                         ");
	fprintf(f,
		"      --overwrite      flight recorder: keep the last SIZE per thread\n"
		"      --drop           a full buffer drops events and counts them,\n"
		"                       instead of growing (fixed memory)\n"
		"      --buffer-limit SIZE\n"
		"                       memory that full buffers may grow by, all\n"
		"                       threads together (default: a quarter of RAM);\n"
		"                       past it events are dropped and counted\n"
		"      --compress none|zstd[:LEVEL]\n"
		"                       compression of the saved pages (default zstd:1)\n"
		"  -F, --filter PAT     trace only matching functions (set_ftrace_filter):\n"
		"                       globs, !PAT removes, PAT:mod:LIB limits to a library\n"
		"  -N, --notrace PAT    never trace matching functions (set_ftrace_notrace)\n"
		"                       (filters select the patched call sites of programs\n"
		"                       built with -fpatchable-function-entry=5 or -pg\n"
		"                       -mfentry -mnop-mcount -mrecord-mcount -fno-pie\n"
		"                       -no-pie; other builds are filtered in the hooks;\n"
		"                       C++ functions by their ELF, mangled, names)\n"
		"  -G, --graph-function PAT\n"
		"                       function_graph: only these functions and their\n"
		"                       callees (set_graph_function)\n"
		"      --graph-notrace PAT\n"
		"                       neither these functions nor their callees\n"
		"  -D, --max-depth N    function_graph: at most N levels (max_graph_depth)\n"
		"      --thresh TIME    function_graph: only calls lasting TIME or more;\n"
		"                       latency tracers: every section of TIME or more\n"
		"                       (tracing_thresh), e.g. 10us, 2ms; plain = us\n"
		"  -O, --option [no]function-trace\n"
		"                       latency tracers: record the calls inside their\n"
		"                       sections (default) or their marks alone\n"
		"  -O, --option [no]graph-time\n"
		"                       --func-profile: a function's time counts its\n"
		"                       callees' (default) or its own alone\n"
		"      --stack-trace    the max stack tracer: each thread's deepest stack\n"
		"                       and the chain of the process's (report --stack)\n"
		"      --func-profile   the function profiler: hits and times per\n"
		"                       function, CPU and thread (report --profile)\n"
		"  -e, --event SYS:EVENT\n"
		"                       record these events too (set_event's syntax:\n"
		"                       sys:event, sys:*, *:*, a system or an event\n"
		"                       name; globs); the tracer is nop unless -t\n"
		"                       says otherwise\n"
		"  -f, --event-filter FILTER\n"
		"                       record only the events of the -e before it\n"
		"                       that FILTER selects (the kernel's events/*/filter\n"
		"                       syntax: prev_pid == 1 && comm ~ \"ba*\")\n"
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

/* -e: SYS:EVENT, SYS:*, *:*, or a bare system or event name, with globs */
static const char *const wakeup_kernel_events[] = {
	"sched:sched_waking", "sched:sched_switch", NULL
};

/*
 * Can the sched source read the kernel's wake-ups (root, its tracefs
 * source not ruled out by USERTRACE_SCHED_SOURCE=perf, sched_waking's
 * format readable)?
 */
static int kernel_wakeups_readable(void)
{
	const char *src = getenv(UT_SCHED_SOURCE_ENV);

	if (geteuid() != 0 || (src && !strcmp(src, "perf")))
		return 0;
	return access("/sys/kernel/tracing/events/sched/sched_waking/format", R_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events/sched/sched_waking/format", R_OK) == 0;
}

static int check_event(const char *w)
{
	const char *colon = strchr(w, ':');
	size_t n = strlen(w);

	if (!n || strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:*?[]") != n ||
	    (colon && strchr(colon + 1, ':')) || w[0] == ':') {
		pr_err("-e '%s': expected SYSTEM:EVENT, SYSTEM:*, *:* or a system or event name", w);
		return -1;
	}
	return 0;
}

/*
 * -f on built-in events (sched, kmem, signal...): their fields are known
 * before the program runs, so a filter that applies to none of the
 * events its -e selects is an error now, as the kernel refuses it when
 * it is written, not a warning once the program has run.  An -e whose
 * system is a glob may select the program's own events too: those are
 * checked as they register (save_events() says what was left out).
 */
static int check_builtin_filter(const char *pattern, const char *expr)
{
	const char *colon = strchr(pattern, ':');
	size_t syslen = colon ? (size_t)(colon - pattern) : strlen(pattern);
	const struct ut_event_desc *first = NULL;
	struct ut_evfilter *f;
	struct ut_evf_error err, first_err;
	int matched = 0, applies = 0;
	char *text;
	size_t n;

	if (strcspn(pattern, "*?[") < syslen)
		return 0;
	f = xcalloc(1, sizeof(*f));
	for (unsigned i = 0; i < ut_builtin_nr && !applies; i++) {
		const struct ut_event_desc *d = ut_builtin_tps[i]->desc;

		if (!d || !ut_event_match(pattern, d->system, d->name))
			continue;
		matched++;
		if (ut_evfilter_compile(f, expr, d, &err) == 0)
			applies = 1;
		else if (!first) {
			first = d;
			first_err = err;
		}
	}
	free(f);
	if (!matched || applies)
		return 0;
	n = ut_evfilter_show(NULL, 0, expr, &first_err);
	text = xcalloc(1, n + 1);
	ut_evfilter_show(text, n + 1, expr, &first_err);
	while (n && text[n - 1] == '\n')
		text[--n] = 0;
	if (matched == 1)
		pr_err("-f: the filter does not apply to %s:%s (-e '%s'):\n%s", first->system,
		       first->name, pattern, text);
	else
		pr_err("-f: the filter applies to none of the %d events -e '%s' selects; for %s:%s:\n%s",
		       matched, pattern, first->system, first->name, text);
	free(text);
	return -1;
}

/*
 * -f: the filter of the last -e, checked now: its syntax, the common
 * fields, and that each other field is used as one type.  Whether the
 * events have those fields is known when they register; those that do
 * not are not recorded (save_events() says so).
 */
static int add_event_filter(struct record_opts *o, const char *expr)
{
	size_t off = 0, np, ne = strlen(expr) + 1;
	struct ut_evfilter *f;
	struct ut_evf_error err;
	char *text;

	if (!o->last_event) {
		pr_err("-f '%s': no -e before it (-e SYSTEM:EVENT -f FILTER)", expr);
		return -1;
	}
	if (o->last_event_filtered) {
		pr_err("-f '%s': -e '%s' has a filter already", expr, o->last_event);
		return -1;
	}
	if (ne > UT_EVF_TEXT_MAX) {
		pr_err("-f: a filter of %d bytes at most", UT_EVF_TEXT_MAX - 1);
		return -1;
	}
	f = xcalloc(1, sizeof(*f));
	if (ut_evfilter_compile(f, expr, NULL, &err) < 0) {
		size_t n = ut_evfilter_show(NULL, 0, expr, &err);

		text = xcalloc(1, n + 1);
		ut_evfilter_show(text, n + 1, expr, &err);
		while (n && text[n - 1] == '\n')
			text[--n] = 0;
		pr_err("-f: the filter of -e '%s' does not parse:\n%s", o->last_event, text);
		free(text);
		free(f);
		return -1;
	}
	free(f);
	if (check_builtin_filter(o->last_event, expr) < 0)
		return -1;
	while (off < sizeof(o->evfilters) && o->evfilters[off]) {
		off += strlen(o->evfilters + off) + 1;
		off += strlen(o->evfilters + off) + 1;
	}
	np = strlen(o->last_event) + 1;
	if (off + np + ne + 1 > sizeof(o->evfilters)) {
		pr_err("too many event filters");
		return -1;
	}
	memcpy(o->evfilters + off, o->last_event, np);
	memcpy(o->evfilters + off + np, expr, ne);
	o->evfilters[off + np + ne] = 0;
	o->last_event_filtered = 1;
	return 0;
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

/* --compress=none|zstd[:LEVEL] */
static int parse_compress(const char *arg, struct record_opts *o)
{
	char *end;
	long v;

	if (!strcmp(arg, "none")) {
		o->compress = UT_COMPRESS_NONE;
		return 0;
	}
	if (strncmp(arg, "zstd", 4) || (arg[4] && arg[4] != ':'))
		goto bad;
	o->compress = UT_COMPRESS_ZSTD;
	o->level = DEFAULT_ZSTD_LEVEL;
	if (!arg[4])
		return 0;
	errno = 0;
	v = strtol(arg + 5, &end, 10);
	if (errno || end == arg + 5 || *end || v < ZSTD_minCLevel() || v > ZSTD_maxCLevel() || !v) {
		pr_err("invalid zstd level in '%s' (%d to %d, not 0)", arg, ZSTD_minCLevel(),
		       ZSTD_maxCLevel());
		return -1;
	}
	o->level = (int)v;
	return 0;
bad:
	pr_err("invalid compression '%s' (none, zstd or zstd:LEVEL)", arg);
	return -1;
}

/*
 * How much memory full buffers may grow by, all threads together: a
 * quarter of the machine's memory.  record_run() lowers it to what the
 * session's tmpfs has room for.
 */
static uint64_t default_grow_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 4ull << 30;
	char path[PATH_MAX], *cg, *max;

	/* a cgroup (v2) with less memory than the machine: its limit counts */
	cg = read_file("/proc/self/cgroup", NULL);
	if (cg && !strncmp(cg, "0::", 3)) {
		cg[strcspn(cg, "\n")] = 0;
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max", cg + 3);
		max = read_file(path, NULL);
		if (max && max[0] >= '0' && max[0] <= '9' && strtoull(max, NULL, 10) < mem)
			mem = strtoull(max, NULL, 10);
		free(max);
	}
	free(cg);
	return mem / 4;
}

/*
 * set_graph_function, set_graph_notrace and max_graph_depth act on the
 * function_graph tracer alone, tracing_thresh on it and the latency
 * tracers, in the kernel as here: under another tracer they are kept
 * but do nothing.  Say so rather than record as if they were not given.
 */
static void graph_options_check(const struct record_opts *o)
{
	char given[64] = "";

	if (ut_tracer_mode(o->tracer->name) == UT_MODE_GRAPH)
		return;
	if (o->gfunc[0])
		strcat(given, ", -G");
	if (o->gnotrace[0])
		strcat(given, ", --graph-notrace");
	if (o->max_depth)
		strcat(given, ", -D");
	if (given[0])
		pr_warn("%s: the %s tracer ignores %s (set_graph_function, set_graph_notrace and "
			"max_graph_depth are function_graph's; -t function_graph)",
			given + 2, o->tracer->name, strchr(given + 2, ',') ? "them" : "it");
	if (o->thresh_ns > 0 && !o->tracer->lat_sections)
		pr_warn("--thresh: the %s tracer ignores it (tracing_thresh is function_graph's "
			"and the latency tracers')", o->tracer->name);
}

int record_options(int argc, char **argv, struct record_opts *o, const char *cmd)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "tracer", required_argument, NULL, 't' },
		{ "overwrite", no_argument, NULL, 'W' },
		{ "drop", no_argument, NULL, 'R' },
		{ "buffer-limit", required_argument, NULL, 'L' },
		{ "compress", required_argument, NULL, 'Z' },
		{ "filter", required_argument, NULL, 'F' },
		{ "notrace", required_argument, NULL, 'N' },
		{ "graph-function", required_argument, NULL, 'G' },
		{ "graph-notrace", required_argument, NULL, 'g' },
		{ "max-depth", required_argument, NULL, 'D' },
		{ "thresh", required_argument, NULL, 'H' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "event", required_argument, NULL, 'e' },
		{ "event-filter", required_argument, NULL, 'f' },
		{ "option", required_argument, NULL, 'O' },
		{ "stack-trace", no_argument, NULL, 'K' },
		{ "func-profile", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long size;
	int c, tracer_given = 0;
	char why[256];

	memset(o, 0, sizeof(*o));
	o->outdir = "usertrace.data";
	o->buf_size = DEFAULT_BUF_SIZE;
	o->tracer = tracer_find(UT_TRACER_DEFAULT);
	o->grow_limit = default_grow_limit();
	o->compress = UT_COMPRESS_ZSTD;
	o->level = DEFAULT_ZSTD_LEVEL;
	optind = 0;	/* full re-initialisation of getopt (live parses twice) */
	opterr = 0;	/* our own messages: one line and where the options are */
	while ((c = getopt_long(argc, argv, "+:o:b:t:F:N:G:D:T:e:f:O:h", longopts, NULL)) != -1) {
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
				pr_err("unknown tracer '%s' (available: %s)", optarg,
				       tracer_available_names());
				return -1;
			}
			if (!tracer_available(o->tracer, why, sizeof(why))) {
				pr_err("tracer '%s' is not available on this machine: %s", optarg, why);
				return -1;
			}
			tracer_given = 1;
			break;
		case 'e':
			if (check_event(optarg) < 0 || add_pattern(o->events, sizeof(o->events), optarg) < 0)
				return -1;
			o->last_event = optarg;
			o->last_event_filtered = 0;
			break;
		case 'f':
			if (add_event_filter(o, optarg) < 0)
				return -1;
			break;
		case 'W':
			o->overwrite = 1;
			break;
		case 'R':
			o->drop = 1;
			break;
		case 'L':
			size = parse_size(optarg);
			if (size < 0 || size > (1ll << 46)) {
				pr_err("invalid buffer limit '%s' (e.g. 0, 512M, 4G)", optarg);
				return -1;
			}
			o->grow_limit = (uint64_t)size;
			break;
		case 'Z':
			if (parse_compress(optarg, o) < 0)
				return -1;
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
		case 'O':
			/* the options the programs apply while recording (the others are replay's) */
			if (!strcmp(optarg, "function-trace") || !strcmp(optarg, "nofunction-trace")) {
				o->nofunc = optarg[0] == 'n';
				break;
			}
			if (!strcmp(optarg, "graph-time") || !strcmp(optarg, "nograph-time")) {
				o->nograph_time = optarg[0] == 'n';
				break;
			}
			pr_err("unknown record option '%s' (function-trace, nofunction-trace, "
			       "graph-time, nograph-time; the output options are replay's -O)", optarg);
			return -1;
		case 'K':
			o->stack_trace = 1;
			break;
		case 'P':
			o->func_profile = 1;
			break;
		case 'h':
			usage(stdout, cmd);
			exit(0);
		case ':':
			pr_err("option '%s' needs an argument (see usertrace %s -h)",
			       argv[optind - 1], cmd);
			return -1;
		default:
			if (optopt && optopt < 256)
				pr_err("unknown option '-%c' (see usertrace %s -h)", optopt, cmd);
			else
				pr_err("unknown option '%s' (see usertrace %s -h)", argv[optind - 1], cmd);
			return -1;
		}
	}
	if (optind >= argc) {
		pr_err("no program to run: usertrace %s [options] -- PROG [ARGS...]", cmd);
		return -1;
	}
	o->argv = argv + optind;
	/* events alone: no function tracer, as trace-cmd record -e */
	if (o->events[0] && !tracer_given)
		o->tracer = tracer_find(UT_TRACER_NONE);
	graph_options_check(o);
	return 0;
}

/* write @text to @path; -1 with errno */
static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f) && !ret)
		ret = -1;
	return ret;
}

/*
 * The events the trace can hold, as format files a reader (and
 * libtraceevent) can parse: DIR/events/SYS/NAME/format for the ftrace
 * system and the events the programs registered, and header_page and
 * header_event beside them.  An event registered again with another
 * layout (two versions of a library) is DIR/events/SYS/NAME/format.ID.
 * Says which -e patterns selected no event.  Returns -1 after a message.
 */
/*
 * DIR/events/SYS/NAME/format of @d; DIR/events/SYS/NAME/format.ID if the
 * name has one already (a second layout).  -1 with @path the file.
 */
static int save_format(const char *dir, const struct ut_event_desc *d, char *path, size_t size)
{
	char *text = ut_event_format(d);
	int ret = -1;

	snprintf(path, size, "%s/events/%s/%s", dir, d->system, d->name);
	if (text && mkdir_p(path, 0755) == 0) {
		snprintf(path + strlen(path), size - strlen(path), "/format");
		if (!access(path, F_OK))
			snprintf(path + strlen(path), size - strlen(path), ".%u", d->id);
		ret = write_text(path, text);
	}
	free(text);
	return ret;
}

/* the event @d was not recorded: its -f filter did not compile for it */
static void filter_error(const struct ut_evreg *r, const struct ut_event_desc *d)
{
	const char *expr = ut_evreg_filter_text(r, d->system, d->name);
	struct ut_evfilter *f = xcalloc(1, sizeof(*f));
	struct ut_evf_error err;
	char text[2 * UT_EVF_TEXT_MAX + 128];
	size_t n;

	if (expr && ut_evfilter_compile(f, expr, d, &err) < 0) {
		n = ut_evfilter_show(text, sizeof(text), expr, &err);
		while (n && n <= sizeof(text) && text[n - 1] == '\n')
			text[--n] = 0;
		pr_warn("event %s:%s was not recorded: its filter (-f) does not apply to it:\n%s",
			d->system, d->name, text);
	} else {
		pr_warn("event %s:%s was not recorded: no room for its filter (-f) in the session "
			"(%d filtered events at most)", d->system, d->name, UT_EVREG_PROGS);
	}
	free(f);
}

static int save_events(const struct ut_evreg *r, const char *dir, const char *patterns)
{
	char path[PATH_MAX], w[256];
	uint32_t nr = __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE), n = 0;
	struct ut_event_desc **descs;
	const char *p = patterns;
	int ret = -1;

	if (r->full)
		pr_warn("%u events were not recorded: the session's event registry is full",
			(unsigned)r->full);
	if (nr > UT_EVREG_SLOTS)
		nr = UT_EVREG_SLOTS;
	descs = xcalloc(nr + 1, sizeof(*descs));
	snprintf(path, sizeof(path), "%s/events", dir);
	if (mkdir_p(path, 0755) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	if (write_text(path, ut_event_header_page()) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	if (write_text(path, ut_event_header_event()) < 0)
		goto out;
	/* the ftrace system's (print: trace_printk), then the programs' */
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
		if (save_format(dir, &ut_ftrace_events[i], path, sizeof(path)) < 0)
			goto out;
	for (uint32_t i = 0; i < nr; i++) {
		struct ut_event_desc *d = ut_evreg_desc(r, i);

		if (!d) {
			pr_warn("event %u: a corrupt descriptor in the registry; its events print raw",
				UT_EVREG_ID(i));
			continue;
		}
		descs[n++] = d;
		if (r->slots[i].state & UT_EVS_FILTER_ERR)
			filter_error(r, d);
		if (save_format(dir, d, path, sizeof(path)) < 0)
			goto out;
	}
	while ((p = ut_event_next_word(p, w, sizeof(w)))) {
		uint32_t i = 0;
		unsigned k = 0;

		while (i < n && !ut_event_match(w, descs[i]->system, descs[i]->name))
			i++;
		/* ftrace:print (trace_printk, trace_marker) is always recorded, as the kernel's */
		while (k < ut_ftrace_nr_events &&
		       !ut_event_match(w, "ftrace", ut_ftrace_events[k].name))
			k++;
		if (i == n && k == ut_ftrace_nr_events)
			pr_warn("-e '%s': the program registered no such event", w);
	}
	ret = 0;
out:
	if (ret < 0)
		pr_err("cannot write %s: %s", path, strerror(errno));
	for (uint32_t i = 0; i < n; i++)
		free(descs[i]);
	free(descs);
	return ret;
}

static int write_info(const struct record_opts *o, const char *dir, int clock, uint64_t tsc0,
		      uint64_t mono0, uint64_t tsc1, uint64_t mono1, int status,
		      uint64_t grow_limit, uint64_t growths, const struct rec_src *srcs)
{
	int nr_srcs = 0;

	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# usertrace data, see usertrace-data(5)\n");
	fprintf(f, "version=2\ntracer=%s\nclock=%s\n", o->tracer->name,
		clock == UT_CLOCK_TSC ? "tsc" : "mono");
	fprintf(f, "tsc0=%llu\nmono0=%llu\ntsc1=%llu\nmono1=%llu\n", (unsigned long long)tsc0,
		(unsigned long long)mono0, (unsigned long long)tsc1, (unsigned long long)mono1);
	fprintf(f, "nr_cpus=%ld\n", sysconf(_SC_NPROCESSORS_CONF));
	fprintf(f, "buffer_size=%zu\nbuffer_mode=%s\n", o->buf_size,
		o->overwrite ? "overwrite" : "consumer");
	fprintf(f, "buffer_limit=%llu\nbuffer_growths=%llu\n", (unsigned long long)grow_limit,
		(unsigned long long)growths);
	if (o->compress == UT_COMPRESS_ZSTD)
		fprintf(f, "compression=zstd:%d\n", o->level);
	else
		fprintf(f, "compression=none\n");
	/* the .dat files' pages carry checks (datfile.h): a reader counts on them when a header is damaged */
	fprintf(f, "checks=1\n");
	if (o->thresh_ns > 0)
		fprintf(f, "tracing_thresh_ns=%lld\n", o->thresh_ns);
	/* the wanted sources' backends, the last of ut_sources[] first */
	while (ut_sources[nr_srcs])
		nr_srcs++;
	for (int i = nr_srcs - 1; i >= 0; i--)
		if (ut_sources[i]->info_key && srcs[i].backend)
			fprintf(f, "%s=%s\n", ut_sources[i]->info_key, srcs[i].backend);
	fprintf(f, "exit_status=%d\ncmdline=", status);
	for (char **a = o->argv; *a; a++)
		fprintf(f, "%s%s", a == o->argv ? "" : " ", *a);
	fputc('\n', f);
	return fclose(f);
}

/*
 * The program is stopped before its exec: the sources wanted watch it
 * from now on (recorder/source.h): those of the events recorded, and those
 * the tracer names
 */
static void srcs_attach(pid_t pid, void *arg)
{
	struct recorder *rec = arg;
	struct src_env env = {
		.session = rec->session, .events = rec->events, .clock = rec->sched_clock,
	};

	for (int i = 0; ut_sources[i]; i++) {
		const struct src_ops *o = ut_sources[i];
		struct rec_src *r = &rec->srcs[i];

		if (!src_wanted(o, rec->events, rec->needs))
			continue;
		r->s = o->open(&env, pid);
		r->backend = r->s ? o->backend(r->s) : "none";
		if (r->s)
			fprintf(stderr, "usertrace: %s from %s\n", o->name, o->from(r->backend));
	}
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

/* what the runtime could not do (e.g. a filter that matched nothing), or warns of */
static void report_session_errors(const char *session)
{
	char path[PATH_MAX], *buf, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/errors", session);
	buf = read_file(path, NULL);
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "warning: ", 9))
			pr_warn("%s", line + 9);
		else
			pr_err("%s (EINVAL)", line);
	}
	free(buf);
}

/*
 * The runtime stopped the program before its main (a filter selects no
 * function): say why; nothing was recorded, the previous recording is
 * put back.
 */
/* @prog as execvp() finds it, into @out; 0, or -1 if it is nowhere */
static int find_program(const char *prog, char *out, size_t size)
{
	const char *dirs = getenv("PATH");

	if (strchr(prog, '/')) {
		snprintf(out, size, "%s", prog);
		return 0;
	}
	for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d; ) {
		size_t n = strcspn(d, ":");

		snprintf(out, size, "%.*s%s%s", (int)n, d, n ? "/" : "", prog);
		if (access(out, X_OK) == 0)
			return 0;
		d += n + (d[n] == ':');
	}
	return -1;
}

/*
 * A pattern written as replay prints C++ names ('Sq::*', 'thrower'),
 * while the lists take the ELF (mangled) names: say so with the names it
 * meant.  1 if something was said.
 */
static int cxx_hint(const char *prog, const char *pat)
{
	char exe[PATH_MAX], names[400];
	int n, shown = 1;

	if (strstr(pat, ":mod:") || find_program(prog, exe, sizeof(exe)) < 0)
		return 0;
	n = ut_symtab_cxx_matches(exe, pat, names, sizeof(names));
	if (!n)
		return 0;
	for (const char *c = names; (c = strchr(c, ' ')); c++)
		shown++;
	pr_err("'%s' names %d C++ function%s of %s as replay prints %s, but the filters take "
	       "ELF (mangled) names, as available_filter_functions lists them: %s%s", pat, n,
	       n > 1 ? "s" : "", prog, n > 1 ? "them" : "it", names, shown < n ? " ..." : "");
	return 1;
}

static void startup_failed(const char *session, const char *outdir, int kept_old, const char *prog)
{
	char old[PATH_MAX], path[PATH_MAX], *buf, *line, *save = NULL;
	int said = 0;

	report_session_errors(session);
	pr_err("the program was stopped before its main: fix the filters");
	/*
	 * A function of a library the program dlopens later is not there
	 * yet: only FUNC:mod:LIB waits for it.  Said for the first plain
	 * name (not a command, not already :mod:) that matched nothing,
	 * unless it is the demangled name of C++ functions of the program.
	 */
	snprintf(path, sizeof(path), "%s/errors", session);
	buf = read_file(path, NULL);
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char *q = strchr(line, '\''), *e = q ? strstr(q + 1, "': no function matches") : NULL;

		if (strncmp(line, "set_", 4) || !e || e == q + 1)
			continue;
		*e = 0;
		if (q[1] != '!' && cxx_hint(prog, q + 1)) {
			said = 1;
			continue;
		}
		if (said || strchr(q + 1, ':') || q[1] == '!')
			continue;
		pr_err("if '%s' is in a library the program loads with dlopen, name the library: "
		       "'%s:mod:LIBNAME.so'", q + 1, q + 1);
		said = 1;
	}
	free(buf);
	remove_tree(outdir);
	snprintf(old, sizeof(old), "%s.old", outdir);
	if (kept_old && rename(old, outdir) < 0)
		pr_warn("cannot rename %s back to %s: %s", old, outdir, strerror(errno));
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

/*
 * Growth must stay within what the session's tmpfs can hold: a buffer
 * page that tmpfs cannot back would kill the program with SIGBUS.  Keep
 * a quarter of its free space for the threads' first buffers.
 */
static uint64_t shm_room(const char *session, uint64_t want)
{
	struct statvfs sv;
	uint64_t room;

	if (statvfs(session, &sv) < 0)
		return want;
	room = (uint64_t)sv.f_bavail * sv.f_frsize / 4 * 3;
	return want < room ? want : room;
}

/* say what was lost, if anything: a loss must never go unnoticed */
static void record_summary(struct recorder *rec)
{
	uint64_t lost = 0;
	int threads = 0;

	for (struct stream *st = rec->streams; st; st = st->next) {
		lost += st->acc.lost;
		threads += st->acc.lost != 0;
	}
	if (!lost)
		return;
	if (rec->ctl->grow_fails)
		pr_warn("%llu events lost in %d thread%s: the buffers were full and could grow "
			"no more (--buffer-limit %llu bytes, or /dev/shm full: %llu refused)", (unsigned long long)lost, threads,
			threads > 1 ? "s" : "", (unsigned long long)rec->ctl->grow_limit,
			(unsigned long long)rec->ctl->grow_fails);
	else if (!rec->ctl->grow_limit)
		pr_warn("%llu events lost in %d thread%s: the buffers were full and could not grow "
			"(--drop, --overwrite, --buffer-limit 0 or no room in /dev/shm)",
			(unsigned long long)lost, threads, threads > 1 ? "s" : "");
	else
		pr_warn("%llu events lost in %d thread%s: writes cut short by signal handlers that "
			"did not return, or nested too deep (see doc/design/ring-buffer.md)",
			(unsigned long long)lost, threads, threads > 1 ? "s" : "");
}

/*
 * A function tracer on programs built without instrumentation records no
 * function: the trace is a header and nothing else.  Say which objects
 * ran, why nothing of them could be traced and how to build them, once
 * the program has ended (a library it dlopens may be instrumented).
 * Tracers that need no instrumentation (events, sched_switch, sysprof...)
 * and the latency tracers' marks alone (-O nofunction-trace) say nothing.
 */
static void check_instrumented(const struct record_opts *o)
{
	int i = ut_tracer_index(o->tracer->name);
	int wants = i >= 0 && (ut_tracers[i].needs & (UT_NEED_FUNC | UT_NEED_GRAPH));
	char exes[512];
	int many;

	if (wants && o->tracer->lat_sections && o->nofunc)
		wants = 0;
	if (!wants && !o->func_profile && !o->stack_trace && !o->cmds[0])
		return;
	switch (ut_symtab_uninstrumented(o->outdir, exes, sizeof(exes))) {
	case 1:
		break;
	case 2:
		pr_warn("no function was traced: the runtime was loaded into no process of %s; "
			"a statically linked (or set-user-ID) program cannot be traced: "
			"LD_PRELOAD does not apply to it", o->argv[0]);
		return;
	default:
		return;
	}
	many = strchr(exes, ',') != NULL;
	pr_warn("no function was traced: nothing in %s or the libraries %s loaded is instrumented\n"
		"  (no calls to mcount, __fentry__ or __cyg_profile_func_enter, no __mcount_loc or "
		"__patchable_function_entries)\n"
		"  build %s with -pg, -pg -mfentry, -finstrument-functions or "
		"-fpatchable-function-entry=5; events need none (-e, -t sched_switch)",
		exes[0] ? exes : "the program", many ? "they" : "it", many ? "them" : "it");
}

/**
 * record_run - run o->argv under the runtime and save its trace in o->outdir
 * @status: PROG's exit status, as a shell would give it
 * @wstatus: PROG's status as waitpid() gave it, -1 if it was not run
 *
 * Returns 0, or -1 after a message when nothing could be recorded.
 */
int record_run(const struct record_opts *o, int *status, int *wstatus_out)
{
	char lib[PATH_MAX];
	struct session sess;
	const char *session;
	struct recorder rec = { 0 };
	struct saver sv = { 0 };
	struct ut_session_ctl *ctl;
	uint64_t tsc0 = 0, mono0 = 0, tsc1 = 0, mono1 = 0;
	int clock = session_default_clock();
	int wstatus = 0, main_status = -1;
	struct sigaction sa = { 0 }, old_sa[4], old_pipe, ign = { .sa_handler = SIG_IGN };
	static const int fwd_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	int kept_old = 0;
	uint32_t seen;
	pid_t pid;

	*wstatus_out = -1;
	if (session_find_runtime(lib, sizeof(lib)) < 0) {
		pr_err("cannot find libusertrace.so (next to the usertrace binary; or set USERTRACE_LIB)");
		return -1;
	}
	if (prepare_output(o->outdir, &kept_old) < 0)
		return -1;
	if (session_create(&sess) < 0)
		return -1;
	/* a reader of our stderr that goes away must not leave the session behind */
	sigaction(SIGPIPE, &ign, &old_pipe);
	sess.sigpipe_default = old_pipe.sa_handler != SIG_IGN;
	session = sess.dir;
	ctl = sess.ctl;
	ctl->active_tracers = 1u << ut_tracer_index(o->tracer->name);
	memcpy(sess.events->patterns, o->events, sizeof(sess.events->patterns));
	memcpy(sess.events->filters, o->evfilters, sizeof(sess.events->filters));
	/* the tracer's events (sched_switch's two, as the kernel's did; mmiotrace's) */
	for (const char *const *e = o->tracer->events; e && *e; e++)
		if (add_pattern(sess.events->patterns, sizeof(sess.events->patterns), *e) < 0) {
			pr_warn("the -e patterns leave no room for the %s tracer's events",
				o->tracer->name);
			break;
		}
	/*
	 * wakeup, wakeup_rt: the kernel's wake-ups too (a timer's, which no
	 * traced thread caused), from its sched_waking and sched_switch when
	 * the kernel's tracing directory can give them
	 */
	if ((o->tracer->lat_sections & 4) && kernel_wakeups_readable())
		for (const char *const *e = wakeup_kernel_events; *e; e++)
			if (add_pattern(sess.events->patterns, sizeof(sess.events->patterns), *e) < 0)
				break;
	/* the built-in events, selected by the patterns as they register */
	if (ut_builtin_register(sess.events) < 0)
		pr_warn("the built-in events do not fit in the event registry");
	ctl->nr_pages = (uint32_t)(o->buf_size / RB_PAGE_SIZE);
	ctl->buf_mode = o->overwrite ? RB_MODE_OVERWRITE : RB_MODE_CONSUMER;
	ctl->clock = (uint32_t)clock;
	ctl->tracing_on = 1;
	ctl->max_graph_depth = o->max_depth;
	ctl->tracing_thresh = thresh_ticks(o->thresh_ns, clock);
	if (o->nofunc)
		ctl->flags |= UT_CTL_NOFUNC;
	if (o->stack_trace)
		ctl->flags |= UT_CTL_STACK;
	if (o->func_profile)
		ctl->flags |= UT_CTL_PROFILE;
	if (o->nograph_time)
		ctl->flags |= UT_CTL_NOGRAPHTIME;
	/* the lists fit: record_options() bounds them by UT_LIST_MAX */
	strcpy(ctl->filter, o->filter);
	strcpy(ctl->notrace, o->notrace);
	strcpy(ctl->graph_function, o->gfunc);
	strcpy(ctl->graph_notrace, o->gnotrace);
	strcpy(ctl->commands, o->cmds);
	ctl->grow_limit = o->drop || o->overwrite ? 0 : shm_room(session, o->grow_limit);
	rec.session = session;
	rec.events = sess.events;
	rec.outdir = o->outdir;
	rec.ctl = ctl;
	rec.compress = o->compress;
	rec.level = o->level;
	rec.nr_cpus = recorder_nr_cpus();
	if (recorder_saver_init(&sv, rec.compress) < 0) {
		pr_err("cannot set up the zstd compressor");
		goto fail;
	}
	rec.cw = cw_create(rec.compress, rec.level, rec.nr_cpus > 1 ? rec.nr_cpus : 0);

	rec.sched_clock = clock;
	rec.needs = ut_tracer_needs(o->tracer->name);
	if (src_any_wanted(sess.events, rec.needs)) {
		sess.before_exec = srcs_attach;
		sess.before_exec_arg = &rec;
	}
	ut_calibrate(&tsc0, &mono0);
	pid = session_start(&sess, o->argv, lib, NULL);
	if (pid < 0)
		goto fail;
	recorder_child_pid = pid;
	/* ^C and friends are for the program; we stop when it does */
	sa.sa_handler = forward_signal;
	for (size_t i = 0; i < ARRAY_SIZE(fwd_sigs); i++)
		sigaction(fwd_sigs[i], &sa, &old_sa[i]);
	recorder_sig_ctl = ctl;
	sa.sa_handler = recorder_child_signal;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);

	for (;;) {
		pid_t w;
		int none_left;

		seen = __atomic_load_n(&ctl->wake, __ATOMIC_ACQUIRE);
		recorder_srcs_poll(&rec);
		recorder_scan_buffers(&rec);
		recorder_drain_all(&rec, &sv, 0);
		while ((w = waitpid(-1, &wstatus, WNOHANG)) > 0) {
			if (w == pid) {
				main_status = wstatus;
				recorder_set_ending(&rec);
			}
			recorder_drain_dead(&rec, &sv, w);
		}
		none_left = w < 0 && errno == ECHILD;
		recorder_drain_dead(&rec, &sv, 0);
		if (none_left)
			break;
		recorder_wait_wake(&rec, seen);
	}
	signal(SIGCHLD, SIG_DFL);
	recorder_sig_ctl = NULL;
	/* the program is gone: signals are ours again (live prints after this) */
	for (size_t i = 0; i < ARRAY_SIZE(fwd_sigs); i++)
		sigaction(fwd_sigs[i], &old_sa[i], NULL);
	recorder_child_pid = 0;
	/* the sources' last events, and their buffers closed for the last scan */
	recorder_srcs_close(&rec);
	recorder_set_ending(&rec);
	recorder_scan_buffers(&rec);
	/* every process is gone: also those whose pid was taken again meanwhile */
	{
		struct save_list l = { .rec = &rec };
		int n = 0;

		for (struct stream *st = rec.streams; st; st = st->next)
			n++;
		l.st = xcalloc((size_t)n + 1, sizeof(*l.st));
		for (struct stream *st = rec.streams; st; st = st->next)
			if (!st->done)
				l.st[l.n++] = st;
		recorder_reap_threads(&rec, &l);
		free(l.st);
	}
	recorder_drain_all(&rec, &sv, 1);
	cw_wait(rec.cw);
	for (struct stream *st = rec.streams; st; st = st->next)
		rec.error |= cw_failed(&st->out);
	if (__atomic_load_n(&ctl->startup_error, __ATOMIC_ACQUIRE)) {
		startup_failed(session, o->outdir, kept_old, o->argv[0]);
		*status = 2;
		rec.error = 1;
		goto out;
	}
	/*
	 * The two calibration points are the start and the end of the run;
	 * 2 ms between them already pins the TSC rate to a few parts in 10^5
	 * (clock_gettime's jitter is ~100 ns), better than a duration needs.
	 */
	while (ut_mono_ns() - mono0 < 2000000ull)
		usleep(200);
	ut_calibrate(&tsc1, &mono1);

	*wstatus_out = main_status;
	if (WIFEXITED(main_status))
		*status = WEXITSTATUS(main_status);
	else if (WIFSIGNALED(main_status))
		*status = 128 + WTERMSIG(main_status);
	else
		*status = 1;
	report_session_errors(session);
	save_maps(session, o->outdir);
	ut_stat_save(session, o->outdir);
	if (save_events(sess.events, o->outdir, o->events) < 0)
		rec.error = 1;
	if (write_info(o, o->outdir, clock, tsc0, mono0, tsc1, mono1, *status, ctl->grow_limit,
		       ctl->grow_count, rec.srcs) < 0) {
		pr_err("cannot write %s/info: %s", o->outdir, strerror(errno));
		rec.error = 1;
	}
	ut_symtab_save(o->outdir);
	check_instrumented(o);
	record_summary(&rec);
out:
	cw_destroy(rec.cw);
	while (rec.streams) {
		struct stream *st = rec.streams;

		rec.streams = st->next;
		free(st->stage);
		free(st);
	}
	recorder_saver_fini(&sv);
	session_destroy(&sess);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return rec.error ? -1 : 0;
fail:
	recorder_srcs_close(&rec);
	cw_destroy(rec.cw);
	recorder_saver_fini(&sv);
	session_destroy(&sess);
	sigaction(SIGPIPE, &old_pipe, NULL);
	return -1;
}

int command_record(int argc, char **argv)
{
	struct record_opts o;
	int status = 0, ws, ret;

	if (record_options(argc, argv, &o, "record") < 0)
		return 2;
	ret = record_run(&o, &status, &ws);
	pr_killed(ws, ret < 0 ? "" : ", data saved");
	if (ret < 0)
		return status ? status : 1;
	return status;
}
