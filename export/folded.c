// SPDX-License-Identifier: MIT
/*
 * folded.c - folded stacks (folded.h): `usertrace report --folded` and
 * the tree that `dump --flame-graph` writes.  One line per distinct
 * stack, outermost frame first, with its self value:
 *
 *	_start;__libc_start_main;[unknown];main;burn 212
 *
 * the input of flame graph tools (flamegraph.pl, inferno, speedscope).
 * Lines are sorted by stack.  A frame without a symbol is [unknown]; a
 * sample's caller frame is a return address, looked up one byte back
 * (the call), so that a call at the end of a function names that
 * function.  ';' and ' ' in names become '_': they separate the format's
 * fields.
 *
 * Two open-addressing hashes keep it bounded by distinct paths: names
 * (string -> name id) and nodes ((caller node, name id) -> node).  A
 * call or sample costs one symbol lookup and a few probes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmds.h"
#include "export/folded.h"
#include "reader/callstack.h"
#include "reader/data.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/*
 * a call recorded whole at its return (tracing_thresh: UT_EV_RETURN),
 * kept until the return of its outermost caller places it in the tree:
 * returns come innermost first, so the path to a call is known only then
 */
struct fret {
	uint32_t depth, name;
	uint64_t start, dur;
	uint64_t self;		/* its time less that of its callees recorded */
};

/* a thread's open calls (function_graph): a frame's user field is its node */
struct fthread {
	struct ut_callstack cs;
	struct fret *ret;	/* the returns not placed yet, in the order they came */
	size_t nret, retcap;
};

struct folded {
	struct ut_data *d;
	unsigned kinds, kind;
	uint64_t ignored;
	char **names;
	uint32_t nr_names, *name_hash;	/* slots hold name id + 1; 0: empty */
	size_t name_cap;		/* slots, a power of two */
	struct folded_node *nodes;
	uint32_t nr_nodes, *node_hash;	/* slots hold the node index; 0: empty (the root is never in it) */
	size_t node_cap, nodes_alloc;
	struct fthread *threads;	/* by index in d->threads */
	int finished;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static uint64_t hash_node(uint32_t parent, uint32_t name)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0xff51afd7ed558ccdull;

	return h ^ (h >> 31);
}

