// SPDX-License-Identifier: MIT
/*
 * evfilt.c - the events' filter files: events/SYS/filter and
 * events/SYS/NAME/filter, as the kernel's (their triggers: evtrig.c).
 *
 * A filter is compiled here (lib/event/evfilter.c) against the event's
 * descriptor and stored in the session's registry, where the programs
 * run it before they write the event.
 *
 * Filters are a directory's own, as the kernel's: each directory keeps
 * its program per slot (tfs_inst.evfilt), its views and its pump keep the
 * events it matches (live_view.ev_filter), and the programs run the
 * filter when every directory that enables the event has the same
 * (tfs_evfilt_publish()), so that they record no more than needed.  Several
 * layouts of one event (two versions of a library) have the text of the
 * first one's filter, compiled for each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

/* error_log's entry for a refused filter, in the kernel's words */
void tfs_evfilt_errlog(struct tfs_session *s, const char *expr, const struct ut_evf_error *err)
{
	char text[UT_EVF_TEXT_MAX + 512];

	ut_evfilter_errlog(text, sizeof(text), expr, err);
	tfs_err_raw(s, text);
}

static struct tfs_evfilt *evfilt_of(struct tfs_inst *in, uint32_t slot)
{
	if (!in->evfilt[slot])
		in->evfilt[slot] = calloc(1, sizeof(struct tfs_evfilt));
	return in->evfilt[slot];
}

/* @f's text, its error after a refused write, its program (taken) */
static void evfilt_set(struct tfs_evfilt *f, const char *text, const struct ut_evf_error *err,
		       struct ut_evfilter *prog)
{
	free(f->text);
	free(f->prog);
	f->text = text ? strdup(text) : NULL;
	f->bad = err != NULL;
	if (err)
		f->err = *err;
	f->prog = prog;
}

static const char *evfilt_text(const struct tfs_inst *in, uint32_t slot)
{
	const struct tfs_evfilt *f = in->evfilt[slot];

	return f && f->prog ? f->text : NULL;
}

static int same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * The filter the programs run on @slot: the one of the directories that
 * may keep it (they enable it, or hold it in soft mode) when they all
 * have the same (or one directory does), else none, each directory's
 * views and pump filtering for themselves.  With no directory keeping
 * it, the top's.
 */
void tfs_evfilt_publish(struct tfs_session *s, uint32_t slot)
{
	struct tfs_inst *pick = NULL;
	int mixed = 0;

	if (!s->evreg)
		return;
	if (tfs_ev_bit(s->top.ev_on, slot) || tfs_ev_bit(s->top.tr_ev, slot) || s->top.ev_soft[slot])
		pick = &s->top;
	for (struct tfs_inst *in = s->insts; in; in = in->next) {
		if (!tfs_ev_bit(in->ev_on, slot) && !tfs_ev_bit(in->tr_ev, slot) && !in->ev_soft[slot])
			continue;
		if (!pick)
			pick = in;
		else if (!same_text(evfilt_text(pick, slot), evfilt_text(in, slot)))
			mixed = 1;
	}
	if (!pick)
		pick = &s->top;
	ut_evreg_set_filter(s->evreg, slot, !mixed && pick->evfilt[slot] ? pick->evfilt[slot]->prog : NULL);
}

void tfs_evfilt_publish_all(struct tfs_session *s)
{
	for (uint32_t i = 0; i < s->nr_evd && i < UT_EVREG_SLOTS; i++)
		tfs_evfilt_publish(s, i);
}

struct ut_evfilter **tfs_evfilt_copy(struct tfs_inst *in, uint32_t nr)
{
	struct ut_evfilter **c = NULL;

	for (uint32_t i = 0; i < nr && i < UT_EVREG_SLOTS; i++) {
		if (!in->evfilt[i] || !in->evfilt[i]->prog)
			continue;
		if (!c && !(c = calloc(UT_EVREG_SLOTS, sizeof(*c))))
			return NULL;
		c[i] = malloc(sizeof(**c));
		if (c[i])
			memcpy(c[i], in->evfilt[i]->prog, sizeof(**c));
	}
	return c;
}

