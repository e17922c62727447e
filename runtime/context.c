// SPDX-License-Identifier: MIT
/*
 * context.c - swapcontext and setcontext: one call graph across contexts.
 *
 * A context (makecontext, or one saved by swapcontext) runs on a stack of
 * its own.  Its calls are shown where it runs: nested under the call that
 * switched to it, as if that call had made them.  When it switches away,
 * its open calls end for the reader (one EXIT each) and begin again, at
 * the depth of whoever resumes it, when it is resumed (one ENTRY each):
 * every ENTRY still has its EXIT, and the calls of the other contexts
 * keep theirs, so durations stay right.
 *
 * The shadow stack is the chain of the contexts that switched into one
 * another, each with its own frames on top of the one before it:
 *
 *   frames[0, ctx[0].end)                the first context's own calls
 *   frames[ctx[0].end, ctx[1].end)       those of the context it switched to
 *   ...
 *   frames[cbase, depth)                 the running context's
 *
 * ctx[] keeps, per suspended context of the chain, its swapcontext call
 * (token and serial) and the end of its frames.  swapcontext, in the
 * context it leaves:
 *
 *   - copies that context's own frames [cbase, depth) into its save area
 *     (in its stack frame) and gives their slots their real return
 *     addresses back: a suspended context never returns through us, so it
 *     can be resumed by anyone, on any thread (whose call graph its calls
 *     then join), or never;
 *   - puts itself on top of the chain: what runs next nests above it.
 *
 * Then, back in that swapcontext call when the context is resumed:
 *
 *   - if the call is in the chain (a context it switched to, directly or
 *     not, switched back: the usual yield), the frames above its own are
 *     over for now: EXITs, and the chain is cut back to it;
 *   - if not (the context was left for an earlier one and is resumed
 *     anew: a coroutine resumed by the scheduler), its frames go on top of
 *     the running context's, with new ENTRYs.
 *
 * Either way its own frames are hooked again.  A makecontext context
 * starts with no frames: its calls simply nest.  setcontext is a switch
 * whose caller is never resumed; to a context saved by getcontext on the
 * same stack, below the caller's frames, it is a longjmp.
 *
 * Frames move while the hooks look away (state UT_TS_INTERNAL), so a
 * signal handler's calls are not traced meanwhile.  Nothing here is on
 * the hot path.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "runtime/runtime.h"

#define UT_CTX_INLINE	8	/* frames saved in the stack frame; more are malloc'ed */

/* what swapcontext keeps of the context it leaves, until it is resumed */
struct ut_ctx_save {
	struct ut_thread *t;	/* the thread it left; NULL: nothing to do on resume */
	uint64_t serial;
	uint32_t n;
	struct ut_frame *f;	/* n frames */
	uint64_t *ts;		/* their entry times (tracing_thresh) */
	void *heap;		/* f and ts when they did not fit below */
	struct ut_frame inl[UT_CTX_INLINE];
	uint64_t inl_ts[UT_CTX_INLINE];
};

/* with the save area's address, names one swapcontext call of the process */
static uint64_t ut_ctx_serial;

static void ut_unhook(struct ut_frame *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (f[i].orig && *(uintptr_t *)f[i].slot == (uintptr_t)ut_return_trampoline)
			*(uintptr_t *)f[i].slot = f[i].orig;
}

static void ut_rehook(struct ut_frame *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (f[i].orig && *(uintptr_t *)f[i].slot == f[i].orig)
			*(uintptr_t *)f[i].slot = (uintptr_t)ut_return_trampoline;
}

/* the running context stops here: nest what runs next above its frames */
static void ut_ctx_push_entry(struct ut_thread *t, uintptr_t token, uint64_t serial)
{
	if (t->nctx == UT_CTX_MAX) {
		/* no room: the context leaves the graph, the next one takes its place */
		ut_close_to(t, t->cbase, ut_clock());
		return;
	}
	t->ctx[t->nctx++] = (struct ut_ctx_ent){ token, serial, t->depth };
	t->cbase = t->depth;
}

/*
 * Leave the running context in swapcontext (@s) or setcontext (@s NULL:
 * never resumed, nothing to save).
 */
static void ut_ctx_leave(struct ut_thread *t, struct ut_ctx_save *s)
{
	uint32_t base = t->cbase, n = t->depth - base;

	if (s)
		s->t = NULL;
	if (t->state != UT_TS_READY || ut_rec_mode != UT_MODE_GRAPH)
		return;
	t->state = UT_TS_INTERNAL;
	ut_unhook(t->frames + base, n);
	if (s) {
		s->f = s->inl;
		s->ts = s->inl_ts;
		s->heap = NULL;
		if (n > UT_CTX_INLINE) {
			s->heap = ut_malloc(n * (sizeof(*s->f) + sizeof(*s->ts)));
			if (s->heap) {
				s->f = s->heap;
				s->ts = (uint64_t *)(s->f + n);
			} else {
				/* cannot keep them: they end here, and are not resumed */
				ut_close_to(t, base, ut_clock());
				n = 0;
			}
		}
		memcpy(s->f, t->frames + base, n * sizeof(*s->f));
		memcpy(s->ts, UT_FRAME_TS(t) + base, n * sizeof(*s->ts));
		s->n = n;
		s->serial = __atomic_add_fetch(&ut_ctx_serial, 1, __ATOMIC_RELAXED);
		s->t = t;
		ut_ctx_push_entry(t, (uintptr_t)s, s->serial);
	} else {
		ut_ctx_push_entry(t, 0, 0);
	}
	t->state = UT_TS_READY;
}

