// SPDX-License-Identifier: MIT
/*
 * funcfilter.c - which calls are traced: the function filters and the function
 * commands, as the kernel's set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, set_graph_notrace, max_graph_depth and
 * tracing_thresh define them.
 *
 * The lists are in the session's control page (struct ut_session_ctl),
 * in the kernel's syntax (see usertrace(1)):
 *
 *   filter          set_ftrace_filter     globs, !glob, glob:mod:LIB
 *   notrace         set_ftrace_notrace    (notrace wins)
 *   graph_function  set_graph_function    these and their callees only
 *   graph_notrace   set_graph_notrace     neither these nor their callees
 *   commands        func:traceon[:N] func:traceoff[:N] func:stacktrace[:N]
 *
 * with max_graph_depth and tracing_thresh.  The runtime works on its own
 * copy of the lists, taken at start-up and at each change of settings.
 *
 * Two ways to apply them.  Call sites that dynamic ftrace can patch
 * (dynamic.c) are simply left as nops unless ut_filter_patch() says the
 * function is traced or carries a command.  Code that calls the hooks
 * directly (-pg, -finstrument-functions) cannot be turned off, so the hook
 * asks ut_filter_entry() about every call; that needs the function of an
 * address, looked up in a table of the instrumented objects' functions
 * (struct ut_ftab), each with its filter flags computed once.  The table is
 * replaced, never changed: a new one is published for every object loaded
 * or unloaded, and old ones are kept (a hook may still be reading one), so
 * lookups take no lock.
 *
 * While any of this is in force the assembly fast paths step aside
 * (ut_fast = 0) and every call goes through the C hooks.
 */
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lib/funclist/funclist.h"
#include "runtime/runtime.h"
#include "usertrace/evreg.h"

enum {
	UT_FN_TRACE = 1,	/* passes set_ftrace_filter and set_ftrace_notrace */
	UT_FN_GRAPH = 2,	/* in set_graph_function */
	UT_FN_GNOTRACE = 4,	/* in set_graph_notrace */
	UT_FN_STACK = 8,	/* in stack_trace_filter */
};

struct ut_func {
	uintptr_t start, end;
	const char *name;
	const char *module;
	uint32_t flags;
	uint32_t listed;	/* calls a hook or has a call site (ut_fsym.listed) */
	uint64_t cmds;		/* bit i: function command i applies */
};

struct ut_cmd;

struct ut_ftab {
	size_t n;
	struct ut_cmd *cmds;	/* the commands the functions' masks refer to */
	unsigned int ncmds;
	struct ut_func f[];
};

enum ut_cmd_type {
	UT_CMD_TRACEON, UT_CMD_TRACEOFF, UT_CMD_STACKTRACE, UT_CMD_ENABLE_EVENT, UT_CMD_DISABLE_EVENT,
	UT_CMD_NR
};

#define UT_CMD_MAX	64

struct ut_cmd {
	char pat[256];
	enum ut_cmd_type type;
	int64_t count;		/* times left; -1: unlimited */
	/* a live session: the count shared by every process (control page); NULL: count */
	volatile int64_t *shared;
	/* enable_event/disable_event: the event, and its slots as of `resolved` events */
	char event[128];		/* "sys\0name" */
	uint32_t targets[4];
	int ntargets;
	uint32_t resolved;
	/* an instance's command ("D|func:cmd"): its words in the registry, dirs[dir]; 0: the top's */
	uint32_t dir;
};

static const char *const cmd_names[UT_CMD_NR] = {
	"traceon", "traceoff", "stacktrace", "enable_event", "disable_event",
};

/*
 * The commands.  A change of the commands list parses it into a new array;
 * a hook uses the array of the function table it looked up (struct
 * ut_ftab), so a function's mask always indexes the commands it was
 * computed from, and an array is never written again once published (nor
 * freed: a hook may still read it).  Other changes keep the array, and
 * with it the counts left.
 */
static struct ut_cmd no_cmds[1];
static struct ut_cmd *cmds = no_cmds;
static unsigned int ncmds;
static char cmds_text[UT_LIST_MAX];	/* the list `cmds` was parsed from */
static const char *l_filter, *l_notrace, *l_gfunc, *l_gnotrace, *l_stack;
static struct ut_ftab *ftab;
static int need_table;		/* some list or command is set */
static int hooked_code;		/* an object calls the hooks directly */
int ut_filtering;

