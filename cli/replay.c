// SPDX-License-Identifier: MIT
/*
 * replay.c - usertrace replay: print a recording in the kernel's ftrace
 * formats, with the recorded tracer or another one.
 *
 *   usertrace replay [-i DIR] [-t TRACER] [--tid LIST] [-O OPTION]... [-o FILE]
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/tracers.h"
#include "utils/progress.h"
#include "reader/data.h"
#include "utils/utils.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace replay [options]\n"
		"  -i, --input DIR      the recording (default usertrace.data)\n"
		"  -t, --tracer NAME    print as another tracer (default: the one it\n"
		"                       was recorded with):\n");
	tracer_help(f, "                         ");
	fprintf(f,
		"      --tid LIST       only these threads (comma-separated tids)\n"
		"  -O, --option OPT     a trace option, or noOPT to turn it off:\n");
	trace_options_help(f, "                         ");
	fprintf(f,
		"  -o, --output FILE    write to FILE instead of standard output\n"
		"  -h, --help           this help\n");
}

/* "1234,1235": 0, or -1 after a message */
static int parse_tids(const char *s, int **tids, int *nr)
{
	const char *p = s;
	char *end;
	long v;
	int n = 0, i;

	*tids = NULL;
	*nr = 0;
	if (!*s)
		goto bad;
	for (p = s; *p; p++)
		if (*p == ',')
			n++;
	*tids = xcalloc((size_t)n + 1, sizeof(**tids));
	n = 0;
	p = s;
	for (;;) {
		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > INT_MAX)
			goto bad;
		for (i = 0; i < n; i++)
			if ((*tids)[i] == (int)v)
				break;
		if (i == n)
			(*tids)[n++] = (int)v;
		if (!*end)
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	*nr = n;
	return 0;
bad:
	pr_err("invalid thread list '%s' (expected tids separated by commas, e.g. 1234,1235)", s);
	free(*tids);
	*tids = NULL;
	return -1;
}

/* a tid that is not there: name those that are, the user's next guess */
static void say_no_thread(const struct ut_data *d, int tid)
{
	char list[160];
	size_t len = 0;
	int shown = 0, j, k;

	list[0] = 0;
	for (j = 0; j < d->nr_threads; j++) {
		for (k = 0; k < j; k++)	/* a tid in several images: once */
			if (d->threads[k].tid == d->threads[j].tid)
				break;
		if (k < j)
			continue;
		if (shown == 8) {
			snprintf(list + len, sizeof(list) - len, ", ...");
			break;
		}
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", shown ? ", " : "",
					d->threads[j].tid);
		shown++;
	}
	if (!shown)
		pr_err("%s: no thread %d in the recording (it has no thread)", d->dir, tid);
	else
		pr_err("%s: no thread %d in the recording (its thread%s: %s)", d->dir, tid,
		       shown > 1 ? "s" : "", list);
}

static int check_tids(const struct ut_data *d, const int *tids, int nr)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < d->nr_threads; j++)
			if (d->threads[j].tid == tids[i])
				break;
		if (j == d->nr_threads) {
			say_no_thread(d, tids[i]);
			return -1;
		}
	}
	return 0;
}

static const struct tracer *recorded_tracer(const struct ut_data *d)
{
	const struct tracer *t = tracer_find(d->tracer);

	if (!t)
		pr_err("%s: recorded with an unknown tracer '%s'", d->dir, d->tracer);
	return t;
}

struct replay_opts {
	const char *dir;
	const char *tracer;
	const char *output;
	const char **options;
	int nr_options;
	int *tids;
	int nr_tids;
};

/*
 * open, check, print, close: 0, or -1 after a message (-2 for an option
 * the tracer does not have).  Prints to @out,
 * or to o->output, created only once the recording and options are known good.
 */