static uint32_t name_id(struct folded *f, const char *s)
{
	size_t i;

	if ((f->nr_names + 1) * 2 > f->name_cap) {
		size_t cap = f->name_cap ? f->name_cap * 2 : 256;
		uint32_t *t = xcalloc(cap, sizeof(*t));

		for (uint32_t k = 0; k < f->nr_names; k++) {
			for (i = hash_str(f->names[k]) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = k + 1;
		}
		free(f->name_hash);
		f->name_hash = t;
		f->name_cap = cap;
		f->names = xrealloc(f->names, cap / 2 * sizeof(*f->names));
	}
	for (i = hash_str(s) & (f->name_cap - 1); f->name_hash[i]; i = (i + 1) & (f->name_cap - 1))
		if (!strcmp(f->names[f->name_hash[i] - 1], s))
			return f->name_hash[i] - 1;
	f->names[f->nr_names] = xstrdup(s);
	f->name_hash[i] = ++f->nr_names;
	return f->nr_names - 1;
}

/* the node of function @name called from node @parent, made if new */
static uint32_t child_of(struct folded *f, uint32_t parent, uint32_t name)
{
	struct folded_node *n;
	size_t i;

	if ((f->nr_nodes + 1) * 2 > f->node_cap) {
		size_t cap = f->node_cap ? f->node_cap * 2 : 1024;
		uint32_t *t = xcalloc(cap, sizeof(*t));

		for (uint32_t k = 1; k < f->nr_nodes; k++) {
			n = &f->nodes[k];
			for (i = hash_node(n->parent, n->name) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = k;
		}
		free(f->node_hash);
		f->node_hash = t;
		f->node_cap = cap;
	}
	for (i = hash_node(parent, name) & (f->node_cap - 1); f->node_hash[i];
	     i = (i + 1) & (f->node_cap - 1)) {
		n = &f->nodes[f->node_hash[i]];
		if (n->parent == parent && n->name == name)
			return f->node_hash[i];
	}
	if (f->nr_nodes == f->nodes_alloc) {
		f->nodes_alloc *= 2;
		f->nodes = xrealloc(f->nodes, f->nodes_alloc * sizeof(*f->nodes));
	}
	f->nodes[f->nr_nodes] = (struct folded_node){ .parent = parent, .name = name,
						       .depth = f->nodes[parent].depth + 1 };
	f->node_hash[i] = f->nr_nodes;
	return f->nr_nodes++;
}

/* the name id of @addr in @ev's process: its symbol, or [unknown] */
static uint32_t frame_name(struct folded *f, const struct ut_event *ev, uint64_t addr)
{
	const struct ut_sym *sym = NULL;
	char buf[512];

	if (f->d->symtab && addr)
		sym = ut_symtab_find(f->d->symtab, ev->pid, ev->image, addr, ev->ts);
	snprintf(buf, sizeof(buf), "%s", sym && sym->name && *sym->name ? sym->name : "[unknown]");
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
	return name_id(f, buf);
}

struct folded *folded_new(struct ut_data *d, unsigned kinds)
{
	struct folded *f = xcalloc(1, sizeof(*f));

	f->d = d;
	f->kinds = kinds;
	f->nodes_alloc = 256;
	f->nodes = xcalloc(f->nodes_alloc, sizeof(*f->nodes));
	f->nr_nodes = 1;	/* the root */
	f->threads = xcalloc(d->nr_threads ? (size_t)d->nr_threads : 1, sizeof(*f->threads));
	for (int i = 0; i < d->nr_threads; i++)
		ut_callstack_init(&f->threads[i].cs, 0, 0);
	return f;
}

void folded_free(struct folded *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nr_names; i++)
		free(f->names[i]);
	for (int i = 0; i < f->d->nr_threads; i++) {
		ut_callstack_free(&f->threads[i].cs);
		free(f->threads[i].ret);
	}
	free(f->threads);
	free(f->names);
	free(f->name_hash);
	free(f->nodes);
	free(f->node_hash);
	free(f);
}

/* the first event of a kind decides what the tree counts */
static int counts(struct folded *f, unsigned kind)
{
	if (!(f->kinds & kind))
		return 0;
	if (!f->kind)
		f->kind = kind;
	if (f->kind == kind)
		return 1;
	f->ignored++;
	return 0;
}

/* the innermost open call ended: its own time to its node */
static void pop(struct folded *f, const struct ut_cs_change *c)
{
	if (c->matched)
		f->nodes[c->ended[0].user].self += c->self;
}

/*
 * The frames an event added (callstack.h): the calls entered unseen are
 * [unknown] frames (running since it: their time is theirs), then the
 * ENTRY's own.  Calls that ended unseen are not drawn: how long they ran
 * is not known, and that time is not their caller's own either.
 */
static void name_frames(struct folded *f, struct fthread *t, const struct ut_cs_change *c,
			const struct ut_event *entry)
{
	for (uint32_t i = c->added; i < t->cs.sp; i++) {
		struct ut_cs_frame *fr = &t->cs.f[i];
		uint32_t name = entry && fr->seen ? frame_name(f, entry, entry->ip) :
				name_id(f, "[unknown]");

		fr->user = child_of(f, i ? (uint32_t)t->cs.f[i - 1].user : 0, name);
	}
}

static void sample(struct folded *f, const struct ut_event *ev)
{
	uint64_t cnt = ut_event_trace_len(ev);
	uint32_t node = 0;

	if (!cnt || !counts(f, FOLDED_SAMPLES))
		return;
	for (uint64_t k = cnt; k-- > 0;) {
		uint64_t ip = ut_event_trace_ip(ev, k);

		node = child_of(f, node, frame_name(f, ev, k ? ip - 1 : ip));
	}
	f->nodes[node].self += ev->weight ? ev->weight : 1;
}

/*
 * the returns kept, placed in the tree: backwards, a call comes before
 * its callees (it returned after them), and a call's caller is the
 * nearest call before it, backwards, of a smaller depth.  A depth
 * skipped (a caller that never returned: exit() in main) is an
 * [unknown] frame.  The outermost hang below the thread's open call, if
 * any (a recording of calls and returns both), else below the root.
 */
static void place_returns(struct folded *f, struct fthread *t)
{
	uint32_t path[UT_STREAM_MAX_OPEN], pdepth[UT_STREAM_MAX_OPEN];
	uint32_t base = t->cs.sp ? (uint32_t)t->cs.f[t->cs.sp - 1].user : 0, n = 0;
	uint64_t top = t->cs.sp;	/* the depth of the calls right below base */

	for (size_t i = t->nret; i-- > 0;) {
		const struct fret *r = &t->ret[i];
		uint32_t node;

		while (n && pdepth[n - 1] >= r->depth)
			n--;
		for (uint64_t d = n ? pdepth[n - 1] + 1ull : top;
		     d < r->depth && n < UT_STREAM_MAX_OPEN - 1; d++) {
			path[n] = child_of(f, n ? path[n - 1] : base, name_id(f, "[unknown]"));
			pdepth[n++] = (uint32_t)d;
		}
		node = child_of(f, n ? path[n - 1] : base, r->name);
		f->nodes[node].self += r->self;
		if (n < UT_STREAM_MAX_OPEN) {
			path[n] = node;
			pdepth[n++] = r->depth;
		}
	}
	t->nret = 0;
}

/*
 * A call recorded at its return: kept; placed when it is an outermost
 * one.  Its self time leaves out its callees recorded whole, each one
 * level deeper that began after it: all of them, those before a loss too
 * (the call stack's RETURN self time, report's, forgets the callees
 * recorded before a loss; the two differ only then, and tell apart the
 * same calls otherwise).
 */
static void ret_event(struct folded *f, struct fthread *t, const struct ut_event *ev)
{
	uint64_t start = ev->ts > ev->duration ? ev->ts - ev->duration : 0, child = 0;
	size_t i = t->nret;

	/* its callees: the returns before it that began after it, deeper */
	while (i > 0 && t->ret[i - 1].start >= start && t->ret[i - 1].depth > ev->depth) {
		i--;
		if (t->ret[i].depth == ev->depth + 1)
			child += t->ret[i].dur;
	}
	if (t->nret == t->retcap)
		t->ret = xrealloc(t->ret, (t->retcap = t->retcap ? 2 * t->retcap : 64) *
					  sizeof(*t->ret));
	t->ret[t->nret++] = (struct fret){ .depth = ev->depth, .name = frame_name(f, ev, ev->ip),
					   .start = start, .dur = ev->duration,
					   .self = ev->duration > child ? ev->duration - child : 0 };
	/* nothing recorded before it is its caller: all of them are placed */
	if (i == 0 && ev->depth <= t->cs.sp)
		place_returns(f, t);
}

void folded_event(struct folded *f, const struct ut_event *ev)
{
	struct ut_cs_change c;
	struct fthread *t;

	if (ev->type == UT_EV_SAMPLE) {
		sample(f, ev);
		return;
	}
	if (!(f->kinds & FOLDED_CALLS) || !ev->thread)
		return;
	t = &f->threads[ev->thread - f->d->threads];
	switch (ev->type) {
	case UT_EV_ENTRY:
		if (!counts(f, FOLDED_CALLS))
			return;
		ut_callstack_entry(&t->cs, ev, &c);
		name_frames(f, t, &c, ev);
		break;
	case UT_EV_EXIT:
		/* a call entered before the trace began (no frame for it) is not drawn */
		if (f->kind == FOLDED_CALLS) {
			ut_callstack_exit(&t->cs, ev->depth, ev->ts, &c);
			pop(f, &c);
		}
		break;
	case UT_EV_DEPTH:
		if (f->kind == FOLDED_CALLS) {
			ut_callstack_restate(&t->cs, ev->depth, ev->ts, &c);
			name_frames(f, t, &c, NULL);
		}
		break;
	case UT_EV_RETURN:
		if (counts(f, FOLDED_CALLS)) {
			ut_callstack_return(&t->cs, ev, &c);
			ret_event(f, t, ev);
		}
		break;
	case UT_EV_LOST:
		ut_callstack_lost(&t->cs, ev);
		break;
	default:
		break;
	}
	t->cs.last_ts = ev->ts;
}

/* children linked by name order: a node's frames are laid out alphabetically */
static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct folded *f = arg;
	const struct folded_node *x = &f->nodes[*(const uint32_t *)a];
	const struct folded_node *y = &f->nodes[*(const uint32_t *)b];
	int c = x->parent < y->parent ? -1 : x->parent > y->parent;

	return c ? c : -strcmp(f->names[x->name], f->names[y->name]);
}

