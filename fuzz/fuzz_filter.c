// SPDX-License-Identifier: MIT
/*
 * fuzz_filter.c - libFuzzer target: the function lists as the runtime
 * parses and applies them (runtime/funcfilter.c, lib/funclist/funclist.c): globs,
 * !pattern, :mod:, func:command[:count], in set_ftrace_filter,
 * set_ftrace_notrace, set_graph_function, set_graph_notrace and the
 * commands list.
 *
 * The input is text, one list per line, in this order:
 *
 *   filter / notrace / graph_function / graph_notrace / commands
 *
 * then optionally a line "@ DEPTH THRESH MODE" (max_graph_depth,
 * tracing_thresh, 1 function or 2 function_graph), then functions of
 * the traced program's own, "name" or "name<TAB>module", added to a
 * fixed set.  The harness loads the lists as the runtime does at start-up
 * and at a change from the tracing directory, builds the function table,
 * checks the lists, and runs ut_filter_entry() over a call sequence the
 * input also drives; then it changes the lists (each moved one place
 * on), reflags the table and unloads a library.
 *
 * funcfilter.c keeps every table and command array it ever published (a
 * hook may still read an old one); the harness frees them between
 * inputs, which is why it includes funcfilter.c rather than linking it.
 *
 * An input that starts with "#event\n" is for the other mode, event
 * filters (lib/event/evfilter.c): the rest, up to a NUL, is an expression
 * compiled for a sample event with every kind of field and for no event
 * (record -f's check); a good program runs on an entry made of the bytes
 * after the NUL, then again with those bytes written over the program
 * (what a torn or corrupt program in the registry looks like): it must
 * end, without reading out of the entry.  A bad one must give a position
 * and both error texts.
 */
#include <stdarg.h>
#include <stdio.h>

#include "runtime/funcfilter.c"
#include "lib/funclist/funclist.c"
#include "lib/event/evfilter.h"

/* ---- what funcfilter.c uses of the rest of the runtime ---- */

struct ut_session_ctl *ut_ctl;
int ut_rec_mode;
int ut_use_tsc;
int ut_fast;
int ut_rec_filter;
int ut_ev_filter;
int ut_lat_gate;	/* tracers/irqsoff.c: no latency tracer here */
int ut_extra;	/* profile.c: no stack tracer or profiler here */
int ut_have_rseq;
intptr_t ut_cpu_off;
static unsigned long nr_errors, nr_writes;

void ut_session_error(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nr_errors += buf[0] != 0;
}

int ut_write(struct ut_thread *t, uint32_t type, uint64_t ts, uint64_t ip, uint64_t parent)
{
	(void)t;
	(void)type;
	(void)ts;
	nr_writes += ip != parent;
	return 0;
}

void ut_write_trace(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts)
{
	(void)t;
	(void)ts;
	if (n > UT_STACK_MAX)
		abort();
	for (uint32_t i = 0; i < n; i++)
		nr_writes += ips[i] != 0;
}

uint64_t ut_clock_mono(void)
{
	return 1;
}

/* no event registry: enable_event/disable_event commands switch nothing */
/* the top's switch as runtime/triggers.c makes it when no instance records */
int ut_top_switch(struct ut_evreg *r, int on, volatile int64_t *count)
{
	(void)r;
	if ((ut_ctl->tracing_on != 0) == on || (count && !ut_take_run(count)))
		return 0;
	ut_ctl->tracing_on = (uint32_t)on;
	return 1;
}

struct ut_evreg *ut_events_reg(void)
{
	return NULL;
}

int ut_evreg_find(const struct ut_evreg *r, const char *system, const char *name,
		  uint32_t *out, int max)
{
	(void)r;
	(void)system;
	(void)name;
	(void)out;
	(void)max;
	return 0;
}

int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count)
{
	(void)r;
	(void)target;
	(void)enable;
	(void)count;
	return 0;
}

/* an instance's function commands (runtime/triggers.c, graph.c): none run here */
int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count)
{
	(void)r, (void)dir, (void)on, (void)count;
	return 0;
}

int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count)
{
	(void)r, (void)dir, (void)target, (void)enable, (void)count;
	return 0;
}

