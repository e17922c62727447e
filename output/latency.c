// SPDX-License-Identifier: MIT
/*
 * latency.c - the latency format (the `latency-format` option, and the
 * latency tracers' output), as the kernel's print_trace_header(),
 * print_lat_help_header() and trace_print_lat_context().
 *
 * The header says which maximum the trace shows (iter->lat: latency,
 * task, CPU, where it started and ended); without one it is the kernel's
 * for a buffer that holds no maximum (latency 0, task "-0").  User space
 * has no preemption model of its own: M: is "preempt" (the kernel may
 * preempt a thread anywhere), and no voluntary, kernel, soft or hard irq
 * preemption counts (VP, KP, SP, HP: 0).  The task's uid, nice, policy and
 * rt_prio are not recorded: 0, as in the kernel's examples.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/record.h"

/* print_lat_help_header(): the columns' legend, with the kernel's trailing blanks */
static const char lat_help[] =
	"#                    _------=> CPU#            \n"
	"#                   / _-----=> irqs-off/BH-disabled\n"
	"#                  | / _----=> need-resched    \n"
	"#                  || / _---=> hardirq/softirq \n"
	"#                  ||| / _--=> preempt-depth   \n"
	"#                  |||| / _-=> migrate-disable \n"
	"#                  ||||| /     delay           \n"
	"#  cmd     pid     |||||| time  |   caller     \n"
	"#     \\   /        ||||||  \\    |    /       \n";

/* an address of the maximum's process, as seq_print_ip_sym() */
static void lat_sym(struct trace_iter *iter, uint64_t addr)
{
	struct ut_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = iter->lat->pid;
	ev.tid = iter->lat->tid;
	ev.image = iter->lat->image;
	ev.ts = UINT64_MAX;	/* the latest maps of the process */
	trace_print_sym(iter, &ev, addr);
}

void trace_latency_header(struct trace_iter *iter)
{
	const struct trace_lat_info *lat = iter->lat;
	struct trace_seq *s = &iter->seq;
	struct utsname u;

	/* as the kernel's: nothing when the buffers are empty */
	if (!iter->entries)
		return;
	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	ut_seq_printf(s, "# %s latency trace v1.1.5 on %s\n", iter->tracer->name, u.release);
	ut_seq_puts(s, "# --------------------------------------------------------------------\n");
	ut_seq_printf(s, "# latency: %" PRIu64 " us, #%" PRIu64 "/%" PRIu64 ", CPU#%d | "
		      "(M:preempt VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		      lat ? lat->latency_ns / 1000 : 0, iter->entries, iter->written,
		      lat ? lat->cpu : 0, iter->data ? iter->data->nr_cpus : 1);
	ut_seq_puts(s, "#    -----------------\n");
	ut_seq_printf(s, "#    | task: %.16s-%d (uid:%d nice:%d policy:%d rt_prio:%d)\n",
		      lat ? lat->comm : "", lat ? lat->tid : 0, lat ? lat->task.uid : 0,
		      lat ? lat->task.nice : 0, lat ? lat->task.policy : 0,
		      lat ? lat->task.rt_prio : 0);
	ut_seq_puts(s, "#    -----------------\n");
	if (lat && lat->start_ip) {
		ut_seq_puts(s, "#  => started at: ");
		lat_sym(iter, lat->start_ip);
		ut_seq_puts(s, "\n#  => ended at:   ");
		lat_sym(iter, lat->end_ip);
		ut_seq_puts(s, "\n#\n");
	}
	ut_seq_puts(s, "#\n");
	ut_seq_puts(s, lat_help);
}

/*
 * trace_print_lat_fmt(): the five flag columns, from the thread's context
 * (CTX records, usertrace/record.h): 'd' signals blocked, 'N' a blocked
 * signal pending, 'h' in a signal handler, the preempt depth; the
 * migrate-disable column has no user-space meaning ('.').
 */
