// SPDX-License-Identifier: MIT
/*
 * events.c - the programs' tracepoints (usertrace/tracepoint.h): found in
 * every loaded object, registered in the session's event registry
 * (usertrace/evreg.h), turned on and off, and recorded as EVENT records.
 *
 * Discovery: each object that defines tracepoints has the section
 * __ut_tracepoints_ptrs, an array of pointers to its struct
 * ut_tracepoint (relocated by the dynamic loader like any pointer).
 * ut_events_scan_object() finds the section in the file's section headers
 * (read with pread, no libelf: most objects have none), adds the load
 * bias to its address, and registers each tracepoint: it checks the abi,
 * gets the event's id from the registry, and sets `ops`, `id` and the
 * RECORD bit of `state` as the registry says.  Objects loaded later are
 * scanned after their dlopen (runtime/dynamic.c calls in); a dlclose'd
 * object's tracepoints are forgotten.  Tracepoints hit before the
 * runtime's start-up (constructors of other libraries) are not recorded.
 *
 * The program API (usertrace/tracing.h: tracing_on/off, trace_printk)
 * is found the same way: each object that uses it has a slot, pointed
 * to from the section __ut_api_ptrs, whose ops the scan sets.
 *
 * The runtime's own events (lib/event/builtin.c) are registered the
 * same way when the registry is mapped: the object scan skips
 * libusertrace.so.
 *
 * Context: all of it runs under dynamic.c's patch lock, from start-up,
 * dlopen, dlclose or the control thread.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/event/builtin.h"
#include "runtime/runtime.h"
#include "usertrace/evreg.h"
#define __UT_BRANCH_TYPES 1
#include "usertrace/branch.h"
#include "usertrace/ftrace.h"
#include "usertrace/tracing.h"

/* a loaded object that was scanned, and its tracepoints (none: n = 0) */
struct tp_obj {
	uintptr_t base;
	char *path;
	struct ut_tracepoint **tps;
	size_t n;
};

static struct ut_evreg *reg;
static struct tp_obj *objs;
static size_t nr_objs;

/*
 * A live tracepoint was hit: its triggers run (whether it is recorded or
 * not; before the write or after it, as the kernel's: evreg.h), and it
 * is written if a directory enables it or, in the top's soft mode, a
 * trigger switched it on, or an instance may keep it (enabled, or in its
 * soft mode switched on: its pump applies its own switches), and its
 * filter (if any: one load of the slot's filter word) passes it.
 */
static void tp_write(struct ut_tracepoint *tp, struct ut_trace_entry *ent, uint32_t size)
{
	uint32_t i = (uint32_t)(tp->id - UT_EVENT_ID_DYNAMIC), st;
	uint64_t post = 0;

	/*
	 * the runtime's own work (its control thread applying settings, a
	 * setup): not the program's events, and its triggers do not fire.
	 * A thread that cannot record (DISABLED) still runs them, as the
	 * kernel's triggers fire when the write fails.
	 */
	if (unlikely(ut_self.state == UT_TS_INTERNAL))
		return;
	ent->type = tp->id;
	if (!reg || i >= UT_EVREG_SLOTS) {
		ut_write_event(ent, size, 0);
		return;
	}
	st = __atomic_load_n(&reg->slots[i].state, __ATOMIC_RELAXED);
	if (st & UT_EVS_TRIGGERS) {
		post = ut_triggers_run(reg, i, ent, size, 0);
		/* a trigger may have switched this very event */
		st = __atomic_load_n(&reg->slots[i].state, __ATOMIC_RELAXED);
	}
	if ((st & UT_EVS_OTHERS) ||
	    ((st & (UT_EVS_RECORD | UT_EVS_SOFT_MODE)) && !(st & UT_EVS_SOFT_DISABLED)) ||
	    ((st & UT_EVS_INST_SOFT) && __atomic_load_n(&reg->soft_on[i], __ATOMIC_RELAXED) > 0)) {
		/* options/stacktrace: the stack after the event, as the kernel's commit adds it */
		if (ut_write_event(ent, size, __atomic_load_n(&reg->slots[i].filter, __ATOMIC_RELAXED)))
			post |= __atomic_load_n(&reg->opt_stack, __ATOMIC_RELAXED);
	}
	if (st & UT_EVS_TRIG_AFTER)
		post |= ut_triggers_run(reg, i, ent, size, 1);
	if (post)
		ut_triggers_post(post);
}