void folded_finish(struct folded *f)
{
	uint32_t *order;

	if (f->finished)
		return;
	f->finished = 1;
	for (int i = 0; i < f->d->nr_threads; i++) {
		/* the returns whose callers never returned (exit() in main) */
		if (f->threads[i].nret)
			place_returns(f, &f->threads[i]);
		/* the calls still open end at the thread's last event */
		while (f->threads[i].cs.sp) {
			struct ut_callstack *cs = &f->threads[i].cs;
			struct ut_cs_change c;

			ut_callstack_exit(cs, cs->sp - 1, cs->last_ts, &c);
			pop(f, &c);
		}
	}
	/* children are made after their parent: a backward pass adds each total to its parent */
	for (uint32_t i = f->nr_nodes; i-- > 0;) {
		f->nodes[i].total += f->nodes[i].self;
		if (i)
			f->nodes[f->nodes[i].parent].total += f->nodes[i].total;
	}
	/* sorted by parent then by name, backwards: pushing each to the front keeps name order */
	order = xmalloc(f->nr_nodes * sizeof(*order));
	for (uint32_t i = 0; i < f->nr_nodes - 1; i++)
		order[i] = i + 1;
	qsort_r(order, f->nr_nodes - 1, sizeof(*order), cmp_child, f);
	for (uint32_t i = 0; i < f->nr_nodes - 1; i++) {
		struct folded_node *n = &f->nodes[order[i]], *p = &f->nodes[n->parent];

		n->next = p->child;
		p->child = order[i];
	}
	free(order);
}