void trace_lat_flags(struct trace_seq *s, const struct ut_event *ev)
{
	static const char hex[] = "0123456789abcdef";

	ut_seq_putc(s, ev->ctx & UT_CTX_IRQS_OFF ? 'd' : '.');
	ut_seq_putc(s, ev->ctx & UT_CTX_NEED_RESCHED ? 'N' : '.');
	ut_seq_putc(s, (ev->ctx & UT_CTX_HARDIRQ) && (ev->ctx & UT_CTX_SOFTIRQ) ? 'H' :
		       ev->ctx & UT_CTX_HARDIRQ ? 'h' : ev->ctx & UT_CTX_SOFTIRQ ? 's' : '.');
	ut_seq_putc(s, ev->preempt ? hex[ev->preempt > 15 ? 15 : ev->preempt] : '.');
	ut_seq_putc(s, '.');
}

/*
 * trace_print_lat_context(), not verbose: "%8.8s-%-7d %3d", the five
 * flags, then the time in us from the trace's
 * start and the mark of the delay to the thread's next event.
 */
void trace_lat_context(struct trace_iter *iter, const struct ut_event *ev)
{
	struct trace_seq *s = &iter->seq;
	const char *comm = trace_comm(ev);
	uint64_t t = trace_clock_value(iter, ev), start = iter->lat ? iter->lat->time_start : 0;
	uint64_t next = t;
	size_t len = strnlen(comm, 8);
	struct ut_event nx;

	if (iter->lat && !start) {
		/* as the kernel's max buffer: from the start of the section it holds */
		if (!iter->lat_started) {
			iter->lat_first = t;
			iter->lat_started = 1;
		}
		start = iter->lat_first;
	}
	/* the delay to the next event shown: none after a section's last (the kernel's last entry) */
	if (iter->merge && ut_merge_peek_same(iter->merge, &nx) > 0 &&
	    (!iter->win || trace_in_window(iter, &nx)))
		next = trace_clock_value(iter, &nx);
	ut_seq_comm_pid(s, comm, len, 8, ev->tid);
	ut_seq_putc(s, ' ');
	ut_seq_udec(s, ev->cpu, 3, ' ');
	trace_lat_flags(s, ev);
	if (!trace_clock_in_ns(iter->clock)) {
		ut_seq_putc(s, ' ');		/* " %4lld: " */
		ut_seq_udec(s, t - (t >= start ? start : t), 4, ' ');
		ut_seq_puts(s, ": ");
		return;
	}
	t = t >= start ? t - start : 0;
	ut_seq_putc(s, ' ');			/* " %4lldus%c: " */
	ut_seq_udec(s, (t + 500) / 1000, 4, ' ');
	ut_seq_puts(s, "us");
	ut_seq_putc(s, trace_find_mark(next > t + start ? ((next - t - start + 500) / 1000) * 1000 : 0));
	ut_seq_puts(s, ": ");
}

/* ---- the latency tracers' shared hooks ---- */

static const struct trace_array *max_owner;
static uint32_t max_saved_flags;

int trace_max_claim(const struct trace_array *tr)
{
	if (max_owner && max_owner != tr)
		return -EBUSY;
	max_owner = tr;
	return 0;
}

const struct trace_array *trace_max_owner(void)
{
	return max_owner;
}

void trace_max_release(const struct trace_array *tr)
{
	if (max_owner == tr)
		max_owner = NULL;
}

/*
 * As the kernel's __irqsoff_tracer_init() and __wakeup_tracer_init():
 * the directory shows the latency format while the tracer runs, and gets
 * its own setting back after.
 */
int trace_lat_tracer_init(struct trace_array *tr)
{
	int ret = trace_max_claim(tr);

	if (ret)
		return ret;
	max_saved_flags = tr->trace_flags;
	tr->trace_flags |= TRACE_ITER_LATENCY_FMT;
	return 0;
}

void trace_lat_tracer_reset(struct trace_array *tr)
{
	tr->trace_flags = (tr->trace_flags & ~(uint32_t)TRACE_ITER_LATENCY_FMT) |
			  (max_saved_flags & TRACE_ITER_LATENCY_FMT);
	trace_max_release(tr);
}

/* replay: the latency format unless the user says otherwise (-O nolatency-format) */
void trace_lat_tracer_open(struct trace_iter *iter)
{
	iter->iter_flags |= TRACE_ITER_LATENCY_FMT;
}

/* ---- a recording's sections ---- */

/* a thread's section being read */
struct lat_open {
	int tid, pid, open;
	uint32_t cpu;
	uint64_t lo, hi, end;		/* first event, last event, last call (the end's mark) */
	uint64_t start_ip, end_ip, image, count;
	char comm[16];
	struct ut_ctx_task task;	/* from the report's CTX record, if any */
};