/* a `char *` field's string, read without faulting on a bad pointer */
static long filter_read_str(uint64_t addr, char *buf, size_t size)
{
	struct iovec local = { buf, size - 1 }, remote = { (void *)(uintptr_t)addr, size - 1 };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	size_t len;

	if (n <= 0)
		return -1;
	len = strnlen(buf, (size_t)n);
	return len < (size_t)n ? (long)len : -1;
}

/* what a filter needs besides the entry: the CPU, the thread's name */
void ut_events_fill_ctx(struct ut_evf_ctx *ctx, unsigned needs)
{
	static __thread char comm[16];

	if (needs & UT_EVF_NEED_CPU)
		ctx->cpu = (int)ut_cpu();
	if ((needs & UT_EVF_NEED_COMM) && !prctl(PR_GET_NAME, comm, 0, 0, 0))
		ctx->comm = comm;
	ctx->read_str = filter_read_str;
}

int ut_events_filter(const struct ut_trace_entry *ent, uint32_t size)
{
	struct ut_evf_ctx ctx = { 0, NULL, NULL };

	return !reg || ut_evreg_filter_match(reg, (uint32_t)(ent->type - UT_EVENT_ID_DYNAMIC), ent,
					     size, &ctx, ut_events_fill_ctx);
}

static const struct ut_tracepoint_ops tp_ops = { UT_TP_ABI, tp_write };
static void tp_register(struct ut_tracepoint *tp, const char *path);

/* map SESSION/events; without it (an older recorder) no event records */
void ut_events_init(const char *session)
{
	char path[4096];
	void *m;
	int fd;

	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	m = mmap(NULL, sizeof(struct ut_evreg), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	if (memcmp(((struct ut_evreg *)m)->magic, UT_EVREG_MAGIC, 8) ||
	    ((struct ut_evreg *)m)->version != UT_EVREG_VERSION) {
		ut_log("%s is not an event registry; no events recorded", path);
		munmap(m, sizeof(struct ut_evreg));
		return;
	}
	reg = m;
	for (unsigned i = 0; i < ut_builtin_nr; i++)
		tp_register(ut_builtin_tps[i], "libusertrace.so");
}

/* ---- the program API (usertrace/tracing.h) ---- */

/* as the traceon/traceoff commands: the tracing directory reads it back (tfs_top_sync()) */
static void api_tracing_on(void)
{
	ut_top_switch(reg, 1, NULL);
}

static void api_tracing_off(void)
{
	ut_top_switch(reg, 0, NULL);
}

/* the top's state, as the kernel's tracing_is_on() */
static int api_tracing_is_on(void)
{
	if (reg && __atomic_load_n(&reg->insts_on, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&reg->dirs[0].on, __ATOMIC_ACQUIRE) != 0;
	return __atomic_load_n(&ut_ctl->tracing_on, __ATOMIC_ACQUIRE) != 0;
}

/* a print event (events/ftrace/print): "%ps: %s", ip, buf */
static void api_print(uintptr_t ip, const char *text, size_t len)
{
	union {
		struct ut_ftrace_print e;
		char bytes[UT_EVENT_MAX];
	} u;
	size_t max = sizeof(u) - sizeof(u.e) - 1;

	if (len > max)
		len = max;
	u.e.ent.type = UT_EVENT_ID_PRINT;
	u.e.ip = ip;
	memcpy(u.e.buf, text, len);
	u.e.buf[len] = 0;
	/* options/stacktrace: the stack after it too, as the kernel's trace_puts() */
	if (ut_write_event(&u.e.ent, (uint32_t)(sizeof(u.e) + len + 1), 0) && reg) {
		uint32_t stack = __atomic_load_n(&reg->opt_stack, __ATOMIC_RELAXED);

		if (stack)
			ut_triggers_post(stack);
	}
}

static const struct ut_api_ops api_ops = {
	UT_API_ABI, api_tracing_on, api_tracing_off, api_tracing_is_on, api_print,
	/* tracers/irqsoff.c */
	ut_api_irq_disable, ut_api_irq_enable, ut_api_irq_save, ut_api_irq_restore,
	ut_api_irqs_disabled, ut_api_preempt_disable, ut_api_preempt_enable,
	ut_api_preempt_count,
	/* workqueue.c */
	ut_api_wq_insert, ut_api_wq_execute,
};

/* a section of an object, found by name: its address (before the load bias) and size */
struct sec {
	const char *name;
	uint64_t addr, size;
};

/*
 * Find the sections @secs[0..@n) in the section headers of @path (read
 * with pread: most objects have none, and libelf would allocate in a
 * program that may trace its malloc).  A section not found has size 0.
 */
static void find_sections(const char *path, struct sec *secs, size_t n)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(sh) ||
	    eh.e_shstrndx >= eh.e_shnum ||
	    pread(fd, &strsh, sizeof(strsh), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(sh))) != sizeof(strsh))
		goto out;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		char name[64];
		ssize_t got;

		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh))) != sizeof(sh) ||
		    sh.sh_name >= strsh.sh_size || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS)
			continue;
		got = pread(fd, name, sizeof(name) - 1, (off_t)(strsh.sh_offset + sh.sh_name));
		if (got <= 0)
			continue;
		name[got] = 0;
		for (size_t k = 0; k < n; k++)
			if (!strcmp(name, secs[k].name)) {
				secs[k].addr = sh.sh_addr;
				secs[k].size = sh.sh_size;
			}
	}
