// SPDX-License-Identifier: MIT
/*
 * dump.c - usertrace dump: the decoded records of a data directory, one
 * per line, for debugging and for tests that check the recording itself.
 *
 *   <pid>.<tid> <cpu> <ns since first event> <type> <depth> <what>
 *
 * <what> is the function (symbol or address), and " <- parent" for a func
 * and for an entry whose caller is recorded; for a return (a call recorded
 * whole when it returned: tracing_thresh) then " dur=<ns>"; for a trace (a
 * stack trace) the number of ips and the ips, innermost first
 * ("3: foo <- bar <- main"); for a marker its text; for lost the number
 * of records lost; for depth (right after lost, the stream restated how
 * many calls are open, and that is not what the events before left open)
 * "was <depth before>"; for an event "id=<id>" and the bytes of its
 * fields in hex.
 *
 * With an export option (export/export.h) it writes the trace in another
 * tool's format instead: --chrome, --perfetto, --dat FILE, --ctf DIR,
 * --flame-graph[=svg].
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmds.h"
#include "export/export.h"
#include "reader/data.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* an event: "id=ID" and its fields' bytes in hex, after the common fields */
static void print_event(const struct ut_event *ev)
{
	const unsigned char *p = (const unsigned char *)ev->data;

	printf("id=%u", ev->id);
	if (ev->data_len > sizeof(struct ut_trace_entry))
		putchar(' ');
	for (uint32_t i = sizeof(struct ut_trace_entry); i < ev->data_len; i++)
		printf("%02x", p[i]);
}

static void print_addr(struct ut_data *d, const struct ut_event *ev, uint64_t addr)
{
	const struct ut_sym *s = addr ? ut_symtab_find(d->symtab, ev->pid, ev->image, addr, ev->ts) : NULL;

	if (s)
		printf("%s", s->name);
	else
		printf("%#" PRIx64, addr);
}

/* "3: foo <- bar <- main", innermost first */
static void print_trace(struct ut_data *d, const struct ut_event *ev)
{
	uint64_t n = ut_event_trace_len(ev);

	printf("%" PRIu64 ":", n);
	for (uint64_t i = 0; i < n; i++) {
		printf(i ? " <- " : " ");
		print_addr(d, ev, ut_event_trace_ip(ev, i));
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: usertrace dump [-i DIR] [-a]          the records, one per line\n"
		   "       usertrace dump [-i DIR] EXPORT        the trace in another tool's format\n"
		   "  -i, --input DIR        the recording (default usertrace.data)\n"
		   "  -a                     absolute timestamps (default: from the first record)\n"
		   "EXPORT (stdout unless a path is given):\n");
	for (const struct export_writer *const *w = export_writers; *w; w++) {
		char opt[64];

		snprintf(opt, sizeof(opt), "--%s%s%s%s", (*w)->name,
			 (*w)->arg == 1 ? " " : (*w)->arg == 2 ? "[=" : "",
			 (*w)->arg ? (*w)->arg_name : "", (*w)->arg == 2 ? "]" : "");
		fprintf(f, "  %-22s %s\n", opt, (*w)->help);
	}
}

/* the export of option @w: 0, 1 (said) */
static int dump_export(const char *dir, const struct export_writer *w, const char *arg)
{
	struct export_ctx x = { 0 };
	struct ut_data d;
	int ret;

	if (ut_data_open(&d, dir) < 0)
		return 1;
	x.d = &d;
	x.out = stdout;
	if (w->arg == 1)
		x.path = arg;
	else
		x.arg = arg;
	ret = export_run(w, &x);
	/*
	 * ferror too: a write that failed earlier leaves nothing for fflush
	 * to fail on.  A writer that failed has said why (a write error too).
	 */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (!ret)
			pr_err("dump --%s: writing the output: %s", w->name, strerror(errno));
		ret = 1;
	}
	ut_data_close(&d);
	return ret;
}

