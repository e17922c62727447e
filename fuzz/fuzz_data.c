// SPDX-License-Identifier: MIT
/*
 * fuzz_data.c - libFuzzer target: a data directory, read and printed.
 *
 * The input is a data directory in the form of fuzz/files.h (info, the
 * .dat files, maps.* and the sym/ files).  It is written to a scratch directory on
 * a tmpfs and read as `usertrace replay`, `report` and `dump` read one:
 * reader/data.c (info, the .dat headers, every page and record, the merge
 * by time), reader/symtab.c (maps snapshots, symbol files) and every
 * tracer's output (output/), printed to /dev/null.
 *
 * An optional section "@args" chooses what is printed, one word each:
 *   t=TRACER   print with this tracer (repeatable; default: see below)
 *   O=OPTION   a trace option for every tracer (as replay -O)
 *   clock=NAME a trace_clock (local, counter, x86-tsc, ...)
 *   tid=N      only this thread (repeatable)
 *   s=KEY      report's sort key; `stat`: report --stat
 * Without it: the recorded tracer as replay prints it, then each tracer
 * with a set of other options and clocks, report twice, report --folded
 * and dump.
 *
 * A .dat section is written as it is: a version 1 file, or a version 2
 * one with its zstd chunks (the chunk headers and frames are fuzzed).
 * A section "@zstd" names .dat sections that hold plain pages to be
 * stored compressed, as `usertrace record` stores them: "NAME" (64 pages
 * a chunk) or "NAME:K" (K pages a chunk), so that the fuzzer mutates the
 * pages the decompressor gives the decoder.
 *
 * FUZZ_VERBOSE=1 in the environment: the threads read, on stderr.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "cli/cmds.h"
#include "fuzz/files.h"
#include "output/tracer.h"
#include "usertrace/datfile.h"
#include "usertrace/ringbuf.h"
#include "reader/data.h"

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

/*
 * The file of .dat section @s with its pages compressed in chunks of
 * @per_chunk: the header page (its extension filled in), then the chunks.
 * A last partial page is completed with zeros.
 */
static unsigned char *zstd_dat(const struct fz_section *s, uint32_t per_chunk, size_t *len)
{
	static ZSTD_CCtx *cctx;
	size_t body = s->len > RB_PAGE_SIZE ? s->len - RB_PAGE_SIZE : 0;
	uint64_t nr = (body + RB_PAGE_SIZE - 1) / RB_PAGE_SIZE, entries = 0;
	size_t bound = ZSTD_compressBound((size_t)per_chunk * RB_PAGE_SIZE);
	size_t cap = RB_PAGE_SIZE + (nr / per_chunk + 1) * (sizeof(struct ut_dat_chunk) + bound);
	unsigned char *out = calloc(1, cap), *pages = calloc(nr ? nr : 1, RB_PAGE_SIZE);
	struct ut_dat_ext ext;
	size_t off = RB_PAGE_SIZE;

	if (!cctx)
		cctx = ZSTD_createCCtx();
	if (!out || !pages || !cctx)
		abort();
	memcpy(out, s->data, s->len < RB_PAGE_SIZE ? s->len : RB_PAGE_SIZE);
	if (body)
		memcpy(pages, s->data + RB_PAGE_SIZE, body);
	for (uint64_t i = 0; i < nr; i += per_chunk) {
		struct ut_dat_chunk ch = { UT_CHUNK_MAGIC, 0, 0, 0 };
		size_t n;

		ch.nr_pages = (uint32_t)(nr - i < per_chunk ? nr - i : per_chunk);
		for (uint32_t k = 0; k < ch.nr_pages; k++)
			ch.entries += ((const struct rb_page *)(pages + (i + k) * RB_PAGE_SIZE))->entries;
		n = ZSTD_compressCCtx(cctx, out + off + sizeof(ch), cap - off - sizeof(ch),
				      pages + i * RB_PAGE_SIZE, (size_t)ch.nr_pages * RB_PAGE_SIZE, 1);
		if (ZSTD_isError(n))
			abort();
		ch.csize = (uint32_t)n;
		memcpy(out + off, &ch, sizeof(ch));
		off += sizeof(ch) + n;
		entries += ch.entries;
	}
	memset(&ext, 0, sizeof(ext));
	memcpy(ext.magic, UT_DAT_MAGIC, 8);
	ext.compress = UT_COMPRESS_ZSTD;
	ext.level = 1;
	ext.nr_pages = nr;
	ext.entries = entries;
	ext.buffers = 1;
	memcpy(out + UT_DAT_EXT_OFF, &ext, sizeof(ext));
	free(pages);
	*len = off;
	return out;
}

