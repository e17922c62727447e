// SPDX-License-Identifier: MIT
/*
 * report.c - usertrace report: per-function statistics of a recording.
 *
 *   usertrace report [-i DIR] [-s KEY] [--stat]
 *
 * Each thread is walked on its own, in record order: time-merging threads
 * would cost a heap operation per event and tells nothing per function.
 * A stack of open calls gives every matched exit its duration and the time
 * spent in its callees.  Statistics are kept per (pid, image, ip) in an
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
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/utils.h"

/*
 * The event depth resynchronises our stack only where entries and exits
 * cannot pair up by themselves: at the start of a thread's stream (a
 * forked child's inherited frames, a flight recording's overwritten
 * start) and after lost records.  Elsewhere pairing is exact, also in
 * recursion deeper than the open calls data.c tracks (4096), where event
 * depths are clamped: depths from DEPTH_TRUSTED up are never used.
 */
#define DEPTH_TRUSTED	4000

enum sort_key { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_AVG, SORT_MIN, SORT_MAX, SORT_NAME };

static const char *const sort_names[] = {
	[SORT_TOTAL] = "total", [SORT_SELF] = "self", [SORT_CALLS] = "calls",
	[SORT_AVG] = "avg", [SORT_MIN] = "min", [SORT_MAX] = "max", [SORT_NAME] = "name",
};

struct fstat {
	uint64_t calls, total, self, min, max;
	uint64_t sum;			/* of every call's duration, recursive ones too */
	unsigned __int128 sumsq;	/* of durations in ns^2: exact, for --stat */
};

/*
 * statistics of one ip in one process image, while one mapping holds it
 * (since: see ut_symtab_since(); a library may be mapped where another was)
 */
struct ipent {
	uint64_t ip, image, since;
	int pid;
	int used;
	struct fstat st;
};

struct iptab {
	struct ipent *ents;
	size_t cap, nr;			/* cap is a power of two */
};

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
	to->total += from->total;
	to->sum += from->sum;
	to->self += from->self;
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->sumsq += from->sumsq;
}

struct frame {
	uint64_t ip;		/* 0: an entry we did not see (lost, or before a fork) */
	uint64_t ts;
	uint64_t child;		/* time spent in completed callees */
};

/* the RETURNs of callees of a call at @depth whose RETURN has not come yet */
struct pending {
	uint32_t depth;
	uint64_t first;		/* entry time of the first of them */
	uint64_t sum;		/* their durations */
};

struct walker {
	struct iptab *tab;
	struct ut_symtab *symtab;
	struct frame *stack;
	size_t sp, cap;
	struct pending *pend;	/* by increasing depth */
	size_t npend, cappend;
	int pid;
	uint64_t image;
	int resync;		/* records were lost: trust the next event's depth */
};

/* the statistics of @ip called at @ts */
static struct ipent *walk_ip(struct walker *w, uint64_t ip, uint64_t ts)
{
	return ip_get(w->tab, ip, w->image, w->pid,
		      ut_symtab_since(w->symtab, w->pid, w->image, ip, ts));
}

static void push(struct walker *w, uint64_t ip, uint64_t ts)
{
	if (w->sp == w->cap)
		w->stack = xrealloc(w->stack, (w->cap = w->cap ? w->cap * 2 : 256) * sizeof(*w->stack));
	w->stack[w->sp++] = (struct frame){ .ip = ip, .ts = ts };
}

/* make the stack @depth frames deep: drop unmatched entries, or pad with unknown ones */
static void resync(struct walker *w, uint32_t depth)
{
	if (depth >= DEPTH_TRUSTED)
		return;
	if (w->sp > depth)
		w->sp = depth;
	while (w->sp < depth)
		push(w, 0, 0);
}

static void call_entry(struct walker *w, const struct ut_event *ev)
{
	if (w->resync || !w->sp)
		resync(w, ev->depth);
	w->resync = 0;
	push(w, ev->ip, ev->ts);
}

