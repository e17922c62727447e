// SPDX-License-Identifier: MIT
/*
 * power_source.c - the power events of the CPUs the traced threads run on:
 * from the kernel's tracefs, or sampled from sysfs (power_source.h).
 *
 * The buffer is written as the sched events' source writes its own
 * (recorder/sched_source.c): EVENT records with the session's ids, a CPU record
 * before the events of another CPU, in a ring-buffer file the recorder
 * scans and saves as a thread's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tracefs.h>

#include "recorder/kernel_source.h"
#include "recorder/power_source.h"
#include "recorder/source.h"
#include "lib/event/evfilter.h"
#include "usertrace/event.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "utils/utils.h"

enum { EV_FREQ, EV_IDLE, NR_EV };
static const char *const ev_names[NR_EV] = { "cpu_frequency", "cpu_idle" };

#define OUT_PAGES	64
#define MAX_CPUS	1024
#define MAX_STATES	16
#define PWR_EXIT	4294967295u

struct cpu_sample {
	int known;			/* sampled once */
	uint32_t freq;			/* kHz, 0: no cpufreq */
	int nr_states;
	unsigned long long usage[MAX_STATES], time[MAX_STATES];
};

#define MAX_PIDS	64

struct power_src {
	int tracefs;
	pid_t pids[MAX_PIDS];		/* the processes whose threads' CPUs count */
	int nr_pids;
	uint32_t out_pages;
	int out_mode;
	const volatile uint32_t *on;	/* live: the session's tracing_on; NULL: always */
	char session[4096];
	const struct ut_evreg *reg;
	uint32_t slot[NR_EV];
	int have[NR_EV];
	struct kev_clock clk;		/* the session's clock for the kernel's times */
	struct rb_writer w;
	int out_ok;
	unsigned char seen[MAX_CPUS];	/* a traced thread may run on it (its affinity) */
	int ncpu;
	struct cpu_sample *cpu;		/* sysfs */
	struct tracefs_instance *inst;	/* tracefs: the instance, its trace_pipe */
	int pipe;
	char line[4096];		/* the start of a line read */
	size_t len;
};

struct power_ent {
	struct ut_trace_entry ent;
	uint32_t state, cpu_id;
} __attribute__((packed));

_Static_assert(sizeof(struct power_ent) == 16, "power events' layout");

int power_src_wanted(const struct ut_evreg *reg)
{
	return kev_wanted_live(reg, "power", ev_names, NR_EV);
}

static void no_fill(struct ut_evf_ctx *ctx, unsigned needs)
{
	(void)ctx;
	(void)needs;
}

static int out_open(struct power_src *s)
{
	char path[4200];
	struct rb_header *h;
	int err;

	snprintf(path, sizeof(path), "%s/buf.0.0.%d", s->session, UT_POWER_IMAGE);
	err = rb_create(path, s->out_pages, (enum rb_mode)s->out_mode, &h);
	if (err) {
		pr_warn("power events: cannot create %s: %s", path, strerror(err < -1 ? -err : EIO));
		return -1;
	}
	h->pid = 0;
	h->tid = 0;
	h->image = UT_POWER_IMAGE;
	h->flags |= RB_HDR_AUX;
	snprintf(h->comm, sizeof(h->comm), "<idle>");
	s->w.cpu = ~0u;
	rb_writer_init(&s->w, h, kev_clock_start(&s->clk));
	s->out_ok = 1;
	return 0;
}

static void write_ent(struct power_src *s, uint32_t cpu, uint64_t ts, const struct power_ent *e);

/* event @ev of CPU @cpu at @mono; @pid the task the kernel names (0: idle) */
static void emit(struct power_src *s, int ev, int pid, uint32_t cpu, uint64_t mono,
		 uint32_t state)
{
	struct power_ent e;
	uint64_t ts = kev_clock_time(&s->clk, mono);

	if (!s->out_ok || !s->have[ev] || !kev_live(s->reg, s->slot[ev]))
		return;
	memset(&e, 0, sizeof(e));
	e.ent.type = (uint16_t)UT_EVREG_ID(s->slot[ev]);
	e.ent.pid = pid;
	e.state = state;
	e.cpu_id = cpu;
	{
		struct kev_trig k = { (struct ut_evreg *)s->reg, &s->clk, (volatile uint32_t *)s->on };
		struct ut_evf_ctx ctx = { (int)cpu, s->w.hdr->comm, NULL };
		uint32_t st;
		int write = kev_event_begin(&k, s->slot[ev], &e, sizeof(e), &ctx, &st);

		/* the session is off: the programs record nothing either */
		if (write && s->on && !__atomic_load_n(s->on, __ATOMIC_ACQUIRE))
			write = 0;
		if (write && !ut_evreg_filter_match(s->reg, s->slot[ev], &e, sizeof(e), &ctx, no_fill))
			write = 0;
		if (write)
			write_ent(s, cpu, ts, &e);
		kev_event_end(&k, s->slot[ev], &e, sizeof(e), &ctx, st);
	}
}

