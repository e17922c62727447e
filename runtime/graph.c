// SPDX-License-Identifier: MIT
/*
 * graph.c - the hot path: function entry and exit hooks, the shadow stack.
 *
 * Three kinds of compiler instrumentation reach the same two hooks:
 *
 *   -pg             call mcount after the prologue: the return address of
 *                   the function is at 8(%rbp)       (arch/x86_64/mcount.S)
 *   -pg -mfentry    call __fentry__ before the prologue: the return address
 *                   is just above the fentry call's   (arch/x86_64/fentry.S)
 *   -finstrument-functions
 *                   __cyg_profile_func_enter/exit(fn, call_site) in C, below
 *
 * For mcount and fentry the exit is caught as the kernel's function_graph
 * tracer does: the entry hook saves the return address on a per-thread
 * shadow stack and replaces it with ut_return_trampoline; the function then
 * "returns" into the trampoline, which calls ut_graph_return() for the
 * original address.
 *
 * A frame of the shadow stack is found again by its slot (the address of the
 * return address).  That is what keeps the depth right when the program
 * leaves frames without returning:
 *
 *  - longjmp, or a signal handler that jumps out: the next entry sees that
 *    the top frame's slot lies below the new caller's slot (the stack grows
 *    down, so a live frame's slot is always above its callees' slots); such
 *    frames are over and are closed with an EXIT at once.
 *  - a tail call (jmp to another traced function) reuses the slot that
 *    already holds the trampoline: the callee is pushed without hooking,
 *    and both are closed when the trampoline fires for that slot.
 *  - C++ exceptions: see interpose.c; the unwinder must see the real
 *    return addresses.
 *
 * Frames popped without their function having returned through the
 * trampoline are remembered in a small graveyard: should one of them return
 * after all (another stack: swapcontext, sigaltstack), its original return
 * address is still known and the program goes on unharmed.
 *
 * Nothing here takes a lock, allocates or formats.  The only system calls
 * are the set-up of a thread's buffer at its first record (and of a new
 * one after buffer_size_kb changed, at a page start), and a futex wake of
 * the recorder when a page start finds the buffer half full or full (once
 * per half buffer at most, on the slow path).
 */
#include <stdlib.h>
#include <unistd.h>

#include <stddef.h>

#include "runtime/asm-offsets.h"
#include "runtime/runtime.h"

/* what the assembly fast paths (arch/x86_64/) know of the C layouts */
#define UT_OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " moved: fix asm-offsets.h")
UT_OFF(struct ut_thread, state, UT_T_STATE);
UT_OFF(struct ut_thread, depth, UT_T_DEPTH);
UT_OFF(struct ut_thread, busy, UT_T_BUSY);
UT_OFF(struct ut_thread, npending, UT_T_NPENDING);
UT_OFF(struct ut_thread, rec_depth, UT_T_REC_DEPTH);
UT_OFF(struct ut_thread, w.page, UT_T_PAGE);
UT_OFF(struct ut_thread, w.last_ts, UT_T_LAST_TS);
UT_OFF(struct ut_thread, w.cpu, UT_T_CPU);
UT_OFF(struct ut_thread, w.full, UT_T_FULL);
UT_OFF(struct ut_thread, frames, UT_T_FRAMES);
UT_OFF(struct ut_frame, slot, UT_F_SLOT);
UT_OFF(struct ut_frame, orig, UT_F_ORIG);
UT_OFF(struct ut_frame, ip, UT_F_IP);
UT_OFF(struct ut_frame, valid, UT_F_VALID);
UT_OFF(struct ut_frame, recorded, UT_F_RECORDED);
UT_OFF(struct rb_page, commit, UT_P_COMMIT);
UT_OFF(struct rb_page, entries, UT_P_ENTRIES);
UT_OFF(struct rb_page, data, UT_P_DATA);
UT_OFF(struct ut_session_ctl, tracing_on, UT_C_TRACING_ON);
_Static_assert(sizeof(struct ut_frame) == 1 << UT_F_SIZE_SHIFT, "ut_frame size");
_Static_assert(UT_A_TS_READY == UT_TS_READY && UT_A_FR_RECORDED == UT_FR_RECORDED &&
	       UT_A_SHADOW_MAX == UT_SHADOW_MAX &&
	       UT_A_DATA_SIZE == RB_DATA_SIZE && UT_A_DELTA_MAX == RB_DELTA_MAX &&
	       UT_A_TYPE_BITS == RB_TYPE_BITS, "asm-offsets.h constants");

__thread struct ut_thread ut_self __attribute__((tls_model("initial-exec")));

/* __ut_put() writes FUNC and ENTRY_PARENT alike, DEPTH and CPU alike */
_Static_assert(UT_REC_LEN(func) == UT_REC_LEN(entry_parent) &&
	       UT_REC_OFF(func, ip) == UT_REC_OFF(entry_parent, ip) &&
	       UT_REC_OFF(func, parent) == UT_REC_OFF(entry_parent, parent), "FUNC, ENTRY_PARENT");
_Static_assert(UT_REC_LEN(depth) == UT_REC_LEN(cpu) &&
	       UT_REC_OFF(depth, depth) == UT_REC_OFF(cpu, cpu), "DEPTH, CPU");

