/* SPDX-License-Identifier: MIT */
/*
 * runtime.h - private header of libusertrace.so, the in-process runtime.
 *
 * Threading: the globals below are set once by ut_runtime_init() (a
 * constructor, before main and before any thread of the program exists)
 * and only read afterwards.  struct ut_thread is thread-local and touched
 * by its own thread only, including by signal handlers running on it.
 */
#ifndef USERTRACE_RUNTIME_H
#define USERTRACE_RUNTIME_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/event/switch.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "runtime/tracers/latency.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * In a wrapper of a library function: next_<name>, the next definition,
 * found the first time by ut_next_sym() for the wrapper's caller.
 */
#define NEXT(name)							\
	static __typeof__(name) *next_##name;				\
	if (!next_##name)						\
		next_##name = (__typeof__(name) *)ut_next_sym(#name,	\
					__builtin_return_address(0))

void *ut_next_sym(const char *name, const void *site);

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" ::: "memory")
/* the writer's stack pointer: nonzero, and below any frame a longjmp could target */
#define UT_BUSY()							\
	({								\
		uintptr_t __sp;						\
		__asm__ __volatile__("mov %%rsp, %0" : "=r"(__sp));	\
		__sp;							\
	})

#define UT_SHADOW_MAX	4096	/* deepest call chain we hook */
#define UT_PENDING_MAX	32	/* records a signal handler can park */
#define UT_CTX_MAX	32	/* contexts (swapcontext) stacked on one thread */

/* one hooked (or observed) function call */
struct ut_frame {
	uintptr_t slot;		/* address of the return address (mcount/fentry), or sp */
	uintptr_t orig;		/* original return address; 0 if we did not hook it */
	uintptr_t ip;		/* the function */
	uint32_t valid;		/* 0 while being filled: a signal handler must not trust it */
	uint32_t recorded;	/* enum ut_frame_rec: what its end writes */
};

enum ut_frame_rec {
	UT_FR_LOST = 0,		/* its ENTRY was dropped: the EXIT is counted lost */
	UT_FR_RECORDED = 1,	/* its ENTRY reached the buffer: it needs an EXIT */
	UT_FR_NOTRACE = 2,	/* set_graph_notrace: nothing, and nothing for callees */
	UT_FR_THRESH = 3,	/* tracing_thresh: a RETURN if it lasted long enough */
	UT_FR_SKIP = 4,		/* -finstrument-functions: a call not traced, kept so
				   that its exit pairs with it; writes nothing */
};

/* entry timestamps of the frames (UT_FR_THRESH), after the frames themselves */
#define UT_FRAME_TS(t)	((uint64_t *)((t)->frames + UT_SHADOW_MAX))
/* the function profiler's (profile.c): entry time (0: none), callees' time */
#define UT_FRAME_PTS(t)		(UT_FRAME_TS(t) + UT_SHADOW_MAX)
#define UT_FRAME_CHILD(t)	(UT_FRAME_TS(t) + 2 * UT_SHADOW_MAX)
#define UT_SHADOW_BYTES	(UT_SHADOW_MAX * (sizeof(struct ut_frame) + 3 * sizeof(uint64_t)))

/* a popped hooked frame whose function may still return through us */
struct ut_grave {
	uintptr_t slot;
	uintptr_t orig;
};
#define UT_GRAVE_MAX	256

/*
 * A context suspended in swapcontext below the running one (context.c):
 * its frames are frames[previous entry's end, end).
 */
struct ut_ctx_ent {
	uintptr_t token;	/* its swapcontext call's save area; 0: none */
	uint64_t serial;	/* with the token: that very call (unique in the process) */
	uint32_t end;
};

struct ut_pending {
	uint32_t type;
	uint64_t ts;
	uint64_t ip, parent;
};

enum ut_thread_state {
	UT_TS_NEW = 0,		/* no buffer yet */
	UT_TS_READY = 1,
	UT_TS_DISABLED = 2,	/* cannot trace (no session, buffer creation failed) */
	UT_TS_INTERNAL = 3,	/* the runtime itself is running: calls are not traced */
};

/*
 * A thread's state private to the running tracers, as the kernel's
 * tracers keep theirs behind trace_array's private pointer: a member per
 * tracer that keeps some, defined in its runtime part's header.  The
 * latency tracers' also says which context the records last stated
 * (the writer restates it at a page start, graph.c).
 */
union ut_tracer_thread {
	struct ut_lat lat;	/* irqsoff, preemptoff, preemptirqsoff, wakeup (tracers/latency.h) */
};