static uint32_t func_flags(const char *name, const char *module, uint64_t *cmdmask)
{
	uint32_t fl = 0;

	if (ut_funclist_match(l_filter, name, module) != 0 && ut_funclist_match(l_notrace, name, module) != 1)
		fl |= UT_FN_TRACE;
	if (ut_funclist_match(l_gfunc, name, module) == 1)
		fl |= UT_FN_GRAPH;
	if (ut_funclist_match(l_gnotrace, name, module) == 1)
		fl |= UT_FN_GNOTRACE;
	if (ut_funclist_match(l_stack, name, module) == 1)
		fl |= UT_FN_STACK;
	*cmdmask = 0;
	for (unsigned int i = 0; i < ncmds; i++)
		if (ut_funclist_pattern(cmds[i].pat, name, module))
			*cmdmask |= 1ull << i;
	return fl;
}

/*
 * dynamic ftrace: does the function's call site need patching in recording
 * mode @mode?  With nop, only the sites of functions that carry a command.
 */
int ut_filter_patch(const char *name, const char *module, int mode)
{
	uint64_t mask;
	uint32_t fl = func_flags(name, module, &mask);

	if (mode == UT_MODE_NONE)
		return mask != 0;
	return (fl & UT_FN_TRACE) || mask;
}

/*
 * Where the command starts in @w: the first ':' followed by a command's
 * name and then ':' or the end ("ns::f:traceon" has its command after
 * the C++ colons).  Its type into @type; NULL if there is none.
 */
static const char *find_command(const char *w, int *type)
{
	for (const char *c = strchr(w, ':'); c; c = strchr(c + 1, ':'))
		for (int i = 0; i < UT_CMD_NR; i++) {
			size_t n = strlen(cmd_names[i]);

			if (!strncmp(c + 1, cmd_names[i], n) && (c[1 + n] == ':' || !c[1 + n])) {
				*type = i;
				return c;
			}
		}
	return NULL;
}

/*
 * "func:cmd[:N]", "func:enable_event:sys:event[:N]" and "!func:cmd..."
 * into the command table; @shared: its count in the control page, NULL
 * to count here
 */
static void parse_command(const char *w, volatile int64_t *shared)
{
	const char *c, *arg, *cnt = NULL, *bar;
	int del = w[0] == '!';
	char event[128] = "";
	uint32_t dir = 0;
	int type;

	if (del)
		w++;
	/* an instance's: "D|" before it, D its index in the registry's dirs[] */
	bar = w + strspn(w, "0123456789");
	if (bar != w && *bar == '|') {
		dir = (uint32_t)strtoul(w, NULL, 10);
		w = bar + 1;
		if (!dir || dir >= UT_EVREG_DIRS) {
			ut_session_error("set_ftrace_filter: '%s': no such instance", w);
			return;
		}
	}
	c = find_command(w, &type);
	if (!c) {
		const char *f = strchr(w, ':');

		/* func:name: a name that is no command (not a count) */
		if (f && f != w && !(f[1] >= '0' && f[1] <= '9')) {
			int n = (int)strcspn(f + 1, ":");

			ut_session_error("set_ftrace_filter: '%s': unknown command '%.*s'", w, n, f + 1);
			return;
		}
	}
	if (!c || c == w) {
		ut_session_error("set_ftrace_filter: '%s': expected func:command[:count]", w);
		return;
	}
	arg = c + 1 + strlen(cmd_names[type]);
	if (type == UT_CMD_ENABLE_EVENT || type == UT_CMD_DISABLE_EVENT) {
		const char *sys = arg + 1, *name = *arg ? strchr(sys, ':') : NULL, *end;

		if (!name || name == sys || !name[1] || name[1] == ':') {
			ut_session_error("set_ftrace_filter: '%s': expected func:%s:system:event[:count]",
					 w, cmd_names[type]);
			return;
		}
		end = strchr(name + 1, ':');
		if (!end)
			end = name + strlen(name);
		if ((size_t)(end - sys) >= sizeof(event)) {
			ut_session_error("set_ftrace_filter: '%s': name too long", w);
			return;
		}
		memcpy(event, sys, (size_t)(end - sys));
		event[name - sys] = 0;		/* "sys\0name" */
		event[end - sys] = 0;
		arg = end;
	}
	if (*arg == ':')
		cnt = arg + 1;
	if ((size_t)(c - w) >= sizeof(cmds[0].pat)) {
		ut_session_error("set_ftrace_filter: '%s': name too long", w);
		return;
	}
	if (del) {
		for (unsigned int i = 0; i < ncmds; i++)
			if ((int)cmds[i].type == type && cmds[i].dir == dir &&
			    !strncmp(cmds[i].pat, w, (size_t)(c - w)) &&
			    !cmds[i].pat[c - w] && !memcmp(cmds[i].event, event, sizeof(event))) {
				memmove(&cmds[i], &cmds[i + 1], (ncmds - i - 1) * sizeof(cmds[0]));
				ncmds--;
				i--;
			}
		return;
	}
	if (ncmds == UT_CMD_MAX) {
		ut_session_error("set_ftrace_filter: '%s': more than %d commands", w, UT_CMD_MAX);
		return;
	}
	memset(&cmds[ncmds], 0, sizeof(cmds[0]));
	memcpy(cmds[ncmds].event, event, sizeof(event));
	memcpy(cmds[ncmds].pat, w, (size_t)(c - w));
	cmds[ncmds].pat[c - w] = 0;
	cmds[ncmds].type = (enum ut_cmd_type)type;
	cmds[ncmds].count = cnt ? strtoll(cnt, NULL, 10) : -1;
	cmds[ncmds].shared = shared;
	cmds[ncmds].dir = dir;
	ncmds++;
}