static __attribute__((always_inline)) inline int __ut_put(struct ut_thread *t, uint32_t type,
							  uint64_t ts, uint64_t ip,
			   uint64_t parent)
{
	struct rb_writer *w = &t->w;
	uint32_t len = ut_rec_info[type].base;
	unsigned char *p;

	p = rb_reserve(w, len, &ts);
	if (unlikely(!p))
		return 0;
	ut_rec_hdr(p, w, type, ts);
	switch (type) {
	case UT_REC_ENTRY:
		ut_put48(p + UT_REC_OFF(entry, ip), ip);
		break;
	case UT_REC_FUNC:
	case UT_REC_ENTRY_PARENT:
		ut_put48(p + UT_REC_OFF(func, ip), ip);
		ut_put48(p + UT_REC_OFF(func, parent), parent);
		break;
	case UT_REC_DEPTH:
	case UT_REC_CPU: {
		/*
		 * DEPTH states rec_depth as it is now: the page start inside
		 * rb_reserve() may have put calls back in the stream
		 */
		uint32_t v = type == UT_REC_DEPTH ? t->rec_depth : (uint32_t)ip;

		memcpy(p + UT_REC_OFF(depth, depth), &v, sizeof(v));
		break;
	}
	default:
		break;
	}
	/* DEPTH and CPU describe the stream; they are not events */
	rb_commit(w, len, ts, ut_rec_counts(type));
	if (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT)
		t->rec_depth++;
	else if (type == UT_REC_EXIT && t->rec_depth)
		t->rec_depth--;
	return 1;
}

/* a CPU record if the thread migrated */
static __attribute__((always_inline)) inline void ut_put_cpu(struct ut_thread *t, uint64_t ts)
{
	uint32_t cpu = ut_cpu();

	if (unlikely(cpu != t->w.cpu)) {
		t->w.cpu = cpu;
		/*
		 * Not an event: a CPU record dropped on a full buffer is not
		 * counted lost (the next page's header has the CPU anyway).
		 */
		if (unlikely(!__ut_put(t, UT_REC_CPU, ts, cpu, 0)) && t->w.lost_pending) {
			t->w.hdr->lost--;
			t->w.lost_pending--;
		}
	}
}

/* one record, with a CPU record first if the thread migrated */
static __attribute__((always_inline)) inline int ut_put(struct ut_thread *t, uint32_t type,
							uint64_t ts, uint64_t ip,
			 uint64_t parent)
{
	ut_put_cpu(t, ts);
	return __ut_put(t, type, ts, ip, parent);
}

/*
 * The EXIT of a call whose ENTRY is in the stream was dropped (full
 * buffer): the call is over all the same, so the stream no longer counts
 * it open.  The next page's DEPTH then says how many of the calls the
 * reader saw enter are still running, and the reader closes the others
 * there (doc/design/ring-buffer.md, "The DEPTH record at each page start").
 */
static inline void ut_exit_dropped(struct ut_thread *t)
{
	t->rec_depth -= !!t->rec_depth;
}

/*
 * Records parked by a signal handler that interrupted a write: write them
 * now.  The handler's calls open and close within the parked records: a
 * call whose parked ENTRY is dropped here (full buffer) loses its parked
 * EXIT too, as ut_lost_exit() does for the calls of the thread itself.
 */
__attribute__((noinline)) void ut_flush_pending(struct ut_thread *t)
{
	uint64_t dropped = 0;	/* bit k: the k-th open parked ENTRY was dropped */
	uint32_t i = 0, open = 0;

	t->busy = UT_BUSY();
	barrier();
	for (;;) {
		uint32_t n = __atomic_load_n(&t->npending, __ATOMIC_RELAXED), type;
		int ok;

		if (i == n) {
			/* a handler may add one right now: retry unless still n */
			if (__sync_bool_compare_and_swap(&t->npending, n, 0))
				break;
			continue;
		}
		type = t->pending[i].type;
		if (type == UT_REC_EXIT && open && open <= 64 && (dropped >> (open - 1) & 1)) {
			open--;
			ut_lost_exit(t);
			i++;
			continue;
		}
		ok = ut_put(t, type, t->pending[i].ts, t->pending[i].ip, t->pending[i].parent);
		if (type == UT_REC_ENTRY || type == UT_REC_ENTRY_PARENT) {
			if (open < 64)
				dropped = (dropped & ~(1ull << open)) | ((uint64_t)!ok << open);
			open++;
		} else if (type == UT_REC_EXIT) {
			open -= !!open;
			if (!ok)
				ut_exit_dropped(t);
		}
		i++;
	}
	barrier();
	t->busy = 0;
}

/* leave a write: give the buffer back, then write what a handler parked */
static inline void ut_release(struct ut_thread *t)
{
	barrier();
	t->busy = 0;
	barrier();
	if (unlikely(t->npending))
		ut_flush_pending(t);
}

/**
 * ut_write - write one record for the current thread
 *
 * Returns 1 if the record reached the buffer (or was parked to reach it
 * right after the interrupted write), 0 if it was dropped.
 *
 * Context: the thread itself, or a signal handler on it.  A handler that
 * finds the thread inside a write (busy) parks its record; the interrupted
 * writer writes the parked records as soon as it is done, so they follow it
 * in the buffer.
 */
int ut_write(struct ut_thread *t, uint32_t type, uint64_t ts, uint64_t ip, uint64_t parent)
{
	int ret;

	if (unlikely(t->busy)) {
		uint32_t n = t->npending;

		if (n >= UT_PENDING_MAX) {
			t->w.hdr->lost++;
			t->w.lost_pending++;
			return 0;
		}
		t->pending[n] = (struct ut_pending){ type, ts, ip, parent };
		barrier();
		t->npending = n + 1;
		return 1;
	}
	t->busy = UT_BUSY();
	barrier();
	ret = ut_put(t, type, ts, ip, parent);
	ut_release(t);
	return ret;
}

