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
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmds/cmds.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/utils.h"

static const char *const type_name[] = {
	[UT_EV_ENTRY] = "entry", [UT_EV_EXIT] = "exit", [UT_EV_FUNC] = "func",
	[UT_EV_MARKER] = "marker", [UT_EV_LOST] = "lost", [UT_EV_RETURN] = "return",
	[UT_EV_TRACE] = "trace", [UT_EV_DEPTH] = "depth", [UT_EV_EVENT] = "event",
	[UT_EV_SAMPLE] = "sample", [UT_EV_INITCALL] = "initcall",
};

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

int command_dump(int argc, char **argv)
{
	const char *dir = "usertrace.data";
	struct ut_merge *m;
	struct ut_event ev;
	struct ut_data d;
	uint64_t t0 = 0;
	int c, ret, relative = 1;

	optind = 1;
	while ((c = getopt(argc, argv, "i:a")) != -1) {
		switch (c) {
		case 'i':
			dir = optarg;
			break;
		case 'a':
			relative = 0;
			break;
		default:
			pr_err("usage: usertrace dump [-i DIR] [-a]");
			return 2;
		}
	}
	if (ut_data_open(&d, dir) < 0)
		return 1;
	for (int i = 0; i < d.nr_threads; i++)
		printf("# thread %d.%d %s entries=%" PRIu64 " lost=%" PRIu64 " overrun=%" PRIu64 "\n",
		       d.threads[i].pid, d.threads[i].tid, d.threads[i].comm, d.threads[i].entries,
		       d.threads[i].lost, d.threads[i].overrun);
	m = ut_merge_new(&d, NULL, 0);
	while ((ret = ut_merge_next(m, &ev)) > 0) {
		if (!t0)
			t0 = ev.ts;
		printf("%d.%d %u %" PRIu64 " %s %u ", ev.pid, ev.tid, ev.cpu,
		       relative ? ev.ts - t0 : ev.ts, type_name[ev.type], ev.depth);
		if (ev.type == UT_EV_MARKER)
			printf("%.*s", (int)ev.data_len, ev.data);
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