/*
 * The hooks' switches for recording mode @mode.  The assembly fast path
 * ignores the filters: it is left before they take effect, and entered
 * only after they are off, so no call slips through unfiltered.
 */
static void filter_update_fast(int mode)
{
	int filtering, rec_filter, fast, cpus = 0;

	/*
	 * Function commands are probes of their own, as the kernel's: they
	 * fire with nop too, and then the hooks run nothing else (the lists
	 * and the graph settings are the tracers').
	 */
	if (mode == UT_MODE_NONE)
		filtering = ncmds != 0;
	else
		filtering = l_gfunc || l_gnotrace || ncmds || ut_ctl->max_graph_depth ||
			    ut_ctl->tracing_thresh || ((l_filter || l_notrace) && hooked_code);
	for (int i = 0; i < UT_CTL_CPUS / 32 && !cpus; i++)
		cpus = ut_ctl->rec_cpumask[i] != ~0u;
	/* the latency tracers' gate (tracers/irqsoff.c) is a filter of who records too */
	rec_filter = cpus || ut_ctl->nr_rec_pids != 0 || ut_ctl->nr_rec_nopids != 0 ||
		     __atomic_load_n(&ut_lat_gate, __ATOMIC_RELAXED);
	__atomic_store_n(&ut_ev_filter, cpus || ut_ctl->nr_ev_pids != 0 || ut_ctl->nr_ev_nopids != 0,
			 __ATOMIC_RELEASE);
	/* the stack tracer and the profiler: every entry through the C hook */
	fast = mode == UT_MODE_GRAPH && ut_use_tsc && !filtering && !rec_filter && !ut_extra;
	if (!fast)
		__atomic_store_n(&ut_fast, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_filtering, filtering, __ATOMIC_RELEASE);
	__atomic_store_n(&ut_rec_filter, rec_filter, __ATOMIC_RELEASE);
	if (fast)
		__atomic_store_n(&ut_fast, 1, __ATOMIC_RELEASE);
}

/**
 * ut_filter_update - the hooks' switches for recording mode @mode
 *
 * Context: after ut_filter_load() and ut_ftab_reflag(), and before
 * ut_rec_mode becomes @mode: the filters are in force before recording
 * starts under them.
 */
void ut_filter_update(int mode)
{
	filter_update_fast(mode);
}

/* is thread @tid of process @pid in the pid list @pids of @n entries? */
static int pid_in(int32_t tid, int32_t pid, const volatile int32_t *pids, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < UT_REC_PIDS_MAX; i++)
		if (pids[i] == tid || pids[i] == pid)
			return 1;
	return 0;
}

_Static_assert(UT_RF_FUNC == UT_FOLLOW_FUNC && UT_RF_EVENT == UT_FOLLOW_EVENT,
	       "the follow kinds are the rf_ok bits");

/*
 * What thread @tid of process @pid records (UT_RF_*): as the kernel's
 * trace_ignore_this_task(), a thread in a notrace list never, else one
 * in the pid list or any while that list is empty.  Context: the
 * controller's generation is even (read again after).
 */
static uint32_t rf_compute(int32_t tid, int32_t pid)
{
	const struct ut_session_ctl *c = ut_ctl;
	uint32_t ok = 0;

	if ((!c->nr_rec_pids || pid_in(tid, pid, c->rec_pids, c->nr_rec_pids)) &&
	    !pid_in(tid, pid, c->rec_nopids, c->nr_rec_nopids))
		ok |= UT_RF_FUNC;
	if ((!c->nr_ev_pids || pid_in(tid, pid, c->ev_pids, c->nr_ev_pids)) &&
	    !pid_in(tid, pid, c->ev_nopids, c->nr_ev_nopids))
		ok |= UT_RF_EVENT;
	return ok;
}