int command_dump(int argc, char **argv)
{
	const char *dir = "usertrace.data";
	struct option lopts[16 + 3];
	const struct export_writer *xw = NULL;
	const char *xarg = NULL;
	struct ut_merge *m;
	struct ut_event ev;
	struct ut_data d;
	uint64_t t0 = 0;
	int c, ret, relative = 1, nl = 0, li;

	memset(lopts, 0, sizeof(lopts));
	for (const struct export_writer *const *w = export_writers; *w && nl < 16; w++, nl++) {
		lopts[nl].name = (*w)->name;
		lopts[nl].has_arg = (*w)->arg == 1 ? required_argument :
				    (*w)->arg == 2 ? optional_argument : no_argument;
		lopts[nl].val = 0x100 + nl;
	}
	lopts[nl] = (struct option){ "input", required_argument, NULL, 'i' };
	lopts[nl + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	optind = 0;	/* full re-initialisation of getopt */
	opterr = 0;	/* our own messages */
	while ((c = getopt_long(argc, argv, ":i:ah", lopts, &li)) != -1) {
		switch (c) {
		case 'i':
			dir = optarg;
			break;
		case 'a':
			relative = 0;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			pr_err("option '%s' needs an argument (see usertrace dump -h)", argv[optind - 1]);
			return 2;
		case '?':
			if (optopt && optopt < 256)
				pr_err("unknown option '-%c' (see usertrace dump -h)", optopt);
			else
				pr_err("unknown option '%s' (see usertrace dump -h)", argv[optind - 1]);
			return 2;
		default:
			if (c >= 0x100 && c < 0x100 + nl) {
				if (xw) {
					pr_err("dump: --%s and --%s: one export at a time", xw->name,
					       lopts[c - 0x100].name);
					return 2;
				}
				xw = export_find(lopts[c - 0x100].name);
				xarg = optarg;
				break;
			}
			return 2;
		}
	}
	if (optind < argc) {
		pr_err("dump: unexpected argument '%s' (see usertrace dump -h)", argv[optind]);
		return 2;
	}
	if (xw)
		return dump_export(dir, xw, xarg);
	if (ut_data_open(&d, dir) < 0)
		return 1;
	for (int i = 0; i < d.nr_threads; i++) {
		printf("# thread %d.%d %s entries=%" PRIu64, d.threads[i].pid, d.threads[i].tid,
		       d.threads[i].comm, d.threads[i].entries);
		/* a damaged header: the counts are not known */
		if (d.threads[i].counts_unknown)
			printf(" lost=? overrun=?\n");
		else
			printf(" lost=%" PRIu64 " overrun=%" PRIu64 "\n", d.threads[i].lost,
			       d.threads[i].overrun);
	}
	m = ut_merge_new(&d, NULL, 0);
	while ((ret = ut_merge_next(m, &ev)) > 0) {
		if (!t0)
			t0 = ev.ts;
		printf("%d.%d %u %" PRIu64 " %s %u ", ev.pid, ev.tid, ev.cpu,
		       relative ? ev.ts - t0 : ev.ts, ut_ev_name(ev.type), ev.depth);
		if (ev.type == UT_EV_MARKER)
			printf("%.*s", (int)ev.data_len, ev.data);
		else if (ev.type == UT_EV_LOST && !ev.count)
			printf("?");	/* damaged data skipped: how many is not known */
		else if (ev.type == UT_EV_LOST)
			printf("%" PRIu64, ev.count);
		else if (ev.type == UT_EV_DEPTH)
			printf("was %" PRIu64, ev.count);
		else if (ev.type == UT_EV_TRACE || ev.type == UT_EV_SAMPLE ||
			 ev.type == UT_EV_INITCALL)
			print_trace(&d, &ev);
		else if (ev.type == UT_EV_EVENT)
			print_event(&ev);
		else
			print_addr(&d, &ev, ev.ip);
		if (ev.type == UT_EV_RETURN)
			printf(" dur=%" PRIu64, ev.duration);
		if (ev.type == UT_EV_FUNC || (ev.type == UT_EV_ENTRY && ev.parent)) {
			printf(" <- ");
			print_addr(&d, &ev, ev.parent);
		}
		putchar('\n');
	}
	ut_merge_free(m);
	ut_data_close(&d);
	return ret < 0 ? 1 : 0;
}