/* is @ip an active call below the top of the stack (recursion)? */
static int on_stack(const struct walker *w, uint64_t ip)
{
	for (size_t i = 0; i < w->sp; i++)
		if (w->stack[i].ip == ip)
			return 1;
	return 0;
}

static void call_exit(struct walker *w, const struct ut_event *ev)
{
	struct frame *f;
	uint64_t dur, self;

	/* the exit of depth d closes the entry of depth d */
	if (w->resync)
		resync(w, ev->depth + 1);
	w->resync = 0;
	if (!w->sp)
		return;		/* of a call entered before the recording saw it */
	f = &w->stack[--w->sp];
	if (!f->ip)
		return;
	dur = ev->ts > f->ts ? ev->ts - f->ts : 0;
	self = dur > f->child ? dur - f->child : 0;
	stat_add(&walk_ip(w, f->ip, f->ts)->st, dur, self, !on_stack(w, f->ip));
	if (w->sp)
		w->stack[w->sp - 1].child += dur;
}

/* a call recorded whole at its return (tracing_thresh) */
static void call_return(struct walker *w, const struct ut_event *ev)
{
	uint64_t dur = ev->duration, self = dur;
	uint64_t entry = ev->ts > dur ? ev->ts - dur : 0;
	uint32_t d = ev->depth;
	struct pending *p;

	/* callees of calls deeper than this one: those calls are over, their RETURNs missing */
	while (w->npend && w->pend[w->npend - 1].depth > d)
		w->npend--;
	if (w->npend && w->pend[w->npend - 1].depth == d) {
		p = &w->pend[--w->npend];
		if (p->first >= entry)
			self = dur > p->sum ? dur - p->sum : 0;
	}
	stat_add(&walk_ip(w, ev->ip, ev->ts)->st, dur, self, !on_stack(w, ev->ip));
	/* a callee of the open entry below it, if the stream has ENTRY/EXIT pairs too */
	if (w->sp && w->sp == d)
		w->stack[w->sp - 1].child += dur;
	if (!d)
		return;
	if (w->npend && w->pend[w->npend - 1].depth == d - 1) {
		w->pend[w->npend - 1].sum += dur;
		return;
	}
	if (w->npend == w->cappend)
		w->pend = xrealloc(w->pend, (w->cappend = w->cappend ? w->cappend * 2 : 64) * sizeof(*w->pend));
	w->pend[w->npend++] = (struct pending){ .depth = d - 1, .first = entry, .sum = dur };
}

/* returns 0, or -1 if a file was corrupt (what was read before still counts) */
static int walk_thread(struct ut_data *d, int tid, struct iptab *tab, int graph)
{
	struct walker w = { .tab = tab, .symtab = d->symtab, .pid = -1 };
	struct ut_merge *m = ut_merge_new(d, &tid, 1);
	struct ut_event ev;
	int ret;

	while ((ret = ut_merge_next(m, &ev)) > 0) {
		/* a new process image (exec) of this tid never returns to the old frames */
		if (ev.pid != w.pid || ev.image != w.image) {
			w.sp = 0;
			w.npend = 0;
			w.pid = ev.pid;
			w.image = ev.image;
		}
		switch (ev.type) {
		case UT_EV_ENTRY:
			if (graph)
				call_entry(&w, &ev);
			break;
		case UT_EV_EXIT:
			if (graph)
				call_exit(&w, &ev);
			break;
		case UT_EV_RETURN:
			/* in a function recording, a call like the others */
			if (graph)
				call_return(&w, &ev);
			else
				walk_ip(&w, ev.ip, ev.ts)->st.calls++;
			break;
		case UT_EV_FUNC:
			walk_ip(&w, ev.ip, ev.ts)->st.calls++;
			break;
		case UT_EV_LOST:
			w.resync = 1;
			w.npend = 0;
			break;
		default:
			break;
		}
	}
	ut_merge_free(m);
	free(w.stack);
	free(w.pend);
	return ret < 0 ? -1 : 0;
}