/*
 * May the thread record, as @what (UT_RF_FUNC: calls, set_ftrace_pid;
 * UT_RF_EVENT: events, set_event_pid), on the CPU it runs on
 * (tracing_cpumask)?  The pid lists are looked at again only when the
 * controller changed them, or while the thread is a child that records
 * as its parent (the -fork options) until the controller lists it.
 */
static int rf_allowed(struct ut_thread *t, uint32_t what)
{
	uint32_t g = __atomic_load_n(&ut_ctl->rec_filter_gen, __ATOMIC_ACQUIRE), cpu;
	int gate;

	if (unlikely(g != t->rf_gen || t->rf_inh_seq) && !(g & 1)) {
		uint32_t done = __atomic_load_n(&ut_ctl->forklog_done, __ATOMIC_ACQUIRE);
		uint32_t ok = rf_compute(t->tid, t->pid);
		int inherit = t->rf_inh_seq && (int32_t)(done - t->rf_inh_seq) < 0;

		if (inherit)
			ok = (ok & ~t->rf_inh_what) | (t->rf_inh & t->rf_inh_what);
		/* not torn by a change meanwhile: keep it */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ut_ctl->rec_filter_gen, __ATOMIC_ACQUIRE) == g) {
			t->rf_ok = ok;
			t->rf_gen = g;
			if (!inherit)
				t->rf_inh_seq = 0;
		}
	}
	if (!(t->rf_ok & what))
		return 0;
	/* a latency tracer alone records the calls inside sections */
	if (what == UT_RF_FUNC && (gate = __atomic_load_n(&ut_lat_gate, __ATOMIC_RELAXED)) &&
	    (gate == 2 || !t->tr.lat.open))
		return 0;
	cpu = ut_have_rseq ? ut_cpu() : (uint32_t)sched_getcpu();
	return cpu >= UT_CTL_CPUS || (ut_ctl->rec_cpumask[cpu / 32] >> (cpu % 32)) & 1;
}

/* the kinds of lists (UT_FOLLOW_*) that follow the forks of thread @tid of process @pid */
static uint32_t follow_what(int32_t tid, int32_t pid)
{
	uint32_t what = 0, n = ut_ctl->nr_follow;

	for (uint32_t i = 0; i < n && i < UT_REC_PIDS_MAX; i++)
		if (ut_ctl->follow[i].id == tid || ut_ctl->follow[i].id == pid)
			what |= ut_ctl->follow[i].what;
	return what;
}

/**
 * ut_follow_on - does a directory follow forks (function-fork, event-fork)?
 */
int ut_follow_on(void)
{
	return ut_ctl && __atomic_load_n(&ut_ctl->nr_follow, __ATOMIC_RELAXED) != 0;
}

/**
 * ut_pid_follow - thread @ptid of process @ppid made @child (a process or a thread)
 * @t: the child's thread state (the fork's child, the new thread), or
 *	NULL when the child runs elsewhere (posix_spawn)
 *
 * If a directory follows @ptid's forks, the fork log tells the
 * controller, which adds @child to the lists that hold its parent, and
 * @t records as its parent does until then: from its first call.
 * Context: before the child runs the program's code; system calls only.
 */
void ut_pid_follow(struct ut_thread *t, int32_t ptid, int32_t ppid, int32_t child)
{
	struct ut_session_ctl *c = ut_ctl;
	uint32_t what, ok, g, n;
	struct ut_forklog *e;

	if (t)
		t->rf_inh_seq = 0;
	if (!ut_follow_on())
		return;
	/* the lists as the controller last published them (it changes them in a moment) */
	for (int i = 0; i < 1000; i++) {
		g = __atomic_load_n(&c->rec_filter_gen, __ATOMIC_ACQUIRE);
		what = follow_what(ptid, ppid);
		ok = rf_compute(ptid, ppid);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(g & 1) && __atomic_load_n(&c->rec_filter_gen, __ATOMIC_ACQUIRE) == g)
			break;
		sched_yield();
	}
	if (!what)
		return;
	n = __atomic_fetch_add(&c->forklog_head, 1, __ATOMIC_ACQ_REL);
	e = &c->forklog[n % UT_FORKLOG];
	e->ptid = ptid;
	e->ppid = ppid;
	e->child = child;
	__atomic_store_n(&e->seq, n + 1, __ATOMIC_RELEASE);
	if (t) {
		t->rf_inh = ok;
		t->rf_inh_what = what;
		t->rf_inh_seq = n + 1 ?: 1;
		t->rf_gen = 1;	/* odd: look again */
	}
}