unsigned folded_kind(const struct folded *f)
{
	return f->kind;
}

uint64_t folded_ignored(const struct folded *f)
{
	return f->ignored;
}

size_t folded_nodes(const struct folded *f, const struct folded_node **nodes)
{
	*nodes = f->nodes;
	return f->nr_nodes;
}

const char *folded_name(const struct folded *f, uint32_t name)
{
	return name < f->nr_names ? f->names[name] : "[unknown]";
}

struct fline {
	char *stack;
	uint64_t self;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->stack, ((const struct fline *)b)->stack);
}

size_t folded_write(const struct folded *f, FILE *out)
{
	struct fline *lines = NULL;
	size_t n = 0;

	for (uint32_t i = 1; i < f->nr_nodes; i++) {
		size_t len = 0, pos;
		uint32_t k;

		if (!f->nodes[i].self)
			continue;
		for (k = i; k; k = f->nodes[k].parent)
			len += strlen(f->names[f->nodes[k].name]) + 1;
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n].stack = xmalloc(len);
		lines[n].self = f->nodes[i].self;
		/* written from the innermost frame back to the front */
		pos = len - 1;
		lines[n].stack[pos] = 0;
		for (k = i; k; k = f->nodes[k].parent) {
			const char *s = f->names[f->nodes[k].name];
			size_t l = strlen(s);

			pos -= l;
			memcpy(lines[n].stack + pos, s, l);
			if (pos)
				lines[n].stack[--pos] = ';';
		}
		n++;
	}
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s %" PRIu64 "\n", lines[i].stack, lines[i].self);
		free(lines[i].stack);
	}
	free(lines);
	return n;
}

int report_folded(struct ut_data *d, FILE *out, unsigned long long *nsamples)
{
	struct folded *f = folded_new(d, FOLDED_SAMPLES);
	struct ut_merge *m = ut_merge_new(d, NULL, 0);
	const struct folded_node *nodes;
	struct ut_event ev;
	int r = 0;

	*nsamples = 0;
	while (m && (r = ut_merge_next(m, &ev)) > 0)
		folded_event(f, &ev);
	ut_merge_free(m);
	folded_finish(f);
	folded_nodes(f, &nodes);
	*nsamples = nodes[0].total;
	folded_write(f, out);
	folded_free(f);
	return !m || r < 0 ? -1 : 0;
}