/* entry @e into the buffer, on CPU @cpu at @ts */
static void write_ent(struct power_src *s, uint32_t cpu, uint64_t ts, const struct power_ent *e)
{
	ut_rec_write_cpu(&s->w, ts, cpu);
	ut_rec_write_event(&s->w, ts, e, sizeof(*e));
}

/*
 * The CPUs the threads of process @pid may run on: each thread's
 * affinity (sched_getaffinity), added to those already counted.  Not
 * the CPU a thread was last seen on at a poll: a thread that sleeps and
 * wakes moves between CPUs far more often than the recorder polls, so
 * that sampling missed the CPUs it idled on, and an event was kept or
 * not by whether its CPU had been sampled before it was read (0 events
 * in half the runs of a program that was never on the idle CPU when
 * polled).  The affinity is known from the start, the same at each
 * poll, and the kernel's events of those CPUs are all kept.
 */
static void cpus_seen_of(struct power_src *s, pid_t pid)
{
	char path[64];
	struct dirent *d;
	cpu_set_t set;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		CPU_ZERO(&set);
		if (sched_getaffinity((pid_t)atoi(d->d_name), sizeof(set), &set) < 0)
			continue;
		for (int c = 0; c < MAX_CPUS && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				s->seen[c] = 1;
	}
	closedir(dir);
}

static void cpus_seen(struct power_src *s)
{
	for (int i = 0; i < s->nr_pids; i++)
		cpus_seen_of(s, s->pids[i]);
}

/* ---- sysfs ---- */

static int read_ull(const char *path, unsigned long long *v)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/* where the cpuN directories are: /sys/devices/system/cpu, or UT_POWER_SYSFS_ENV's (tests) */
static const char *sysfs_root(void)
{
	const char *r = getenv(UT_POWER_SYSFS_ENV);

	return r && *r ? r : "/sys/devices/system/cpu";
}

/* CPU @c now: its frequency (0: none) and idle counters; -1 if it has neither */
static int sample(int c, struct cpu_sample *out)
{
	const char *root = sysfs_root();
	char path[4200];
	unsigned long long v;
	int any = 0;

	memset(out, 0, sizeof(*out));
	snprintf(path, sizeof(path), "%s/cpu%d/cpufreq/scaling_cur_freq", root, c);
	if (!read_ull(path, &v)) {
		out->freq = (uint32_t)v;
		any = 1;
	}
	for (int k = 0; k < MAX_STATES; k++) {
		snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/usage", root, c, k);
		if (read_ull(path, &out->usage[k]))
			break;
		snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%d/time", root, c, k);
		if (read_ull(path, &out->time[k]))
			break;
		out->nr_states = k + 1;
		any = 1;
	}
	return any ? 0 : -1;
}

static void sysfs_poll(struct power_src *s)
{
	uint64_t now = ut_mono_ns();

	for (int c = 0; c < s->ncpu; c++) {
		struct cpu_sample *old = &s->cpu[c], cur;
		unsigned long long best = 0;
		int state = -1;

		if (!s->seen[c] || sample(c, &cur) < 0)
			continue;
		cur.known = 1;
		if (cur.freq && (!old->known || cur.freq != old->freq))
			emit(s, EV_FREQ, 0, (uint32_t)c, now, cur.freq);
		if (old->known && cur.nr_states == old->nr_states) {
			/* idle since the last sample: the state it spent the most time in */
			for (int k = 0; k < cur.nr_states; k++)
				if (cur.usage[k] > old->usage[k] && cur.time[k] - old->time[k] >= best) {
					best = cur.time[k] - old->time[k];
					state = k;
				}
			if (state >= 0) {
				emit(s, EV_IDLE, 0, (uint32_t)c, now, (uint32_t)state);
				emit(s, EV_IDLE, 0, (uint32_t)c, now, PWR_EXIT);
			}
		}
		*old = cur;
	}
}

static int sysfs_setup(struct power_src *s, char *why, size_t len)
{
	struct cpu_sample tmp;
	int any = 0;

	s->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (s->ncpu <= 0 || s->ncpu > MAX_CPUS)
		s->ncpu = s->ncpu <= 0 ? 1 : MAX_CPUS;
	for (int c = 0; c < s->ncpu && !any; c++)
		any = sample(c, &tmp) == 0;
	if (!any) {
		snprintf(why, len, "no cpufreq nor cpuidle in %s/cpuN", sysfs_root());
		return -1;
	}
	s->cpu = xcalloc((size_t)s->ncpu, sizeof(*s->cpu));
	return 0;
}