struct ut_thread {
	uint32_t state;
	uint32_t depth;		/* frames in use */
	/*
	 * Inside a write: the writer's frame address (nonzero).  A nested
	 * writer (signal handler) parks its record; a handler that longjmps
	 * above this frame abandons the write (see ut_unwind_to()).
	 */
	uintptr_t busy;
	uint32_t npending;
	uint32_t rec_depth;	/* ENTRYs in the stream not yet closed by an EXIT */
	struct rb_writer w;
	struct ut_frame *frames;	/* UT_SHADOW_MAX frames, mmap'ed */
	/*
	 * Frames below cbase belong to contexts suspended in swapcontext
	 * (context.c): stale-frame checks, longjmp and exceptions stop there.
	 * cbase is the end of the top ctx[] entry, 0 if there is none.
	 */
	uint32_t cbase;
	uint32_t nctx;
	uintptr_t stack_lo, stack_hi;	/* the thread's own stack */
	uint64_t skipped;	/* calls too deep to hook */
	uint32_t grave_next;
	struct ut_grave grave[UT_GRAVE_MAX];
	struct ut_pending pending[UT_PENDING_MAX];
	/* set_graph_function: the outermost open graph-function frame (cache) */
	uint32_t gbase;		/* its depth + 1; 0: none */
	uintptr_t gslot, gip;
	uint32_t bufgen;	/* buffers replaced by a resize (buffer_size_kb) */
	int32_t pid, tid;
	uint32_t rf_gen;	/* ut_ctl->rec_filter_gen when rf_ok was taken */
	uint32_t rf_ok;		/* UT_RF_*: set_ftrace_pid, set_event_pid list this thread */
	/*
	 * A child of a thread whose forks are followed (function-fork,
	 * event-fork): until the controller has taken its fork log entry
	 * (ut_ctl->forklog_done reaches rf_inh_seq), it records the kinds
	 * rf_inh_what as its parent did (rf_inh).  rf_inh_seq 0: none.
	 * ut_thread_setup() keeps them (ut_pid_follow() sets them before).
	 */
	uint32_t rf_inh_seq;
	uint32_t rf_inh, rf_inh_what;
	struct rb_header *old_hdr;	/* the buffer a resize replaced, still mapped */
	struct ut_ctx_ent ctx[UT_CTX_MAX];
	struct rb_header *max_hdr;	/* its max-latency buffer (max.c); NULL: none yet */
	union ut_tracer_thread tr;
	struct ut_prof_table *prof_tab;	/* its profiler table (profile.c); NULL: none yet */
	struct ut_stk_thread *stk_thr;	/* its stack tracer slot; NULL: none yet */
	uintptr_t stk_top;	/* where its stack use is measured from; 0: not known yet */
};

extern __thread struct ut_thread ut_self __attribute__((tls_model("initial-exec")));
extern struct ut_session_ctl *ut_ctl;
extern int ut_rec_mode;		/* enum ut_rec_mode; the control thread may change it */
extern int ut_use_tsc;
extern int ut_fast;		/* graph mode and the TSC: asm fast paths on */
extern int ut_rec_filter;	/* set_ftrace_pid or tracing_cpumask in force */
extern int ut_ev_filter;	/* set_event_pid or tracing_cpumask in force */
#define UT_RF_FUNC	1u	/* ut_thread.rf_ok: the thread records calls */
#define UT_RF_EVENT	2u	/* ... and events */
extern int ut_have_rseq;
extern intptr_t ut_cpu_off;	/* thread-pointer offset of the current cpu */

/* runtime.c */
int ut_thread_setup(struct ut_thread *t);
void ut_write_maps(uint64_t since);
void ut_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ut_session_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* graph.c */
int ut_write(struct ut_thread *t, uint32_t type, uint64_t ts, uint64_t ip, uint64_t parent);
void ut_page_start(struct rb_writer *w, uint64_t ts);
void ut_renew_stack(struct ut_thread *t, uint64_t ts);
void ut_lost_exit(struct ut_thread *t);
void ut_flush_pending(struct ut_thread *t);
void ut_fatal_lost_return(uintptr_t slot) __attribute__((noreturn));
void ut_shadow_restore_all(struct ut_thread *t);
void ut_emit_stack(struct ut_thread *t);
void ut_unwind_to(struct ut_thread *t, uintptr_t sp, uint64_t ts);
void ut_frame_end(struct ut_thread *t, uint32_t d, uint64_t ts);
void ut_close_to(struct ut_thread *t, uint32_t to, uint64_t ts);
void ut_ctx_trim(struct ut_thread *t);
void ut_write_trace(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts);
int ut_write_ctx(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt);
/* a latency report: the same context and the thread's identity (CTX of n = 18) */
int ut_write_task(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt);
void ut_task_get(struct ut_ctx_task *ti);
void ut_write_trace_dir(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts,
			uint32_t dir);
