// SPDX-License-Identifier: MIT
/*
 * export.c - the driver of the exports (export.h): one merge, the
 * writer's callbacks, the progress bar.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "utils/progress.h"
#include "reader/symtab.h"
#include "utils/utils.h"

extern const struct export_writer export_chrome, export_perfetto;
extern const struct export_writer export_dat, export_ctf;
extern const struct export_writer export_flame;

/* in dump's usage order */
const struct export_writer *const export_writers[] = {
	&export_chrome,
	&export_perfetto,
	&export_dat,
	&export_ctf,
	&export_flame,
	NULL
};

const struct export_writer *export_find(const char *name)
{
	for (const struct export_writer *const *w = export_writers; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

const char *export_sym(struct export_ctx *x, const struct ut_event *ev, uint64_t addr)
{
	const struct ut_sym *s;

	if (!addr || !x->d->symtab)
		return NULL;
	s = ut_symtab_find(x->d->symtab, ev->pid, ev->image, addr, ev->ts);
	return s && s->name && *s->name ? s->name : NULL;
}

int export_thread_index(const struct export_ctx *x, const struct ut_event *ev)
{
	const struct ut_thread_info *t = x->d->threads;

	return t && ev->thread >= t && ev->thread < t + x->d->nr_threads ?
		       (int)(ev->thread - t) : -1;
}

const char *export_sym_or_addr(struct export_ctx *x, const struct ut_event *ev, uint64_t addr,
			       char *buf, size_t size)
{
	const char *s = export_sym(x, ev, addr);

	if (s)
		return s;
	snprintf(buf, size, "%#" PRIx64, addr);
	return buf;
}

const char *export_event_name(struct export_ctx *x, const struct ut_event *ev,
			      const char **system)
{
	if (ev->type != UT_EV_EVENT || !x->events)
		return NULL;
	return ut_evtab_name(x->events, ev->id, system);
}

int export_run(const struct export_writer *w, struct export_ctx *x)
{
	struct ut_progress pr;
	struct ut_merge *m;
	struct ut_event ev;
	int ret = 0, failed = 0, damaged;

	x->events = ut_evtab_new();
	if (x->events) {
		/*
		 * An unreadable events/ was said: its events are written raw,
		 * as replay prints them, rather than no export at all.
		 */
		ut_evtab_set_symtab(x->events, x->d->symtab);
		ut_evtab_load_dir(x->events, x->d->dir);
	}
	if (!failed && w->begin && w->begin(x) < 0)
		failed = 1;
	m = failed ? NULL : ut_merge_new(x->d, NULL, 0);
	ut_progress_init(&pr, "events", ut_merge_progress, m);
	while (m && (ret = ut_merge_next(m, &ev)) > 0) {
		if (!x->nr_events++)
			x->t0 = ev.ts;
		if (w->event(x, &ev) < 0) {
			failed = 1;
			break;
		}
		/* a stream writer's output: its write error stops the export, said once here */
		if (x->out && ferror(x->out)) {
			pr_err("dump --%s: writing the output: %s", w->name, strerror(errno));
			failed = 1;
			break;
		}
		ut_progress_add(&pr, 1);
	}
	ut_progress_end(&pr);
	/* damaged data: said where by the decoder, skipped; the export of the rest is written */
	damaged = x->damaged = m && ret < 0;
	ut_merge_free(m);
	if (w->end && w->end(x, failed) < 0)
		failed = 1;
	ut_evtab_free(x->events);
	x->events = NULL;
	return failed || damaged;
}