void ut_write_trace_dir(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts,
			uint32_t dir)
{
	(void)t, (void)ips, (void)n, (void)ts, (void)dir;
}

/* ---- the harness ---- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const exe_names[] = {
	"main", "parse_args", "parse_line", "run", "compute", "log_msg", "log_flush",
	"a", "_start", "std::vector<int, std::allocator<int> >::push_back(int const&)",
	"operator new(unsigned long)", "foo::bar()", "[weird]*name?", "x:mod:y",
};
static const char *const lib_names[] = {
	"foo_init", "foo_run", "foo_lock", "main",
};

#define MAX_EXTRA	64
#define MAX_KEEP	256

/* everything funcfilter.c published during one input */
static void *keep[MAX_KEEP];
static int nkeep;

static void keep_ptr(void *p)
{
	if (!p || p == no_cmds)
		return;
	for (int i = 0; i < nkeep; i++)
		if (keep[i] == p)
			return;
	if (nkeep == MAX_KEEP)
		abort();
	keep[nkeep++] = p;
}

static void keep_state(void)
{
	keep_ptr(ftab);
	keep_ptr(cmds);
}

static void reset_state(void)
{
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
	nkeep = 0;
	ftab = NULL;
	cmds = no_cmds;
	ncmds = 0;
	cmds_text[0] = '\0';
	l_filter = l_notrace = l_gfunc = l_gnotrace = NULL;
	need_table = hooked_code = 0;
	ut_filtering = ut_fast = ut_rec_filter = 0;
}

static char *ctl_list(struct ut_session_ctl *c, int i)
{
	char *l[5] = { c->filter, c->notrace, c->graph_function, c->graph_notrace, c->commands };

	return l[i];
}

/* a call sequence: each byte of @drive enters a function or returns */
static void run_calls(struct ut_thread *t, const struct ut_fsym *syms, size_t n,
		      const uint8_t *drive, size_t len)
{
	t->depth = 0;
	for (size_t i = 0; i < len && i < 256; i++) {
		const struct ut_fsym *f = &syms[drive[i] % n];
		uintptr_t ip = f->addr + (drive[i] >> 4) % (f->size ? f->size : 1);
		int r;

		if ((drive[i] & 0xc0) == 0xc0 && t->depth) {
			t->depth--;
			t->gbase = t->gbase > t->depth ? 0 : t->gbase;
			continue;
		}
		r = ut_filter_entry(t, ip, ip + 1, i);
		if ((r == UT_FE_TRACE || r == UT_FE_NOTRACE || r == UT_FE_THRESH) &&
		    t->depth < UT_SHADOW_MAX) {
			struct ut_frame *fr = &t->frames[t->depth++];

			fr->ip = ip;
			fr->slot = 0x7fff0000 - 8 * t->depth;
			fr->recorded = r == UT_FE_NOTRACE ? UT_FR_NOTRACE :
				       r == UT_FE_THRESH ? UT_FR_THRESH : UT_FR_RECORDED;
		}
	}
}

/* ---- event filters ---- */

struct ev_mix {
	struct ut_trace_entry ent;
	int i;
	unsigned short us;
	char c;
	unsigned char uc;
	unsigned long ul;
	long l;
	char name[16];
	uint32_t path;			/* __data_loc char[] */
	uint32_t rel;			/* __rel_loc char[] */
	const char *ptr;
	void *vp;
	int arr[3];
	char data[64];
};

static const struct ut_event_field ev_fields[] = {
	{ "int", "i", offsetof(struct ev_mix, i), 4, 1, UT_FIELD_SCALAR, 0 },
	{ "unsigned short", "us", offsetof(struct ev_mix, us), 2, 0, UT_FIELD_SCALAR, 0 },
	{ "char", "c", offsetof(struct ev_mix, c), 1, 1, UT_FIELD_SCALAR, 0 },
	{ "unsigned char", "uc", offsetof(struct ev_mix, uc), 1, 0, UT_FIELD_SCALAR, 0 },
	{ "unsigned long", "ul", offsetof(struct ev_mix, ul), 8, 0, UT_FIELD_SCALAR, 0 },
	{ "long", "l", offsetof(struct ev_mix, l), 8, 1, UT_FIELD_SCALAR, 0 },
	{ "char[16]", "name", offsetof(struct ev_mix, name), 16, 0, UT_FIELD_ARRAY, 16 },
	{ "__data_loc char[]", "path", offsetof(struct ev_mix, path), 4, 0, UT_FIELD_DATA_LOC, 0 },
	{ "__rel_loc char[]", "rel", offsetof(struct ev_mix, rel), 4, 0, UT_FIELD_SCALAR, 0 },
	{ "const char *", "ptr", offsetof(struct ev_mix, ptr), 8, 0, UT_FIELD_SCALAR, 0 },
	{ "void *", "vp", offsetof(struct ev_mix, vp), 8, 0, UT_FIELD_SCALAR, 0 },
	{ "int[3]", "arr", offsetof(struct ev_mix, arr), 12, 1, UT_FIELD_ARRAY, 3 },
};