int ut_write_event(struct ut_trace_entry *ent, uint32_t size, int filtered);
int ut_write_entry_at(struct ut_thread *t, const struct ut_trace_entry *ent, uint32_t size,
		      uint64_t ts);

struct dl_phdr_info;
/* branch.c: the branch profilers' sites (usertrace/branch.h) */
struct ut_branch_site;
struct ut_branch_slot;
void ut_branch_scan_object(const struct dl_phdr_info *info, const char *path,
			   struct ut_branch_site *ann, size_t nann,
			   struct ut_branch_site *all, size_t nall,
			   struct ut_branch_slot **sl, size_t nsl);
void ut_branch_dlclose_begin(void);
void ut_branch_dlclose_end(void);
void ut_branch_tracing(int on);
void ut_branch_atfork_child(void);

/* events.c */
struct dl_phdr_info;
void ut_events_init(const char *session);
void ut_events_scan_object(const struct dl_phdr_info *info, const char *path);
void ut_events_forget(void);
void ut_events_apply(void);
struct ut_evreg *ut_events_reg(void);
struct ut_evf_ctx;
/* what a filter program needs besides the entry (UT_EVF_NEED_*) */
void ut_events_fill_ctx(struct ut_evf_ctx *ctx, unsigned needs);
/* does the entry @ent pass its event's filter? (events.c; the caller holds the thread's write) */
int ut_events_filter(const struct ut_trace_entry *ent, uint32_t size);

/* the calls open on @t's shadow stack, innermost first, into @ips (at most @max) */
static inline uint32_t ut_shadow_ips(const struct ut_thread *t, uintptr_t *ips, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t d = t->depth; d-- > 0 && n < max;)
		if (t->frames[d].recorded != UT_FR_SKIP)
			ips[n++] = t->frames[d].ip;
	return n;
}

/* an entry of getdents64(2), which the runtime calls where opendir() may not run (a signal handler) */
struct ut_dirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* triggers.c */
struct ut_evreg;
struct ut_trace_entry;
/*
 * Run the triggers of slot @slot that run before the write (@after 0) or
 * after it (1).  What to do after the write: the stacks that stacktrace
 * triggers asked for, a bit per directory (bit 0: the top; bit d:
 * instance dirs[d]).
 */
uint64_t ut_triggers_run(struct ut_evreg *r, uint32_t slot, struct ut_trace_entry *ent,
			 uint32_t size, int after);
void ut_triggers_post(uint64_t post);
/* the program's stack here, innermost first (the runtime's frames left out) */
uint32_t ut_program_stack(struct ut_thread *t, uintptr_t *ips, uint32_t max);
/* the runtime's executable code: its frames never show in the program's stacks */
extern uintptr_t ut_rt_lo, ut_rt_hi;
void ut_runtime_range(void);
uint32_t ut_drop_runtime_frames(uintptr_t *ips, uint32_t n);
static inline int ut_in_runtime(uintptr_t ip)
{
	return ip >= ut_rt_lo && ip < ut_rt_hi;
}

/* the top directory's tracing_on to @on, spending a run of @count (NULL: none) if it changes */
int ut_top_switch(struct ut_evreg *r, int on, volatile int64_t *count);
/* enable (1) or disable (0) soft-mode event @target, spending a run of @count if it changes */
int ut_event_soft_switch(struct ut_evreg *r, uint32_t target, int enable, volatile int64_t *count);
/*
 * an instance's function commands (registry dirs[@dir]): its tracing_on,
 * its soft switch of @target, as its triggers change them
 */
int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count);
int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count);

/* funcfilter.c */
struct ut_fsym {
	uintptr_t addr, size;
	const char *name;
	int listed;		/* has a call site: available_filter_functions lists it */
};

/* what ut_filter_entry() says of a call */
enum {
	UT_FE_SKIP,		/* not traced */
	UT_FE_TRACE,		/* traced */
	UT_FE_NOTRACE,		/* set_graph_notrace: not traced, nor its callees */
	UT_FE_THRESH,		/* traced if it lasts tracing_thresh */
	UT_FE_HIDDEN,		/* not traced: a set_graph_notrace caller is open */
};

