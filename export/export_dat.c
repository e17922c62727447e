// SPDX-License-Identifier: MIT
/*
 * export_dat.c - `usertrace dump --dat [v6:|v7:]FILE`: the trace as a
 * trace-cmd .dat file (trace-cmd.dat(5)), for `trace-cmd report` and
 * KernelShark.  Version 7 (the default) has sections and compresses them
 * with zstd, as trace-cmd does; version 6 is the older flat layout.
 *
 * Why not libtracecmd: Debian's libtracecmd-dev (1.x) declares only the
 * reading side in <trace-cmd/trace-cmd.h>; the tracecmd_output_* writers
 * are exported by the .so but declared in a private header that is not
 * shipped, and they read the headers, formats, kallsyms and saved_cmdlines
 * from a live tracefs.  So the file is written here.
 *
 * What goes in:
 *   header_page, header_event   the KERNEL's ring-buffer page and event
 *                               header (not DIR/events/header_*, which
 *                               describe usertrace's own pages): the
 *                               pages below are built in the kernel's
 *                               layout, which every reader of .dat knows
 *   ftrace formats, formats     DIR/events/ftrace/NAME/format, then every
 *                               other DIR/events/SYS/NAME/format
 *   kallsyms                    "ADDR t NAME" of each function the trace
 *                               names.  Processes may map different code
 *                               at one address; an address is named as
 *                               in the main process (the first event's)
 *                               when it names it, else as in the first
 *                               process that used it.  The list is that
 *                               of the used functions, not the images'
 *                               whole tables: an address between two of
 *                               them reads as the lower one, as in the
 *                               kernel's kallsyms.
 *   saved_cmdlines              "TID COMM" of every thread
 *   flyrecord                   per CPU (ev->cpu), 4096-byte pages:
 *                               u64 timestamp, u64 commit, then events,
 *                               each a u32 header (type_len:5,
 *                               time_delta:27) and its entry; a time
 *                               extend record before a delta of 2^27 ns
 *                               or more
 *
 * The entries: a function_graph entry or exit is ftrace:funcgraph_entry
 * or funcgraph_exit (calltime from the entry at the same depth), a call
 * recorded whole at its return (tracing_thresh) both at the return's
 * time, a function trace ftrace:function, a marker ftrace:print, an
 * event (tracepoint) its own entry as recorded.  Stack traces, samples,
 * initcalls and lost-records notes have no entry here.
 *
 * The pages go to one temporary file per CPU while the events stream
 * in; the file is assembled at the end (each CPU's data is one range).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include "export/export.h"
#include "usertrace/ftrace.h"
#include "reader/symtab.h"
#include "utils/utils.h"

#define DAT_PAGE		4096u
#define DAT_PAGE_HDR		16u		/* u64 timestamp, u64 commit */
#define DAT_PAGE_DATA		(DAT_PAGE - DAT_PAGE_HDR)
#define DAT_CHUNK_PAGES		64u		/* pages per compressed chunk */
#define DAT_ZLEVEL		3
#define DAT_CLOCK		"mono"		/* ev->ts is CLOCK_MONOTONIC ns */

/* the kernel's ring-buffer event header (its ring_buffer.c), not usertrace's RB_* */
#define KRB_TYPE_PADDING		29
#define KRB_TYPE_TIME_EXTEND	30
#define KRB_MAX_SMALL_DATA	(28 * 4)	/* larger: type_len 0, length in array[0] */
#define KRB_DELTA_BITS		27

/* trace-cmd's section and option ids (trace-cmd.dat.v7(5)) */
enum {
	DAT_OPT_DONE = 0, DAT_OPT_BUFFER = 3, DAT_OPT_TRACECLOCK = 4, DAT_OPT_UNAME = 5,
	DAT_OPT_CPUCOUNT = 8, DAT_OPT_VERSION = 9, DAT_OPT_STRINGS = 15,
	DAT_OPT_HEADER_INFO = 16, DAT_OPT_FTRACE_EVENTS, DAT_OPT_EVENT_FORMATS,
	DAT_OPT_KALLSYMS, DAT_OPT_PRINTK, DAT_OPT_CMDLINES,
};
#define DAT_SEC_COMPRESS	1