/* ---- tracefs ---- */

/*
 * One line of the instance's trace_pipe, as the kernel prints the events:
 *   "          <idle>-0       [001] d..1. 87104.976262: cpu_idle: state=1 cpu_id=1"
 * (trace_pipe_raw gives only full pages: a few events would wait long)
 */
static void tracefs_line(struct power_src *s, const char *line)
{
	const char *p = strstr(line, "] "), *q;
	unsigned long long sec, usec, state, cpu_id;
	int pid = 0, ev;

	if (!p)
		return;
	/* the task: "comm-pid" before " [" */
	for (q = strstr(line, " ["); q && q > line && q[-1] >= '0' && q[-1] <= '9'; q--)
		;
	if (q && q > line && q[-1] == '-')
		pid = atoi(q);
	p += 2;
	while (*p && *p != ' ')		/* the flags */
		p++;
	if (sscanf(p, " %llu.%6llu: ", &sec, &usec) != 2 || !(p = strstr(p, ": ")))
		return;
	p += 2;
	if (!strncmp(p, "cpu_frequency: ", 15))
		ev = EV_FREQ, p += 15;
	else if (!strncmp(p, "cpu_idle: ", 10))
		ev = EV_IDLE, p += 10;
	else
		return;
	if (sscanf(p, "state=%llu cpu_id=%llu", &state, &cpu_id) != 2)
		return;
	if (cpu_id < MAX_CPUS && s->seen[cpu_id])
		emit(s, ev, pid, (uint32_t)cpu_id, sec * 1000000000ull + usec * 1000ull,
		     (uint32_t)state);
}

static void tracefs_poll(struct power_src *s)
{
	char *nl;
	ssize_t n;

	if (s->pipe < 0)
		return;
	while ((n = read(s->pipe, s->line + s->len, sizeof(s->line) - 1 - s->len)) > 0) {
		s->len += (size_t)n;
		s->line[s->len] = 0;
		while ((nl = strchr(s->line, '\n'))) {
			*nl = 0;
			tracefs_line(s, s->line);
			s->len -= (size_t)(nl + 1 - s->line);
			memmove(s->line, nl + 1, s->len + 1);
		}
		if (s->len == sizeof(s->line) - 1)
			s->len = 0;	/* a line longer than any event's: dropped */
	}
}