static const struct ut_event_desc ev_desc = {
	UT_TP_ABI, 0, offsetof(struct ev_mix, data), "fuzz", "mix", "\"\"", ev_fields,
	sizeof(ev_fields) / sizeof(ev_fields[0]), 0,
};

static long ev_read_str(uint64_t addr, char *buf, size_t size)
{
	static const char s[] = "hello";

	(void)addr;
	if (size <= sizeof(s))
		return -1;
	memcpy(buf, s, sizeof(s));
	return (long)sizeof(s) - 1;
}

static void event_filter_one(const char *expr, const uint8_t *rest, size_t n)
{
	static struct ut_evfilter f;
	static char text[4 * UT_EVF_TEXT_MAX];
	struct ut_evf_ctx ctx = { 1, "fuzz", ev_read_str };
	struct ut_evf_error err;
	struct ev_mix e;
	size_t len = strlen(expr);

	memset(&e, 0, sizeof(e));
	memcpy(&e, rest, n < sizeof(e) ? n : sizeof(e));
	for (int pass = 0; pass < 2; pass++) {
		int ret = ut_evfilter_compile(&f, expr, pass ? NULL : &ev_desc, &err);

		if (ret < 0) {
			/* a failure has its texts; its position is in or just past the text */
			if (err.ret != ret || err.code < 0 || err.code >= UT_EVF_ERR_NR || err.pos < 0 ||
			    (size_t)err.pos > len + 2 || f.n)
				abort();
			if (ut_evfilter_show(text, sizeof(text), expr, &err) >= sizeof(text) ||
			    ut_evfilter_errlog(text, sizeof(text), expr, &err) >= sizeof(text))
				abort();
			continue;
		}
		if (!f.n || f.n > UT_EVF_PREDS_MAX || len >= UT_EVF_TEXT_MAX)
			abort();
		for (uint32_t i = 0; i < f.n; i++)
			if (f.preds[i].next[0] <= i || f.preds[i].next[1] <= i ||
			    f.preds[i].next[0] > f.n + 1 || f.preds[i].next[1] > f.n + 1)
				abort();
		if (pass)
			continue;
		ut_evfilter_match(&f, &e, (uint32_t)sizeof(e), &ctx);
		ut_evfilter_match(&f, &e, (uint32_t)(n % (sizeof(e) + 1)), &ctx);
		ut_evfilter_match(&f, &e, (uint32_t)sizeof(e), NULL);
		/* a corrupt program: the input's bytes over its predicates */
		memcpy(f.preds, rest, n < sizeof(f.preds) ? n : sizeof(f.preds));
		ut_evfilter_match(&f, &e, (uint32_t)sizeof(e), &ctx);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ut_session_ctl ctl;
	static struct ut_frame frames[UT_SHADOW_MAX];
	static char text[1 << 16];
	static struct ut_fsym exe[sizeof(exe_names) / sizeof(exe_names[0]) + MAX_EXTRA];
	static struct ut_fsym lib[sizeof(lib_names) / sizeof(lib_names[0]) + MAX_EXTRA];
	char *lines[5 + MAX_EXTRA + 1], *save = NULL, *line;
	size_t nexe = 0, nlib = 0, nlines = 0;
	struct ut_thread t;
	unsigned depth = 0, thresh = 0, mode = UT_MODE_GRAPH;
	const uint8_t *drive = data;

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (size >= 7 && !memcmp(data, "#event\n", 7)) {
		size_t n = strlen(text + 7) + 8;

		event_filter_one(text + 7, data + (n < size ? n : size), n < size ? size - n : 0);
		return 0;
	}
	reset_state();
	memset(&ctl, 0, sizeof(ctl));
	memset(ctl.rec_cpumask, 0xff, sizeof(ctl.rec_cpumask));
	ctl.tracing_on = 1;
	ut_ctl = &ctl;

	/* the lines, empty ones included (an empty list) */
	for (line = text; line && nlines < sizeof(lines) / sizeof(lines[0]); nlines++) {
		lines[nlines] = line;
		line = strchr(line, '\n');
		if (line)
			*line++ = '\0';
	}
	(void)save;
	for (size_t i = 0; i < 5 && i < nlines; i++)
		snprintf(ctl_list(&ctl, (int)i), UT_LIST_MAX, "%s", lines[i]);
	for (size_t i = 5; i < nlines; i++) {
		char *name = lines[i], *mod = strchr(name, '\t');

		if (name[0] == '@') {
			sscanf(name + 1, "%u %u %u", &depth, &thresh, &mode);
			continue;
		}
		if (!*name)
			continue;
		if (mod)
			*mod++ = '\0';
		if (mod && nlib < MAX_EXTRA)
			lib[nlib++] = (struct ut_fsym){ 0, 0, name, 1 };
		else if (!mod && nexe < MAX_EXTRA)
			exe[nexe++] = (struct ut_fsym){ 0, 0, name, 1 };
	}
	for (size_t i = 0; i < sizeof(exe_names) / sizeof(exe_names[0]); i++)
		exe[nexe++] = (struct ut_fsym){ 0, 0, exe_names[i], 1 };
	for (size_t i = 0; i < sizeof(lib_names) / sizeof(lib_names[0]); i++)
		lib[nlib++] = (struct ut_fsym){ 0, 0, lib_names[i], 1 };
	for (size_t i = 0; i < nexe; i++) {
		exe[i].addr = 0x401000 + 0x100 * i;
		exe[i].size = i % 5 ? 0x80 : 0;	/* a size of 0: one byte */
	}
	for (size_t i = 0; i < nlib; i++) {
		lib[i].addr = 0x7f0000001000 + 0x100 * i;
		lib[i].size = 0x40;
	}
	ctl.max_graph_depth = depth;
	ctl.tracing_thresh = thresh;
	ut_rec_mode = mode == UT_MODE_FUNC ? UT_MODE_FUNC : UT_MODE_GRAPH;

	/* start-up: the lists, the table, the check */
	ut_filter_load();
	keep_state();
	ut_ftab_add(exe, nexe, "app");
	keep_state();
	ut_ftab_add(lib, nlib, "libfoo.so");
	keep_state();
	ut_filter_hooked();
	ut_filter_update(ut_rec_mode);
	ut_filter_check(ut_ftab_hits, 1);
	for (size_t i = 0; i < nexe; i++)
		ut_filter_patch(exe[i].name, "app", ut_rec_mode);

	memset(&t, 0, sizeof(t));
	t.frames = frames;
	t.tid = t.pid = 1;
	run_calls(&t, exe, nexe, drive, size);
	run_calls(&t, lib, nlib, drive + size / 2, size - size / 2);

	/* a change from the tracing directory: every list one place on */
	{
		char first[UT_LIST_MAX];

		memcpy(first, ctl.filter, UT_LIST_MAX);
		for (int i = 0; i < 4; i++)
			memcpy(ctl_list(&ctl, i), ctl_list(&ctl, i + 1), UT_LIST_MAX);
		memcpy(ctl.commands, first, UT_LIST_MAX);
	}
	ut_filter_load();
	keep_state();
	ut_ftab_reflag();
	keep_state();
	ut_filter_update(UT_MODE_GRAPH);
	run_calls(&t, exe, nexe, drive, size);
	ut_ftab_remove(0x7f0000000000, 0x7f0000100000);
	keep_state();
	run_calls(&t, lib, nlib, drive, size);
	/* a later program of the session: warnings, not errors */
	ut_filter_check(ut_ftab_hits, 0);
	ut_ftab_any();
	return 0;
}