/* ut_write_fast() found something unusual; busy is held */
static __attribute__((noinline)) int ut_write_held(struct ut_thread *t, uint32_t type, uint64_t ts,
						  uint64_t ip)
{
	int ret = ut_put(t, type, ts, ip, 0);

	ut_release(t);
	return ret;
}

/*
 * The hot path's write, in two halves that ut_write_fast(), ut_graph_entry()
 * and ut_graph_return() share.
 *
 * ut_take - take the buffer and check for the usual case: room in the
 * page, a delta that fits, not full, no migration.  `busy` is set before
 * the page offset is read, so a signal handler that arrives in between
 * writes its record first and we append after it.  Returns the page, or
 * NULL (busy still held) when the general path must be taken.
 */
static __attribute__((always_inline)) inline struct rb_page *
ut_take(struct ut_thread *t, uint32_t len, uint64_t ts, uint32_t *off, uint64_t *delta)
{
	struct rb_page *p;

	t->busy = UT_BUSY();
	barrier();
	p = t->w.page;
	*off = p->commit;
	*delta = ts - t->w.last_ts;
	if (unlikely(*off + len > RB_DATA_SIZE || *delta > RB_DELTA_MAX || t->w.full ||
		     ut_cpu() != t->w.cpu))
		return NULL;
	return p;
}

/*
 * ut_store - write an ENTRY or EXIT at @off and commit it: the header
 * and the ip, in two stores (as arch/x86_64/entry.h does), or the header
 */
_Static_assert(UT_REC_OFF(entry, ip) == sizeof(uint32_t) &&
	       UT_REC_LEN(entry) == UT_REC_OFF(entry, ip) + UT_ADDR_BYTES &&
	       UT_REC_LEN(exit) == sizeof(uint32_t), "ut_store() writes ENTRY and EXIT as entries.h has them");
static __attribute__((always_inline)) inline void
ut_store(struct ut_thread *t, struct rb_page *p, uint32_t off, uint32_t type, uint32_t len,
	 uint64_t delta, uint64_t ts, uint64_t ip)
{
	/* header and the low half of the address in one store */
	uint64_t v = RB_HDR(type, delta) | (ip << 32);

	if (len == UT_REC_LEN(entry)) {
		uint16_t hi = (uint16_t)(ip >> 32);

		memcpy(p->data + off, &v, sizeof(v));
		memcpy(p->data + off + UT_REC_OFF(entry, ip) + 4, &hi, sizeof(hi));
		t->rec_depth++;
	} else {
		uint32_t h = (uint32_t)v;

		memcpy(p->data + off, &h, sizeof(h));
		t->rec_depth -= !!t->rec_depth;
	}
	t->w.last_ts = ts;
	p->entries++;
	__atomic_store_n(&p->commit, off + len, __ATOMIC_RELEASE);
}

/*
 * ut_write_fast - ENTRY or EXIT, the two records of the hot path
 *
 * The common case inline; anything else goes through ut_write().
 */
static __attribute__((always_inline)) inline int
ut_write_fast(struct ut_thread *t, uint32_t type, uint32_t len, uint64_t ts, uint64_t ip)
{
	struct rb_page *p;
	uint64_t delta;
	uint32_t off;

	if (unlikely(t->busy))
		return ut_write(t, type, ts, ip, 0);
	p = ut_take(t, len, ts, &off, &delta);
	if (unlikely(!p))
		return ut_write_held(t, type, ts, ip);
	ut_store(t, p, off, type, len, delta, ts, ip);
	ut_release(t);
	return 1;
}

/*
 * The EXIT of a call whose ENTRY was dropped is not written (the reader
 * could not pair it) but it is lost all the same: count it, so that
 * entries + lost is every record the program produced.
 */
void ut_lost_exit(struct ut_thread *t)
{
	if (t->w.hdr) {
		t->w.hdr->lost++;
		t->w.lost_pending++;
	}
}

static int ut_write_ips(struct ut_thread *t, uint32_t type, const uintptr_t *ips, uint32_t n,
			uint64_t ts);

/*
 * A page after lost records: the calls that began while records were
 * dropped and are still running have no ENTRY in the stream, so their
 * EXITs would not be written and their callees would show under the wrong
 * caller.  They are put back in the stream instead: after the DEPTH (the
 * calls the reader saw enter that are still open), a STACK names all the
 * open calls, theirs last (a second DEPTH if there are more than
 * UT_STACK_MAX), and from then on they are recorded frames whose EXIT is
 * written.  The reader knows them by name but not when they began.
 *
 * Only the frames above the innermost recorded one: while the buffer was
 * full everything was dropped, so the calls entered meanwhile are the
 * innermost.  And only when the recorded frames below are exactly the
 * stream's open ENTRYs: not while an EXIT of ut_close_frames() is being
 * written (that frame is no longer below t->depth), nor after a parked
 * ENTRY was dropped.  Context: inside the write that started the page.
 */
static void ut_restate(struct ut_thread *t, uint64_t ts)
{
	uintptr_t ips[UT_STACK_MAX];
	uint32_t top = t->depth, r = 0, n = 0, i, k = 0;
	int ok;

	while (top && !(t->frames[top - 1].valid && t->frames[top - 1].recorded == UT_FR_RECORDED))
		top--;
	for (i = 0; i < t->depth; i++) {
		const struct ut_frame *f = &t->frames[i];

		if (!f->valid)
			continue;	/* being pushed: its own ENTRY follows */
		if (i < top && f->recorded == UT_FR_RECORDED)
			r++;
		else if (i >= top && f->recorded == UT_FR_LOST)
			n++;
	}
	if (!n || r != t->rec_depth)
		return;
	if (r + n <= UT_STACK_MAX) {
		for (i = 0; i < t->depth; i++) {
			const struct ut_frame *f = &t->frames[i];

			if (f->valid && f->recorded == (i < top ? UT_FR_RECORDED : UT_FR_LOST))
				ips[k++] = f->ip;
		}
		ok = ut_write_ips(t, UT_REC_STACK, ips, k, ts);
	} else {
		t->rec_depth = r + n;
		ok = __ut_put(t, UT_REC_DEPTH, ts, 0, 0);
	}
	t->rec_depth = r;
	if (!ok)
		return;
	for (i = top; i < t->depth; i++)
		if (t->frames[i].valid && t->frames[i].recorded == UT_FR_LOST)
			t->frames[i].recorded = UT_FR_RECORDED;
	t->rec_depth = r + n;
}