/**
 * ut_rec_allowed - may this thread record calls now (set_ftrace_pid, tracing_cpumask)?
 *
 * Context: the hooks' C path, while ut_rec_filter is set.
 */
int ut_rec_allowed(struct ut_thread *t)
{
	return rf_allowed(t, UT_RF_FUNC);
}

/**
 * ut_ev_allowed - may this thread record events now (set_event_pid, tracing_cpumask)?
 *
 * Context: ut_write_event(), while ut_ev_filter is set.
 */
int ut_ev_allowed(struct ut_thread *t)
{
	return rf_allowed(t, UT_RF_EVENT);
}

/* our copy of a list of the control page; NULL if it has no pattern */
static const char *copy_list(char *dst, const char *src)
{
	memcpy(dst, src, UT_LIST_MAX);
	dst[UT_LIST_MAX - 1] = 0;
	return dst[strspn(dst, " \t\n,")] ? dst : NULL;
}

/* the lists: the active copy, and the one being built by a change */
static char lists[2][6][UT_LIST_MAX];
static int lists_cur;

/**
 * ut_filter_load - take the lists of the control page (ut_ctl set)
 *
 * Context: start-up, or the control thread under the patch lock.  Hooks on
 * other threads may be reading the current copy: the new lists go to the
 * other copy, and a hook that still holds an old pointer reads lists that
 * stay valid until the change after next.
 */
void ut_filter_load(void)
{
	char (*l)[UT_LIST_MAX] = lists[lists_cur ^= 1];
	char buf[512];
	const char *list;

	l_filter = copy_list(l[0], ut_ctl->filter);
	l_notrace = copy_list(l[1], ut_ctl->notrace);
	l_gfunc = copy_list(l[2], ut_ctl->graph_function);
	l_gnotrace = copy_list(l[3], ut_ctl->graph_notrace);
	l_stack = copy_list(l[5], ut_ctl->stack_filter);
	list = copy_list(l[4], ut_ctl->commands);
	if (strcmp(l[4], cmds_text)) {
		struct ut_cmd *fresh = calloc(UT_CMD_MAX, sizeof(*fresh));

		if (fresh) {
			/* a live session: word i counts in the control page's bank */
			int live = (ut_ctl->flags & UT_CTL_LIVE) != 0;
			uint32_t bank = __atomic_load_n(&ut_ctl->cmd_bank, __ATOMIC_ACQUIRE) & 1;
			unsigned int w = 0;

			cmds = fresh;
			ncmds = 0;
			while (list && ut_funclist_word(&list, buf, sizeof(buf))) {
				parse_command(buf, live && w < UT_CTL_CMDS ?
					      &ut_ctl->cmd_count[bank][w] : NULL);
				w++;
			}
			memcpy(cmds_text, l[4], UT_LIST_MAX);
		}
	}
	/* a live session may set filters later: know the functions from the start */
	need_table = l_filter || l_notrace || l_gfunc || l_gnotrace || l_stack || ncmds ||
		     (ut_ctl->flags & UT_CTL_LIVE);
}

/* must the functions of instrumented objects be known? */
int ut_filter_need_table(void)
{
	return need_table;
}

/* an object calls mcount, __fentry__ or __cyg_profile_func_*: filter in the hooks */
void ut_filter_hooked(void)
{
	hooked_code = 1;
	filter_update_fast(ut_rec_mode);
}

