// SPDX-License-Identifier: MIT
/*
 * report.c - usertrace report: per-function statistics of a recording.
 *
 *   usertrace report [-i DIR] [-s KEY] [--stat]
 *   usertrace report [-i DIR] --branch | --kmem | --workqueue
 *   usertrace report [-i DIR] [-s total|self|calls|name] --diff OLD_DIR
 *
 * --diff compares two recordings function by function (matched by name):
 * the numbers of each and the changes, largest change first.
 *
 * --branch prints the branch profilers' tables (trace_stat/branch_annotated
 * and branch_all, output/tracers/branch.c) from the statistics files
 * the recording kept, summed over its processes.
 *
 * Each thread is walked on its own, in record order: time-merging threads
 * would cost a heap operation per event and tells nothing per function.
 * The thread's call stack (reader/callstack.h) gives every matched exit its
 * duration and the time spent in its callees.  Statistics are kept per (pid, image, ip) in an
 * open-addressing hash, and only at the end are ips named and merged by
 * symbol: a trace of hundreds of millions of calls has a few thousand
 * distinct ips.
 *
 * A recursive function's total time counts only its outermost active
 * call, so that the total never exceeds the time the function was running
 * (uftrace does the same); calls, self, min, max and average count every
 * call.
 *
 * With tracing_thresh a call is recorded whole, as one RETURN written when
 * it returns (its duration, no entry and no exit), and only if it lasted
 * the threshold; callees that did not are not recorded at all.  A RETURN
 * is one call of its function with its duration as total time.  Its self
 * time is the duration less the durations of the RETURNs one level deeper
 * that came before it and began after it was entered: those are its
 * callees (they return first).  Callees shorter than the threshold are
 * unknown and count as self time, as the kernel's trace would show it.
 * When its callees cannot be told from those of an earlier call at the
 * same depth whose RETURN is missing (lost records), self time is the
 * whole duration.  When a RETURN is read its callers have not returned
 * yet, so recursion through RETURNs is not seen: each such call adds to
 * the total.
 *
 * Lost records (a full buffer) leave calls with no duration, and they are
 * counted apart, as "untimed", never as calls of no time:
 *  - a call whose return was lost: after the loss the stream restates how
 *    many calls are still open (UT_EV_DEPTH), and those above that ended
 *    unseen; so do the calls still open when the thread's trace ends;
 *  - a call whose entry is not in the trace (before a fork, overwritten
 *    in a flight recording): its return names it when a STACK record did,
 *    else it is only counted, as a return of an unknown function.
 * The calls that span a lost range keep their entry and their return, so
 * their total time is exact.  Their self time leaves the lost range out
 * (what ran then is not known), and the time of an untimed callee up to
 * the loss too: self times are never more than what the trace shows.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli/cmds.h"
#include "cli/report.h"
#include "reader/callstack.h"
#include "reader/data.h"
#include "output/profile.h"
#include "usertrace/tracers.h"
#include "reader/symtab.h"
#include "utils/utils.h"

static const struct {
	const char *name;
	enum sort_key key;
} sort_names[] = {
	{ "total", SORT_TOTAL },	/* Total time */
	{ "self", SORT_SELF },		/* Self time */
	{ "calls", SORT_CALLS },	/* Calls; --stat: Hit */
	{ "hit", SORT_CALLS },
	{ "untimed", SORT_UNTIMED },	/* Untimed, when some call has no duration */
	{ "avg", SORT_AVG },		/* Average; --stat: Avg */
	{ "average", SORT_AVG },
	{ "min", SORT_MIN },
	{ "max", SORT_MAX },
	{ "time", SORT_TIME },		/* --stat: Time, every call's duration added */
	{ "s^2", SORT_VARIANCE },	/* --stat: s^2 */
	{ "variance", SORT_VARIANCE },
	{ "name", SORT_NAME },		/* Function */
	{ "function", SORT_NAME },
};

#define SORT_KEYS "total, self, calls (hit), untimed, avg (average), min, max, time, " \
		  "s^2 (variance) or name (function)"