/* a CTX record (entries.h); a page start inside restates the context already */
static int ut_put_ctx_task(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt,
			   const struct ut_ctx_task *task)
{
	uint16_t n = UT_REC_OFF(ctx, task) - UT_REC_SIZED_BASE + (task ? sizeof(*task) : 0);
	unsigned char *p = rb_reserve(&t->w, UT_REC_SIZED_BASE + n, &ts);

	if (!p)
		return 0;
	ut_rec_hdr(p, &t->w, UT_REC_CTX, ts);
	ut_rec_put_n(p, n);
	p[UT_REC_OFF(ctx, flags)] = ctx;
	p[UT_REC_OFF(ctx, preempt)] = preempt;
	if (task)
		memcpy(p + UT_REC_OFF(ctx, task), task, sizeof(*task));
	rb_commit(&t->w, UT_REC_SIZED_BASE + n, ts, ut_rec_counts(UT_REC_CTX));
	return 1;
}

static int ut_put_ctx(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt)
{
	return ut_put_ctx_task(t, ts, ctx, preempt, NULL);
}

/*
 * First record of every page: the depth of the stream (open ENTRYs), so a
 * reader can start at any page.  Not t->depth: the shadow stack already
 * counts the call whose ENTRY is being written.  After lost records the
 * calls entered meanwhile follow (ut_restate()).
 */
void ut_page_start(struct rb_writer *w, uint64_t ts)
{
	struct ut_thread *t = &ut_self;

	__ut_put(t, UT_REC_DEPTH, ts, 0, 0);
	if (unlikely(t->tr.lat.wctx | t->tr.lat.wpreempt) && (ut_lat_mode | ut_wake_mode))
		ut_put_ctx(t, ts, t->tr.lat.wctx, t->tr.lat.wpreempt);
	if (unlikely(w->page->flags & RB_PAGE_LOST_MASK) && ut_rec_mode == UT_MODE_GRAPH)
		ut_restate(t, ts);
}

/*
 * ut_write_ctx - the thread's context (tracers/irqsoff.c) from @ts on: a CTX
 * record.  Returns 1 if written.  Context: the thread, outside a write
 * (a write it interrupts loses it).
 */
int ut_write_ctx(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt)
{
	int ret;

	if (unlikely(t->busy))
		return 0;
	t->busy = UT_BUSY();
	barrier();
	ret = ut_put_ctx(t, ts, ctx, preempt);
	ut_release(t);
	return ret;
}

/*
 * ut_write_task - a latency report at @ts: the context unchanged, and the
 * thread's identity for the header's task line.  Context: as
 * ut_write_ctx(); system calls (the reports only).
 */
int ut_write_task(struct ut_thread *t, uint64_t ts, uint8_t ctx, uint8_t preempt)
{
	struct ut_ctx_task task;
	int ret;

	if (unlikely(t->busy))
		return 0;
	ut_task_get(&task);
	t->busy = UT_BUSY();
	barrier();
	ret = ut_put_ctx_task(t, ts, ctx, preempt, &task);
	ut_release(t);
	return ret;
}

/* a STACK, TRACE or TRACE_DIR (@dir) record of @n addresses */
_Static_assert(UT_REC_OFF(stack, ips) == UT_REC_OFF(trace, ips), "STACK, TRACE");
static int ut_write_ips_dir(struct ut_thread *t, uint32_t type, const uintptr_t *ips, uint32_t n,
			    uint64_t ts, uint16_t dir)
{
	/* TRACE_DIR: its u16 counts bytes, the dir's two included (entries.h) */
	uint32_t base = type == UT_REC_TRACE_DIR ? UT_REC_OFF(trace_dir, ips) : UT_REC_OFF(stack, ips);
	uint32_t len = base + UT_ADDR_BYTES * n;
	uint16_t n16 = (uint16_t)(type == UT_REC_TRACE_DIR ? len - UT_REC_SIZED_BASE : n);
	unsigned char *p;

	p = rb_reserve(&t->w, len, &ts);
	if (!p)
		return 0;
	ut_rec_hdr(p, &t->w, type, ts);
	ut_rec_put_n(p, n16);
	if (type == UT_REC_TRACE_DIR)
		memcpy(p + UT_REC_OFF(trace_dir, dir), &dir, sizeof(dir));
	for (uint32_t i = 0; i < n; i++)
		ut_put48(p + base + UT_ADDR_BYTES * i, ips[i]);
	rb_commit(&t->w, len, ts, ut_rec_counts(type));
	return 1;
}

static int ut_write_ips(struct ut_thread *t, uint32_t type, const uintptr_t *ips, uint32_t n,
			uint64_t ts)
{
	return ut_write_ips_dir(t, type, ips, n, ts, 0);
}

/*
 * The first records of a buffer that replaced another (a resize): the
 * calls whose ENTRY is open in the stream, by address, so that their
 * returns are named.  Context: inside the write that started the page.
 */
