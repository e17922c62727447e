// SPDX-License-Identifier: MIT
/*
 * branch.c - the branch tracer and the branch profilers' statistics, as
 * the kernel's trace_branch.c prints them.
 *
 * The tracer: each likely()/unlikely() outcome of a program built with
 * -DUSERTRACE_PROFILE_BRANCHES (usertrace/branch.h) is a branch entry of
 * the ftrace system, printed by the generic printer as the kernel's
 * trace_branch_print() (trace_print_event_text()):
 *
 *             app-4011    [001] .....   310.551873: [  ok  ] parse:app.c:42
 *             app-4011    [001] .....   310.551874: [ MISS ] parse:app.c:57
 *
 * under the kernel's branch_print_header().
 *
 * The statistics: trace_stat/branch_annotated (the likely/unlikely
 * sites: correct, incorrect, the percent incorrect) and
 * trace_stat/branch_all (every `if` under -DUSERTRACE_PROFILE_ALL_BRANCHES:
 * miss = false, hit = true, the percent hit), in the kernel's columns,
 * from the programs' statistics files (usertrace/branchstat.h), summed
 * over the processes by function, file and line.  branch_annotated is
 * sorted as the kernel sorts it (the highest percent incorrect first,
 * then the most incorrect, then the fewest correct); branch_all keeps
 * the sites' order, as the kernel's section order.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "output/stat.h"
#include "output/tracer.h"
#include "usertrace/branchstat.h"
#include "reader/statarea.h"
#include "utils/utils.h"

static void branch_print_header(struct trace_iter *iter)
{
	if (iter->iter_flags & TRACE_ITER_LATENCY_FMT) {
		trace_latency_header(iter);
		return;
	}
	ut_seq_puts(&iter->seq,
		    "#           TASK-PID    CPU#    TIMESTAMP  CORRECT  FUNC:FILE:LINE\n"
		    "#              | |       |          |         |       |\n");
}

/* no print_line: the generic printer shows the branch entries, and any other event */
const struct tracer branch_tracer = {
	.name		= "branch",
	.entry_id	= UT_EVENT_ID_BRANCH,
	.print_header	= branch_print_header,
};

/* ---- trace_stat/branch_annotated, branch_all ---- */

#define BR_HASH	1024

struct br_ent {
	struct br_ent *next;		/* in reading order */
	struct br_ent *hnext;		/* in its hash chain */
	uint64_t correct, incorrect, constant;
	uint32_t line;
	char func[UT_BRANCH_NAME_MAX];
	char file[UT_BRANCH_NAME_MAX];
};

struct br_read {
	struct br_ent *first, **tail;
	struct br_ent *hash[BR_HASH];
	uint64_t dropped;
};

static unsigned br_hash(uint32_t line, const char *func, const char *file)
{
	uint32_t h = line * 2654435761u;

	for (const char *s = func; *s; s++)
		h = h * 31 + (unsigned char)*s;
	for (const char *s = file; *s; s++)
		h = h * 31 + (unsigned char)*s;
	return h % BR_HASH;
}

/*
 * One process's file: its rows added to @arg's, a site known by its
 * function, file and line.  A file whose counts do not fit its size is
 * skipped with a warning.
 */
static int br_file(const struct ut_stat_hdr *hdr, const void *payload, void *arg)
{
	struct br_read *rd = arg;
	const struct ut_branch_stat *st = payload;
	uint32_t nr;

	if (hdr->size < sizeof(*st) || st->nr > st->cap ||
	    st->cap > (hdr->size - sizeof(*st)) / sizeof(struct ut_branch_row)) {
		pr_warn("%s.%d: corrupt branch statistics (%u rows of %u in %llu bytes): skipped",
			hdr->name, (int)hdr->pid, st->nr, st->cap, (unsigned long long)hdr->size);
		return 0;
	}
	nr = st->nr;
	rd->dropped += st->dropped;
	for (uint32_t i = 0; i < nr; i++) {
		const struct ut_branch_row *r = &st->rows[i];
		char func[UT_BRANCH_NAME_MAX], file[UT_BRANCH_NAME_MAX];
		struct br_ent *e;
		unsigned h;

		memcpy(func, r->func, sizeof(func));
		func[sizeof(func) - 1] = 0;
		memcpy(file, r->file, sizeof(file));
		file[sizeof(file) - 1] = 0;
		h = br_hash(r->line, func, file);
		for (e = rd->hash[h]; e; e = e->hnext)
			if (e->line == r->line && !strcmp(e->func, func) && !strcmp(e->file, file))
				break;
		if (!e) {
			e = xcalloc(1, sizeof(*e));
			e->line = r->line;
			memcpy(e->func, func, sizeof(func));
			memcpy(e->file, file, sizeof(file));
			e->hnext = rd->hash[h];
			rd->hash[h] = e;
			*rd->tail = e;
			rd->tail = &e->next;
		}
		e->correct += r->correct;
		e->incorrect += r->incorrect;
		e->constant += r->constant;
	}
	return 0;
}