static int func_cmp(const void *a, const void *b)
{
	const struct ut_func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* publish @t; the old table stays readable by hooks running now */
static void ftab_publish(struct ut_ftab *t)
{
	t->cmds = cmds;
	t->ncmds = ncmds;
	__atomic_store_n(&ftab, t, __ATOMIC_RELEASE);
}

/**
 * ut_ftab_add - the functions of an object just loaded
 *
 * Context: ut_dyn_scan(), under its lock.
 */
void ut_ftab_add(const struct ut_fsym *syms, size_t n, const char *module)
{
	struct ut_ftab *old = ftab, *t;
	size_t on = old ? old->n : 0;

	t = malloc(sizeof(*t) + (on + n) * sizeof(t->f[0]));
	if (!t)
		return;
	if (on)
		memcpy(t->f, old->f, on * sizeof(t->f[0]));
	for (size_t i = 0; i < n; i++) {
		struct ut_func *f = &t->f[on + i];

		f->start = syms[i].addr;
		f->end = syms[i].addr + (syms[i].size ? syms[i].size : 1);
		f->name = syms[i].name;
		f->module = module;
		f->listed = (uint32_t)syms[i].listed;
		f->flags = func_flags(f->name, module, &f->cmds);
	}
	t->n = on + n;
	qsort(t->f, t->n, sizeof(t->f[0]), func_cmp);
	ftab_publish(t);
}

/**
 * ut_ftab_remove - an object was unloaded: forget its functions in [lo, hi)
 */
void ut_ftab_remove(uintptr_t lo, uintptr_t hi)
{
	struct ut_ftab *old = ftab, *t;
	size_t k = 0;

	if (!old)
		return;
	t = malloc(sizeof(*t) + old->n * sizeof(t->f[0]));
	if (!t)
		return;
	for (size_t i = 0; i < old->n; i++)
		if (old->f[i].start < lo || old->f[i].start >= hi)
			t->f[k++] = old->f[i];
	t->n = k;
	ftab_publish(t);
}

/**
 * ut_ftab_reflag - the lists changed: publish the table with new flags
 *
 * Context: the control thread, under the patch lock, after ut_filter_load().
 */
void ut_ftab_reflag(void)
{
	struct ut_ftab *old = ftab, *t;

	if (!old)
		return;
	t = malloc(sizeof(*t) + old->n * sizeof(t->f[0]));
	if (!t)
		return;
	t->n = old->n;
	for (size_t i = 0; i < old->n; i++) {
		t->f[i] = old->f[i];
		t->f[i].flags = func_flags(t->f[i].name, t->f[i].module, &t->f[i].cmds);
	}
	ftab_publish(t);
}

/*
 * ut_ftab_list - every function that can be traced, for the tracing
 * directory (available_filter_functions): those with a call site or a call
 * of a hook, as the kernel lists those with an mcount location (not
 * _start, _init, atexit...).  @emit(name, module, site) with the site's
 * state from @site_state(start, end): 0 none, 1 patchable, 2 enabled.
 */
void ut_ftab_list(void (*emit)(void *ctx, const char *name, const char *module, int site),
		  int (*site_state)(uintptr_t start, uintptr_t end), void *ctx)
{
	struct ut_ftab *t = __atomic_load_n(&ftab, __ATOMIC_ACQUIRE);

	for (size_t i = 0; t && i < t->n; i++)
		if (t->f[i].listed)
			emit(ctx, t->f[i].name, t->f[i].module, site_state(t->f[i].start, t->f[i].end));
}

/* does a pattern of a list name any function that can be traced? */
int ut_ftab_hits(const char *pat)
{
	struct ut_ftab *t = __atomic_load_n(&ftab, __ATOMIC_ACQUIRE);

	for (size_t i = 0; t && i < t->n; i++)
		if (t->f[i].listed && ut_funclist_pattern(pat, t->f[i].name, t->f[i].module))
			return 1;
	return 0;
}

/* the function that contains @ip, and the table it is in */
static const struct ut_func *ftab_find(uintptr_t ip, struct ut_ftab **tp)
{
	struct ut_ftab *t = __atomic_load_n(&ftab, __ATOMIC_ACQUIRE);

	*tp = t;
	size_t a = 0, b = t ? t->n : 0;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (t->f[mid].start <= ip)
			a = mid + 1;
		else
			b = mid;
	}
	if (a && ip < t->f[a - 1].end)
		return &t->f[a - 1];
	return NULL;
}

/**
 * ut_stack_listed - does the max stack tracer measure the entry of the
 * function at @ip?  stack_trace_filter: all functions when it is empty.
 */
int ut_stack_listed(uintptr_t ip)
{
	struct ut_ftab *tp;
	const struct ut_func *f;

	if (!__atomic_load_n(&l_stack, __ATOMIC_RELAXED))
		return 1;
	f = ftab_find(ip, &tp);
	return f && (f->flags & UT_FN_STACK);
}

/* is the directory of command @c on (the top's: the programs' tracing_on)? */
static int cmd_dir_on(const struct ut_cmd *c)
{
	struct ut_evreg *r;

	r = ut_events_reg();
	/* while an instance records, the top's own state is its word (ut_top_switch()) */
	if (!c->dir)
		return r && __atomic_load_n(&r->insts_on, __ATOMIC_ACQUIRE) ?
		       __atomic_load_n(&r->dirs[0].on, __ATOMIC_ACQUIRE) != 0 :
		       ut_ctl->tracing_on != 0;
	return r && __atomic_load_n(&r->dirs[c->dir].on, __ATOMIC_ACQUIRE) &&
	       ut_ctl->tracing_on;
}

/* take one of a command's remaining runs; 0 if none is left */
static int cmd_take(struct ut_cmd *c)
{
	return ut_take_run(c->shared ? c->shared : &c->count);
}