/* push the saved frames on top of the running context's, as new calls */
static void ut_ctx_push_frames(struct ut_thread *t, struct ut_ctx_save *s, uint64_t ts)
{
	int on = ut_ctl->tracing_on && (!ut_rec_filter || ut_rec_allowed(t));
	uint32_t n = s->n;

	if (t->depth > t->cbase)
		/* the context that ran did not come through us: it stops here */
		ut_ctx_push_entry(t, 0, 0);
	if (n > UT_SHADOW_MAX - t->depth) {
		/* too deep: the outermost calls are left out (their slots stay unhooked) */
		t->skipped += n - (UT_SHADOW_MAX - t->depth);
		n = UT_SHADOW_MAX - t->depth;
	}
	for (uint32_t i = s->n - n; i < s->n; i++) {
		uint32_t d = t->depth;
		struct ut_frame *f = &t->frames[d];

		*f = s->f[i];
		f->valid = 0;
		UT_FRAME_TS(t)[d] = ts;
		t->depth = d + 1;
		/* a new ENTRY for a call the reader saw end; the others wait for their end */
		if (f->recorded == UT_FR_RECORDED || f->recorded == UT_FR_LOST)
			f->recorded = on ? (uint32_t)ut_write(t, d ? UT_REC_ENTRY : UT_REC_ENTRY_PARENT,
							      ts, f->ip, f->orig)
					 : UT_FR_SKIP;
		f->valid = 1;
	}
	ut_rehook(t->frames + t->depth - n, n);
}

/* back in the swapcontext call that saved @s: the context runs again */
static void ut_ctx_resume(struct ut_ctx_save *s)
{
	struct ut_thread *t = &ut_self;
	uint64_t ts;
	uint32_t k;

	if (!s->t)
		return;
	if (t->state != UT_TS_READY || ut_rec_mode != UT_MODE_GRAPH)
		goto out;	/* tracing stopped: the frames stay unhooked */
	t->state = UT_TS_INTERNAL;
	ts = ut_clock();
	for (k = t->nctx; k-- > 0;)
		if (t->ctx[k].token == (uintptr_t)s && t->ctx[k].serial == s->serial)
			break;
	if (k != (uint32_t)-1 && t->ctx[k].end <= t->depth) {
		uint32_t end = t->ctx[k].end;

		/* a context above this one came back: the calls above ours end */
		ut_close_to(t, end, ts);
		t->nctx = k;
		ut_ctx_trim(t);
		ut_rehook(t->frames + t->cbase, end - t->cbase);
	} else {
		if (k != (uint32_t)-1) {
			/* our frames were closed meanwhile: start again from the saved ones */
			t->nctx = k;
			ut_ctx_trim(t);
		}
		ut_ctx_push_frames(t, s, ts);
	}
	t->state = UT_TS_READY;
out:
	ut_free(s->heap);
}

int swapcontext(ucontext_t *oucp, const ucontext_t *ucp);
int setcontext(const ucontext_t *ucp);

EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	struct ut_thread *t = &ut_self;
	struct ut_ctx_save s;
	int ret;
	NEXT(swapcontext);

	ut_ctx_leave(t, &s);
	ret = next_swapcontext(oucp, ucp);
	/* resumed, maybe on another thread (its frames then go there): ut_self again */
	ut_ctx_resume(&s);
	return ret;
}

EXPORT int setcontext(const ucontext_t *ucp)
{
	struct ut_thread *t = &ut_self;
	NEXT(setcontext);

	if (t->state == UT_TS_READY && t->depth > t->cbase && ucp) {
		uintptr_t sp = (uintptr_t)ucp->uc_mcontext.gregs[REG_RSP];
		uintptr_t here = (uintptr_t)__builtin_frame_address(0), top = 0;

		for (uint32_t i = t->cbase; i < t->depth; i++)
			if (t->frames[i].slot > top)
				top = t->frames[i].slot;
		/* back into the running context's own frames: a longjmp */
		if (sp > here && sp <= top) {
			ut_unwind_to(t, sp, ut_clock());
			return next_setcontext(ucp);
		}
	}
	ut_ctx_leave(t, NULL);
	return next_setcontext(ucp);
}
