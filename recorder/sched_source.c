// SPDX-License-Identifier: MIT
/*
 * sched_source.c - the sched events of the traced threads, collected by the
 * recorder (see sched_source.h for the two sources).  The traced threads do
 * nothing for them: the kernel writes its events or its perf records,
 * the recorder reads them at each pass of its loop (every 20 ms at
 * most) and writes each as an EVENT record into the buffer of the task
 * that is the event's common_pid.
 *
 * perf: a switch-out record of thread T on CPU C is the sched_switch;
 * its next task is the thread whose switch-in record follows on C
 * within SWITCH_PAIR_NS (the two records of one context switch), else
 * unknown: next_pid 0, next_comm "<...>", next_prio 0.  prev_state is
 * R+ for a preemption (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) and S for a
 * switch-out the thread asked for (perf does not tell S from D).  A
 * switch-in on another CPU than the thread's last switch-out is a
 * sched_migrate_task at the switch-in's time (the kernel writes it
 * when the move is decided, a little earlier).  Wake-ups are not in
 * perf's records: sched_wakeup and sched_waking need the tracefs source.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "recorder/kernel_source.h"
#include "recorder/sched_source.h"
#include "recorder/source.h"
#include "lib/event/evfilter.h"
#include "lib/event/reap.h"
#include "usertrace/event.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "utils/utils.h"

#define UT_TRACE_LAYOUTS
#include "usertrace/events/sched.h"

enum { EV_SWITCH, EV_WAKEUP, EV_WAKING, EV_MIGRATE, NR_EV };
static const char *const ev_names[NR_EV] = {
	"sched_switch", "sched_wakeup", "sched_waking", "sched_migrate_task",
};

#define OUT_PAGES		64		/* 256 KiB per task's buffer */
#define PERF_PAGES		64		/* per CPU */
#define SWITCH_PAIR_NS		20000ull	/* out and in records of one switch */
#define TASKS_MAX		4096

/* the buffer of one task (a common_pid) */
struct sched_src {
	int tracefs;
	int started;			/* the source has its kernel side (live: between follow and stop) */
	int failed;			/* live: no source could be used (said once) */
	int live;			/* a tracing directory's session (sched_src_live()) */
	const volatile uint32_t *on;	/* the session's tracing_on (live), NULL: always */
	int *skip, nr_skip;		/* tids whose own events are dropped (the runtime's threads) */
	int *tids, nr_tids;		/* the threads followed (added to the kernel's list, or opened) */
	char session[4096];
	const struct ut_evreg *reg;
	struct kev_clock clk;		/* the session's clock for the kernel's times */
	uint32_t slot[NR_EV];
	int have[NR_EV];
	struct kev_outs outs;		/* the tasks' buffers: consumer (record) or overwrite (live) */
	/* perf */
	int ncpu;
	int *fd;			/* per CPU: the event whose ring is mapped */
	void **ring;
	int *tfd, nr_tfd;		/* the other threads' events, their output set to fd[cpu] */
	struct { int tid, pid, state; uint64_t ts; int pending; } *last_out;	/* per CPU */
	struct { int tid, cpu; } *last_cpu;	/* hashed by tid: its last CPU */
	/* tracefs */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int kernel_on[NR_EV];		/* enabled in the instance */
};

int sched_src_wanted(const struct ut_evreg *reg)
{
	return kev_wanted_live(reg, "sched", ev_names, NR_EV);
}

int sched_tgid_of(int tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tid;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return tid;
	buf[n] = 0;
	p = strstr(buf, "\nTgid:");
	return p ? atoi(p + 6) : tid;
}

void sched_comm_of(int pid, int tid, char comm[16])
{
	char path[96];
	ssize_t n;
	int fd;

	strcpy(comm, tid == 0 ? "<idle>" : "<...>");
	if (tid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n <= 0) {
		/* the thread is gone: it had its process's name, unless it set one */
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, comm, 15) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0) {
			strcpy(comm, "<...>");
			return;
		}
	}
	comm[n] = 0;
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = 0;
}

/* the buffer of task @tid (of process @pid, or 0: looked up), made at its first event */
static struct kev_out *out_get(struct sched_src *s, int pid, int tid)
{
	int made;
	struct kev_out *o = kev_out_get(&s->outs, &s->clk, pid, tid, &made);
	char *comm;