out:
	close(fd);
}

/* does the object of @info map [@p, @p + @n) (writable, if @w)? */
static int mapped(const struct dl_phdr_info *info, uintptr_t p, size_t n, int w)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (!w || (ph->p_flags & PF_W)) && p >= lo &&
		    p + n <= lo + ph->p_memsz)
			return 1;
	}
	return 0;
}

/* the API slots of an object (section @sec): point them at our ops */
static void api_scan(const struct dl_phdr_info *info, const struct sec *sec)
{
	struct ut_api_slot **ptrs = (struct ut_api_slot **)(info->dlpi_addr + sec->addr);

	if (!sec->size || sec->size % sizeof(void *) || !mapped(info, (uintptr_t)ptrs, sec->size, 0))
		return;
	for (size_t i = 0; i < sec->size / sizeof(void *); i++) {
		struct ut_api_slot *s = ptrs[i];

		if (s && mapped(info, (uintptr_t)s, sizeof(*s), 1) && s->abi >= 1 && s->abi <= UT_API_ABI)
			__atomic_store_n(&s->ops, &api_ops, __ATOMIC_RELEASE);
	}
}

/*
 * The branch profilers' sites and slots of an object (usertrace/branch.h),
 * @sec: the sections annotated, all, slots; each must be in a writable
 * segment, whole sites and pointers
 */
static void branch_scan(const struct dl_phdr_info *info, const char *path, const struct sec *sec)
{
	size_t n[3] = { 0, 0, 0 };
	size_t unit[3] = { sizeof(struct ut_branch_site), sizeof(struct ut_branch_site),
			   sizeof(void *) };

	for (int k = 0; k < 3; k++) {
		if (!sec[k].size)
			continue;
		if (sec[k].size % unit[k] ||
		    !mapped(info, info->dlpi_addr + sec[k].addr, sec[k].size, k < 2)) {
			ut_log("%s: %s is not whole or not in a writable segment; ignored", path,
			       sec[k].name);
			continue;
		}
		n[k] = sec[k].size / unit[k];
	}
	ut_branch_scan_object(info, path, (struct ut_branch_site *)(info->dlpi_addr + sec[0].addr), n[0],
			      (struct ut_branch_site *)(info->dlpi_addr + sec[1].addr), n[1],
			      (struct ut_branch_slot **)(info->dlpi_addr + sec[2].addr), n[2]);
}

/* the registry's say for @tp (recorded, in soft mode, triggers) into its state */
static void tp_apply(struct ut_tracepoint *tp)
{
	uint32_t i = (uint32_t)(tp->id - UT_EVENT_ID_DYNAMIC);
	int rec = reg && tp->ops && i < UT_EVREG_SLOTS &&
		  (__atomic_load_n(&reg->slots[i].state, __ATOMIC_RELAXED) & UT_EVS_LIVE);

	if (rec)
		__atomic_fetch_or(&tp->state, UT_TP_STATE_RECORD, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&tp->state, ~UT_TP_STATE_RECORD, __ATOMIC_RELAXED);
}