extern int ut_filtering;	/* the hooks must ask ut_filter_entry() */
void ut_filter_load(void);
void ut_filter_update(int mode);
int ut_filter_need_table(void);
void ut_filter_hooked(void);
int ut_filter_patch(const char *name, const char *module, int mode);
void ut_ftab_add(const struct ut_fsym *syms, size_t n, const char *module);
void ut_ftab_remove(uintptr_t lo, uintptr_t hi);
int ut_ftab_hits(const char *pat);
int ut_filter_entry(struct ut_thread *t, uintptr_t ip, uintptr_t parent, uint64_t ts);
int ut_stack_listed(uintptr_t ip);
int ut_rec_allowed(struct ut_thread *t);
int ut_ev_allowed(struct ut_thread *t);
int ut_follow_on(void);
void ut_pid_follow(struct ut_thread *t, int32_t ptid, int32_t ppid, int32_t child);
int ut_filter_check(int (*hits)(const char *pat), int first);
int ut_ftab_any(void);
void ut_ftab_reflag(void);
void ut_ftab_list(void (*emit)(void *ctx, const char *name, const char *module, int site),
		  int (*site_state)(uintptr_t start, uintptr_t end), void *ctx);

/* sched.c: the sched and task events (callers test trace_<event>_enabled()) */
void ut_sched_fork(pid_t child);
void ut_sched_exit(int group);
void ut_sched_exec(void);
void ut_sched_exec_save(void);
int ut_sched_exec_mark(int on);
void ut_sched_exec_failed(void);
void ut_sched_exec_rename(void);
void ut_sched_resolve(void);

/* tracers/kmemtrace.c: allocations of the runtime itself, never events */
void *ut_malloc(size_t n);
void ut_free(void *p);
void ut_kmem_resolve(void);
/* for the C++ operators (tracers/kmemtrace_cxx.c): an event on?  Then the block's kmalloc and kfree */
int ut_kmem_on(void);
void ut_kmem_alloced(void *site, void *p, size_t n);
void ut_kmem_freeing(void *site, void *p);
/* nonzero: this thread's allocations are not recorded (the runtime's calls into libc) */
extern __thread int ut_kmem_quiet __attribute__((tls_model("initial-exec")));

/* lock.c */
void ut_lock_resolve(void);

/* max.c: the max-latency buffer (tracing_max_latency) */
int ut_max_store(uint64_t latency, uint64_t end, uint64_t start_ip, uint64_t end_ip, int force);
#define ut_max_new(latency, end, start_ip, end_ip)	ut_max_store(latency, end, start_ip, end_ip, 0)
void ut_max_release(struct ut_thread *t, int close);

/**
 * ut_update_max_tr - a latency tracer measured @latency (clock units)
 * from @start_ip to @end_ip on this thread, ending at @end (clock; 0: now)
 *
 * As the kernel's update_max_tr_single(): if it is a new maximum, the
 * thread's buffer and its max buffer are swapped (the trace that led to
 * it is kept) and the max record of the control page is set.  When it is
 * not (the usual case): one load and one compare, no lock, no system
 * call.  Returns 1 if it was stored, 0 if not a new maximum, -1 if stored
 * without its trace.  Context: the thread's own, outside a write.
 */