	if (!o || !made)
		return o;
	comm = o->w.hdr->comm;
	/* gone from /proc already (perf: a short program read after its end): its process's name */
	for (int i = 0; i < s->outs.nr - 1 && !strcmp(comm, "<...>") && tid; i++)
		if (s->outs.outs[i]->pid == o->pid && !s->outs.outs[i]->failed &&
		    strcmp(s->outs.outs[i]->w.hdr->comm, "<...>"))
			memcpy(comm, s->outs.outs[i]->w.hdr->comm, sizeof(o->w.hdr->comm));
	o->prio = tid ? ut_reap_prio(o->pid, tid) : 120;
	if (o->prio < 0)
		o->prio = 120;
	return o;
}

static void write_ent(struct kev_out *o, uint32_t c, uint64_t ts, const void *ent, uint32_t size);

static void no_fill(struct ut_evf_ctx *ctx, unsigned needs)
{
	(void)ctx;
	(void)needs;
}

/* write event @ev (entry @ent of @size bytes, common fields to be set) of task @tid on @cpu at @mono */
static void emit(struct sched_src *s, int ev, int pid, int tid, int cpu, uint64_t mono,
		 void *ent, uint32_t size, const char *comm)
{
	struct ut_trace_entry *e = ent;
	uint64_t ts = kev_clock_time(&s->clk, mono);
	struct kev_out *o;
	uint32_t c = cpu < 0 ? 0 : (uint32_t)cpu;

	if (!s->have[ev] || !kev_live(s->reg, s->slot[ev]))
		return;
	for (int i = 0; i < s->nr_skip; i++)
		if (s->skip[i] == tid)
			return;
	memset(e, 0, sizeof(*e));
	e->type = (uint16_t)UT_EVREG_ID(s->slot[ev]);
	e->pid = tid;
	if (!(o = out_get(s, pid, tid)))
		return;
	/* the name the event gives, if /proc had none (the task was gone) */
	if (comm && comm[0] && !strcmp(o->w.hdr->comm, "<...>")) {
		memset(o->w.hdr->comm, 0, sizeof(o->w.hdr->comm));
		memcpy(o->w.hdr->comm, comm, strnlen(comm, 15));
	}
	{
		struct kev_trig k = { (struct ut_evreg *)s->reg, &s->clk, (volatile uint32_t *)s->on };
		struct ut_evf_ctx ctx = { (int)c, o->w.hdr->comm, NULL };
		uint32_t st;
		int write = kev_event_begin(&k, s->slot[ev], ent, size, &ctx, &st);

		/* the session is off: the programs record nothing either */
		if (write && s->on && !__atomic_load_n(s->on, __ATOMIC_ACQUIRE))
			write = 0;
		if (write && ut_evreg_filter_match(s->reg, s->slot[ev], ent, size, &ctx, no_fill))
			write_ent(o, c, ts, ent, size);
		kev_event_end(&k, s->slot[ev], ent, size, &ctx, st);
	}
}

/* entry @ent into task buffer @o, on CPU @c at @ts */
static void write_ent(struct kev_out *o, uint32_t c, uint64_t ts, const void *ent, uint32_t size)
{
	ut_rec_write_cpu(&o->w, ts, c);
	ut_rec_write_event(&o->w, ts, ent, size);
}

/*
 * The entries, in the kernel's layouts: struct ut_raw_sched_switch,
 * ut_raw_sched_wakeup_template, ut_raw_sched_migrate_task, made of
 * usertrace/events/sched.h's fields (UT_TRACE_LAYOUTS, included above)
 */
static void emit_switch(struct sched_src *s, int pid, int cpu, uint64_t mono,
			int prev_pid, const char *prev_comm, int prev_prio, long prev_state,
			int next_pid, const char *next_comm, int next_prio)
{
	struct ut_raw_sched_switch e = { 0 };

	memcpy(e.prev_comm, prev_comm, strnlen(prev_comm, 15));
	e.prev_pid = prev_pid;
	e.prev_prio = prev_prio;
	e.prev_state = prev_state;
	memcpy(e.next_comm, next_comm, strnlen(next_comm, 15));
	e.next_pid = next_pid;
	e.next_prio = next_prio;
	emit(s, EV_SWITCH, pid, prev_pid, cpu, mono, &e, sizeof(e), e.prev_comm);
}