void ut_renew_stack(struct ut_thread *t, uint64_t ts)
{
	uintptr_t ips[UT_STACK_MAX];
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->depth; i++) {
		if (t->frames[i].recorded != UT_FR_RECORDED)
			continue;
		if (n == UT_STACK_MAX || n == t->rec_depth)
			return;		/* the DEPTH record says enough */
		ips[n++] = t->frames[i].ip;
	}
	if (n == t->rec_depth && n)
		ut_write_ips(t, UT_REC_STACK, ips, n, ts);
}

/**
 * ut_emit_stack - write the open frames (a forked child inherits them)
 */
void ut_emit_stack(struct ut_thread *t)
{
	uint32_t n = t->depth < UT_STACK_MAX ? t->depth : UT_STACK_MAX;
	uintptr_t ips[UT_STACK_MAX];

	for (uint32_t i = 0; i < n; i++)
		ips[i] = t->frames[t->depth - n + i].ip;
	t->busy = UT_BUSY();
	barrier();
	if (ut_write_ips(t, UT_REC_STACK, ips, n, ut_clock()))
		t->rec_depth = n;
	barrier();
	t->busy = 0;
}

/**
 * ut_write_trace - a TRACE record (stacktrace command): @ips innermost first
 *
 * Context: the thread, not inside a write (the hooks' C path).
 */
void ut_write_trace(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts)
{
	ut_write_trace_dir(t, ips, n, ts, 0);
}

/**
 * ut_write_trace_dir - a stacktrace trigger's record for directory @dir
 * (entries.h's TRACE_DIR: 1 the top, d + 1 instance dirs[d]; 0: a TRACE
 * record, which every directory shows)
 */
void ut_write_trace_dir(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts,
			uint32_t dir)
{
	if (n > UT_STACK_MAX)
		return;
	if (t->busy) {
		ut_lost_exit(t);	/* a handler inside a write: counted lost */
		return;
	}
	t->busy = UT_BUSY();
	barrier();
	ut_write_ips_dir(t, dir ? UT_REC_TRACE_DIR : UT_REC_TRACE, ips, n, ts, (uint16_t)dir);
	ut_release(t);
}

/* the EVENT record of @ent (@size bytes) at @ts; 1 if written.  Context: inside @t's write */
static inline int ut_put_event(struct ut_thread *t, const struct ut_trace_entry *ent, uint32_t size,
			       uint64_t ts)
{
	uint32_t len = UT_REC_SIZED_BASE + size;
	uint16_t n16 = (uint16_t)size;
	unsigned char *p;

	ut_put_cpu(t, ts);
	p = rb_reserve(&t->w, len, &ts);
	if (!p)
		return 0;
	ut_rec_hdr(p, &t->w, UT_REC_EVENT, ts);
	ut_rec_put_n(p, n16);
	memcpy(p + UT_REC_OFF(event, entry), ent, size);
	rb_commit(&t->w, len, ts, ut_rec_counts(UT_REC_EVENT));
	return 1;
}

/*
 * ut_write_entry_at - @t's entry @ent (@size bytes, every field set by
 * the caller, common_pid included) at @ts: a record the thread writes
 * for another (the wakeup tracers' wake-up, whose common_pid is the
 * waker).  No filter, no trigger.  Returns 1 if written.
 */
int ut_write_entry_at(struct ut_thread *t, const struct ut_trace_entry *ent, uint32_t size,
		      uint64_t ts)
{
	int ok;

	if (size < sizeof(*ent) || size > UT_EVENT_MAX || t->state != UT_TS_READY || t->busy)
		return 0;
	t->busy = UT_BUSY();
	barrier();
	ok = ut_put_event(t, ent, size, ts);
	ut_release(t);
	return ok;
}

/**
 * ut_write_event - an EVENT record: the entry @ent of @size bytes
 *
 * Fills the common fields but common_type (the caller's id): common_pid
 * is the thread; flags and preempt_count stay 0 until a tracer keeps
 * track of signal handlers and preemption.  Writes nothing while
 * tracing is off or the thread is not selected (set_event_pid); a
 * handler inside a write on the same thread counts the event lost (no
 * parking for records of any size).  @filtered: the event has a filter
 * (usertrace/evreg.h), run once the common fields are filled and before
 * anything is reserved, so that an entry it drops costs no room.
 * Returns 1 if the record was written.
 *
 * Context: any thread of the program, outside the runtime.
 */
int ut_write_event(struct ut_trace_entry *ent, uint32_t size, int filtered)
{
	struct ut_thread *t = &ut_self;
	int ok;

	if (size < sizeof(*ent) || size > UT_EVENT_MAX)
		return 0;
	if (unlikely(t->state != UT_TS_READY) &&
	    (t->state != UT_TS_NEW || ut_thread_setup(t) != 0))
		return 0;
	if (!ut_ctl->tracing_on || (unlikely(ut_ev_filter) && !ut_ev_allowed(t)))
		return 0;
	if (t->busy) {
		ut_lost_exit(t);
		return 0;
	}
	t->busy = UT_BUSY();
	barrier();
	ent->flags = 0;
	ent->preempt_count = 0;
	ent->pid = t->tid;
	if (unlikely(filtered) && !ut_events_filter(ent, size)) {
		ut_release(t);
		return 0;
	}
	ok = ut_put_event(t, ent, size, ut_clock());
	ut_release(t);
	return ok;
}