/* a stack trace of the call: the function, then the traced callers; @dir: an instance's */
static void cmd_stacktrace(struct ut_thread *t, uintptr_t ip, uintptr_t parent, uint32_t dir)
{
	uintptr_t ips[UT_STACK_MAX];
	uint32_t n = 0;

	ips[n++] = ip;
	if (ut_rec_mode == UT_MODE_GRAPH) {
		n += ut_shadow_ips(t, ips + 1, UT_STACK_MAX - 1);
	} else if (parent) {
		ips[n++] = parent;
	}
	/* an instance's: a record only it shows (entries.h TRACE_DIR) */
	if (dir)
		ut_write_trace_dir(t, ips, n, ut_clock(), dir + 1);
	else
		ut_write_trace(t, ips, n, ut_clock());
}

/*
 * enable_event/disable_event: switch the event's soft mode.  Its slots are
 * looked up again when events registered since (a dlopen).
 */
static void cmd_event(struct ut_cmd *c, int enable)
{
	struct ut_evreg *r = ut_events_reg();
	uint32_t nr;

	if (!r)
		return;
	nr = __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE);
	if (c->resolved != nr) {
		int n = ut_evreg_find(r, c->event, c->event + strlen(c->event) + 1, c->targets, 4);

		c->ntargets = n < 4 ? n : 4;
		c->resolved = nr;
	}
	for (int i = 0; i < c->ntargets; i++) {
		if (c->dir)
			ut_dir_soft_switch(r, c->dir, c->targets[i], enable,
					   c->shared ? c->shared : &c->count);
		else
			ut_event_soft_switch(r, c->targets[i], enable, c->shared ? c->shared : &c->count);
	}
}

static void run_commands(struct ut_thread *t, const struct ut_ftab *tab, const struct ut_func *f,
			 uintptr_t ip, uintptr_t parent)
{
	for (unsigned int i = 0; i < tab->ncmds; i++) {
		struct ut_cmd *c = &tab->cmds[i];

		if (!(f->cmds & (1ull << i)))
			continue;
		switch (c->type) {
		case UT_CMD_TRACEON:
		case UT_CMD_TRACEOFF:
			/* the count goes down only when the state changes */
			if (c->dir)
				ut_dir_switch(ut_events_reg(), c->dir, c->type == UT_CMD_TRACEON,
					      c->shared ? c->shared : &c->count);
			else
				ut_top_switch(ut_events_reg(), c->type == UT_CMD_TRACEON,
					      c->shared ? c->shared : &c->count);
			break;
		case UT_CMD_STACKTRACE:
			/* as the kernel's: only while its directory is on */
			if (cmd_dir_on(c) && cmd_take(c))
				cmd_stacktrace(t, ip, parent, c->dir);
			break;
		case UT_CMD_ENABLE_EVENT:
		case UT_CMD_DISABLE_EVENT:
			cmd_event(c, c->type == UT_CMD_ENABLE_EVENT);
			break;
		default:
			break;
		}
	}
}

/*
 * set_graph_function: the depth + 1 of the outermost open frame of a graph
 * function, 0 if no such frame is open.  Frames pushed before the filter
 * was set (a live session) may be anything, so the stack is looked at,
 * once; the answer is kept while that frame stays open.
 */
static uint32_t graph_base(struct ut_thread *t, uint32_t d)
{
	struct ut_ftab *tab;

	if (t->gbase && t->gbase <= d && t->frames[t->gbase - 1].slot == t->gslot &&
	    t->frames[t->gbase - 1].ip == t->gip)
		return t->gbase;
	for (uint32_t i = 0; i < d; i++) {
		const struct ut_func *f;

		if (t->frames[i].recorded == UT_FR_SKIP)
			continue;
		f = ftab_find(t->frames[i].ip, &tab);
		if (f && (f->flags & UT_FN_GRAPH)) {
			t->gslot = t->frames[i].slot;
			t->gip = t->frames[i].ip;
			return t->gbase = i + 1;
		}
	}
	return t->gbase = 0;
}

/**
 * ut_filter_entry - what to do with a call, when filters are in force
 * @ip: an address in the called function
 * @parent: its caller (return address), for the function tracer
 *
 * Runs the function's commands, writes the function tracer's record
 * itself, and tells the graph entry what to push: nothing (UT_FE_SKIP,
 * UT_FE_HIDDEN), a traced frame (UT_FE_TRACE), a frame whose callees are
 * not traced (UT_FE_NOTRACE), or a frame recorded only if it lasts
 * tracing_thresh (UT_FE_THRESH).
 */