static inline int ut_update_max_tr(uint64_t latency, uint64_t end, uint64_t start_ip,
				   uint64_t end_ip)
{
	struct ut_session_ctl *c = ut_ctl;
	uint64_t cur;

	if (unlikely(!c))
		return 0;
	cur = __atomic_load_n(&c->max_latency, __ATOMIC_RELAXED);
	do {
		if (likely(latency <= cur))
			return 0;
	} while (!__atomic_compare_exchange_n(&c->max_latency, &cur, latency, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return ut_max_new(latency, end, start_ip, end_ip);
}

/* signal.c */
void ut_signal_resolve(void);
/*
 * mmiotrace (runtime/tracers/mmiotrace.c): the program sets or asks for
 * its SIGSEGV or SIGTRAP handler while ours are installed: 1 if done
 * here (ours stay; the program's gets what is not ours).  And the
 * mappings of device memory, from the mmap and munmap wrappers.
 */
struct sigaction;
int ut_mmio_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
void ut_mmio_mmapped(void *p, size_t len, int prot, int flags, int fd, long off);
void ut_mmio_munmapped(void *p);

/* tracers/wakeup.c: the wake-ups of the wakeup (every thread) and wakeup_rt (SCHED_FIFO/RR) tracers */
enum { UT_WAKE_ALL = 1, UT_WAKE_RT = 2 };
extern int ut_wake_mode;
void ut_wake_resolve(void);
int ut_wake_on(void);
/*
 * The runtime's own futex calls: libc's syscall(), not the exported one
 * (tracers/wakeup.c), so the runtime's handshakes are no program wake-ups
 */
long ut_sys_futex(volatile uint32_t *uaddr, int op, uint32_t val, const struct timespec *to);
int ut_wake_mutex_lock(pthread_mutex_t *m, int (*trylock)(pthread_mutex_t *),
		       int (*lock)(pthread_mutex_t *), uintptr_t ip, uintptr_t parent);

/* profile.c: the max stack tracer and the function profiler */
#define UT_X_STACK	1
#define UT_X_PROF	2
extern int ut_extra;		/* UT_X_*: the C hooks call ut_prof_entry()/ut_prof_exit() */
extern int ut_ret_fast;		/* the return trampoline's fast path: TSC, no profiler */
void ut_extra_apply(void);
void ut_prof_atfork_child(void);
void ut_prof_entry(struct ut_thread *t, uintptr_t sp, uintptr_t ip, uintptr_t ret, int cyg,
		   uint64_t ts);
void ut_prof_exit(struct ut_thread *t, uint32_t d, uint64_t ts);
/* the mode whose sites are patched: the stack tracer and the profiler hook them with nop too */
static inline int ut_patch_mode(void)
{
	return ut_extra && ut_rec_mode == UT_MODE_NONE ? UT_MODE_FUNC : ut_rec_mode;
}

/* exec.c */
void ut_exec_resolve(void);
void ut_exec_init(void);

/* workqueue.c: the API's works (usertrace/workqueue.h): counts and events */
void ut_api_wq_insert(const char *wq, int req_cpu, int cpu, const void *work, const void *func);
void ut_api_wq_execute(const char *wq, int cpu, const void *work, const void *func, int end);

/* statarea.c: the statistics files (usertrace/statarea.h) */
/*
 * ut_stat_area - the payload (@size bytes, zeroed at first) of this
 * process image's statistics file NAME; the same one when asked again
 * with the same layout.  NULL, with a line in the session's errors, when
 * it cannot be made (no session, a bad name, no room).  Context: not the
 * hot path (it may take a lock and make a file).
 */
void *ut_stat_area(const char *name, uint32_t version, size_t size);
/*
 * ut_stat_on_sync - run @fn at each sync: it copies into its area what
 * its tracer counts in the program's memory.  0, or -1 when full.
 */
int ut_stat_on_sync(void (*fn)(void));
/* the sync: on the control thread at each generation, and at exit */
void ut_stat_sync(void);
void ut_stat_atfork_child(void);
/* the process image's id, as in the buffers' names */
uint64_t ut_image_id(void);

/* control.c */
void ut_control_start(void);
void ut_control_functions_changed(void);
const char *ut_session_dir(void);

/* dynamic.c */
struct sigaction;
void ut_dyn_scan(void);
void ut_dyn_forget(void);
void ut_dyn_lock(void);
void ut_dyn_unlock(void);
void ut_dyn_atfork(void);
void ut_dyn_apply(void);
void ut_dyn_write_functions(int fd);
int ut_dyn_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
extern char ut_return_trampoline[];

/* clock and cpu: the two reads of the hot path */
extern ptrdiff_t __rseq_offset __attribute__((weak));
extern unsigned int __rseq_size __attribute__((weak));

uint64_t ut_clock_mono(void);

/*
 * The current CPU in one load: glibc registers rseq, whose cpu_id the
 * kernel keeps current, at a fixed offset from the thread pointer.  Without
 * rseq the offset points at the thread's own last recorded CPU, which then
 * never changes (pages still carry the CPU they were started on).
 */
static inline uint32_t ut_cpu(void)
{
	uint32_t cpu;

	__asm__ __volatile__("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(ut_cpu_off));
	return cpu;
}

static inline uint64_t ut_clock(void)
{
	if (likely(ut_use_tsc)) {
		uint32_t lo, hi;

		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
	return ut_clock_mono();
}

/* tracers/sysprof.c */
void ut_sysprof_thread_start(void);
void ut_sysprof_thread_exit(void);
int ut_sysprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

#endif /* USERTRACE_RUNTIME_H */