const struct ut_evfilter *const *tfs_evfilt_progs(struct tfs_inst *in)
{
	static __thread const struct ut_evfilter *p[UT_EVREG_SLOTS];
	int any = 0;

	for (uint32_t i = 0; i < UT_EVREG_SLOTS; i++) {
		p[i] = in->evfilt[i] ? in->evfilt[i]->prog : NULL;
		any |= p[i] != NULL;
	}
	return any ? p : NULL;
}

void tfs_evfilt_copy_free(struct ut_evfilter **f, uint32_t nr)
{
	for (uint32_t i = 0; f && i < nr && i < UT_EVREG_SLOTS; i++)
		free(f[i]);
	free(f);
}

static void filter_show_text(const struct tfs_evfilt *f, struct tfs_sbuf *b)
{
	char t[2 * UT_EVF_TEXT_MAX + 256];

	if (!f || (!f->text && !f->bad)) {
		tfs_sb_puts(b, "none\n");
		return;
	}
	ut_evfilter_show(t, sizeof(t), f->text, f->bad ? &f->err : NULL);
	tfs_sb_puts(b, t);
}

/* the written text, NUL-terminated and prepared: 1 clear, 0 set, -errno */
static int filter_text(const char *buf, size_t size, char **out)
{
	char *t;

	if (size >= UT_EVF_TEXT_MAX)
		return -EINVAL;
	t = strndup(buf, size);
	if (!t)
		return -ENOMEM;
	*out = t;
	return ut_evfilter_prepare(t);
}

static int blank(const char *t)
{
	return !t[strspn(t, " \t\n")];
}

/* events/SYS/NAME/filter: the directory's own */
static int filter_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	filter_show_text(h->n.inst->evfilt[h->n.slot], b);
	return 0;
}

/* @expr compiled for @slot's layout into *@prog (malloc'ed); NULL @expr: none */
static int compile_slot(struct tfs_session *s, uint32_t slot, const char *expr,
			struct ut_evfilter **prog, struct ut_evf_error *err)
{
	int ret;

	*prog = NULL;
	if (!expr)
		return 0;
	*prog = malloc(sizeof(**prog));
	if (!*prog)
		return -ENOMEM;
	ret = ut_evfilter_compile(*prog, expr, s->evd[slot], err);
	if (ret) {
		free(*prog);
		*prog = NULL;
	}
	return ret;
}

/* the filter of every layout of the event of @slot, in directory @in */
static int event_filter(struct tfs_session *s, struct tfs_inst *in, uint32_t slot,
			const char *expr)
{
	struct ut_evf_error err = { 0, 0, 0 };
	struct tfs_evfilt *f = evfilt_of(in, slot);
	struct ut_evfilter *prog;
	int ret;

	if (!f)
		return -ENOMEM;
	ret = compile_slot(s, slot, expr, &prog, &err);
	if (ret < 0) {
		/* as the kernel's: the event is left without a filter */
		evfilt_set(f, err.ret ? expr : NULL, err.ret ? &err : NULL, NULL);
		if (err.ret)
			tfs_evfilt_errlog(s, expr, &err);
		tfs_evfilt_publish(s, slot);
		return ret;
	}
	evfilt_set(f, expr, NULL, prog);
	tfs_evfilt_publish(s, slot);
	for (uint32_t i = slot + 1; i < s->nr_evd; i++) {
		struct tfs_evfilt *g;

		if (!tfs_ev_is(s, i, s->evd[slot]->system, s->evd[slot]->name) || !(g = evfilt_of(in, i)))
			continue;
		compile_slot(s, i, expr, &prog, &err);
		evfilt_set(g, expr, NULL, prog);
		tfs_evfilt_publish(s, i);
	}
	return 0;
}

static int filter_write(struct tfs_handle *h, const char *buf, size_t size)
{
	char *t = NULL;
	int ret = filter_text(buf, size, &t);

	/*
	 * nothing written: no change; blanks alone are a filter the
	 * kernel's parser refuses (EINVAL, "Error: (0)", an error_log line)
	 */
	if (ret >= 0 && !size)
		ret = 0;
	else if (ret == 1)
		ret = event_filter(h->s, h->n.inst, (uint32_t)h->n.slot, NULL);
	else if (ret == 0)
		ret = event_filter(h->s, h->n.inst, (uint32_t)h->n.slot, t);
	free(t);
	return ret < 0 ? ret : TFS_WR_DONE;
}

