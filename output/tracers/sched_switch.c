// SPDX-License-Identifier: MIT
/*
 * sched_switch.c - the sched_switch tracer: the context switches and
 * wake-ups of the traced threads, one line each, as the kernel's ctx and
 * wake entries print (trace_output.c's trace_ctx_print and
 * trace_wake_print):
 *
 *              app-4055    [001] .....   240.132371:    4055:120:S ==> [001]       0:120:R <idle>
 *              app-3997    [000] .....   240.132454:    3997:120:R   + [001]    4055:120:R app
 *
 * PID:PRIO:STATE of the task that runs (or wakes the other) first, then
 * of the next task (or the one woken), the CPU it runs on, and its name.
 * PRIO is the kernel's (120 for nice 0; 0-99 real time), STATE one of
 * R S D T t X Z P I.  The lines come from the sched:sched_switch and
 * sched:sched_wakeup events, which the recorder writes for the traced
 * threads (recorder/sched_source.c); any other event prints as nop prints it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "output/tracer.h"
#include "usertrace/event.h"
#include "usertrace/record.h"

/* the kernel's layouts (events/sched/NAME/format): usertrace/events/sched.h's fields */
#define UT_TRACE_LAYOUTS
#include "usertrace/events/sched.h"

#define SW_OFF(f)	offsetof(struct ut_raw_sched_switch, f)
#define WK_OFF(f)	offsetof(struct ut_raw_sched_wakeup_template, f)

static int get_int(const struct ut_event *ev, unsigned off)
{
	int32_t v;

	memcpy(&v, ev->data + off, sizeof(v));
	return v;
}

int trace_sched_switch_fields(const struct ut_event *ev, struct trace_sched_switch *sw)
{
	int64_t st;

	if (!ev->data || ev->data_len < sizeof(struct ut_raw_sched_switch))
		return 0;
	sw->prev_comm = ev->data + SW_OFF(prev_comm);
	sw->prev_pid = get_int(ev, SW_OFF(prev_pid));
	sw->prev_prio = get_int(ev, SW_OFF(prev_prio));
	memcpy(&st, ev->data + SW_OFF(prev_state), sizeof(st));
	sw->prev_state = (long)st;
	sw->next_comm = ev->data + SW_OFF(next_comm);
	sw->next_pid = get_int(ev, SW_OFF(next_pid));
	sw->next_prio = get_int(ev, SW_OFF(next_prio));
	return 1;
}

int trace_sched_wakeup_fields(const struct ut_event *ev, struct trace_sched_wakeup *wk)
{
	if (!ev->data || ev->data_len < sizeof(struct ut_raw_sched_wakeup_template))
		return 0;
	wk->comm = ev->data + WK_OFF(comm);
	wk->pid = get_int(ev, WK_OFF(pid));
	wk->prio = get_int(ev, WK_OFF(prio));
	wk->target_cpu = get_int(ev, WK_OFF(target_cpu));
	return 1;
}

/*
 * task_index_to_char() of a sched_switch prev_state: 0, or the preempted
 * mark (TASK_REPORT_MAX, 0x100), is R; else the lowest state bit
 */
char trace_sched_state_char(long state)
{
	static const char chars[] = "SDTtXZPI";

	state &= 0xff;
	for (unsigned b = 0; b < 8; b++)
		if (state & (1L << b))
			return chars[b];
	return 'R';
}

/* the last prio seen of the few threads the wake-ups name as wakers */

void trace_sched_prio_seen(struct sw_state *st, int pid, int prio)
{
	unsigned i = (unsigned)pid % PRIO_SLOTS;

	st->pid[i] = pid;
	st->prio[i] = prio;
}

/* what a waker's prio was last seen as: 120 if never (140 for the idle task, pid 0) */
int trace_sched_prio_of(const struct sw_state *st, int pid)
{
	unsigned i = (unsigned)pid % PRIO_SLOTS;

	if (st && st->pid[i] == pid && st->prio[i] > 0)
		return st->prio[i];
	return pid == 0 ? 140 : 120;
}

static void put_comm(struct trace_seq *s, int pid, const char *comm)
{
	/* trace_find_cmdline(): the idle task is <idle> */
	if (pid == 0 && !strncmp(comm, "swapper", 7)) {
		ut_seq_puts(s, "<idle>");
		return;
	}
	ut_seq_putmem(s, comm, strnlen(comm, 16));
}

/* " %7d:%3d:%c %s [%03d] %7d:%3d:%c %s" */
void trace_sched_ctxwake(struct trace_seq *s, int ppid, int pprio, char pst, const char *delim,
		    int cpu, int npid, int nprio, char nst, const char *ncomm)
{
	ut_seq_printf(s, " %7d:%3d:%c %s [%03d] %7d:%3d:%c ", ppid, pprio, pst, delim, cpu,
		      npid, nprio, nst);
	put_comm(s, npid, ncomm);
	ut_seq_putc(s, '\n');
}

void trace_sched_switch_print(struct trace_iter *iter, const struct ut_event *ev,
			      const struct trace_sched_switch *sw, struct sw_state *st)
{
	if (st) {
		trace_sched_prio_seen(st, sw->prev_pid, sw->prev_prio);
		trace_sched_prio_seen(st, sw->next_pid, sw->next_prio);
	}
	if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
		trace_print_context(iter, ev);
	trace_sched_ctxwake(&iter->seq, sw->prev_pid, sw->prev_prio,
			    trace_sched_state_char(sw->prev_state), "==>", (int)ev->cpu,
			    sw->next_pid, sw->next_prio, 'R', sw->next_comm);
}

static enum print_line_t sched_switch_print_line(struct trace_iter *iter, struct ut_event *ev)
{
	struct sw_state *st = iter->priv;
	struct trace_sched_switch sw;
	struct trace_sched_wakeup wk;

	if (ev->type != UT_EV_EVENT)
		return TRACE_TYPE_UNHANDLED;
	if (trace_event_is(iter, ev, "sched", "sched_switch") && trace_sched_switch_fields(ev, &sw)) {
		trace_sched_switch_print(iter, ev, &sw, st);
		return TRACE_TYPE_HANDLED;
	}
	if (trace_event_is(iter, ev, "sched", "sched_wakeup") && trace_sched_wakeup_fields(ev, &wk)) {
		int waker;

		memcpy(&waker, ev->data + offsetof(struct ut_trace_entry, pid), sizeof(waker));
		if (iter->iter_flags & TRACE_ITER_CONTEXT_INFO)
			trace_print_context(iter, ev);
		trace_sched_ctxwake(&iter->seq, waker, trace_sched_prio_of(st, waker), 'R', "  +",
				    wk.target_cpu, wk.pid, wk.prio, 'R', wk.comm);
		return TRACE_TYPE_HANDLED;
	}
	return TRACE_TYPE_UNHANDLED;
}

static void sched_switch_header(struct trace_iter *iter)
{
	if (!iter->priv)
		iter->priv = calloc(1, sizeof(struct sw_state));
	trace_default_header(iter);
}

static void sched_switch_close(struct trace_iter *iter)
{
	free(iter->priv);
	iter->priv = NULL;
}

static const char *const sched_switch_events[] = {
	"sched:sched_switch", "sched:sched_wakeup", NULL
};

const struct tracer sched_switch_tracer = {
	.name		= "sched_switch",
	.events		= sched_switch_events,
	.print_header	= sched_switch_header,
	.print_line	= sched_switch_print_line,
	.close		= sched_switch_close,
};