static int replay(const struct replay_opts *o, FILE *out)
{
	const struct tracer *t = NULL;
	struct trace_iter iter;
	struct ut_progress progress;
	struct trace_lat_info lat;
	struct ut_data d;
	FILE *file = NULL;
	int i, ret = -1;

	if (o->tracer) {
		t = tracer_find(o->tracer);
		if (!t) {
			pr_err("unknown tracer '%s' (available: %s)", o->tracer, UT_TRACER_NAMES);
			return -1;
		}
	}
	memset(&d, 0, sizeof(d));
	memset(&iter, 0, sizeof(iter));
	if (ut_data_open(&d, o->dir) < 0)
		return -1;
	if (!t)
		t = recorded_tracer(&d);
	if (!t)
		goto out;
	if (check_tids(&d, o->tids, o->nr_tids) < 0)
		goto out;

	trace_iter_init(&iter, &d, t, out);
	for (i = 0; i < o->nr_options; i++) {
		if (tracer_set_option(&iter, o->options[i]) < 0) {
			pr_err("unknown option '%s' for the %s tracer (see usertrace replay -h)",
			       o->options[i], t->name);
			ret = -2;	/* a usage error */
			goto out;
		}
	}
	if (o->nr_tids) {
		iter.tids = o->tids;
		iter.nr_tids = o->nr_tids;
	}
	/* a latency tracer's trace: its longest section, or each over the threshold */
	if (t->lat_sections && trace_lat_select(&iter, d.thresh_ns, &lat) < 0) {
		pr_err("%s: cannot read the recorded events", d.dir);
		goto out;
	}
	/*
	 * No section: the kernel's max buffer holds nothing then, and its
	 * trace is its tracer's name alone (print_trace_header() is not
	 * printed for empty buffers), not every event of the recording under
	 * a header of no maximum (latency 0, task -0).  A recording of another
	 * tracer: why, on stderr.
	 */
	if (t->lat_sections && !iter.win) {
		static const struct trace_window none = { .tid = -1 };

		if (strcmp(d.tracer, t->name))
			pr_warn("%s: recorded with the %s tracer: no %s section to show, the maximum is "
				"empty (record with -t %s)", d.dir, d.tracer, t->name, t->name);
		iter.win = xmalloc(sizeof(none));
		memcpy((void *)iter.win, &none, sizeof(none));
		iter.nr_win = 1;
		iter.entries = iter.written = 0;
	}
	if (o->output) {
		file = fopen(o->output, "w");
		if (!file) {
			pr_err("cannot create %s: %s", o->output, strerror(errno));
			goto out;
		}
		iter.out = out = file;
	}
	/* a bar while the output goes to a file or a pipe */
	ut_progress_init(&progress, "events", NULL, NULL);
	if (!o->output && isatty(fileno(out)))
		progress.on = 0;
	iter.progress = &progress;
	ret = trace_print_all(&iter);
	if (fflush(out) || ferror(out)) {
		pr_err("cannot write %s: %s", o->output ? o->output : "the output",
		       strerror(errno));
		ret = -1;
	}
	if (file && fclose(file) && !ret) {
		pr_err("cannot write %s: %s", o->output, strerror(errno));
		ret = -1;
	}
out:
	free((void *)iter.win);
	ut_data_close(&d);
	return ret;
}

int replay_dir(const char *dir, FILE *out)
{
	struct replay_opts o;

	memset(&o, 0, sizeof(o));
	o.dir = dir;
	return replay(&o, out);
}

int command_replay(int argc, char **argv)
{
	enum { OPT_TID = 256 };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "tracer", required_argument, NULL, 't' },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "option", required_argument, NULL, 'O' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct replay_opts o;
	int c, ret = 2;	/* a usage error until the options are read */

	memset(&o, 0, sizeof(o));
	o.dir = "usertrace.data";
	o.options = xcalloc((size_t)argc + 1, sizeof(*o.options));
	optind = 0;	/* full re-initialisation of getopt */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:t:O:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.dir = optarg;
			break;
		case 't':
			if (!tracer_find(optarg)) {
				pr_err("unknown tracer '%s' (available: %s)", optarg, UT_TRACER_NAMES);
				goto out;
			}
			o.tracer = optarg;
			break;
		case OPT_TID:
			free(o.tids);
			if (parse_tids(optarg, &o.tids, &o.nr_tids) < 0)
				goto out;
			break;
		case 'O':
			o.options[o.nr_options++] = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		case ':':
			pr_err("option '%s' needs an argument (see usertrace replay -h)",
			       argv[optind - 1]);
			goto out;
		default:
			if (optopt && optopt < 256)
				pr_err("unknown option '-%c' (see usertrace replay -h)", optopt);
			else
				pr_err("unknown option '%s' (see usertrace replay -h)",
				       argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see usertrace replay -h)", argv[optind]);
		goto out;
	}
	c = replay(&o, stdout);
	ret = c == 0 ? 0 : c == -2 ? 2 : 1;
out:
	free(o.options);
	free(o.tids);
	return ret;
}