static void emit_migrate(struct sched_src *s, int pid, int tid, int cpu, uint64_t mono,
			 const char *comm, int prio, int orig, int dest)
{
	/* the comm, a dynamic field, after the fixed ones */
	union {
		char bytes[sizeof(struct ut_raw_sched_migrate_task) + 16];
		struct ut_raw_sched_migrate_task r;
	} e = { { 0 } };
	size_t len = strnlen(comm, 15) + 1;

	e.r.__data_loc_comm = (uint32_t)(len << 16) |
			      (uint32_t)offsetof(struct ut_raw_sched_migrate_task, __data);
	e.r.pid = tid;
	e.r.prio = prio;
	e.r.orig_cpu = orig;
	e.r.dest_cpu = dest;
	memcpy(e.r.__data, comm, len - 1);
	emit(s, EV_MIGRATE, pid, tid, cpu, mono, &e,
	     (uint32_t)(offsetof(struct ut_raw_sched_migrate_task, __data) + len), NULL);
}

/* ---- perf ---- */

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int sched_perf_paranoid(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = 0;
		close(fd);
	}
	return buf[0] ? atoi(buf) : -100;
}

static void perf_arrays(struct sched_src *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (s->fd)
		return;
	s->ncpu = n > 0 ? (int)n : 1;
	s->fd = xcalloc((size_t)s->ncpu, sizeof(*s->fd));
	for (int c = 0; c < s->ncpu; c++)
		s->fd[c] = -1;
	s->ring = xcalloc((size_t)s->ncpu, sizeof(*s->ring));
	s->last_out = xcalloc((size_t)s->ncpu, sizeof(*s->last_out));
	s->last_cpu = xcalloc(TASKS_MAX, sizeof(*s->last_cpu));
}

/*
 * Follow thread @tid: one event per CPU, `inherit` (its later threads and
 * children follow).  The first event of a CPU has the CPU's ring mapped;
 * the later ones (other threads, in a live session) write into it
 * (PERF_EVENT_IOC_SET_OUTPUT).  0, 1 when the thread is gone, -1 when
 * perf cannot be used (said).
 */