static void tracefs_release(struct power_src *s)
{
	/* the pipe first: an instance with a reader open cannot be removed */
	if (s->pipe >= 0)
		close(s->pipe);
	s->pipe = -1;
	if (s->inst) {
		if (tracefs_instance_destroy(s->inst) < 0)
			pr_warn("power events: cannot remove the kernel's instance %s",
				tracefs_instance_get_name(s->inst));
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
}

/* an instance with the power events of every CPU (no pid filter: the idle task writes them) */
static int tracefs_setup(struct power_src *s, char *why, size_t len)
{
	char name[64];
	const char *err = NULL;

	if (!tracefs_tracing_dir() || !tracefs_event_file_exists(NULL, "power", "cpu_idle", "format")) {
		snprintf(why, len, "the kernel's power events are not readable (tracefs, root)");
		return -1;
	}
	snprintf(name, sizeof(name), "usertrace-power-%d", (int)getpid());
	s->inst = tracefs_instance_create(name);
	if (!s->inst)
		err = "cannot create an instance";
	else if (tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0 ||
		 tracefs_instance_file_write(s->inst, "buffer_size_kb", "512") < 0)
		err = "cannot set up the instance";
	else if ((s->pipe = tracefs_instance_file_open(s->inst, "trace_pipe",
						       O_RDONLY | O_NONBLOCK)) < 0)
		err = "cannot open its trace_pipe";
	for (int i = 0; !err && i < NR_EV; i++) {
		char file[96];

		snprintf(file, sizeof(file), "events/power/%s/enable", ev_names[i]);
		if (s->have[i] && kev_live(s->reg, s->slot[i]) &&
		    tracefs_instance_file_write(s->inst, file, "1") < 0)
			err = "cannot enable the power events";
	}
	if (err) {
		snprintf(why, len, "the kernel's tracefs: %s (%s)", err, strerror(errno));
		tracefs_release(s);
		return -1;
	}
	return 0;
}

/* ---- the source ---- */

static struct power_src *src_open(const char *session, const struct ut_evreg *reg, int clock,
				  uint32_t pages, int mode, const volatile uint32_t *on)
{
	const char *force = getenv(UT_POWER_SOURCE_ENV);
	struct power_src *s;
	char why_t[256] = "not tried", why_s[256] = "not tried";

	if (force && *force && strcmp(force, "tracefs") && strcmp(force, "sysfs")) {
		pr_warn("%s=%s: the source is tracefs or sysfs; no power events", UT_POWER_SOURCE_ENV,
			force);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	snprintf(s->session, sizeof(s->session), "%s", session);
	s->reg = reg;
	s->pipe = -1;
	s->out_pages = pages;
	s->out_mode = mode;
	s->on = on;
	kev_clock_init(&s->clk, clock);
	for (int i = 0; i < NR_EV; i++)
		s->have[i] = kev_slot(reg, "power", ev_names[i], &s->slot[i]);
	if ((!force || !*force || !strcmp(force, "tracefs")) &&
	    tracefs_setup(s, why_t, sizeof(why_t)) == 0)
		s->tracefs = 1;
	else if ((!force || !*force || !strcmp(force, "sysfs")) &&
		 sysfs_setup(s, why_s, sizeof(why_s)) == 0)
		s->tracefs = 0;
	else {
		pr_warn("power events: no source: tracefs: %s; sysfs: %s", why_t, why_s);
		free(s);
		return NULL;
	}
	if (out_open(s) < 0) {
		tracefs_release(s);
		free(s->cpu);
		free(s);
		return NULL;
	}
	return s;
}

struct power_src *power_src_open(const char *session, const struct ut_evreg *reg, int clock,
				 pid_t pid)
{
	struct power_src *s = src_open(session, reg, clock, OUT_PAGES, RB_MODE_CONSUMER, NULL);

	if (s)
		power_src_follow(s, pid);
	return s;
}

struct power_src *power_src_live(const char *session, const struct ut_evreg *reg, int clock,
				 uint32_t nr_pages, const volatile uint32_t *on)
{
	return src_open(session, reg, clock, nr_pages, RB_MODE_OVERWRITE, on);
}

void power_src_follow(struct power_src *s, pid_t pid)
{
	int first = !s->nr_pids;

	for (int i = 0; i < s->nr_pids; i++)
		if (s->pids[i] == pid)
			return;
	if (s->nr_pids == MAX_PIDS)
		return;
	s->pids[s->nr_pids++] = pid;
	cpus_seen_of(s, pid);
	if (first && !s->tracefs)
		sysfs_poll(s);	/* the first sample: the frequencies */
}

const char *power_src_name(const struct power_src *s)
{
	return s->tracefs ? "tracefs" : "sysfs";
}

void power_src_poll(struct power_src *s)
{
	if (!s)
		return;
	kev_clock_update(&s->clk);
	cpus_seen(s);
	if (s->tracefs)
		tracefs_poll(s);
	else
		sysfs_poll(s);
}

void power_src_close(struct power_src *s)
{
	if (!s)
		return;
	power_src_poll(s);
	tracefs_release(s);
	if (s->out_ok) {
		rb_writer_close(&s->w);
		munmap(s->w.hdr, rb_file_size(s->w.hdr->nr_pages));
	}
	free(s->cpu);
	free(s);
}

/* ---- the source's ops (recorder/source.h) ---- */

static void *ops_open(const struct src_env *env, pid_t pid)
{
	if (pid)
		return power_src_open(env->session, env->events, env->clock, pid);
	return power_src_live(env->session, env->events, env->clock, env->nr_pages, env->on);
}

/* a process followed again is known: nothing to do */
static int ops_follow(void *s, pid_t pid)
{
	power_src_follow(s, pid);
	return 0;
}

static void ops_poll(void *s)
{
	power_src_poll(s);
}

static void ops_close(void *s)
{
	power_src_close(s);
}

static const char *ops_backend(const void *s)
{
	return power_src_name(s);
}

static const char *ops_from(const char *backend)
{
	return !strcmp(backend, "tracefs") ?
	       "the kernel's tracefs (an instance with the power events)" :
	       "sampling /sys/devices/system/cpu (cpufreq, cpuidle)";
}

/* no stop: it runs while a power event is recorded, and from then on until closed */
const struct src_ops power_source = {
	.name		= "power events",
	.system		= "power",
	.wanted		= power_src_wanted,
	.open		= ops_open,
	.follow		= ops_follow,
	.poll		= ops_poll,
	.close		= ops_close,
	.backend	= ops_backend,
	.from		= ops_from,
	.info_key	= "power_source",
};
