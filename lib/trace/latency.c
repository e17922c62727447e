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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/trace/output.h"
#include "lib/trace/tracer.h"

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
	ut_seq_printf(s, "#    | task: %.16s-%d (uid:0 nice:0 policy:0 rt_prio:0)\n",
		      lat ? lat->comm : "", lat ? lat->tid : 0);
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
 * trace_print_lat_context(), not verbose: "%8.8s-%-7d %3d", the five
 * flags (user space: none set), then the time in us from the trace's
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
	if (iter->merge && ut_merge_peek_same(iter->merge, &nx) > 0)
		next = trace_clock_value(iter, &nx);
	ut_seq_comm_pid(s, comm, len, 8, ev->tid);
	ut_seq_putc(s, ' ');
	ut_seq_udec(s, ev->cpu, 3, ' ');
	ut_seq_puts(s, ".....");
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