/* @s still holds the input's bytes (a name listed twice is compressed once) */
static int bufs_own(const struct fz_section *s, unsigned char **bufs, int nbufs)
{
	for (int i = 0; i < nbufs; i++)
		if (s->data == bufs[i])
			return 0;
	return 1;
}

/* "@zstd": compress the sections it names; their buffers go to @bufs */
static int apply_zstd(struct fz_input *in, unsigned char **bufs)
{
	const struct fz_section *z = fz_find(in, "@zstd");
	char list[1024], *save = NULL, *w;
	int nbufs = 0;

	if (!z)
		return 0;
	snprintf(list, sizeof(list), "%.*s", (int)z->len, (const char *)z->data);
	for (w = strtok_r(list, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		char *colon = strchr(w, ':');
		uint32_t k = UT_CHUNK_PAGES;

		if (colon) {
			*colon = '\0';
			k = (uint32_t)atoi(colon + 1);
			if (k < 1 || k > UT_CHUNK_PAGES)
				k = UT_CHUNK_PAGES;
		}
		for (int i = 0; i < in->n && nbufs < FZ_MAX_SECTIONS; i++) {
			struct fz_section *s = &in->s[i];
			size_t len;

			if (s->name[0] == '@' || strcmp(s->name, w) || !bufs_own(s, bufs, nbufs))
				continue;
			bufs[nbufs] = zstd_dat(s, k, &len);
			s->data = bufs[nbufs++];
			s->len = len;
		}
	}
	return nbufs;
}

/* where the exports that write files write them: beside the scratch directory */
static char outdir[300];

static void outdir_remove(void)
{
	fz_clean(outdir);
	rmdir(outdir);
}

/* every export of dump, and report --diff against the same directory */
static void run_exports(const char *dir)
{
	char path[400];

	if (!outdir[0]) {
		snprintf(outdir, sizeof(outdir), "%s.out", dir);
		if (mkdir(outdir, 0700) < 0 && errno != EEXIST)
			abort();
		atexit(outdir_remove);
	}
	fz_clean(outdir);
	run_cmd(command_dump, "dump", dir, "--chrome", NULL, NULL);
	run_cmd(command_dump, "dump", dir, "--perfetto", NULL, NULL);
	run_cmd(command_dump, "dump", dir, "--flame-graph", NULL, NULL);
	run_cmd(command_dump, "dump", dir, "--flame-graph=svg", NULL, NULL);
	snprintf(path, sizeof(path), "%s/t.dat", outdir);
	run_cmd(command_dump, "dump", dir, "--dat", path, NULL);
	snprintf(path, sizeof(path), "v6:%s/t6.dat", outdir);
	run_cmd(command_dump, "dump", dir, "--dat", path, NULL);
	snprintf(path, sizeof(path), "%s/ctf", outdir);
	run_cmd(command_dump, "dump", dir, "--ctf", path, NULL);
	run_cmd(command_report, "report", dir, "--diff", dir, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_input in;
	unsigned char *bufs[FZ_MAX_SECTIONS];
	int nbufs;
	const char *dir = fz_scratch();
	const struct fz_section *args;
	struct ut_data d;

	fz_split(&in, data, size);
	nbufs = apply_zstd(&in, bufs);
	fz_clean(dir);
	if (fz_write(&in, dir) < 0) {
		perror("fuzz: writing the input");
		abort();
	}
	if (ut_data_open(&d, dir) < 0)
		goto out;
	if (getenv("FUZZ_VERBOSE"))
		for (int i = 0; i < d.nr_threads; i++)
			fprintf(stderr, "%s: %s, %" PRIu64 " entries\n", d.threads[i].path,
				d.threads[i].compress ? "zstd" : "pages", d.threads[i].entries);
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
		run_cmd(command_report, "report", dir, "--folded", NULL, NULL);
		run_cmd(command_dump, "dump", dir, NULL, NULL, NULL);
		run_exports(dir);
	}
	ut_data_close(&d);
out:
	while (nbufs > 0)
		free(bufs[--nbufs]);
	return 0;
}