/* one line of the report: all ips that name the same function */
struct row {
	const char *name;
	const char *module;
	char *label;		/* what is printed; allocated */
	struct fstat st;
};

static int cmp_row_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

static enum sort_key sort_by;

static uint64_t row_key(const struct row *r)
{
	switch (sort_by) {
	case SORT_TOTAL:	return r->st.total;
	case SORT_SELF:		return r->st.self;
	case SORT_CALLS:	return r->st.calls;
	case SORT_AVG:		return r->st.calls ? r->st.sum / r->st.calls : 0;
	case SORT_MIN:		return stat_min(&r->st);
	case SORT_MAX:		return r->st.max;
	default:		return 0;
	}
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t kx, ky;
	int c;

	if (sort_by != SORT_NAME) {
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

		if (!e->used || !e->st.calls)
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

/* "   1.234 ms": the value scaled to ns/us/ms/s, 3 decimals, 12 columns */
static void print_time(uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s " };
	double v = (double)ns;
	size_t u = 0;

	/* rounding to 3 decimals must not print "1000.000 us" */
	while (u + 1 < ARRAY_SIZE(units) && v >= 999.9995) {
		v /= 1000;
		u++;
	}
	printf("%9.3f %s", v, units[u]);
}

static void print_report(const struct row *rows, size_t n, int graph)
{
	if (!graph) {
		printf("       Calls  Function\n");
		printf("  ==========  ====================\n");
		for (size_t i = 0; i < n; i++)
			printf("%12" PRIu64 "  %s\n", rows[i].st.calls, rows[i].label);
		return;
	}
	printf("  Total time   Self time       Calls     Average         Min         Max  Function\n");
	printf("  ==========  ==========  ==========  ==========  ==========  ==========  ====================\n");
	for (size_t i = 0; i < n; i++) {
		const struct fstat *s = &rows[i].st;

		print_time(s->total);
		print_time(s->self);
		printf("%12" PRIu64, s->calls);
		print_time(s->sum / s->calls);
		print_time(stat_min(s));
		print_time(s->max);
		printf("  %s\n", rows[i].label);
	}
}

/* the kernel's "%llu.%03lu us" duration: microseconds with 3 decimals */
static int fmt_us(char *buf, size_t size, uint64_t ns)
{
	return snprintf(buf, size, "%" PRIu64 ".%03u us", ns / 1000, (unsigned)(ns % 1000));
}

/* s^2 = (n * sum(x^2) - sum(x)^2) / (n * (n - 1)), from ns^2 to us^2 */
static long double variance_us2(const struct fstat *s)
{
	long double sum = (long double)s->sum, cnt = (long double)s->calls, v;

	if (s->calls < 2)
		return 0;
	v = ((long double)s->sumsq - sum * sum / cnt) / (cnt - 1);
	return v > 0 ? v / 1e6L : 0;	/* rounding can make it a hair negative */
}

/*
 * The kernel's trace_stat/function<cpu> layout (the function profiler):
 * time and average in microseconds, s^2 the variance of the durations in
 * us^2.  Columns widen for long names and times instead of cutting them.
 */
static void print_stat(const struct row *rows, size_t n, int graph)
{
	char buf[48];
	int w = 30, wt = 12, wa = 12, len;

	for (size_t i = 0; i < n; i++) {
		if (strlen(rows[i].label) > (size_t)w)
			w = (int)strlen(rows[i].label);
		len = fmt_us(buf, sizeof(buf), rows[i].st.sum);
		wt = len > wt ? len : wt;
		len = fmt_us(buf, sizeof(buf), rows[i].st.sum / rows[i].st.calls);
		wa = len > wa ? len : wa;
	}
	if (!graph) {
		printf("  %-*s  %10s\n", w, "Function", "Hit");
		printf("  %-*s  %10s\n", w, "--------", "---");
		for (size_t i = 0; i < n; i++)
			printf("  %-*s  %10" PRIu64 "\n", w, rows[i].label, rows[i].st.calls);
		return;
	}
	printf("  %-*s  %10s    %-*s    %-*s    %s\n", w, "Function", "Hit", wt, "Time", wa, "Avg", "s^2");
	printf("  %-*s  %10s    %-*s    %-*s    %s\n", w, "--------", "---", wt, "----", wa, "---", "---");
	for (size_t i = 0; i < n; i++) {
		const struct fstat *s = &rows[i].st;
		char total[32], avg[32];

		/* the kernel's profiler adds up every call, recursive ones too */
		fmt_us(total, sizeof(total), s->sum);
		fmt_us(avg, sizeof(avg), s->sum / s->calls);
		printf("  %-*s  %10" PRIu64 "    %-*s    %-*s    %.3Lf us\n", w, rows[i].label, s->calls,
		       wt, total, wa, avg, variance_us2(s));
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace report [-i DIR] [-s KEY] [--stat]\n"
		"\n"
		"  -i, --input DIR      read the trace from DIR (default usertrace.data)\n"
		"  -s, --sort KEY       total (default), self, calls, avg, min, max or name\n"
		"      --stat           the kernel's trace_stat/function layout\n"
		"  -h, --help           this help\n");
}

int command_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "stat", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "usertrace.data";
	struct iptab tab = { 0 };
	struct ut_data d;
	struct row *rows;
	size_t nr_rows, k;
	int c, stat = 0, graph, nr_tids = 0, *tids, bad = 0;

	sort_by = SORT_TOTAL;
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
				if (!strcmp(optarg, sort_names[k]))
					break;
			if (k == ARRAY_SIZE(sort_names)) {
				pr_err("unknown sort key '%s' (total, self, calls, avg, min, max, name)", optarg);
				return 1;
			}
			sort_by = (enum sort_key)k;
			break;
		case 'S':
			stat = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			pr_err("option '%s' needs an argument", argv[optind - 1]);
			return 1;
		default:
			if (optopt)
				pr_err("unknown option '-%c'", optopt);
			else
				pr_err("unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 1;
	}
	if (ut_data_open(&d, dir) < 0)
		return 1;

	graph = strcmp(d.tracer, "function") != 0;
	if (!strcmp(d.tracer, "nop"))
		pr_warn("%s was recorded with the nop tracer: no functions", dir);
	if (!graph && sort_by != SORT_CALLS && sort_by != SORT_NAME && sort_by != SORT_TOTAL)
		pr_warn("the function tracer records no durations: sorting by calls");
	if (!graph && sort_by != SORT_NAME)
		sort_by = SORT_CALLS;

	/* threads of several images share a tid: walk each tid once */
	tids = xcalloc((size_t)d.nr_threads, sizeof(*tids));
	for (int i = 0; i < d.nr_threads; i++)
		tids[i] = d.threads[i].tid;
	if (d.nr_threads)
		qsort(tids, (size_t)d.nr_threads, sizeof(*tids), cmp_int);
	for (int i = 0; i < d.nr_threads; i++)
		if (!i || tids[i] != tids[nr_tids - 1])
			tids[nr_tids++] = tids[i];
	for (int i = 0; i < nr_tids; i++)
		if (walk_thread(&d, tids[i], &tab, graph) < 0)
			bad = 1;
	free(tids);
	if (bad)
		pr_warn("some events could not be read: the numbers are partial");

	rows = make_rows(&d, &tab, &nr_rows);
	if (nr_rows)
		qsort(rows, nr_rows, sizeof(*rows), cmp_row);
	if (stat)
		print_stat(rows, nr_rows, graph);
	else
		print_report(rows, nr_rows, graph);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("cannot write the report: %s", strerror(errno));
		bad = 2;
	}

	for (size_t i = 0; i < nr_rows; i++)
		free(rows[i].label);
	free(rows);
	free(tab.ents);
	ut_data_close(&d);
	/* corrupt data: the partial report is printed, the status says so */
	return bad ? 1 : 0;
}