static void tp_register(struct ut_tracepoint *tp, const char *path)
{
	const struct ut_event_desc *d = tp->desc;
	int slot;

	if (tp->abi != UT_TP_ABI || (d && d->abi != UT_TP_ABI)) {
		ut_log("%s: tracepoint of an unknown version (%u); ignored", path, tp->abi);
		return;
	}
	if (!d || tp->ops)
		return;		/* probes only (DECLARE_TRACE), or registered before */
	slot = ut_evreg_register(reg, d);
	if (slot < 0) {
		ut_log("%s: event %s:%s: the session's event registry is full or the event too large; "
		       "not recorded", path, d->system ? d->system : "?", d->name ? d->name : "?");
		return;
	}
	tp->id = UT_EVREG_ID(slot);
	__atomic_store_n(&tp->ops, &tp_ops, __ATOMIC_RELEASE);
	tp_apply(tp);
}

/**
 * ut_events_scan_object - the tracepoints and API slots of a loaded object
 *
 * Each object is read once while it stays loaded: the scans after later
 * dlopens skip it.
 */
void ut_events_scan_object(const struct dl_phdr_info *info, const char *path)
{
	struct sec secs[] = { { UT_TP_SECTION, 0, 0 }, { UT_API_SECTION, 0, 0 },
			      { UT_BRANCH_ANNOTATED_SECTION, 0, 0 }, { UT_BRANCH_ALL_SECTION, 0, 0 },
			      { UT_BRANCH_SLOT_SECTION, 0, 0 } };
	struct ut_tracepoint **ptrs;
	struct tp_obj *o, *no;

	for (size_t i = 0; i < nr_objs; i++)
		if (objs[i].base == info->dlpi_addr && !strcmp(objs[i].path, path))
			return;		/* known */
	no = realloc(objs, (nr_objs + 1) * sizeof(*objs));
	if (!no)
		return;
	objs = no;
	o = &objs[nr_objs];
	*o = (struct tp_obj){ .base = info->dlpi_addr, .path = strdup(path) };
	if (!o->path)
		return;
	nr_objs++;
	find_sections(path, secs, sizeof(secs) / sizeof(secs[0]));
	api_scan(info, &secs[1]);
	branch_scan(info, path, &secs[2]);
	if (!reg || !secs[0].size)
		return;
	ptrs = (struct ut_tracepoint **)(info->dlpi_addr + secs[0].addr);
	if (secs[0].size % sizeof(void *) || !mapped(info, (uintptr_t)ptrs, secs[0].size, 0)) {
		ut_log("%s: %s is not in a loaded segment; its tracepoints are ignored", path,
		       UT_TP_SECTION);
		return;
	}
	o->tps = ptrs;
	o->n = secs[0].size / sizeof(void *);
	for (size_t i = 0; i < o->n; i++) {
		struct ut_tracepoint *tp = ptrs[i];

		if (tp && mapped(info, (uintptr_t)tp, sizeof(*tp), 1))
			tp_register(tp, path);
	}
}

static int still_loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct tp_obj *o = arg;

	(void)size;
	/* the executable has no name here: its path came from /proc/self/exe */
	return info->dlpi_addr == o->base &&
	       (!info->dlpi_name || !*info->dlpi_name || !strcmp(info->dlpi_name, o->path));
}

/**
 * ut_events_forget - after a dlclose: forget the objects gone and their tracepoints
 */
void ut_events_forget(void)
{
	size_t k = 0;

	for (size_t i = 0; i < nr_objs; i++) {
		if (dl_iterate_phdr(still_loaded_cb, &objs[i]))
			objs[k++] = objs[i];
		else
			free(objs[i].path);
	}
	nr_objs = k;
}

/**
 * ut_events_apply - the registry's enable bits changed: follow them
 */
void ut_events_apply(void)
{
	for (unsigned i = 0; i < ut_builtin_nr; i++)
		if (ut_builtin_tps[i]->ops == &tp_ops)
			tp_apply(ut_builtin_tps[i]);
	for (size_t i = 0; i < nr_objs; i++)
		for (size_t j = 0; j < objs[i].n; j++) {
			struct ut_tracepoint *tp = objs[i].tps[j];

			if (tp && tp->ops == &tp_ops)
				tp_apply(tp);
		}
}

/* the session's event registry, NULL without one */
struct ut_evreg *ut_events_reg(void)
{
	return reg;
}