struct lat_sec {
	struct trace_window w, w2;	/* w2: a kernel wake-up's switch (w2.tid -1: none) */
	uint64_t dur, count;
	struct lat_open o;
};

/* the image of the buffers of the kernel's sched events (recorder/sched_source.h UT_SCHED_IMAGE) */
#define KSCHED_IMAGE	1

/* a wake-up the kernel's events tell: its sched_waking, the switch to the task not seen yet */
struct lat_kwake {
	int pid, prio, waker;
	uint64_t ts;
	char comm[16];
};

/*
 * Is @tid a thread of the traced programs: it has a buffer of the
 * runtime's, or its process has one, or maps files (a program the
 * runtime ran that recorded nothing: `chrt -f 5 sleep 1`)?  Its process
 * in *@pid.
 */
static const struct ut_data *maps_data;
static int maps_pid, maps_ret;

static int lat_traced(const struct trace_iter *iter, int tid, int *pid)
{
	const struct ut_data *d = iter->data;
	char pat[4200];
	glob_t g;
	int ret;

	*pid = tid;
	for (int i = 0; d && i < d->nr_threads; i++)
		if (d->threads[i].tid == tid) {
			*pid = d->threads[i].pid;
			if (d->threads[i].image != KSCHED_IMAGE)
				return 1;
		}
	for (int i = 0; d && i < d->nr_threads; i++)
		if (d->threads[i].pid == *pid && d->threads[i].image != KSCHED_IMAGE)
			return 1;
	if (!d || *pid <= 0)
		return 0;
	/* the last process asked (its tasks' wakes come one after another) */
	if (d == maps_data && *pid == maps_pid)
		return maps_ret;
	snprintf(pat, sizeof(pat), "%s/maps.%d.*", d->dir, *pid);
	memset(&g, 0, sizeof(g));
	ret = glob(pat, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	maps_data = d;
	maps_pid = *pid;
	maps_ret = ret;
	return ret;
}

/*
 * A kernel sched event @ev (wakeup tracers, a recording with the
 * kernel's sched_waking and sched_switch): a sched_waking of a traced
 * task (of a real-time one for wakeup_rt: prio below 100) starts a
 * wake-up, the sched_switch to it ends it, as the kernel's probe_wakeup()
 * and probe_wakeup_sched_switch(); the section is the two events.  The
 * first wake of a task counts until it runs.  0, or -1 out of memory.
 */
static int lat_kernel_wake(struct trace_iter *iter, const struct ut_event *ev,
			   struct sw_state *prios, struct lat_kwake **kw, int *nkw,
			   struct lat_sec **sec, int *nsec)
{
	struct trace_sched_wakeup wk;
	struct trace_sched_switch sw;
	int rt_only = trace_wakeup_rt_only(iter->tracer), pid;

	if (trace_event_is(iter, ev, "sched", "sched_waking") && trace_sched_wakeup_fields(ev, &wk)) {
		struct lat_kwake *p;

		trace_sched_prio_seen(prios, wk.pid, wk.prio);
		/*
		 * as the kernel's: a real-time task for wakeup_rt; for wakeup, a
		 * task of higher priority than its waker's (as last seen; 120
		 * if never)
		 */
		if ((rt_only && wk.prio >= 100) ||
		    (!rt_only && wk.prio >= trace_sched_prio_of(prios, ev->tid)) ||
		    !lat_traced(iter, wk.pid, &pid))
			return 0;
		for (int i = 0; i < *nkw; i++)
			if ((*kw)[i].pid == wk.pid)
				return 0;
		p = realloc(*kw, (size_t)(*nkw + 1) * sizeof(**kw));
		if (!p)
			return -1;
		*kw = p;
		p = &p[(*nkw)++];
		p->pid = wk.pid;
		p->prio = wk.prio;
		p->waker = ev->tid;
		p->ts = ev->ts;
		snprintf(p->comm, sizeof(p->comm), "%.15s", wk.comm);
		return 0;
	}
	if (!trace_event_is(iter, ev, "sched", "sched_switch") || !trace_sched_switch_fields(ev, &sw))
		return 0;
	trace_sched_prio_seen(prios, sw.prev_pid, sw.prev_prio);
	trace_sched_prio_seen(prios, sw.next_pid, sw.next_prio);
	for (int i = 0; i < *nkw; i++) {
		struct lat_kwake k = (*kw)[i];
		struct lat_sec *p, *n;

		if (k.pid != sw.next_pid)
			continue;
		(*kw)[i] = (*kw)[--(*nkw)];
		if (ev->ts < k.ts)
			return 0;
		p = realloc(*sec, (size_t)(*nsec + 1) * sizeof(**sec));
		if (!p)
			return -1;
		*sec = p;
		n = &p[(*nsec)++];
		memset(n, 0, sizeof(*n));
		n->w = (struct trace_window){ k.waker, k.ts, k.ts, 2 };
		n->w2 = (struct trace_window){ ev->tid, ev->ts, ev->ts, 2 };
		n->dur = ev->ts - k.ts;
		n->count = 2;
		lat_traced(iter, k.pid, &pid);
		n->o.tid = k.pid;
		n->o.pid = pid;
		n->o.cpu = ev->cpu;
		n->o.lo = k.ts;
		n->o.hi = n->o.end = ev->ts;
		memcpy(n->o.comm, k.comm, sizeof(n->o.comm));
		/* the task's policy as its prio tells (SCHED_RR shows as SCHED_FIFO) */
		if (k.prio >= 0 && k.prio < 100) {
			n->o.task.policy = 1;
			n->o.task.rt_prio = 99 - k.prio;
		} else if (k.prio >= 100) {
			n->o.task.nice = k.prio - 120;
		}
		return 0;
	}
	return 0;
}

static int lat_cond(unsigned sections, const struct ut_event *ev)
{
	if (sections & 4)
		return (ev->ctx & UT_CTX_WAKING) != 0;
	return ((sections & 1) && (ev->ctx & UT_CTX_IRQS_OFF)) || ((sections & 2) && ev->preempt);
}

/* did a section end before @ev (the context went back between two events)? */
static int lat_gap(unsigned sections, const struct ut_event *ev)
{
	static const uint8_t bit[4] = { 0, UT_GAP_IRQS_ON, UT_GAP_PREEMPT_ON, UT_GAP_PLAIN };

	if (sections & 4)
		return (ev->ctx_gap & UT_GAP_RUNNING) != 0;
	return (ev->ctx_gap & bit[sections & 3]) != 0;
}

static struct lat_open *lat_thread(struct lat_open **v, int *n, int tid)
{
	struct lat_open *p;

	for (int i = 0; i < *n; i++)
		if ((*v)[i].tid == tid)
			return &(*v)[i];
	p = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
	if (!p)
		return NULL;
	*v = p;
	p = &p[(*n)++];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	return p;
}

static int lat_push(struct lat_sec **v, int *n, const struct lat_open *o, unsigned sections)
{
	struct lat_sec *p = realloc(*v, (size_t)(*n + 1) * sizeof(**v));

	if (!p)
		return -1;
	*v = p;
	/* a wake-up's window: the woken thread's own records, not the kernel's of it */
	p[*n].w = (struct trace_window){ o->tid, o->lo, o->hi, sections & 4 ? 1 : 0 };
	p[*n].w2.tid = -1;
	p[*n].dur = o->end > o->lo ? o->end - o->lo : 0;
	p[*n].count = o->count;
	p[*n].o = *o;
	(*n)++;
	return 0;
}

int trace_lat_select(struct trace_iter *iter, uint64_t thresh_ns, struct trace_lat_info *lat)
{
	unsigned sections = iter->tracer->lat_sections;
	struct ut_merge *m = ut_merge_new(iter->data, iter->tids, iter->tids ? iter->nr_tids : 0);
	struct lat_open *th = NULL, *o;
	struct lat_sec *sec = NULL, *best = NULL;
	struct lat_kwake *kw = NULL;
	struct sw_state *prios = NULL;
	int nkw = 0;
	struct trace_window *win = NULL;
	int nth = 0, nsec = 0, nwin = 0, r, ret = -1;
	struct ut_event ev;

	if (!m)
		return -1;
	while ((r = ut_merge_next(m, &ev)) > 0) {
		if ((sections & 4) && ev.image == KSCHED_IMAGE) {
			/* the kernel's events: its wake-ups, not the threads' own sections */
			if (ev.type == UT_EV_EVENT && !prios && !(prios = calloc(1, sizeof(*prios))))
				goto out;
			if (ev.type == UT_EV_EVENT &&
			    lat_kernel_wake(iter, &ev, prios, &kw, &nkw, &sec, &nsec) < 0)
				goto out;
			continue;
		}
		if (!(o = lat_thread(&th, &nth, ev.tid)))
			goto out;
		if (o->open && (!lat_cond(sections, &ev) || lat_gap(sections, &ev))) {
			if (lat_push(&sec, &nsec, o, sections) < 0)
				goto out;
			o->open = 0;
		}
		if (!lat_cond(sections, &ev))
			continue;
		if (!o->open) {
			memset(o, 0, sizeof(*o));
			o->tid = ev.tid;
			o->open = 1;
			o->lo = ev.ts;
			o->pid = ev.pid;
			o->image = ev.image;
			o->start_ip = ev.parent;
			snprintf(o->comm, sizeof(o->comm), "%s", trace_comm(&ev));
		}
		o->hi = ev.ts;
		o->count++;
		if (ev.has_task)
			o->task = ev.task;
		if (ev.type == UT_EV_FUNC) {
			/* the first call is the start's mark (a wake-up's entry comes before it) */
			if (!o->start_ip)
				o->start_ip = ev.parent;
			/* the last call is the end's mark, at least so far */
			o->end = ev.ts;
			o->end_ip = ev.parent;
			o->cpu = ev.cpu;
		}
	}
	/* r < 0: damaged data, said and skipped; the print pass reads the same and fails */
	(void)r;
	/*
	 * A section open at the end of the data ended with its last call
	 * (the records have no event after the end's mark)
	 */
	for (int i = 0; i < nth; i++)
		if (th[i].open && th[i].end > th[i].lo && lat_push(&sec, &nsec, &th[i], sections) < 0)
			goto out;
	for (int i = 0; i < nsec; i++) {
		if (thresh_ns ? sec[i].dur < thresh_ns : best && sec[i].dur <= best->dur)
			continue;
		if (!best || sec[i].dur > best->dur)
			best = &sec[i];
		if (!thresh_ns)
			continue;
		win = realloc(win, (size_t)(nwin + 2) * sizeof(*win));
		if (!win)
			goto out;
		win[nwin++] = sec[i].w;
		if (sec[i].w2.tid >= 0)
			win[nwin++] = sec[i].w2;
		iter->entries += sec[i].count;
	}
	if (best && !thresh_ns) {
		if (!(win = malloc(2 * sizeof(*win))))
			goto out;
		win[nwin++] = best->w;
		if (best->w2.tid >= 0)
			win[nwin++] = best->w2;
		iter->entries = best->count;
	}
	/* a wakeup recording without a wake-up: nothing (not the kernel's events it has) */
	if (!win && (sections & 4) && !(win = malloc(sizeof(*win))))
		goto out;
	iter->written = iter->entries;
	memset(lat, 0, sizeof(*lat));
	if (best) {
		lat->latency_ns = best->dur;
		lat->pid = best->o.pid;
		lat->tid = best->o.tid;
		lat->cpu = (int)best->o.cpu;
		memcpy(lat->comm, best->o.comm, sizeof(lat->comm));
		lat->task = best->o.task;
		lat->image = best->o.image;
		lat->start_ip = best->o.start_ip;
		lat->end_ip = best->o.end_ip;
		/* time_start 0: the times from the first event shown, the section's start */
		iter->lat = lat;
	}
	iter->win = win;
	iter->nr_win = nwin;
	win = NULL;
	ret = 0;
out:
	free(win);
	free(sec);
	free(th);
	free(kw);
	free(prios);
	ut_merge_free(m);
	return ret;
}

int trace_in_window(const struct trace_iter *iter, const struct ut_event *ev)
{
	for (int i = 0; i < iter->nr_win; i++)
		if (iter->win[i].tid == ev->tid && ev->ts >= iter->win[i].lo &&
		    ev->ts <= iter->win[i].hi &&
		    (!iter->win[i].from || (ev->image == KSCHED_IMAGE) == (iter->win[i].from == 2)))
			return 1;
	return 0;
}