/* events/SYS/filter */
static struct tfs_sysfilt *sysfilt_of(struct tfs_inst *in, const char *sys)
{
	struct tfs_sysfilt *f;

	for (f = in->sysfilt; f; f = f->next)
		if (!strcmp(f->sys, sys))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->sys, sizeof(f->sys), "%s", sys);
	f->next = in->sysfilt;
	in->sysfilt = f;
	return f;
}

static int sys_filter_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_sysfilt *f;

	for (f = h->n.inst->sysfilt; f; f = f->next)
		if (!strcmp(f->sys, h->n.evsys) && (f->f.text || f->f.bad)) {
			if (f->f.bad) {
				filter_show_text(&f->f, b);
				return 0;
			}
			break;
		}
	tfs_sb_puts(b, ut_evfilter_system_default);
	return 0;
}

static int sys_filter(struct tfs_session *s, struct tfs_inst *in, const char *sys,
		      const char *expr)
{
	const struct ut_event_desc **descs = calloc(s->nr_evd + 1, sizeof(*descs));
	uint32_t *slots = calloc(s->nr_evd + 1, sizeof(*slots));
	struct ut_evfilter *progs = NULL;
	struct ut_evf_error *errs = NULL, sys_err = { 0, 0, 0 };
	struct tfs_sysfilt *sf = sysfilt_of(in, sys);
	int *ok = NULL, ret = -ENOMEM;
	size_t n = 0;

	if (!descs || !slots || !sf)
		goto out;
	for (uint32_t i = 0; i < s->nr_evd; i++)
		if (s->evd[i] && tfs_ev_is(s, i, sys, NULL)) {
			slots[n] = i;
			descs[n++] = s->evd[i];
		}
	if (!expr) {
		for (size_t k = 0; k < n; k++) {
			if (in->evfilt[slots[k]])
				evfilt_set(in->evfilt[slots[k]], NULL, NULL, NULL);
			tfs_evfilt_publish(s, slots[k]);
		}
		evfilt_set(&sf->f, NULL, NULL, NULL);
		ret = 0;
		goto out;
	}
	progs = malloc((n ? n : 1) * sizeof(*progs));
	errs = calloc(n ? n : 1, sizeof(*errs));
	ok = calloc(n ? n : 1, sizeof(*ok));
	if (!progs || !errs || !ok)
		goto out;
	ret = ut_evfilter_compile_system(expr, descs, n, progs, errs, ok, &sys_err);
	if (ret < 0) {
		evfilt_set(&sf->f, expr, &sys_err, NULL);
		tfs_evfilt_errlog(s, expr, &sys_err);
		goto out;
	}
	evfilt_set(&sf->f, expr, NULL, NULL);
	for (size_t k = 0; k < n; k++) {
		struct tfs_evfilt *f = evfilt_of(in, slots[k]);
		struct ut_evfilter *prog = NULL;

		if (!ok[k])
			tfs_evfilt_errlog(s, expr, &errs[k]);
		else if ((prog = malloc(sizeof(*prog))))
			memcpy(prog, &progs[k], sizeof(*prog));
		if (f)
			evfilt_set(f, expr, ok[k] ? NULL : &errs[k], prog);
		else
			free(prog);
		tfs_evfilt_publish(s, slots[k]);
	}
	ret = 0;
out:
	free(descs);
	free(slots);
	free(progs);
	free(errs);
	free(ok);
	return ret;
}

static int sys_filter_write(struct tfs_handle *h, const char *buf, size_t size)
{
	char *t = NULL;
	int ret;

	tfs_ev_refresh(h->s);
	ret = filter_text(buf, size, &t);
	if (ret >= 0 && blank(t))
		ret = 0;
	else if (ret >= 0)
		ret = sys_filter(h->s, h->n.inst, h->n.evsys, ret == 1 ? NULL : t);
	free(t);
	return ret < 0 ? ret : TFS_WR_DONE;
}

const struct tfs_file tfs_evfilt_files[] = {
	TFS_FILE("filter", 0640, W_EVSYS, .show = sys_filter_show, .write = sys_filter_write),
	TFS_FILE("filter", 0640, W_EVENT, .show = filter_show, .write = filter_write),
	TFS_FILES_END
};