/* a RETURN record (tracing_thresh): the call of @ip at @depth lasted @dur */
static void ut_write_return(struct ut_thread *t, uintptr_t ip, uint32_t depth, uint64_t dur,
			    uint64_t ts)
{
	unsigned char *p;
	uint16_t d16 = depth > 0xffff ? 0xffff : (uint16_t)depth;

	if (t->busy) {
		ut_lost_exit(t);
		return;
	}
	t->busy = UT_BUSY();
	barrier();
	p = rb_reserve(&t->w, UT_REC_LEN(return), &ts);
	if (p) {
		ut_rec_hdr(p, &t->w, UT_REC_RETURN, ts);
		ut_put48(p + UT_REC_OFF(return, ip), ip);
		memcpy(p + UT_REC_OFF(return, depth), &d16, sizeof(d16));
		ut_put48(p + UT_REC_OFF(return, duration), dur);
		rb_commit(&t->w, UT_REC_LEN(return), ts, ut_rec_counts(UT_REC_RETURN));
	}
	ut_release(t);
}

static inline int ut_ready(struct ut_thread *t)
{
	/* with filters, function commands (traceon) run while tracing is off */
	/* the stack tracer and the profiler too: they do not stop with tracing_on */
	if (likely(t->state == UT_TS_READY))
		return (ut_ctl->tracing_on || ut_filtering || ut_extra) &&
		       (likely(!ut_rec_filter) || ut_rec_allowed(t));
	if (t->state != UT_TS_NEW)
		return 0;
	return ut_thread_setup(t) == 0 && (ut_ctl->tracing_on || ut_filtering || ut_extra) &&
	       (!ut_rec_filter || ut_rec_allowed(t));
}

static inline int ut_same_stack(struct ut_thread *t, uintptr_t a, uintptr_t b)
{
	if (!t->stack_hi)
		return 1;
	return (a - t->stack_lo < t->stack_hi - t->stack_lo) ==
	       (b - t->stack_lo < t->stack_hi - t->stack_lo);
}

static void ut_bury(struct ut_thread *t, struct ut_frame *f)
{
	if (!f->orig)
		return;
	t->grave[t->grave_next % UT_GRAVE_MAX] = (struct ut_grave){ f->slot, f->orig };
	t->grave_next++;
}

/*
 * The call of frame @d has ended (the frame is already off the shadow
 * stack, or about to be): write what its kind of frame needs.
 */
void ut_frame_end(struct ut_thread *t, uint32_t d, uint64_t ts)
{
	struct ut_frame *f = &t->frames[d];

	if (unlikely(ut_extra & UT_X_PROF))
		ut_prof_exit(t, d, ts);
	switch (f->recorded) {
	case UT_FR_RECORDED:
		if (unlikely(!ut_write_fast(t, UT_REC_EXIT, UT_REC_LEN(exit), ts, 0)))
			ut_exit_dropped(t);
		break;
	case UT_FR_LOST:
		ut_lost_exit(t);
		break;
	case UT_FR_THRESH: {
		uint64_t t0 = UT_FRAME_TS(t)[d];

		if (ts - t0 >= ut_ctl->tracing_thresh)
			ut_write_return(t, f->ip, d, ts - t0, ts);
		break;
	}
	default:
		break;
	}
}

/*
 * Close frames [to, depth) that ended without returning through us
 * (longjmp, exception, tail call): one EXIT each, at @ts.
 */
static void ut_close_frames(struct ut_thread *t, uint32_t to, uint64_t ts, int bury)
{
	uint32_t d = t->depth;

	t->depth = to;
	barrier();
	while (d-- > to) {
		if (bury)
			ut_bury(t, &t->frames[d]);
		ut_frame_end(t, d, ts);
	}
	if (unlikely(to < t->cbase))
		ut_ctx_trim(t);
}

/* the frames [to, depth) are over, their slots not hooked (context.c) */
void ut_close_to(struct ut_thread *t, uint32_t to, uint64_t ts)
{
	if (to < t->depth)
		ut_close_frames(t, to, ts, 0);
}

/* frames of suspended contexts were closed: forget those contexts */
void ut_ctx_trim(struct ut_thread *t)
{
	while (t->nctx && t->ctx[t->nctx - 1].end > t->depth)
		t->nctx--;
	t->cbase = t->nctx ? t->ctx[t->nctx - 1].end : 0;
}

/*
 * Frames whose slot lies below @slot on the same stack are over; so is a
 * frame with the very same slot when @inclusive (the new call was not a
 * tail call, so nothing can still own that slot).
 */
static inline void ut_drop_stale(struct ut_thread *t, uintptr_t slot, int inclusive, uint64_t ts)
{
	uint32_t d = t->depth;

	while (d > t->cbase && t->frames[d - 1].valid &&
	       (t->frames[d - 1].slot < slot || (inclusive && t->frames[d - 1].slot == slot)) &&
	       ut_same_stack(t, t->frames[d - 1].slot, slot))
		d--;
	if (d != t->depth)
		ut_close_frames(t, d, ts, 1);
}

/**
 * ut_unwind_to - the stack is about to be cut back to @sp (longjmp)
 *
 * Frames below @sp on the same stack end now.
 */