static size_t ip_slot(uint64_t ip, uint64_t image, int pid, uint64_t since, size_t cap)
{
	uint64_t h = ip ^ (image * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(uint32_t)pid << 47) ^
		     (since * 0xc2b2ae3d27d4eb4full);

	h *= 0xff51afd7ed558ccdull;
	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static struct ipent *ip_get(struct iptab *t, uint64_t ip, uint64_t image, int pid, uint64_t since)
{
	size_t i;

	if ((t->nr + 1) * 2 > t->cap) {
		struct iptab n = { .cap = t->cap ? t->cap * 2 : 1024 };

		n.ents = xcalloc(n.cap, sizeof(*n.ents));
		for (size_t j = 0; j < t->cap; j++) {
			struct ipent *e = &t->ents[j];

			if (!e->used)
				continue;
			for (i = ip_slot(e->ip, e->image, e->pid, e->since, n.cap); n.ents[i].used;
			     i = (i + 1) & (n.cap - 1))
				;
			n.ents[i] = *e;
		}
		n.nr = t->nr;
		free(t->ents);
		*t = n;
	}
	for (i = ip_slot(ip, image, pid, since, t->cap);; i = (i + 1) & (t->cap - 1)) {
		struct ipent *e = &t->ents[i];

		if (!e->used) {
			e->used = 1;
			e->ip = ip;
			e->image = image;
			e->pid = pid;
			e->since = since;
			e->st.min = UINT64_MAX;
			t->nr++;
			return e;
		}
		if (e->ip == ip && e->image == image && e->pid == pid && e->since == since)
			return e;
	}
}

static void stat_add(struct fstat *s, uint64_t dur, uint64_t self, int outermost)
{
	s->calls++;
	s->sum += dur;
	if (outermost)
		s->total += dur;
	s->self += self;
	if (dur < s->min)
		s->min = dur;
	if (dur > s->max)
		s->max = dur;
	s->sumsq += (unsigned __int128)dur * dur;
}

/* no duration seen (a FUNC event in a graph recording): no minimum */
static uint64_t stat_min(const struct fstat *s)
{
	return s->min == UINT64_MAX ? 0 : s->min;
}

static void stat_merge(struct fstat *to, const struct fstat *from)
{
	to->calls += from->calls;
	to->untimed += from->untimed;
	to->total += from->total;
	to->sum += from->sum;
	to->self += from->self;
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->sumsq += from->sumsq;
}

/*
 * A thread's open calls are reader/callstack.h's; a frame's user field
 * holds the durations of the calls of the same function within it
 * (recursion: only the outermost adds to the total).
 */
struct walker {
	struct iptab *tab;
	struct losses *loss;
	struct ut_symtab *symtab;
	struct ut_callstack cs;
	int graph;		/* calls are paired (else: counted) */
	int pid;
	uint64_t image;
};

/* the statistics of @ip called at @ts */
static struct ipent *walk_ip(struct walker *w, uint64_t ip, uint64_t ts)
{
	return ip_get(w->tab, ip, w->image, w->pid,
		      ut_symtab_since(w->symtab, w->pid, w->image, ip, ts));
}

/* a call of @ip, running at @ts, whose duration is not known */
static void untimed(struct walker *w, uint64_t ip, uint64_t ts)
{
	if (ip)
		walk_ip(w, ip, ts)->st.untimed++;
	else
		w->loss->unknown++;
}

/*
 * the innermost call of @ip open around the frames that ended (@ended,
 * @n of them, outermost first: the first @n of them are still around
 * the one being counted), or NULL
 */
static struct ut_cs_frame *enclosing(struct walker *w, const struct ut_cs_frame *ended, uint32_t n,
				     uint64_t ip)
{
	while (n-- > 0)
		if (ended[n].ip == ip)
			return (struct ut_cs_frame *)&ended[n];
	for (uint32_t i = w->cs.sp; i-- > 0;)
		if (w->cs.f[i].ip == ip)
			return &w->cs.f[i];
	return NULL;
}

/*
 * The frames that ended unseen (@ended[@lo] to @ended[@n - 1]): the seen
 * ones have no return in the trace.  The calls of their function within them were timed, and that
 * much of the time the function ran is known: it goes to the call of the
 * same function around it, or to the total if there is none (recursion
 * whose outermost return was lost does not leave a total of 0).
 */
static void untimed_frames(struct walker *w, const struct ut_cs_frame *ended, uint32_t n,
			   uint32_t lo)
{
	while (w->graph && n-- > lo) {
		const struct ut_cs_frame *f = &ended[n];
		struct ut_cs_frame *g;

		if (!f->seen)
			continue;
		g = enclosing(w, ended, n, f->ip);
		untimed(w, f->ip, f->ts);
		if (g)
			g->user += f->user;
		else if (f->user)
			walk_ip(w, f->ip, f->ts)->st.total += f->user;
	}
}

static void call_exit(struct walker *w, const struct ut_event *ev, const struct ut_cs_change *c)
{
	const struct ut_cs_frame *f;
	struct ut_cs_frame *g;

	if (c->orphan) {
		/* of a call begun before the trace: data.c named it if it could */
		untimed(w, ev->ip, ev->ts);
		return;
	}
	if (!c->matched)
		return;
	untimed_frames(w, c->ended, c->nended, 1);
	f = &c->ended[0];
	if (!f->seen) {
		/* entered unseen: a STACK record named it, or nothing did */
		untimed(w, f->ip ? f->ip : ev->ip, f->ip ? f->ts : ev->ts);
		return;
	}
	g = enclosing(w, NULL, 0, f->ip);
	stat_add(&walk_ip(w, f->ip, f->ts)->st, c->dur, c->self, !g);
	if (g)
		g->user += c->dur;
}

/* a new process image, or the end of the thread's trace: the calls still open have no return in it */
static void walk_end(struct walker *w)
{
	struct ut_cs_change c;

	ut_callstack_end(&w->cs, &c);
	untimed_frames(w, c.ended, c.nended, 0);
}

/* returns 0, or -1 if a file was corrupt (what was read before still counts) */
static int walk_thread(struct ut_data *d, int tid, struct iptab *tab, struct losses *loss, int graph)
{
	struct walker w = { .tab = tab, .loss = loss, .symtab = d->symtab,
				.graph = graph, .pid = -1 };
	struct ut_merge *m = ut_merge_new(d, &tid, 1);
	struct ut_cs_change c;
	struct ut_event ev;
	int ret;

	ut_callstack_init(&w.cs, 0, UT_CS_LOSS_NOT_OWN);
	while ((ret = ut_merge_next(m, &ev)) > 0) {
		/* a new process image (exec) of this tid never returns to the old frames */
		if (ev.pid != w.pid || ev.image != w.image) {
			walk_end(&w);
			w.pid = ev.pid;
			w.image = ev.image;
			w.cs.last_ts = 0;
		}
		ut_callstack_event(&w.cs, &ev, &c);
		switch (ev.type) {
		case UT_EV_EXIT:
			if (graph)
				call_exit(&w, &ev, &c);
			break;
		case UT_EV_RETURN:
			/* a call recorded whole at its return (tracing_thresh); in a function recording, a call like the others */
			if (graph)
				stat_add(&walk_ip(&w, ev.ip, ev.ts)->st, c.dur, c.self,
					 !enclosing(&w, NULL, 0, ev.ip));
			else
				walk_ip(&w, ev.ip, ev.ts)->st.calls++;
			break;
		case UT_EV_FUNC:
			walk_ip(&w, ev.ip, ev.ts)->st.calls++;
			break;
		case UT_EV_DEPTH:
		case UT_EV_ENTRY:
			/* the calls above ended unseen, their returns lost */
			untimed_frames(&w, c.ended, c.nended, 0);
			break;
		default:
			break;
		}
	}
	walk_end(&w);
	loss->events += w.cs.lost_events;
	loss->ranges += w.cs.lost_ranges;
	loss->time += w.cs.lost_time;
	ut_merge_free(m);
	ut_callstack_free(&w.cs);
	return ret < 0 ? -1 : 0;
}

static int cmp_row_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

enum sort_key report_sort_by;

static long double row_key(const struct row *r)
{
	switch (report_sort_by) {
	case SORT_TOTAL:	return r->st.total;
	case SORT_SELF:		return r->st.self;
	case SORT_CALLS:	return r->st.calls + r->st.untimed;
	case SORT_UNTIMED:	return r->st.untimed;
	case SORT_AVG:		return r->st.calls ? r->st.sum / r->st.calls : 0;
	case SORT_MIN:		return stat_min(&r->st);
	case SORT_MAX:		return r->st.max;
	case SORT_TIME:		return r->st.sum;
	case SORT_VARIANCE:	return report_variance_us2(&r->st);
	default:		return 0;
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	long double kx, ky;
	int c;

	if (report_sort_by != SORT_NAME) {
		kx = row_key(x);
		ky = row_key(y);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	c = strcmp(x->label, y->label);
	return c ? c : strcmp(x->module, y->module);
}

/* name every ip and fold those of one function into one row */
static struct row *make_rows(struct ut_data *d, struct iptab *tab, size_t *nr_rows)
{
	struct row *rows = xcalloc(tab->nr, sizeof(*rows));
	char **hex = xcalloc(tab->nr, sizeof(*hex));
	size_t n = 0, nhex = 0, out = 0;

	for (size_t i = 0; i < tab->cap; i++) {
		const struct ipent *e = &tab->ents[i];
		const struct ut_sym *s;

		if (!e->used || (!e->st.calls && !e->st.untimed))
			continue;
		s = ut_symtab_find(d->symtab, e->pid, e->image, e->ip, e->since);
		if (s) {
			rows[n].name = s->name;
			rows[n].module = s->module;
		} else {
			/* an unknown function: its address, as replay prints it */
			hex[nhex] = xmalloc(24);
			snprintf(hex[nhex], 24, "%#" PRIx64, e->ip);
			rows[n].name = hex[nhex++];
			rows[n].module = "";
		}
		rows[n].st = e->st;
		n++;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row_name);
	for (size_t i = 0; i < n; i++) {
		if (out && !cmp_row_name(&rows[out - 1], &rows[i]))
			stat_merge(&rows[out - 1].st, &rows[i].st);
		else
			rows[out++] = rows[i];
	}
	/* labels outlive the hex names; a name found in two modules says which */
	for (size_t i = 0; i < out; i++) {
		int twin = (i && !strcmp(rows[i - 1].name, rows[i].name)) ||
			   (i + 1 < out && !strcmp(rows[i + 1].name, rows[i].name));

		if (twin && *rows[i].module) {
			size_t len = strlen(rows[i].name) + strlen(rows[i].module) + 4;

			rows[i].label = xmalloc(len);
			snprintf(rows[i].label, len, "%s [%s]", rows[i].name, rows[i].module);
		} else {
			rows[i].label = xstrdup(rows[i].name);
		}
	}
	for (size_t i = 0; i < out; i++)
		rows[i].name = rows[i].label;
	for (size_t i = 0; i < nhex; i++)
		free(hex[i]);
	free(hex);
	*nr_rows = out;
	return rows;
}

/* @ns scaled to ns/us/ms/s for 3 decimals: the value, and its unit */
double report_scale_time(uint64_t ns, const char **unit)
{
	static const char *const units[] = { "ns", "us", "ms", "s " };
	double v = (double)ns;
	size_t u = 0;

	/* rounding to 3 decimals must not print "1000.000 us" */
	while (u + 1 < ARRAY_SIZE(units) && v >= 999.9995) {
		v /= 1000;
		u++;
	}
	*unit = units[u];
	return v;
}

/* "   1.234 ms": the value scaled to ns/us/ms/s, 3 decimals, 12 columns */
void report_print_time(uint64_t ns)
{
	const char *unit;
	double v = report_scale_time(ns, &unit);

	printf("%9.3f %s", v, unit);
}

/* a time that is not known: no call of the function has a duration */
static void print_none(void)
{
	printf("%12s", "-");
}

/* some call has no duration: the column that counts them is shown */
int report_any_untimed(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].st.untimed)
			return 1;
	return 0;
}

/*
 * What the numbers cannot include, before the table, when there is any:
 * the lost and overwritten events, the calls with no duration, the returns
 * of calls nobody can name.
 */
void report_print_losses(const struct losses *l, int graph, int untimed_col)
{
	const char *unit;
	double v;

	if (l->events) {
		printf("# lost: %" PRIu64 " events in %" PRIu64 " range%s", l->events, l->ranges,
		       l->ranges == 1 ? "" : "s");
		/* the time from the event before each loss to the one after it, where both exist */
		if (graph && l->time) {
			v = report_scale_time(l->time, &unit);
			printf(" over %.3f %s (left out of self times)", v, unit[1] == ' ' ? "s" : unit);
		}
		putchar('\n');
	}
	if (l->overrun)
		printf("# overwritten: %" PRIu64 " events (flight recorder: the start is gone)\n",
		       l->overrun);
	if (untimed_col)
		printf("# untimed: calls whose entry or return is not in the trace (no duration)\n");
	if (l->unknown)
		printf("# unknown: %" PRIu64 " return%s of calls whose entry and function are not in the trace\n",
		       l->unknown, l->unknown == 1 ? "" : "s");
}

static void print_report(const struct row *rows, size_t n, int graph, const struct losses *l)
{
	int ucol = graph && report_any_untimed(rows, n);

	report_print_losses(l, graph, ucol);
	if (!graph) {
		printf("       Calls  Function\n");
		printf("  ==========  ====================\n");
		for (size_t i = 0; i < n; i++)
			printf("%12" PRIu64 "  %s\n", rows[i].st.calls, rows[i].label);
		return;
	}
	printf("  Total time   Self time       Calls%s     Average         Min         Max  Function\n",
	       ucol ? "     Untimed" : "");
	printf("  ==========  ==========  ==========%s  ==========  ==========  ==========  ====================\n",
	       ucol ? "  ==========" : "");
	for (size_t i = 0; i < n; i++) {
		const struct fstat *s = &rows[i].st;

		if (s->calls) {
			report_print_time(s->total);
			report_print_time(s->self);
		} else {
			print_none();
			print_none();
		}
		printf("%12" PRIu64, s->calls + s->untimed);
		if (ucol)
			printf("%12" PRIu64, s->untimed);
		if (s->calls) {
			report_print_time(s->sum / s->calls);
			report_print_time(stat_min(s));
			report_print_time(s->max);
		} else {
			print_none();
			print_none();
			print_none();
		}
		printf("  %s\n", rows[i].label);
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * An empty table with nothing said leaves the user guessing: when no
 * function was recorded because nothing that ran is instrumented (record
 * said so then; this may be read much later), say it again, shorter.
 */
static void say_uninstrumented(const char *dir)
{
	char exes[512];

	switch (ut_symtab_uninstrumented(dir, exes, sizeof(exes))) {
	case 1:
		pr_warn("%s has no function call: nothing in %s or the libraries %s loaded is "
			"instrumented (build with -pg, -pg -mfentry, -finstrument-functions or "
			"-fpatchable-function-entry=5)", dir, exes[0] ? exes : "the program",
			strchr(exes, ',') ? "they" : "it");
		break;
	case 2:
		pr_warn("%s has no function call: the runtime was loaded into no process "
			"(a statically linked or set-user-ID program cannot be traced)", dir);
		break;
	}
}

/* the statistics of data directory @dir: 0, or -1 when it cannot be opened (said) */
int report_profile_load(struct profile *p, const char *dir)
{
	int nr_tids = 0, *tids;

	memset(p, 0, sizeof(*p));
	if (ut_data_open(&p->d, dir) < 0)
		return -1;
	/* what the data's tracer had recorded (an unknown one: calls and returns) */
	p->mode = ut_tracer_mode(p->d.tracer);
	p->graph = p->mode != UT_MODE_FUNC;

	/* threads of several images share a tid: walk each tid once */
	tids = xcalloc(p->d.nr_threads ? (size_t)p->d.nr_threads : 1, sizeof(*tids));
	for (int i = 0; i < p->d.nr_threads; i++)
		tids[i] = p->d.threads[i].tid;
	if (p->d.nr_threads)
		qsort(tids, (size_t)p->d.nr_threads, sizeof(*tids), cmp_int);
	for (int i = 0; i < p->d.nr_threads; i++)
		if (!i || tids[i] != tids[nr_tids - 1])
			tids[nr_tids++] = tids[i];
	for (int i = 0; i < nr_tids; i++)
		if (walk_thread(&p->d, tids[i], &p->tab, &p->loss, p->graph) < 0)
			p->bad = 1;
	for (int i = 0; i < p->d.nr_threads; i++)
		p->loss.overrun += p->d.threads[i].overrun;
	free(tids);
	if (p->bad)
		pr_warn("%s: some events could not be read: the numbers are partial", dir);
	p->rows = make_rows(&p->d, &p->tab, &p->nr_rows);
	return 0;
}

void report_profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nr_rows; i++)
		free(p->rows[i].label);
	free(p->rows);
	free(p->tab.ents);
	ut_data_close(&p->d);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace report [-i DIR] [-s KEY] [--stat | --branch | --stack | --profile |\n"
		"                        --kmem | --workqueue | --folded | --diff OLD_DIR]\n"
		"\n"
		"  -i, --input DIR      read the trace from DIR (default usertrace.data)\n"
		"  -s, --sort KEY       total (default), self, calls (hit), untimed, avg (average),\n"
		"                       min, max, time, s^2 (variance) or name (function)\n"
		"      --stat           the kernel's trace_stat/function layout\n"
		"      --branch         the branch profilers' tables (trace_stat/branch_annotated,\n"
		"                       branch_all) of a program built with\n"
		"                       -DUSERTRACE_PROFILE_BRANCHES or ..._ALL_BRANCHES\n"
		"      --stack          the deepest stack of each process, as the kernel's\n"
		"                       stack_trace, and each thread's (record --stack-trace)\n"
		"      --profile        the function profiler's counts, as the kernel's\n"
		"                       trace_stat/function, of all threads then of each\n"
		"                       (record --func-profile)\n"
		"      --kmem           allocations per call site, leaks (record -t kmemtrace):\n"
		"                       trace_stat/kmem\n"
		"      --workqueue      works inserted and executed per worker: trace_stat/workqueue\n"
		"      --folded         the sysprof tracer's samples as folded stacks (flame graphs)\n"
		"      --diff OLD_DIR   each function's calls, total and self time in OLD_DIR and\n"
		"                       in DIR, and the changes; largest change of total first\n"
		"                       (-s self, calls or name)\n"
		"  -h, --help           this help\n");
}

int command_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "stat", no_argument, NULL, 'S' },
		{ "branch", no_argument, NULL, 'B' },
		{ "stack", no_argument, NULL, 'K' },
		{ "profile", no_argument, NULL, 'P' },
		{ "kmem", no_argument, NULL, 'M' },
		{ "workqueue", no_argument, NULL, 'W' },
		{ "folded", no_argument, NULL, 'F' },
		{ "diff", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "usertrace.data", *olddir = NULL;
	struct profile p;
	struct ut_data d;
	size_t k;
	int c, stat = 0, branch = 0, folded = 0, graph, bad = 0, view = 0;
	const char *statfile = NULL;
	int nstatfile = 0;

	report_sort_by = SORT_TOTAL;
	/* our own messages, in the "usertrace: " form */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			dir = optarg;
			break;
		case 's':
			for (k = 0; k < ARRAY_SIZE(sort_names); k++)
				if (!strcmp(optarg, sort_names[k].name))
					break;
			/* a usage error, as an unknown option would be in most tools */
			if (k == ARRAY_SIZE(sort_names)) {
				pr_err("unknown sort key '%s' (" SORT_KEYS ")", optarg);
				return 2;
			}
			report_sort_by = sort_names[k].key;
			break;
		case 'D':
			olddir = optarg;
			break;
		case 'S':
			stat = 1;
			break;
		case 'B':
			branch = 1;
			break;
		case 'K':
			view = 'K';
			nstatfile++;
			break;
		case 'P':
			view = 'P';
			nstatfile++;
			break;
		case 'M':
			statfile = "kmem";
			nstatfile++;
			break;
		case 'W':
			statfile = "workqueue";
			nstatfile++;
			break;
		case 'F':
			folded = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			pr_err("option '%s' needs an argument (see usertrace report -h)", argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				pr_err("unknown option '-%c' (see usertrace report -h)", optopt);
			else
				pr_err("unknown option '%s' (see usertrace report -h)", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s' (see usertrace report -h)", argv[optind]);
		return 2;
	}
	if (stat + branch + folded + nstatfile + !!olddir > 1) {
		pr_err("--stat, --branch, --stack, --profile, --kmem, --workqueue, --folded and --diff are reports of their own: choose one");
		return 2;
	}
	if (olddir) {
		if (report_sort_by != SORT_TOTAL && report_sort_by != SORT_SELF && report_sort_by != SORT_CALLS &&
		    report_sort_by != SORT_NAME) {
			pr_err("report --diff sorts by total, self, calls or name: its columns");
			return 2;
		}
		return report_diff(dir, olddir);
	}
	/* the statistics the programs kept: no need for the buffers */
	if (view) {
		DIR *dd = opendir(dir);

		if (!dd) {
			pr_err("cannot read %s: %s", dir, strerror(errno));
			return 1;
		}
		closedir(dd);
		return (view == 'K' ? prof_stack_report(dir, stdout) : prof_func_report(dir, stdout)) < 0;
	}
	if (statfile)
		return report_statfile(dir, statfile);
	if (branch) {
		if (ut_data_open(&d, dir) < 0)
			return 1;
		c = report_branch(dir);
		ut_data_close(&d);
		return c;
	}
	if (folded) {
		unsigned long long ns;

		if (ut_data_open(&d, dir) < 0)
			return 1;
		bad = report_folded(&d, stdout, &ns) < 0;
		if (bad)
			pr_warn("some samples could not be read: the counts are partial");
		else if (!ns)
			pr_warn("%s has no samples (record with -t sysprof)", dir);
		if (fflush(stdout) || ferror(stdout)) {
			pr_err("cannot write the report: %s", strerror(errno));
			bad = 1;
		}
		ut_data_close(&d);
		return bad;
	}

	if (report_profile_load(&p, dir) < 0)
		return 1;
	graph = p.graph;
	if (p.mode == UT_MODE_NONE)
		pr_warn("%s was recorded with the %s tracer: no functions", dir, p.d.tracer);
	if (!graph && report_sort_by != SORT_CALLS && report_sort_by != SORT_NAME && report_sort_by != SORT_TOTAL)
		pr_warn("the %s tracer records no durations: sorting by calls", p.d.tracer);
	if (!graph && report_sort_by != SORT_NAME)
		report_sort_by = SORT_CALLS;
	bad = p.bad;
	if (!p.nr_rows && p.mode != UT_MODE_NONE)
		say_uninstrumented(dir);
	if (p.nr_rows)
		qsort(p.rows, p.nr_rows, sizeof(*p.rows), cmp_row);
	if (stat)
		report_print_stat(p.rows, p.nr_rows, graph, &p.loss);
	else
		print_report(p.rows, p.nr_rows, graph, &p.loss);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("cannot write the report: %s", strerror(errno));
		bad = 2;
	}
	report_profile_free(&p);
	/* corrupt data: the partial report is printed, the status says so */
	return bad ? 1 : 0;
}
