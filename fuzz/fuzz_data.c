// SPDX-License-Identifier: MIT
/*
 * fuzz_data.c - libFuzzer target: a data directory, read and printed.
 *
 * The input is a data directory in the form of fuzz/files.h (info, the
 * .dat files, maps.* and the sym/ files).  It is written to a scratch directory on
 * a tmpfs and read as `usertrace replay`, `report` and `dump` read one:
 * utils/data.c (info, the .dat headers, every page and record, the merge
 * by time), utils/symtab.c (maps snapshots, symbol files) and every
 * tracer's output (lib/trace/), printed to /dev/null.
 *
 * An optional section "@args" chooses what is printed, one word each:
 *   t=TRACER   print with this tracer (repeatable; default: see below)
 *   O=OPTION   a trace option for every tracer (as replay -O)
 *   clock=NAME a trace_clock (local, counter, x86-tsc, ...)
 *   tid=N      only this thread (repeatable)
 *   s=KEY      report's sort key; `stat`: report --stat
 * Without it: the recorded tracer as replay prints it, then each tracer
 * with a set of other options and clocks, report twice and dump.
 *
 * Compressed pages (later .dat versions) would be made here from plain
 * ones before the files are written, so that the fuzzer mutates what the
 * decompressor gives the decoder: see fz_write() and doc/fuzzing.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "fuzz/files.h"
#include "lib/trace/tracer.h"
#include "utils/data.h"

#define MAX_WORDS	32
#define MAX_TIDS	8

struct pass {
	const char *tracer;	/* NULL: the recorded one */
	const char *opts[12];
	int clock;
};

static const struct pass default_passes[] = {
	{ NULL, { NULL }, TRACE_CLOCK_LOCAL },
	{ "function_graph", { "funcgraph-proc", "funcgraph-abstime", "funcgraph-tail",
			      "funcgraph-overrun", "nofuncgraph-cpu", "sym-offset", NULL },
	  TRACE_CLOCK_COUNTER },
	{ "function_graph", { "nofuncgraph-duration", "nofuncgraph-overhead", "sym-addr",
			      "nomarkers", NULL }, TRACE_CLOCK_X86_TSC },
	{ "function", { "sym-addr", "sym-offset", "record-tgid", "noirq-info", NULL },
	  TRACE_CLOCK_X86_TSC },
	{ "function", { "noprint-parent", NULL }, TRACE_CLOCK_COUNTER },
	{ "nop", { "nocontext-info", NULL }, TRACE_CLOCK_LOCAL },
	{ "nop", { NULL }, TRACE_CLOCK_LOCAL },
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* report and dump print to stdout */
	if (!freopen("/dev/null", "w", stdout))
		abort();
	fz_scratch();
	return 0;
}

static void print_pass(struct ut_data *d, const char *tracer, const char *const *opts,
		       int nr_opts, int clock, const int *tids, int nr_tids)
{
	const struct tracer *t = tracer ? tracer_find(tracer) : tracer_find(d->tracer);
	struct trace_iter iter;

	if (!t)
		return;
	trace_iter_init(&iter, d, t, fz_devnull());
	for (int i = 0; i < nr_opts; i++)
		tracer_set_option(&iter, opts[i]);
	/* the clocks that read the system clock only add an offset: not those */
	if (clock >= 0 && clock != TRACE_CLOCK_MONO_RAW && clock != TRACE_CLOCK_BOOT &&
	    clock != TRACE_CLOCK_TAI)
		trace_iter_set_clock(&iter, clock);
	if (nr_tids) {
		iter.tids = tids;
		iter.nr_tids = nr_tids;
	}
	trace_print_all(&iter);
}

static void run_cmd(int (*cmd)(int, char **), const char *a0, const char *dir,
		    const char *x1, const char *x2, const char *x3)
{
	char *argv[8];
	int argc = 0;

	argv[argc++] = (char *)a0;
	argv[argc++] = (char *)"-i";
	argv[argc++] = (char *)dir;
	if (x1)
		argv[argc++] = (char *)x1;
	if (x2)
		argv[argc++] = (char *)x2;
	if (x3)
		argv[argc++] = (char *)x3;
	argv[argc] = NULL;
	cmd(argc, argv);
}

/* the words of @args, NUL-terminated in @buf */
static int split_words(const struct fz_section *args, char *buf, size_t size, char **w)
{
	size_t n = args->len < size - 1 ? args->len : size - 1;
	int nw = 0;
	char *save = NULL, *tok;

	memcpy(buf, args->data, n);
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \t\n", &save); tok && nw < MAX_WORDS;
	     tok = strtok_r(NULL, " \t\n", &save))
		w[nw++] = tok;
	return nw;
}

static void run_args(struct ut_data *d, const char *dir, const struct fz_section *args)
{
	char buf[1024], *w[MAX_WORDS];
	const char *tracers[MAX_WORDS], *opts[MAX_WORDS], *sort = NULL;
	int nw = split_words(args, buf, sizeof(buf), w), nt = 0, no = 0, ntid = 0, stat = 0;
	int tids[MAX_TIDS], clock = -1;

	for (int i = 0; i < nw; i++) {
		if (!strncmp(w[i], "t=", 2))
			tracers[nt++] = w[i] + 2;
		else if (!strncmp(w[i], "O=", 2))
			opts[no++] = w[i] + 2;
		else if (!strncmp(w[i], "clock=", 6))
			clock = trace_clock_find(w[i] + 6);
		else if (!strncmp(w[i], "tid=", 4) && ntid < MAX_TIDS)
			tids[ntid++] = atoi(w[i] + 4);
		else if (!strncmp(w[i], "s=", 2))
			sort = w[i] + 2;
		else if (!strcmp(w[i], "stat"))
			stat = 1;
	}
	if (!nt)
		print_pass(d, NULL, opts, no, clock, tids, ntid);
	for (int i = 0; i < nt; i++)
		print_pass(d, tracers[i], opts, no, clock, tids, ntid);
	run_cmd(command_report, "report", dir, sort ? "-s" : NULL, sort, stat ? "--stat" : NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_input in;
	const char *dir = fz_scratch();
	const struct fz_section *args;
	struct ut_data d;

	fz_split(&in, data, size);
	fz_clean(dir);
	if (fz_write(&in, dir) < 0) {
		perror("fuzz: writing the input");
		abort();
	}
	if (ut_data_open(&d, dir) < 0)
		return 0;
	args = fz_find(&in, "@args");
	if (args) {
		run_args(&d, dir, args);
	} else {
		for (size_t i = 0; i < sizeof(default_passes) / sizeof(default_passes[0]); i++) {
			const struct pass *p = &default_passes[i];
			int no = 0;

			while (p->opts[no])
				no++;
			print_pass(&d, p->tracer, p->opts, no, p->clock, NULL, 0);
		}
		run_cmd(command_report, "report", dir, NULL, NULL, NULL);
		run_cmd(command_report, "report", dir, "--stat", "-s", "self");
		run_cmd(command_dump, "dump", dir, NULL, NULL, NULL);
	}
	ut_data_close(&d);
	return 0;
}