void ut_unwind_to(struct ut_thread *t, uintptr_t sp, uint64_t ts)
{
	uint32_t d = t->depth;
	int abandoned = 0;

	/*
	 * A signal handler jumping out of a write it interrupted: that write
	 * never finishes.  Release the buffer and write what the handler
	 * parked; the abandoned record may or may not have been committed, so
	 * the stream's depth is stated again below.
	 */
	if (unlikely(t->busy) && t->busy < sp) {
		t->busy = 0;
		barrier();
		abandoned = 1;
		if (t->npending)
			ut_flush_pending(t);
	}
	/*
	 * Half-built frames too: the jump abandons the code that was building
	 * them.  Not the frames of suspended contexts (other stacks).
	 */
	while (d > t->cbase && t->frames[d - 1].slot < sp &&
	       ut_same_stack(t, t->frames[d - 1].slot, sp))
		d--;
	if (d != t->depth)
		ut_close_frames(t, d, ts, 1);
	/*
	 * The jump may also have cut a hook short between popping a frame and
	 * writing its EXIT: if the stream's open ENTRYs and the shadow stack
	 * disagree, tell the reader the right depth.
	 */
	if (t->state == UT_TS_READY) {
		uint32_t open = 0;

		for (uint32_t i = 0; i < t->depth; i++)
			open += t->frames[i].recorded == UT_FR_RECORDED;
		if (abandoned || open != t->rec_depth) {
			t->rec_depth = open;
			ut_write(t, UT_REC_DEPTH, ts, open, 0);
		}
	}
}

/*
 * Push a frame for a call.  @kind is UT_FE_TRACE (write its ENTRY) or,
 * when filters are in force, UT_FE_NOTRACE or UT_FE_THRESH (write nothing
 * now; see enum ut_frame_rec).
 */
static void ut_push(struct ut_thread *t, uintptr_t slot, uintptr_t orig, uintptr_t ip,
		    uint64_t ts, uint64_t parent, int kind)
{
	uint32_t d = t->depth;
	struct ut_frame *f;

	if (unlikely(d >= UT_SHADOW_MAX)) {
		t->skipped++;
		return;
	}
	f = &t->frames[d];
	/*
	 * The slot is written before the frame is published and again after
	 * (a signal handler may have used this entry in between): a handler
	 * that sees the half-built frame knows its slot, so a longjmp out of
	 * the handler can tell whether it is abandoned.
	 */
	f->valid = 0;
	f->recorded = UT_FR_LOST;
	f->slot = slot;
	barrier();
	t->depth = d + 1;
	barrier();
	f->slot = slot;
	f->orig = orig;
	f->ip = ip;
	if (unlikely(kind != UT_FE_TRACE)) {
		UT_FRAME_TS(t)[d] = ts;
		f->recorded = kind == UT_FE_NOTRACE || kind == UT_FE_HIDDEN ? UT_FR_NOTRACE :
			      kind == UT_FE_THRESH ? UT_FR_THRESH : UT_FR_SKIP;
	} else if (likely(d)) {
		f->recorded = ut_write_fast(t, UT_REC_ENTRY, UT_REC_LEN(entry), ts, ip);
	} else {
		f->recorded = ut_write(t, UT_REC_ENTRY_PARENT, ts, ip, parent);
	}
	barrier();
	f->valid = 1;
}

/* the entry, every case: other tracers, filters, depth 0, stale frames, tail calls */
static void ut_graph_entry_slow(struct ut_thread *t, uintptr_t *slot,
				uintptr_t ip, uintptr_t ret, uint64_t ts)
{
	int tail = ret == (uintptr_t)ut_return_trampoline, kind = UT_FE_TRACE;
	int extra = ut_extra;

	if ((ut_rec_mode == UT_MODE_GRAPH || extra) && t->depth &&
	    t->frames[t->depth - 1].slot <= (uintptr_t)slot)
		ut_drop_stale(t, (uintptr_t)slot, !tail, ts);
	if (unlikely(extra))
		ut_prof_entry(t, (uintptr_t)slot, ip, ret, 0, ts);
	if (unlikely(ut_filtering)) {
		/* the function tracer's parent: the real return address */
		uintptr_t parent = tail && t->depth ? t->frames[t->depth - 1].orig : ret;

		kind = ut_filter_entry(t, ip, parent, ts);
		/* not recorded; the profilers still want the frame (as the cyg path) */
		if ((kind == UT_FE_SKIP || kind == UT_FE_HIDDEN) && !extra)
			return;
	} else if (unlikely(ut_rec_mode != UT_MODE_GRAPH)) {
		if (ut_rec_mode == UT_MODE_FUNC && ut_ctl->tracing_on) {
			uintptr_t parent = tail && t->depth ? t->frames[t->depth - 1].orig : ret;

			ut_write(t, UT_REC_FUNC, ts, ip, parent);
		}
		/*
		 * the profiler times the call, the stack tracer walks the
		 * frames: a frame that records nothing
		 */
		if (!extra)
			return;
		kind = UT_FE_SKIP;
	} else if (unlikely(extra) && !ut_ctl->tracing_on) {
		kind = UT_FE_SKIP;	/* the profiler's frame, tracing off */
	}
	if (unlikely(t->depth >= UT_SHADOW_MAX)) {
		t->skipped++;
		return;
	}
	if (tail) {
		/* tail call: the frame below owns this slot */
		ut_push(t, (uintptr_t)slot, 0, ip, ts, 0, kind);
		return;
	}
	*slot = (uintptr_t)ut_return_trampoline;
	ut_push(t, (uintptr_t)slot, ret, ip, ts, ret, kind);
}

/**
 * ut_graph_entry - the entry hook's general path
 * @slot: where the function's return address is
 * @ip: an address inside the function (the return address of the hook call)
 *
 * mcount and __fentry__ (arch/x86_64/entry.h) do the usual case in
 * assembly and call this for everything else: the first record of a
 * thread, depth 0, frames to close, tail calls, the function tracer, the
 * clock_gettime clock, a signal handler inside a write, a page to start.
 */
void ut_graph_entry(uintptr_t *slot, uintptr_t ip)
{
	struct ut_thread *t = &ut_self;

	if (unlikely(!ut_ready(t)))
		return;
	ut_graph_entry_slow(t, slot, ip, *slot, ut_clock());
}