/* a growing byte buffer, little-endian numbers */
struct dbuf {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

struct dat_cpu {
	FILE *tmp;			/* its full pages */
	uint64_t nr_pages;
	unsigned char page[DAT_PAGE];
	uint32_t used;			/* bytes of events in page (0: no page begun) */
	uint64_t last_ts;		/* the time the next delta counts from */
};

/* a thread's open function_graph calls: their entry times by depth */
struct dat_stack {
	uint64_t *ts;
	uint32_t cap;
};

struct dat_sym {
	uint64_t addr;			/* 0: empty slot */
	uint64_t end;			/* addr + size (0: unknown) */
	const char *module;		/* the symbol table's (kept while it is) */
	char *name;
	int main;			/* named as in the main process */
};

struct dat_writer {
	int version;			/* 6 or 7 */
	const char *path;
	FILE *f;
	struct dat_cpu **cpus;
	uint32_t nr_cpus;
	struct dat_stack *stacks;	/* per x->d->threads[] */
	struct dat_sym *syms;		/* open addressing on addr */
	size_t nr_syms, cap_syms;
	int main_pid;
	uint64_t skipped;		/* entries too large for a page */
};

static void db_put(struct dbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void db_num(struct dbuf *b, uint64_t v, int bytes)
{
	unsigned char c[8];

	for (int i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	db_put(b, c, (size_t)bytes);
}

static void db_str(struct dbuf *b, const char *s)
{
	db_put(b, s, strlen(s) + 1);
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- symbols (kallsyms) ---- */

static int sym_grow(struct dat_writer *w)
{
	size_t cap = w->cap_syms ? w->cap_syms * 2 : 1024;
	struct dat_sym *n = calloc(cap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < w->cap_syms; i++) {
		struct dat_sym *s = &w->syms[i];
		size_t k;

		if (!s->addr)
			continue;
		for (k = (s->addr * 0x9e3779b97f4a7c15ull) & (cap - 1); n[k].addr; k = (k + 1) & (cap - 1))
			;
		n[k] = *s;
	}
	free(w->syms);
	w->syms = n;
	w->cap_syms = cap;
	return 0;
}

/* remember the function that contains @addr in @ev's process */
static void sym_use(struct export_ctx *x, struct dat_writer *w, const struct ut_event *ev,
		    uint64_t addr)
{
	const struct ut_sym *s;
	int is_main = ev->pid == w->main_pid;
	size_t k;

	if (!addr || !x->d->symtab)
		return;
	s = ut_symtab_find(x->d->symtab, ev->pid, ev->image, addr, ev->ts);
	if (!s || !s->name || !*s->name || !s->addr)
		return;
	if ((w->nr_syms + 1) * 2 > w->cap_syms && sym_grow(w) < 0)
		return;
	for (k = (s->addr * 0x9e3779b97f4a7c15ull) & (w->cap_syms - 1); w->syms[k].addr;
	     k = (k + 1) & (w->cap_syms - 1)) {
		struct dat_sym *o = &w->syms[k];

		if (o->addr != s->addr)
			continue;
		if (is_main && !o->main && strcmp(o->name, s->name)) {
			char *n = strdup(s->name);

			if (n) {
				free(o->name);
				o->name = n;
				o->main = 1;
				o->end = s->size ? s->addr + s->size : 0;
				o->module = s->module;
			}
		}
		return;
	}
	w->syms[k].name = strdup(s->name);
	if (!w->syms[k].name)
		return;
	w->syms[k].addr = s->addr;
	w->syms[k].end = s->size ? s->addr + s->size : 0;
	w->syms[k].module = s->module;
	w->syms[k].main = is_main;
	w->nr_syms++;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct dat_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Sorted, empty slots (addr 0) dropped: the table is not used after this.
 * A reader names an address by the last line at or below it, and names
 * nothing past the last line: where a function ends and no used one
 * begins, a line "[MODULE]" (its ELF file) names the gap, so that main's
 * own address (past the last line otherwise) and the addresses between
 * functions are not given the name of a function they are not in.
 */
static void kallsyms_text(struct dat_writer *w, struct dbuf *b)
{
	struct dat_sym *s = w->syms;
	char line[64];
	size_t n = 0;

	if (!s)
		return;		/* no function named */
	qsort(s, w->cap_syms, sizeof(*s), cmp_sym);
	while (n < w->cap_syms && !s[n].addr)
		n++;
	s += n;
	n = w->cap_syms - n;
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%016" PRIx64 " t ", s[i].addr);
		db_put(b, line, strlen(line));
		db_put(b, s[i].name, strlen(s[i].name));
		db_put(b, "\n", 1);
		if (s[i].end > s[i].addr && (i + 1 == n || s[i + 1].addr > s[i].end)) {
			snprintf(line, sizeof(line), "%016" PRIx64 " t [%s]\n", s[i].end,
				 s[i].module && *s[i].module ? s[i].module : "unknown");
			db_put(b, line, strlen(line));
		}
	}
}

/* ---- pages ---- */

static struct dat_cpu *get_cpu(struct dat_writer *w, uint32_t cpu)
{
	if (cpu >= 4096)
		cpu = 0;	/* a corrupt cpu number: keep the event somewhere */
	if (cpu >= w->nr_cpus) {
		struct dat_cpu **n = realloc(w->cpus, (cpu + 1) * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + w->nr_cpus, 0, (cpu + 1 - w->nr_cpus) * sizeof(*n));
		w->cpus = n;
		w->nr_cpus = cpu + 1;
	}
	if (!w->cpus[cpu]) {
		w->cpus[cpu] = calloc(1, sizeof(struct dat_cpu));
		if (!w->cpus[cpu])
			return NULL;
		w->cpus[cpu]->tmp = tmpfile();
		if (!w->cpus[cpu]->tmp) {
			pr_err("dump --dat: a temporary file: %s", strerror(errno));
			return NULL;
		}
	}
	return w->cpus[cpu];
}

static int page_flush(struct dat_cpu *c)
{
	if (!c->used)
		return 0;
	put_le(c->page + 8, c->used, 8);
	memset(c->page + DAT_PAGE_HDR + c->used, 0, DAT_PAGE_DATA - c->used);
	if (fwrite(c->page, DAT_PAGE, 1, c->tmp) != 1) {
		pr_err("dump --dat: writing a temporary file: %s", strerror(errno));
		return -1;
	}
	c->nr_pages++;
	c->used = 0;
	return 0;
}

/* one event record of entry @data (@len bytes) at time @ts on @cpu */
static int rb_put(struct dat_writer *w, uint32_t cpu, uint64_t ts, const void *data, uint32_t len)
{
	uint32_t dlen = (len + 3) & ~3u;
	uint32_t rlen = 4 + dlen + (len > KRB_MAX_SMALL_DATA ? 4 : 0);
	struct dat_cpu *c = get_cpu(w, cpu);
	uint64_t delta;
	unsigned char *p;

	if (!c)
		return -1;
	if (rlen > DAT_PAGE_DATA - 8) {
		w->skipped++;
		return 0;
	}
	delta = c->used && ts > c->last_ts ? ts - c->last_ts : 0;
	if (c->used + rlen + (delta >> KRB_DELTA_BITS ? 8 : 0) > DAT_PAGE_DATA &&
	    page_flush(c) < 0)
		return -1;
	if (!c->used) {
		/* a page's first event is at the page's time */
		put_le(c->page, ts, 8);
		c->last_ts = ts;
		delta = 0;
	}
	p = c->page + DAT_PAGE_HDR + c->used;
	if (delta >> KRB_DELTA_BITS) {
		put_le(p, KRB_TYPE_TIME_EXTEND | (delta & ((1u << KRB_DELTA_BITS) - 1)) << 5, 4);
		put_le(p + 4, delta >> KRB_DELTA_BITS, 4);
		p += 8;
		c->used += 8;
		delta = 0;
	}
	if (len > KRB_MAX_SMALL_DATA) {
		put_le(p, (uint32_t)delta << 5, 4);
		put_le(p + 4, dlen + 4, 4);	/* the length counts itself */
		p += 8;
	} else {
		put_le(p, (dlen / 4) | (uint32_t)delta << 5, 4);
		p += 4;
	}
	memcpy(p, data, len);
	memset(p + len, 0, dlen - len);
	c->used += rlen;
	if (ts > c->last_ts)
		c->last_ts = ts;
	return 0;
}

static void common(struct ut_trace_entry *e, const struct ut_event *ev, uint16_t id)
{
	e->type = id;
	e->flags = 0;
	e->preempt_count = ev->preempt;
	e->pid = ev->tid;
}

/* the entry times kept for @ev's thread, or NULL */
static struct dat_stack *dat_stack_of(struct export_ctx *x, struct dat_writer *w,
				      const struct ut_event *ev)
{
	int t = export_thread_index(x, ev);

	return t >= 0 && w->stacks ? &w->stacks[t] : NULL;
}

/* the entry time of the call at @depth of @ev's thread: where to keep it */
static uint64_t *call_slot(struct export_ctx *x, struct dat_writer *w, const struct ut_event *ev)
{
	struct dat_stack *s = dat_stack_of(x, w, ev);

	if (!s || ev->depth >= UT_STREAM_MAX_OPEN)
		return NULL;
	if (ev->depth >= s->cap) {
		uint32_t cap = s->cap ? s->cap : 64;
		uint64_t *n;

		while (cap <= ev->depth)
			cap *= 2;
		n = realloc(s->ts, cap * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + s->cap, 0, (cap - s->cap) * sizeof(*n));
		s->ts = n;
		s->cap = cap;
	}
	return &s->ts[ev->depth];
}

/* the entry times kept for @ev's thread at depth @from and deeper are unknown */
static void forget_calls(struct export_ctx *x, struct dat_writer *w, const struct ut_event *ev,
			 uint32_t from)
{
	struct dat_stack *s = dat_stack_of(x, w, ev);

	if (s && from < s->cap)
		memset(s->ts + from, 0, (s->cap - from) * sizeof(*s->ts));
}

static int put_graph_entry(struct dat_writer *w, const struct ut_event *ev, uint64_t ts)
{
	struct ut_ftrace_funcgraph_entry e = { 0 };

	common(&e.ent, ev, UT_EVENT_ID_FUNCGRAPH_ENTRY);
	e.func = ev->ip;
	e.depth = ev->depth;
	/* the kernel's entry is 24 bytes: args[] starts after padding */
	return rb_put(w, ev->cpu, ts, &e, sizeof(e));
}

static int put_graph_exit(struct dat_writer *w, const struct ut_event *ev, uint64_t calltime)
{
	struct ut_ftrace_funcgraph_exit e = { 0 };

	common(&e.ent, ev, UT_EVENT_ID_FUNCGRAPH_EXIT);
	e.func = ev->ip;
	e.depth = ev->depth;
	e.calltime = calltime;
	e.rettime = ev->ts;
	return rb_put(w, ev->cpu, ev->ts, &e, sizeof(e));
}

static int dat_event(struct export_ctx *x, const struct ut_event *ev)
{
	struct dat_writer *w = x->priv;
	uint64_t *slot;

	if (x->nr_events == 1)
		w->main_pid = ev->pid;
	switch (ev->type) {
	case UT_EV_ENTRY:
		slot = call_slot(x, w, ev);
		if (slot)
			*slot = ev->ts;
		sym_use(x, w, ev, ev->ip);
		return put_graph_entry(w, ev, ev->ts);
	case UT_EV_EXIT: {
		uint64_t calltime;

		slot = call_slot(x, w, ev);
		sym_use(x, w, ev, ev->ip);
		calltime = slot && *slot && *slot <= ev->ts ? *slot : ev->ts;
		/*
		 * The slot is used up: the next exit at this depth whose entry
		 * was lost must not take this call's entry time for its own.
		 */
		if (slot)
			*slot = 0;
		return put_graph_exit(w, ev, calltime);
	}
	case UT_EV_DEPTH:
		/*
		 * After lost records: the calls at depth min(was, now) and
		 * deeper were entered or left unseen, so the entry times kept
		 * there are not theirs (an exit without one reads as 0 us).
		 */
		forget_calls(x, w, ev, ev->count < ev->depth ? (uint32_t)ev->count : ev->depth);
		return 0;
	case UT_EV_RETURN:
		/* its entry was not recorded: both at the return's time, in order */
		sym_use(x, w, ev, ev->ip);
		if (put_graph_entry(w, ev, ev->ts) < 0)
			return -1;
		return put_graph_exit(w, ev, ev->ts >= ev->duration ? ev->ts - ev->duration : 0);
	case UT_EV_FUNC: {
		struct ut_ftrace_function e = { 0 };

		common(&e.ent, ev, UT_EVENT_ID_FUNCTION);
		e.ip = ev->ip;
		e.parent_ip = ev->parent;
		sym_use(x, w, ev, ev->ip);
		sym_use(x, w, ev, ev->parent);
		return rb_put(w, ev->cpu, ev->ts, &e, sizeof(e));
	}
	case UT_EV_MARKER: {
		struct {
			struct ut_ftrace_print e;
			char buf[DAT_PAGE_DATA];
		} m;
		uint32_t n = ev->data ? ev->data_len : 0;

		if (n && !ev->data[n - 1])
			n--;	/* a NUL of the record */
		if (n > DAT_PAGE_DATA - 64)
			n = DAT_PAGE_DATA - 64;
		memset(&m.e, 0, sizeof(m.e));
		common(&m.e.ent, ev, UT_EVENT_ID_PRINT);
		m.e.ip = ev->ip;
		if (n)
			memcpy(m.e.buf, ev->data, n);
		m.e.buf[n] = 0;
		sym_use(x, w, ev, ev->ip);
		return rb_put(w, ev->cpu, ev->ts, &m, (uint32_t)sizeof(m.e) + n + 1);
	}
	case UT_EV_TRACE:
	case UT_EV_SAMPLE: {
		/*
		 * As the kernel writes them: a stack trace of the program is
		 * its <stack trace> (kernel_stack: the traced code is this
		 * trace's "kernel"), `size` frames, innermost first, as many
		 * as the stack has, at least the format's caller[8] (the rest
		 * ULONG_MAX, where a reader of the stack stops, as the older
		 * kernels end it); a sysprof sample is its <user stack trace>
		 * (user_stack): the first 8 frames, the rest 0.  A sample's
		 * weight has no field there.
		 */
		union {
			struct ut_ftrace_kernel_stack k;
			struct ut_ftrace_user_stack u;
			unsigned char b[offsetof(struct ut_ftrace_kernel_stack, caller) +
					8 * UT_STACK_MAX];
		} e;
		uint64_t n = ut_event_trace_len(ev), ip;
		size_t off = offsetof(struct ut_ftrace_kernel_stack, caller), len;

		_Static_assert(offsetof(struct ut_ftrace_user_stack, caller) ==
				       offsetof(struct ut_ftrace_kernel_stack, caller),
			       "one layout for both");
		if (n > UT_STACK_MAX)
			n = UT_STACK_MAX;
		if (ev->type == UT_EV_SAMPLE && n > 8)
			n = 8;
		memset(&e, 0, sizeof(e));
		for (uint64_t i = 0; i < n; i++) {
			ip = ut_event_trace_ip(ev, i);
			memcpy(e.b + off + 8 * i, &ip, 8);
			sym_use(x, w, ev, ip);
		}
		if (ev->type == UT_EV_TRACE) {
			common(&e.k.ent, ev, UT_EVENT_ID_KERNEL_STACK);
			e.k.size = (int)n;
			for (uint64_t i = n; i < 8; i++)
				memset(e.b + off + 8 * i, 0xff, 8);
			len = off + 8 * (n > 8 ? n : 8);
		} else {
			common(&e.u.ent, ev, UT_EVENT_ID_USER_STACK);
			e.u.tgid = (unsigned int)ev->pid;
			len = sizeof(e.u);
		}
		return rb_put(w, ev->cpu, ev->ts, &e, (uint32_t)len);
	}
	case UT_EV_EVENT:
		if (!ev->data || ev->data_len < sizeof(struct ut_trace_entry))
			return 0;
		if ((ev->id == UT_EVENT_ID_PRINT || ev->id == UT_EVENT_ID_BPRINT) &&
		    ev->data_len >= 16) {
			uint64_t ip;

			memcpy(&ip, ev->data + 8, 8);
			sym_use(x, w, ev, ip);
		}
		return rb_put(w, ev->cpu, ev->ts, ev->data, ev->data_len);
	default:
		return 0;
	}
}

/* ---- begin ---- */

/* "v6:FILE", "v7:FILE" or FILE (version 7) */
static int dat_begin(struct export_ctx *x)
{
	struct dat_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	x->priv = w;
	w->version = 7;
	w->path = x->path;
	if (!strncmp(w->path, "v6:", 3) || !strncmp(w->path, "v7:", 3)) {
		w->version = w->path[1] - '0';
		w->path += 3;
	}
	if (!*w->path) {
		pr_err("dump --dat: no output file");
		return -1;
	}
	w->stacks = calloc(x->d->nr_threads ? (size_t)x->d->nr_threads : 1, sizeof(*w->stacks));
	if (!w->stacks)
		return -1;
	/* opened now, so that an unwritable path fails before the events are read */
	w->f = fopen(w->path, "w+b");
	if (!w->f) {
		pr_err("dump --dat: cannot create '%s': %s", w->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- the metadata ---- */

static int dat_read_file(const char *path, struct dbuf *b)
{
	char buf[8192];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		db_put(b, buf, n);
	fclose(f);
	return b->oom ? -1 : 0;
}

static int only_dirs(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/*
 * The formats of system @sys (DIR/events/SYS/NAME/format), each as a u64
 * size and the text, after a u32 count: *@count, 0 if none.
 */
static int system_formats(const char *dir, const char *sys, struct dbuf *b, uint32_t *count)
{
	struct dirent **names;
	char path[8192];
	size_t at = b->len;
	int n;

	*count = 0;
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	n = scandir(path, &names, only_dirs, alphasort);
	if (n < 0)
		return 0;
	db_num(b, 0, 4);
	for (int i = 0; i < n; i++) {
		struct dbuf t = { 0 };

		snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sys, names[i]->d_name);
		if (dat_read_file(path, &t) == 0 && t.len) {
			db_num(b, t.len, 8);
			db_put(b, t.p, t.len);
			(*count)++;
		}
		free(t.p);
		free(names[i]);
	}
	free(names);
	if (!*count)
		b->len = at;
	else
		put_le(b->p + at, *count, 4);
	return 0;
}

/* the kernel's events/header_page and header_event for the pages written here */
static void header_info(struct dbuf *b)
{
	char page[512], event[512];

	snprintf(page, sizeof(page),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:0;\n",
		 DAT_PAGE_HDR, DAT_PAGE_DATA);
	snprintf(event, sizeof(event),
		 "# compressed entry header\n"
		 "\ttype_len    :    5 bits\n"
		 "\ttime_delta  :   %d bits\n"
		 "\tarray       :   32 bits\n\n"
		 "\tpadding     : type == %d\n"
		 "\ttime_extend : type == %d\n"
		 "\ttime_stamp : type == %d\n"
		 "\tdata max type_len  == %d\n",
		 KRB_DELTA_BITS, KRB_TYPE_PADDING, KRB_TYPE_TIME_EXTEND, KRB_TYPE_TIME_EXTEND + 1,
		 KRB_MAX_SMALL_DATA / 4);
	db_put(b, "header_page", 12);
	db_num(b, strlen(page), 8);
	db_put(b, page, strlen(page));
	db_put(b, "header_event", 13);
	db_num(b, strlen(event), 8);
	db_put(b, event, strlen(event));
}

static void ftrace_formats(struct export_ctx *x, struct dbuf *b)
{
	uint32_t n;

	system_formats(x->d->dir, "ftrace", b, &n);
	if (!n)
		db_num(b, 0, 4);
}

static void event_formats(struct export_ctx *x, struct dbuf *b)
{
	struct dirent **names;
	char path[4200];
	size_t at = b->len;
	uint32_t nsys = 0;
	int n;

	db_num(b, 0, 4);
	snprintf(path, sizeof(path), "%s/events", x->d->dir);
	n = scandir(path, &names, only_dirs, alphasort);
	for (int i = 0; i < n; i++) {
		size_t sys_at = b->len;
		uint32_t count;

		if (strcmp(names[i]->d_name, "ftrace")) {
			db_str(b, names[i]->d_name);
			system_formats(x->d->dir, names[i]->d_name, b, &count);
			if (count)
				nsys++;
			else
				b->len = sys_at;	/* a file (header_page), or no format */
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	if (!b->oom)
		put_le(b->p + at, nsys, 4);
}

static void cmdlines(struct export_ctx *x, struct dbuf *b)
{
	char line[64];

	for (int i = 0; i < x->d->nr_threads; i++) {
		const struct ut_thread_info *t = &x->d->threads[i];
		int dup = 0;

		for (int j = 0; j < i && !dup; j++)
			dup = x->d->threads[j].tid == t->tid;
		if (dup)
			continue;
		snprintf(line, sizeof(line), "%d %s\n", t->tid, t->comm[0] ? t->comm : "<...>");
		db_put(b, line, strlen(line));
	}
}

/* ---- the file ---- */

static int fput(struct dat_writer *w, const void *p, size_t n)
{
	return n && fwrite(p, n, 1, w->f) != 1 ? -1 : 0;
}

static int fput_num(struct dat_writer *w, uint64_t v, int bytes)
{
	unsigned char c[8];

	put_le(c, v, bytes);
	return fput(w, c, (size_t)bytes);
}

static int fpatch(struct dat_writer *w, off_t at, uint64_t v, int bytes)
{
	off_t end = ftello(w->f);

	if (end < 0 || fseeko(w->f, at, SEEK_SET) || fput_num(w, v, bytes))
		return -1;
	return fseeko(w->f, end, SEEK_SET);
}

static int fpad_to_page(struct dat_writer *w)
{
	static const unsigned char zero[DAT_PAGE];
	off_t at = ftello(w->f);

	if (at < 0)
		return -1;
	return fput(w, zero, (size_t)((DAT_PAGE - at % DAT_PAGE) % DAT_PAGE));
}

/* the description strings of the v7 sections, ids = offsets in the strings section */
static const char dat_strings[] =
	"strings\0options\0headers\0ftrace events\0events format\0kallsyms\0printk\0command lines\0"
	"buffer flyrecord";

static int32_t str_id(const char *s)
{
	for (size_t at = 0; at < sizeof(dat_strings); at += strlen(dat_strings + at) + 1)
		if (!strcmp(dat_strings + at, s))
			return (int32_t)at;
	return -1;
}

/* a v7 section: header, then @b (compressed when @zip); its header's offset, -1 on error */
static off_t section(struct dat_writer *w, int id, const char *desc, int zip, const struct dbuf *b)
{
	off_t at = ftello(w->f);

	if (at < 0 || b->oom)
		return -1;
	if (fput_num(w, (uint64_t)id, 2) || fput_num(w, zip ? DAT_SEC_COMPRESS : 0, 2) ||
	    fput_num(w, (uint32_t)str_id(desc), 4))
		return -1;
	if (!zip) {
		if (fput_num(w, b->len, 8) || fput(w, b->p, b->len))
			return -1;
		return at;
	}
	size_t cap = ZSTD_compressBound(b->len);
	void *z = malloc(cap ? cap : 1);
	size_t n;
	int ret;

	if (!z)
		return -1;
	n = ZSTD_compress(z, cap, b->p ? b->p : (void *)"", b->len, DAT_ZLEVEL);
	ret = ZSTD_isError(n) || fput_num(w, n + 8, 8) || fput_num(w, n, 4) ||
	      fput_num(w, b->len, 4) || fput(w, z, n);
	free(z);
	return ret ? -1 : at;
}

/* CPU @c's pages, as they are (@zip 0) or in zstd chunks; *@size: bytes written */
static int cpu_data(struct dat_writer *w, struct dat_cpu *c, int zip, uint64_t *size)
{
	static unsigned char in[DAT_CHUNK_PAGES * DAT_PAGE];
	off_t start = ftello(w->f);
	uint32_t chunks = 0;
	uint64_t left = c ? c->nr_pages : 0;
	void *z = NULL;
	size_t zcap = ZSTD_compressBound(sizeof(in));
	int ret = -1;

	*size = 0;
	if (!left)
		return 0;
	if (start < 0 || fseeko(c->tmp, 0, SEEK_SET))
		return -1;
	if (zip && (fput_num(w, 0, 4) || !(z = malloc(zcap))))
		goto out;
	while (left) {
		uint32_t np = left < DAT_CHUNK_PAGES ? (uint32_t)left : DAT_CHUNK_PAGES;
		size_t n = (size_t)np * DAT_PAGE;

		if (fread(in, n, 1, c->tmp) != 1)
			goto out;
		if (zip) {
			size_t zn = ZSTD_compress(z, zcap, in, n, DAT_ZLEVEL);

			if (ZSTD_isError(zn) || fput_num(w, zn, 4) || fput_num(w, n, 4) ||
			    fput(w, z, zn))
				goto out;
			chunks++;
		} else if (fput(w, in, n)) {
			goto out;
		}
		left -= np;
	}
	if (zip && fpatch(w, start, chunks, 4))
		goto out;
	*size = (uint64_t)(ftello(w->f) - start);
	ret = 0;
out:
	free(z);
	return ret;
}

static void uname_text(char *buf, size_t size)
{
	struct utsname u;

	if (uname(&u) == 0)
		snprintf(buf, size, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine);
	else
		snprintf(buf, size, "Linux");
}

/* the magic, the version, endianness, long size, page size */
static int file_start(struct dat_writer *w)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char le[2] = { 0, sizeof(long) };

	return fput(w, magic, sizeof(magic)) || fput(w, w->version == 6 ? "6" : "7", 2) ||
	       fput(w, le, 2) || fput_num(w, DAT_PAGE, 4) ? -1 : 0;
}

static uint32_t nr_cpus(struct export_ctx *x, struct dat_writer *w)
{
	return w->nr_cpus > (uint32_t)x->d->nr_cpus ? w->nr_cpus :
	       x->d->nr_cpus > 0 ? (uint32_t)x->d->nr_cpus : 1;
}

static int write_v6(struct export_ctx *x, struct dat_writer *w, struct dbuf *meta)
{
	uint32_t ncpu = nr_cpus(x, w);
	char un[512];
	off_t table;
	int ret = -1;

	/* the sections in their fixed order, then the CPU count and the options */
	db_num(meta, ncpu, 4);
	db_put(meta, "options  ", 10);
	db_num(meta, DAT_OPT_TRACECLOCK, 2);
	db_num(meta, sizeof("[" DAT_CLOCK "]"), 4);
	db_str(meta, "[" DAT_CLOCK "]");
	uname_text(un, sizeof(un));
	db_num(meta, DAT_OPT_UNAME, 2);
	db_num(meta, strlen(un) + 1, 4);
	db_str(meta, un);
	db_num(meta, DAT_OPT_VERSION, 2);
	db_num(meta, sizeof("usertrace"), 4);
	db_str(meta, "usertrace");
	db_num(meta, DAT_OPT_DONE, 2);
	db_put(meta, "flyrecord", 10);
	if (meta->oom || fput(w, meta->p, meta->len))
		goto out;
	/* offset and size of each CPU's data, filled in below; then the clock */
	table = ftello(w->f);
	for (uint32_t i = 0; i < ncpu; i++)
		if (fput_num(w, 0, 8) || fput_num(w, 0, 8))
			goto out;
	if (fput_num(w, strlen("[" DAT_CLOCK "]"), 8) ||
	    fput(w, "[" DAT_CLOCK "]", strlen("[" DAT_CLOCK "]")))
		goto out;
	for (uint32_t i = 0; i < ncpu; i++) {
		struct dat_cpu *c = i < w->nr_cpus ? w->cpus[i] : NULL;
		uint64_t size;
		off_t at;

		if (fpad_to_page(w) || (at = ftello(w->f)) < 0 || cpu_data(w, c, 0, &size) ||
		    fpatch(w, table + 16 * i, size ? (uint64_t)at : 0, 8) ||
		    fpatch(w, table + 16 * i + 8, size, 8))
			goto out;
	}
	ret = 0;
out:
	return ret;
}

static int write_v7(struct export_ctx *x, struct dat_writer *w, struct dbuf sec[6])
{
	static const struct { int id; const char *desc; } secs[6] = {
		{ DAT_OPT_HEADER_INFO, "headers" }, { DAT_OPT_FTRACE_EVENTS, "ftrace events" },
		{ DAT_OPT_EVENT_FORMATS, "events format" }, { DAT_OPT_KALLSYMS, "kallsyms" },
		{ DAT_OPT_PRINTK, "printk" }, { DAT_OPT_CMDLINES, "command lines" },
	};
	uint32_t ncpu = nr_cpus(x, w);
	struct dbuf o = { 0 }, str = { 0 };
	off_t opt_field, at[6], fly, fly_size, optsec;
	char un[512];
	int ret = -1;

	if (fput(w, "zstd", 5) || fput(w, ZSTD_versionString(), strlen(ZSTD_versionString()) + 1))
		return -1;
	opt_field = ftello(w->f);
	if (fput_num(w, 0, 8))
		return -1;
	/* the strings first: trace-cmd walks the sections from here to find them */
	db_put(&str, dat_strings, sizeof(dat_strings));
	if (section(w, DAT_OPT_STRINGS, "strings", 0, &str) < 0)
		goto out;
	for (int i = 0; i < 6; i++)
		if ((at[i] = section(w, secs[i].id, secs[i].desc, 1, &sec[i])) < 0)
			goto out;

	/* the flyrecord section: its header, then each CPU's data at a page boundary */
	fly = ftello(w->f);
	if (fly < 0 || fput_num(w, DAT_OPT_BUFFER, 2) || fput_num(w, DAT_SEC_COMPRESS, 2) ||
	    fput_num(w, (uint32_t)str_id("buffer flyrecord"), 4))
		goto out;
	fly_size = ftello(w->f);
	if (fput_num(w, 0, 8))
		goto out;
	db_num(&o, DAT_OPT_BUFFER, 2);
	db_num(&o, 8 + 1 + sizeof(DAT_CLOCK) + 8 + ncpu * 20, 4);
	db_num(&o, (uint64_t)fly, 8);
	db_str(&o, "");
	db_str(&o, DAT_CLOCK);
	db_num(&o, DAT_PAGE, 4);
	db_num(&o, ncpu, 4);
	for (uint32_t i = 0; i < ncpu; i++) {
		struct dat_cpu *c = i < w->nr_cpus ? w->cpus[i] : NULL;
		uint64_t size;
		off_t a;

		if (fpad_to_page(w) || (a = ftello(w->f)) < 0 || cpu_data(w, c, 1, &size))
			goto out;
		db_num(&o, i, 4);
		db_num(&o, (uint64_t)a, 8);
		db_num(&o, size, 8);
	}
	if (fpatch(w, fly_size, (uint64_t)(ftello(w->f) - fly_size - 8), 8))
		goto out;

	/* the options, last: where the sections are */
	db_num(&o, DAT_OPT_CPUCOUNT, 2);
	db_num(&o, 4, 4);
	db_num(&o, ncpu, 4);
	db_num(&o, DAT_OPT_TRACECLOCK, 2);
	db_num(&o, sizeof("[" DAT_CLOCK "]"), 4);
	db_str(&o, "[" DAT_CLOCK "]");
	uname_text(un, sizeof(un));
	db_num(&o, DAT_OPT_UNAME, 2);
	db_num(&o, strlen(un) + 1, 4);
	db_str(&o, un);
	db_num(&o, DAT_OPT_VERSION, 2);
	db_num(&o, sizeof("usertrace"), 4);
	db_str(&o, "usertrace");
	for (int i = 0; i < 6; i++) {
		db_num(&o, (uint64_t)secs[i].id, 2);
		db_num(&o, 8, 4);
		db_num(&o, (uint64_t)at[i], 8);
	}
	db_num(&o, DAT_OPT_DONE, 2);
	db_num(&o, 8, 4);
	db_num(&o, 0, 8);	/* no further options section */
	if ((optsec = section(w, DAT_OPT_DONE, "options", 0, &o)) < 0 ||
	    fpatch(w, opt_field, (uint64_t)optsec, 8))
		goto out;
	ret = 0;
out:
	free(o.p);
	free(str.p);
	return ret;
}

static int dat_end(struct export_ctx *x, int failed)
{
	struct dat_writer *w = x->priv;
	struct dbuf sec[6];
	int ret = -1;

	if (!w)
		return -1;
	memset(sec, 0, sizeof(sec));
	if (failed || !w->f)
		goto out;
	for (uint32_t i = 0; i < w->nr_cpus; i++)
		if (w->cpus[i] && page_flush(w->cpus[i]) < 0)
			goto out;
	header_info(&sec[0]);
	ftrace_formats(x, &sec[1]);
	event_formats(x, &sec[2]);
	db_num(&sec[3], 0, 4);
	kallsyms_text(w, &sec[3]);
	if (!sec[3].oom)
		put_le(sec[3].p, sec[3].len - 4, 4);
	db_num(&sec[4], 0, 4);		/* no trace_printk formats */
	db_num(&sec[5], 0, 8);
	cmdlines(x, &sec[5]);
	if (!sec[5].oom)
		put_le(sec[5].p, sec[5].len - 8, 8);
	for (int i = 0; i < 6; i++)
		if (sec[i].oom) {
			pr_err("dump --dat: out of memory");
			goto out;
		}
	if (file_start(w) == 0) {
		if (w->version == 6) {
			struct dbuf meta = { 0 };

			for (int i = 0; i < 6; i++)
				db_put(&meta, sec[i].p, sec[i].len);
			ret = write_v6(x, w, &meta);
			free(meta.p);
		} else {
			ret = write_v7(x, w, sec);
		}
	}
	if (fflush(w->f) || ferror(w->f))
		ret = -1;
	if (ret < 0)
		pr_err("dump --dat: writing '%s': %s", w->path, strerror(errno ? errno : EIO));
	if (w->skipped)
		pr_warn("dump --dat: %" PRIu64 " entries larger than a page left out", w->skipped);
out:
	if (w->f && fclose(w->f) && ret == 0) {
		pr_err("dump --dat: writing '%s': %s", w->path, strerror(errno));
		ret = -1;
	}
	if (w->f && ret < 0)
		unlink(w->path);	/* no half file that trace-cmd would misread */
	for (int i = 0; i < 6; i++)
		free(sec[i].p);
	for (uint32_t i = 0; i < w->nr_cpus; i++) {
		if (w->cpus[i] && w->cpus[i]->tmp)
			fclose(w->cpus[i]->tmp);
		free(w->cpus[i]);
	}
	free(w->cpus);
	for (int i = 0; w->stacks && i < x->d->nr_threads; i++)
		free(w->stacks[i].ts);
	free(w->stacks);
	for (size_t i = 0; i < w->cap_syms; i++)
		free(w->syms[i].name);
	free(w->syms);
	free(w);
	x->priv = NULL;
	return ret;
}

const struct export_writer export_dat = {
	.name = "dat",
	.arg = 1,
	.arg_name = "[v6:]FILE",
	.help = "a trace-cmd .dat file (v7, zstd sections; v6: version 6)",
	.begin = dat_begin,
	.event = dat_event,
	.end = dat_end,
};