static void *br_start(struct tracer_stat *trace, const char *dir)
{
	struct br_read *rd = xcalloc(1, sizeof(*rd));
	struct br_ent *first;

	rd->tail = &rd->first;
	ut_stat_foreach(dir, trace->name, UT_BRANCH_STAT_VERSION, br_file, rd);
	if (rd->dropped)
		pr_warn("%s: %llu sites found after the statistics files were made are not counted",
			trace->name, (unsigned long long)rd->dropped);
	first = rd->first;
	free(rd);
	return first;
}

static void *br_next(void *prev, int idx)
{
	(void)idx;
	return ((struct br_ent *)prev)->next;
}

static void br_release(void *stat)
{
	free(stat);
}

/* the kernel's get_incorrect_percent(): -1 when the site was never taken */
static long br_percent(const struct br_ent *p)
{
	if (p->correct)
		return (long)(p->incorrect * 100 / (p->correct + p->incorrect));
	return p->incorrect ? 100 : -1;
}

static void br_show_tail(FILE *m, const struct br_ent *p)
{
	long percent = br_percent(p);

	if (percent < 0)
		fputs("  X ", m);
	else
		fprintf(m, "%3ld ", percent);
	fprintf(m, "%-30.30s %-20.20s %u\n", p->func, p->file, p->line);
}

static int br_show_annotated(FILE *m, void *v)
{
	const struct br_ent *p = v;
	int l;

	if (!p->constant) {
		fprintf(m, "%8llu %8llu ", (unsigned long long)p->correct,
			(unsigned long long)p->incorrect);
	} else {
		l = snprintf(NULL, 0, "/%llu", (unsigned long long)p->constant);
		l = l > 8 ? 0 : 8 - l;
		fprintf(m, "%8llu/%llu %*llu ", (unsigned long long)p->correct,
			(unsigned long long)p->constant, l, (unsigned long long)p->incorrect);
	}
	br_show_tail(m, p);
	return 0;
}

static int br_show_all(FILE *m, void *v)
{
	const struct br_ent *p = v;

	fprintf(m, "%8llu %8llu ", (unsigned long long)p->correct, (unsigned long long)p->incorrect);
	br_show_tail(m, p);
	return 0;
}

static int br_cmp(const void *p1, const void *p2)
{
	const struct br_ent *a = p1, *b = p2;
	long pa = br_percent(a), pb = br_percent(b);

	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (a->incorrect != b->incorrect)
		return a->incorrect < b->incorrect ? -1 : 1;
	if (a->correct != b->correct)
		return a->correct > b->correct ? -1 : 1;
	return 0;
}

static int br_headers_annotated(FILE *m)
{
	fputs(" correct incorrect  % "
	      "       Function                "
	      "  File              Line\n"
	      " ------- ---------  - "
	      "       --------                "
	      "  ----              ----\n", m);
	return 0;
}

static int br_headers_all(FILE *m)
{
	fputs("   miss      hit    % "
	      "       Function                "
	      "  File              Line\n"
	      " ------- ---------  - "
	      "       --------                "
	      "  ----              ----\n", m);
	return 0;
}

struct tracer_stat branch_annotated_stat = {
	.name		= UT_BRANCH_STAT_ANNOTATED,
	.stat_start	= br_start,
	.stat_next	= br_next,
	.stat_cmp	= br_cmp,
	.stat_show	= br_show_annotated,
	.stat_release	= br_release,
	.stat_headers	= br_headers_annotated,
};

struct tracer_stat branch_all_stat = {
	.name		= UT_BRANCH_STAT_ALL,
	.stat_start	= br_start,
	.stat_next	= br_next,
	.stat_show	= br_show_all,
	.stat_release	= br_release,
	.stat_headers	= br_headers_all,
};

__attribute__((constructor)) static void branch_stat_init(void)
{
	register_stat_tracer(&branch_annotated_stat);
	register_stat_tracer(&branch_all_stat);
}