static uintptr_t ut_grave_find(struct ut_thread *t, uintptr_t slot)
{
	for (uint32_t i = 0; i < UT_GRAVE_MAX; i++) {
		struct ut_grave *g = &t->grave[(t->grave_next - 1 - i) % UT_GRAVE_MAX];

		if (g->slot == slot && g->orig) {
			uintptr_t orig = g->orig;

			g->orig = 0;
			return orig;
		}
	}
	return 0;
}

/* pop to the frame that hooked @slot, closing those above it */
static uintptr_t ut_graph_return_slow(struct ut_thread *t, uintptr_t slot,
								  uint64_t ts)
{
	uint32_t d = t->depth;
	uintptr_t orig;

	/* the innermost frame that hooked this slot; frames above it are over */
	while (d && !(t->frames[d - 1].slot == slot && t->frames[d - 1].orig))
		d--;
	if (unlikely(!d)) {
		orig = ut_grave_find(t, slot);
		if (!orig)
			ut_fatal_lost_return(slot);
		return orig;
	}
	orig = t->frames[d - 1].orig;
	ut_close_frames(t, d - 1, ts, 0);
	return orig;
}

/**
 * ut_graph_return - the return trampoline's general path
 * @slot: where the return address was (the function has just returned)
 *
 * Returns the original return address.  ut_return_trampoline
 * (arch/x86_64/trampoline.S) does the usual case in assembly: the top
 * frame returns and its EXIT fits in the page.
 */
uintptr_t ut_graph_return(uintptr_t slot)
{
	return ut_graph_return_slow(&ut_self, slot, ut_clock());
}

/* ut_cyg_enter() with the stack tracer or the profiler on */
static __attribute__((noinline)) void ut_cyg_enter_extra(struct ut_thread *t, uintptr_t fn,
							 uintptr_t call_site, uintptr_t sp,
							 uint64_t ts)
{
	int kind = UT_FE_TRACE;

	ut_prof_entry(t, sp, fn, call_site, 1, ts);
	if (ut_filtering) {
		kind = ut_filter_entry(t, fn, call_site, ts);
		if (ut_rec_mode != UT_MODE_GRAPH)
			kind = UT_FE_SKIP;
	} else if (ut_rec_mode != UT_MODE_GRAPH) {
		if (ut_rec_mode == UT_MODE_FUNC && ut_ctl->tracing_on)
			ut_write(t, UT_REC_FUNC, ts, fn, call_site);
		kind = UT_FE_SKIP;
	} else if (!ut_ctl->tracing_on) {
		kind = UT_FE_SKIP;
	}
	/* every exit comes to the exit hook: a frame for each call, to pair with it */
	ut_push(t, sp, 0, fn, ts, call_site, kind);
}

/* -finstrument-functions: arch/x86_64/cyg.S adds @sp, the caller's stack pointer */
void ut_cyg_enter(void *fn, void *call_site, uintptr_t sp)
{
	struct ut_thread *t = &ut_self;
	int kind = UT_FE_TRACE;
	uint64_t ts;

	if (unlikely(!ut_ready(t)))
		return;
	ts = ut_clock();
	/*
	 * A caller's frame is above its callee's, or at the same place when
	 * the callee was inlined (-finstrument-functions instruments inlined
	 * functions too, from their caller's frame): only frames below are
	 * stale (their exits were skipped).
	 */
	if ((ut_rec_mode == UT_MODE_GRAPH || ut_extra) && t->depth && t->frames[t->depth - 1].slot < sp)
		ut_drop_stale(t, sp, 0, ts);
	if (unlikely(ut_extra)) {
		/* the stack tracer and the profiler (profile.c) */
		ut_cyg_enter_extra(t, (uintptr_t)fn, (uintptr_t)call_site, sp, ts);
		return;
	}
	if (unlikely(ut_filtering)) {
		kind = ut_filter_entry(t, (uintptr_t)fn, (uintptr_t)call_site, ts);
		/*
		 * Every exit of -finstrument-functions code comes here, traced
		 * or not: a call not traced gets a silent frame (under a
		 * notrace one, a notrace frame) so that its exit pairs with it.
		 */
		if (ut_rec_mode != UT_MODE_GRAPH)
			return;
	} else if (ut_rec_mode == UT_MODE_FUNC) {
		ut_write(t, UT_REC_FUNC, ts, (uintptr_t)fn, (uintptr_t)call_site);
		return;
	} else if (ut_rec_mode != UT_MODE_GRAPH) {
		return;
	}
	ut_push(t, sp, 0, (uintptr_t)fn, ts, (uintptr_t)call_site, kind);
}

EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	struct ut_thread *t = &ut_self;
	uint32_t d;
	uint64_t ts;

	(void)call_site;
	if (unlikely(t->state != UT_TS_READY) || (ut_rec_mode != UT_MODE_GRAPH && !ut_extra))
		return;
	ts = ut_clock();
	d = t->depth;
	/* the usual case: the top frame ends, its ENTRY reached the buffer */
	if (likely(d > t->cbase && !ut_extra && t->frames[d - 1].ip == (uintptr_t)fn &&
		   t->frames[d - 1].recorded == UT_FR_RECORDED)) {
		t->depth = d - 1;
		barrier();
		if (unlikely(!ut_write_fast(t, UT_REC_EXIT, UT_REC_LEN(exit), ts, 0)))
			ut_exit_dropped(t);
		return;
	}
	/* not the frames of suspended contexts: this exit is not theirs */
	while (d > t->cbase && t->frames[d - 1].ip != (uintptr_t)fn)
		d--;
	if (d > t->cbase)
		ut_close_frames(t, d - 1, ts, 0);
}