static int perf_add(struct sched_src *s, pid_t tid)
{
	struct perf_event_attr a;

	perf_arrays(s);
	kev_perf_attr(&a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.context_switch = 1;
	a.comm = 1;
	for (int c = 0; c < s->ncpu; c++) {
		int fd = perf_open(&a, tid, c);

		if (fd < 0) {
			int err = errno;

			if (err == ESRCH)
				return 1;
			/* an offline CPU */
			if (err == ENODEV || err == EINVAL)
				continue;
			if (err == EACCES || err == EPERM)
				pr_warn("sched events: perf_event_open: %s (perf_event_paranoid is %d; "
					"2 or less lets a user see the context switches of the "
					"processes it runs); no context switches are recorded",
					strerror(err), sched_perf_paranoid());
			else
				pr_warn("sched events: perf_event_open: %s; no context switches "
					"are recorded", strerror(err));
			return -1;
		}
		if (s->fd[c] < 0) {
			s->fd[c] = fd;
			s->ring[c] = mmap(NULL, (size_t)(1 + PERF_PAGES) * 4096, PROT_READ | PROT_WRITE,
					  MAP_SHARED, fd, 0);
			if (s->ring[c] == MAP_FAILED) {
				s->ring[c] = NULL;
				pr_warn("sched events: mmap of the perf buffer: %s; no context switches "
					"are recorded", strerror(errno));
				return -1;
			}
			continue;
		}
		s->tfd = xrealloc(s->tfd, (size_t)(s->nr_tfd + 1) * sizeof(*s->tfd));
		s->tfd[s->nr_tfd++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->fd[c]) < 0) {
			pr_warn("sched events: perf_event_open: cannot share the CPU's buffer: %s; "
				"no context switches are recorded", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* the perf events closed, the rings unmapped (the records read are kept) */
static void perf_release(struct sched_src *s)
{
	for (int i = 0; i < s->nr_tfd; i++)
		close(s->tfd[i]);
	free(s->tfd);
	s->tfd = NULL;
	s->nr_tfd = 0;
	for (int c = 0; s->fd && c < s->ncpu; c++) {
		if (s->ring[c])
			munmap(s->ring[c], (size_t)(1 + PERF_PAGES) * 4096);
		s->ring[c] = NULL;
		if (s->fd[c] >= 0)
			close(s->fd[c]);
		s->fd[c] = -1;
	}
}

/* the sample_id after a record's own fields: pid, tid, time, cpu */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static void perf_switch(struct sched_src *s, int c, uint16_t misc, const struct sample_id *id)
{
	char comm[16];
	int out = !!(misc & PERF_RECORD_MISC_SWITCH_OUT);
	int tid = (int)id->tid, pid = (int)id->pid;
	unsigned h = (unsigned)tid % TASKS_MAX;
	struct kev_out *o;

	if (c < 0 || c >= s->ncpu)
		return;
	if (out) {
		/* the one before it had no switch-in after it: its next is unknown */
		if (s->last_out[c].pending) {
			o = out_get(s, s->last_out[c].pid, s->last_out[c].tid);
			emit_switch(s, s->last_out[c].pid, c, s->last_out[c].ts, s->last_out[c].tid,
				    o ? o->w.hdr->comm : "<...>", o ? o->prio : 120, s->last_out[c].state, 0,
				    "<...>", 0);
		}
		s->last_out[c].pending = 1;
		s->last_out[c].tid = tid;
		s->last_out[c].pid = pid;
		s->last_out[c].ts = id->time;
		s->last_out[c].state = misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? 0x100 : 0x1;
		s->last_cpu[h].tid = tid;
		s->last_cpu[h].cpu = c;
		return;
	}
	/* a switch-in: the next task of this CPU's last switch-out, if it was just now */
	o = out_get(s, pid, tid);
	snprintf(comm, sizeof(comm), "%s", o ? o->w.hdr->comm : "<...>");
	if (s->last_out[c].pending) {
		struct kev_out *p = out_get(s, s->last_out[c].pid, s->last_out[c].tid);
		int paired = id->time - s->last_out[c].ts <= SWITCH_PAIR_NS;

		emit_switch(s, s->last_out[c].pid, c, s->last_out[c].ts, s->last_out[c].tid,
			    p ? p->w.hdr->comm : "<...>", p ? p->prio : 120, s->last_out[c].state,
			    paired ? tid : 0, paired ? comm : "<...>", paired && o ? o->prio : 0);
		s->last_out[c].pending = 0;
	}
	if (s->last_cpu[h].tid == tid && s->last_cpu[h].cpu != c)
		emit_migrate(s, pid, tid, c, id->time, comm, o ? o->prio : 120, s->last_cpu[h].cpu, c);
	s->last_cpu[h].tid = tid;
	s->last_cpu[h].cpu = c;
}

/* a switch record read, to be taken in time order with the other CPUs' */
struct sw_rec {
	struct sample_id id;
	uint16_t misc;
	uint32_t seq;
};

static int sw_rec_cmp(const void *a, const void *b)
{
	const struct sw_rec *x = a, *y = b;

	if (x->id.time != y->id.time)
		return x->id.time < y->id.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct perf_rd {
	struct sched_src *s;
	struct sw_rec **v;
	size_t *n, *cap;
};

/* one record of a CPU's ring: a switch appended, a rename applied */
static void perf_rec(unsigned char *rec, size_t len, void *arg)
{
	struct perf_rd *r = arg;
	struct sched_src *s = r->s;
	struct perf_event_header ph;

	memcpy(&ph, rec, sizeof(ph));
	if (ph.type == PERF_RECORD_SWITCH && len >= sizeof(ph) + sizeof(struct sample_id)) {
		if (*r->n == *r->cap)
			*r->v = xrealloc(*r->v, (*r->cap = *r->cap ? 2 * *r->cap : 256) * sizeof(**r->v));
		memcpy(&(*r->v)[*r->n].id, rec + sizeof(ph), sizeof(struct sample_id));
		(*r->v)[*r->n].misc = ph.misc;
		(*r->v)[*r->n].seq = (uint32_t)*r->n;
		(*r->n)++;
	} else if (ph.type == PERF_RECORD_COMM && len > sizeof(ph) + 8) {
		char *name = (char *)rec + sizeof(ph) + 8;
		uint32_t cpid, tid;

		memcpy(&cpid, rec + sizeof(ph), 4);
		memcpy(&tid, rec + sizeof(ph) + 4, 4);
		rec[len - 1] = 0;
		/* the name its exec gave: kept for the threads it makes */
		out_get(s, (int)cpid, (int)tid);
		for (int i = 0; i < s->outs.nr; i++)
			if (s->outs.outs[i]->tid == (int)tid && !s->outs.outs[i]->failed)
				memcpy(s->outs.outs[i]->w.hdr->comm, name,
				       strnlen(name, 15) + 1 > 16 ? 16 : strnlen(name, 15) + 1);
	}
}

/* the records of CPU @c's ring: switches appended to @v, renames applied */
static void perf_read(struct sched_src *s, int c, struct sw_rec **v, size_t *n, size_t *cap)
{
	unsigned char rec[512];
	struct perf_rd r = { s, v, n, cap };

	kev_perf_read(s->ring[c], rec, sizeof(rec), perf_rec, &r);
}

static void perf_poll(struct sched_src *s)
{
	struct sw_rec *v = NULL;
	size_t n = 0, cap = 0;

	for (int c = 0; c < s->ncpu; c++)
		perf_read(s, c, &v, &n, &cap);
	if (n)
		qsort(v, n, sizeof(*v), sw_rec_cmp);
	for (size_t i = 0; i < n; i++) {
		int dup = 0;

		/*
		 * a thread followed twice (opened in a live session, and
		 * inherited from its creator's event) gives each record twice
		 */
		for (size_t j = i; j-- > 0 && v[j].id.time == v[i].id.time && !dup;)
			dup = v[j].id.tid == v[i].id.tid && v[j].id.cpu == v[i].id.cpu &&
			      v[j].misc == v[i].misc;
		if (!dup)
			perf_switch(s, (int)v[i].id.cpu, v[i].misc, &v[i].id);
	}
	free(v);
}

/* ---- tracefs ---- */

static int field_int(struct tep_event *ev, struct tep_record *r, const char *name)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, ev, name, r, &v, 0);
	return (int)v;
}

static void field_comm(struct tep_event *ev, struct tep_record *r, const char *name, char out[16])
{
	struct tep_format_field *f = tep_find_field(ev, name);
	int len = 0;
	const char *p = f ? tep_get_field_raw(NULL, ev, name, r, &len, 0) : NULL;

	memset(out, 0, 16);
	if (p && len > 0)
		memcpy(out, p, (size_t)(len < 15 ? len : 15));
}

static int tracefs_cb(struct tep_event *ev, struct tep_record *r, int cpu, void *arg)
{
	struct sched_src *s = arg;
	int pid = tep_data_pid(s->tep, r);
	char comm[16], comm2[16];

	if (!ev->system || strcmp(ev->system, "sched"))
		return 0;
	if (!strcmp(ev->name, "sched_switch")) {
		unsigned long long st = 0;

		tep_get_field_val(NULL, ev, "prev_state", r, &st, 0);
		field_comm(ev, r, "prev_comm", comm);
		field_comm(ev, r, "next_comm", comm2);
		emit_switch(s, 0, cpu, r->ts, field_int(ev, r, "prev_pid"), comm,
			    field_int(ev, r, "prev_prio"), (long)st,
			    field_int(ev, r, "next_pid"), comm2, field_int(ev, r, "next_prio"));
	} else if (!strcmp(ev->name, "sched_wakeup") || !strcmp(ev->name, "sched_waking")) {
		struct ut_raw_sched_wakeup_template e = { 0 };

		field_comm(ev, r, "comm", e.comm);
		e.pid = field_int(ev, r, "pid");
		e.prio = field_int(ev, r, "prio");
		e.target_cpu = field_int(ev, r, "target_cpu");
		emit(s, ev->name[10] == 'u' ? EV_WAKEUP : EV_WAKING, 0, pid, cpu, r->ts, &e,
		     sizeof(e), NULL);
	} else if (!strcmp(ev->name, "sched_migrate_task")) {
		field_comm(ev, r, "comm", comm);
		emit_migrate(s, 0, field_int(ev, r, "pid"), cpu, r->ts, comm,
			     field_int(ev, r, "prio"), field_int(ev, r, "orig_cpu"),
			     field_int(ev, r, "dest_cpu"));
	}
	return 0;
}

/* the instance removed: the kernel's settings as they were */
static void tracefs_release(struct sched_src *s)
{
	if (s->inst) {
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->tep) {
		tep_free(s->tep);
		s->tep = NULL;
	}
	memset(s->kernel_on, 0, sizeof(s->kernel_on));
}

/*
 * The instance, without any pid yet and so with no event enabled (an
 * empty set_event_pid is every task): trace_clock mono, event-fork.
 */
static int tracefs_setup(struct sched_src *s)
{
	char name[64];
	const char *err = NULL;

	if (!tracefs_tracing_dir()) {
		err = "no tracefs mounted";
		goto fail;
	}
	snprintf(name, sizeof(name), "usertrace-%d", (int)getpid());
	s->inst = tracefs_instance_create(name);
	if (!s->inst) {
		err = "cannot create an instance";
		goto fail;
	}
	if (tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(s->inst, "options/event-fork", "1") < 0 ||
	    tracefs_instance_file_write(s->inst, "buffer_size_kb", "2048") < 0) {
		err = "cannot set up the instance";
		goto fail;
	}
	s->tep = tracefs_local_events(NULL);
	if (!s->tep) {
		err = "cannot read the events' formats";
		goto fail;
	}
	return 0;
fail:
	if (getenv(UT_SCHED_SOURCE_ENV))
		pr_warn("sched events: the kernel's tracefs: %s (%s)", err, strerror(errno));
	tracefs_release(s);
	return -1;
}

/* threads @tids into the instance's set_event_pid (appended: the kernel's forks stay) */
static int tracefs_add(struct sched_src *s, const int *tids, int n)
{
	char *text = xcalloc((size_t)n + 1, 12);
	size_t len = 0;
	int r;

	for (int i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s%d", i ? " " : "", tids[i]);
	r = tracefs_instance_file_append(s->inst, "set_event_pid", text);
	free(text);
	if (r < 0)
		pr_warn("sched events: the kernel's tracefs: cannot write set_event_pid (%s)",
			strerror(errno));
	return r < 0 ? -1 : 0;
}

/* the instance's events: those recorded now (never before a pid is in set_event_pid) */
static int tracefs_events(struct sched_src *s)
{
	for (int i = 0; i < NR_EV; i++) {
		int want = s->nr_tids && s->have[i] && kev_live(s->reg, s->slot[i]);

		if (want == s->kernel_on[i])
			continue;
		if ((want ? tracefs_event_enable : tracefs_event_disable)(s->inst, "sched",
									   ev_names[i]) < 0) {
			pr_warn("sched events: the kernel's tracefs: cannot %s sched:%s",
				want ? "enable" : "disable", ev_names[i]);
			return -1;
		}
		s->kernel_on[i] = want;
	}
	return 0;
}

/* ---- the source ---- */

static void calibrate_now(struct sched_src *s)
{
	kev_clock_update(&s->clk);
}

static int force_valid(void)
{
	const char *force = getenv(UT_SCHED_SOURCE_ENV);

	if (force && *force && strcmp(force, "tracefs") && strcmp(force, "perf")) {
		pr_err("%s=%s: the source is tracefs or perf", UT_SCHED_SOURCE_ENV, force);
		return 0;
	}
	return 1;
}

static struct sched_src *src_new(const char *session, const struct ut_evreg *reg, int clock)
{
	struct sched_src *s = xcalloc(1, sizeof(*s));

	snprintf(s->session, sizeof(s->session), "%s", session);
	s->outs.session = s->session;
	s->outs.what = "sched events";
	s->outs.image = UT_SCHED_IMAGE;
	s->reg = reg;
	kev_clock_init(&s->clk, clock);
	for (int i = 0; i < NR_EV; i++)
		s->have[i] = kev_slot(reg, "sched", ev_names[i], &s->slot[i]);
	return s;
}

/* the kernel side of the source: the kernel's tracefs if it can be used, else perf */
static int src_start(struct sched_src *s)
{
	const char *force = getenv(UT_SCHED_SOURCE_ENV);

	if ((!force || !*force || !strcmp(force, "tracefs")) &&
	    (geteuid() == 0 || (force && *force)) && tracefs_setup(s) == 0) {
		s->tracefs = 1;
		s->started = 1;
		return 0;
	}
	if (force && !strcmp(force, "tracefs"))
		return -1;
	if ((s->have[EV_WAKEUP] && kev_live(s->reg, s->slot[EV_WAKEUP])) ||
	    (s->have[EV_WAKING] && kev_live(s->reg, s->slot[EV_WAKING])))
		pr_warn("sched events: from perf context-switch records: no sched_wakeup or sched_waking "
			"(they need the kernel's tracefs, as root)");
	s->tracefs = 0;
	s->started = 1;
	perf_arrays(s);
	return 0;
}

static int tid_followed(const struct sched_src *s, int tid)
{
	for (int i = 0; i < s->nr_tids; i++)
		if (s->tids[i] == tid)
			return 1;
	return 0;
}

static int tid_skipped(const struct sched_src *s, int tid)
{
	for (int i = 0; i < s->nr_skip; i++)
		if (s->skip[i] == tid)
			return 1;
	return 0;
}

/* the threads of process @pid not followed yet (nor skipped), from /proc; -1: the process is gone */
static int new_threads(const struct sched_src *s, pid_t pid, int **out)
{
	char path[64];
	struct dirent *de;
	int n = 0, cap = 0;
	DIR *d;

	*out = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0 || tid_followed(s, tid) || tid_skipped(s, tid))
			continue;
		if (n == cap)
			*out = xrealloc(*out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(**out));
		(*out)[n++] = tid;
	}
	closedir(d);
	return n;
}

int sched_src_follow(struct sched_src *s, pid_t pid)
{
	if (s->failed)
		return -1;
	if (!s->started && src_start(s) < 0) {
		s->failed = 1;
		return -1;
	}
	/* again until no thread is new: one may have started while the others were added */
	for (int round = 0; round < 16; round++) {
		int *tids, n = new_threads(s, pid, &tids), err = 0;

		if (n <= 0) {
			free(tids);
			if (n < 0 && !round)
				return 1;
			break;
		}
		if (s->tracefs)
			err = tracefs_add(s, tids, n) < 0;
		for (int i = 0; i < n && !err; i++)
			err = !s->tracefs && perf_add(s, tids[i]) < 0;
		if (!err) {
			s->tids = xrealloc(s->tids, (size_t)(s->nr_tids + n) * sizeof(*s->tids));
			memcpy(s->tids + s->nr_tids, tids, (size_t)n * sizeof(*tids));
			s->nr_tids += n;
		}
		free(tids);
		if (err)
			goto fail;
	}
	if (s->tracefs && tracefs_events(s) < 0)
		goto fail;
	return 0;
fail:
	sched_src_stop(s);
	s->failed = 1;
	return -1;
}

struct sched_src *sched_src_open(const char *session, const struct ut_evreg *reg, int clock,
				 pid_t pid)
{
	struct sched_src *s;

	if (!force_valid())
		return NULL;
	s = src_new(session, reg, clock);
	for (int i = 0; i < NR_EV; i++)
		s->have[i] = s->have[i] && kev_recorded(reg, s->slot[i]);
	s->outs.pages = OUT_PAGES;
	s->outs.mode = RB_MODE_CONSUMER;
	if (sched_src_follow(s, pid) != 0) {
		sched_src_close(s);
		return NULL;
	}
	return s;
}

struct sched_src *sched_src_live(const char *session, const struct ut_evreg *reg, int clock,
				 uint32_t nr_pages, const volatile uint32_t *on)
{
	struct sched_src *s;

	if (!force_valid())
		return NULL;
	s = src_new(session, reg, clock);
	s->live = 1;
	s->outs.pages = nr_pages >= 2 ? nr_pages : OUT_PAGES;
	s->outs.mode = RB_MODE_OVERWRITE;
	s->on = on;
	return s;
}

void sched_src_skip(struct sched_src *s, pid_t tid)
{
	for (int i = 0; i < s->nr_skip; i++)
		if (s->skip[i] == tid)
			return;
	s->skip = xrealloc(s->skip, (size_t)(s->nr_skip + 1) * sizeof(*s->skip));
	s->skip[s->nr_skip++] = tid;
}

void sched_src_sync_events(struct sched_src *s)
{
	if (s->started && s->tracefs && tracefs_events(s) < 0) {
		sched_src_stop(s);
		s->failed = 1;
	}
}

int sched_src_running(const struct sched_src *s)
{
	return s && s->started;
}

const char *sched_src_name(const struct sched_src *s)
{
	return s->tracefs ? "tracefs" : "perf";
}

/* perf: a switch-out whose switch-in was not seen: its next task unknown */
static void flush_out(struct sched_src *s, int c)
{
	struct kev_out *o = out_get(s, s->last_out[c].pid, s->last_out[c].tid);

	emit_switch(s, s->last_out[c].pid, c, s->last_out[c].ts, s->last_out[c].tid,
		    o ? o->w.hdr->comm : "<...>", o ? o->prio : 120, s->last_out[c].state, 0,
		    "<...>", 0);
	s->last_out[c].pending = 0;
}

void sched_src_poll(struct sched_src *s)
{
	if (!s->started)
		return;
	calibrate_now(s);
	if (s->tracefs) {
		tracefs_iterate_raw_events(s->tep, s->inst, NULL, 0, tracefs_cb, s);
		return;
	}
	perf_poll(s);
	/* a switch-out with no switch-in after it for long: its next was not traced */
	for (int c = 0; c < s->ncpu; c++)
		if (s->last_out[c].pending && ut_mono_ns() - s->last_out[c].ts > 10 * SWITCH_PAIR_NS)
			flush_out(s, c);
}

void sched_src_stop(struct sched_src *s)
{
	if (!s->started)
		return;
	sched_src_poll(s);
	if (s->tracefs) {
		tracefs_release(s);
	} else {
		for (int c = 0; c < s->ncpu; c++)
			if (s->last_out[c].pending)
				flush_out(s, c);
		perf_release(s);
	}
	free(s->tids);
	s->tids = NULL;
	s->nr_tids = 0;
	s->started = 0;
}

void sched_src_close(struct sched_src *s)
{
	if (!s)
		return;
	sched_src_stop(s);
	kev_outs_close(&s->outs);
	free(s->fd);
	free(s->ring);
	free(s->last_out);
	free(s->last_cpu);
	free(s->skip);
	free(s);
}

/* ---- the source's ops (recorder/source.h) ---- */

static void *ops_open(const struct src_env *env, pid_t pid)
{
	if (pid)
		return sched_src_open(env->session, env->events, env->clock, pid);
	return sched_src_live(env->session, env->events, env->clock, env->nr_pages, env->on);
}

static int ops_follow(void *s, pid_t pid)
{
	return sched_src_follow(s, pid);
}

static void ops_skip(void *s, pid_t tid)
{
	sched_src_skip(s, tid);
}

static void ops_sync(void *s)
{
	sched_src_sync_events(s);
}

static void ops_poll(void *s)
{
	sched_src_poll(s);
}

static void ops_stop(void *s)
{
	sched_src_stop(s);
}

static int ops_running(const void *s)
{
	return sched_src_running(s);
}

static void ops_close(void *s)
{
	sched_src_close(s);
}

static const char *ops_backend(const void *s)
{
	return sched_src_name(s);
}

static const char *ops_from(const char *backend)
{
	return !strcmp(backend, "tracefs") ?
	       "the kernel's tracefs (an instance with the program in set_event_pid)" :
	       "perf_event_open context-switch records";
}

const struct src_ops sched_source = {
	.name		= "sched events",
	.system		= "sched",
	.wanted		= sched_src_wanted,
	.open		= ops_open,
	.follow		= ops_follow,
	.skip		= ops_skip,
	.sync		= ops_sync,
	.poll		= ops_poll,
	.stop		= ops_stop,
	.running	= ops_running,
	.close		= ops_close,
	.backend	= ops_backend,
	.from		= ops_from,
	.info_key	= "sched_source",
};