int ut_filter_entry(struct ut_thread *t, uintptr_t ip, uintptr_t parent, uint64_t ts)
{
	struct ut_ftab *tab = NULL;
	const struct ut_func *f = need_table ? ftab_find(ip, &tab) : NULL;
	uint32_t fl = f ? f->flags : (l_filter || l_gfunc ? 0 : UT_FN_TRACE);
	uint32_t d = t->depth, max = ut_ctl->max_graph_depth, base = 0;

	if (f && f->cmds)
		run_commands(t, tab, f, ip, parent);
	if (!ut_ctl->tracing_on || !(fl & UT_FN_TRACE))
		return UT_FE_SKIP;
	if (ut_rec_mode == UT_MODE_FUNC) {
		ut_write(t, UT_REC_FUNC, ts, ip, parent);
		return UT_FE_SKIP;
	}
	if (ut_rec_mode != UT_MODE_GRAPH)
		return UT_FE_SKIP;
	/* under a set_graph_notrace function: nothing */
	if (d && t->frames[d - 1].recorded == UT_FR_NOTRACE)
		return UT_FE_HIDDEN;
	/* with set_graph_function: only inside one; depth counted from it */
	if (l_gfunc) {
		uint32_t gb = graph_base(t, d);

		if (!gb && !(fl & UT_FN_GRAPH))
			return UT_FE_SKIP;
		base = gb ? gb - 1 : d;
	}
	if (max && d - base >= max)
		return UT_FE_SKIP;
	if (fl & UT_FN_GNOTRACE)
		return UT_FE_NOTRACE;
	return ut_ctl->tracing_thresh ? UT_FE_THRESH : UT_FE_TRACE;
}

/* is a traced object whose name matches the glob @mod loaded? */
static int ftab_has_module(const char *mod)
{
	struct ut_ftab *t = __atomic_load_n(&ftab, __ATOMIC_ACQUIRE);

	for (size_t i = 0; t && i < t->n; i++)
		if (fnmatch(mod, t->f[i].module, 0) == 0)
			return 1;
	return 0;
}

/* is anything traced here: a function known to the table? */
int ut_ftab_any(void)
{
	struct ut_ftab *t = __atomic_load_n(&ftab, __ATOMIC_ACQUIRE);

	return t && t->n;
}

/*
 * One pattern of a list that selected nothing: in the first program (the
 * one record started, or the first with traced code) an error, unless it
 * is meant for a library not loaded yet; elsewhere a warning.  Returns 1
 * for an error.
 */
static int check_pattern(const char *file, const char *pat, const char *shown, int first,
			 int (*hits)(const char *pat))
{
	const char *mod = strstr(pat, ":mod:");
	char comm[17] = "";

	if (hits(pat))
		return 0;
	if (mod && !ftab_has_module(mod + 5)) {
		if (first)
			ut_session_error("warning: %s: '%s': no library %s was loaded at start-up "
					 "(nothing matches unless a dlopen loads it)", file, shown, mod + 5);
		return 0;
	}
	if (first) {
		ut_session_error("%s: '%s': no function matches", file, shown);
		return 1;
	}
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	ut_session_error("warning: %s (pid %d): %s: '%s': no function matches", comm, (int)getpid(),
			 file, shown);
	return 0;
}

/**
 * ut_filter_check - the start-up check of the lists
 * @hits: does a pattern name a known function?
 * @first: the first program of the session with traced code: a pattern
 *	that selects nothing is an error there (EINVAL in the kernel)
 *
 * Writes a line in the session's errors file for each pattern that
 * selects nothing.  Returns the number of errors.
 */
int ut_filter_check(int (*hits)(const char *pat), int first)
{
	static const struct { const char **list; const char *file; } lists[] = {
		{ &l_filter, "set_ftrace_filter" },
		{ &l_notrace, "set_ftrace_notrace" },
		{ &l_gfunc, "set_graph_function" },
		{ &l_gnotrace, "set_graph_notrace" },
	};
	char buf[512], shown[600];
	int errors = 0;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		const char *list = *lists[i].list;

		while (list && ut_funclist_word(&list, buf, sizeof(buf))) {
			const char *pat = buf[0] == '!' ? buf + 1 : buf;

			errors += check_pattern(lists[i].file, pat, buf, first, hits);
		}
	}
	for (unsigned int i = 0; i < ncmds; i++) {
		snprintf(shown, sizeof(shown), "%s:%s", cmds[i].pat, cmd_names[cmds[i].type]);
		errors += check_pattern("set_ftrace_filter", cmds[i].pat, shown, first, hits);
	}
	return errors;
}
