/* SPDX-License-Identifier: MIT */
/*
 * export.h - the exports of `usertrace dump` (--chrome, --perfetto,
 * --dat, --ctf, --flame-graph): each is a writer over the one merge of a
 * data directory's events (reader/data.h), so every tracer's events come
 * out in every format.  export_run() opens nothing: the caller gives the
 * data directory; it makes the event table (the directory's formats),
 * calls the writer's begin, then event for each event in time order,
 * then end, and draws the progress bar (utils/progress.h).
 *
 * A writer's functions return 0, or -1 after a message (the export
 * fails, end is still called to free what begin made).
 */
#ifndef UT_CMDS_EXPORT_H
#define UT_CMDS_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/event/evtab.h"
#include "reader/data.h"

struct export_ctx {
	struct ut_data *d;
	struct ut_evtab *events;	/* the data directory's event formats */
	FILE *out;			/* the writers that write a stream: stdout */
	const char *path;		/* --dat FILE, --ctf DIR: the option's argument */
	const char *arg;		/* --flame-graph=svg: "svg"; NULL: none */
	uint64_t t0;			/* the first event's time (ns) */
	uint64_t nr_events;		/* given to event so far */
	/* some data was damaged (said) and skipped: at end, the export holds the rest */
	int damaged;
	void *priv;			/* the writer's */
};

struct export_writer {
	const char *name;		/* the option: "chrome" for --chrome */
	/* 1: the option needs an argument (a path); 2: it may have one (=ARG) */
	int arg;
	const char *arg_name;		/* the argument in the usage: "DIR", "svg" */
	const char *help;
	int (*begin)(struct export_ctx *x);
	int (*event)(struct export_ctx *x, const struct ut_event *ev);
	int (*end)(struct export_ctx *x, int failed);
};

/* the writer of option @name, NULL if none */
const struct export_writer *export_find(const char *name);
/* every writer, NULL-terminated (for the usage text) */
extern const struct export_writer *const export_writers[];

/*
 * export_run - writer @w over every event of @x->d: 0, or 1 when the
 * writer failed or some data was damaged (said; the export holds the rest).
 */
int export_run(const struct export_writer *w, struct export_ctx *x);

/*
 * the index of @ev's thread in @x->d->threads, or -1 (an event of no
 * file of the directory: cannot happen with one merge)
 */
int export_thread_index(const struct export_ctx *x, const struct ut_event *ev);
/* the name of @addr in @ev's process (the symbol), or NULL */
const char *export_sym(struct export_ctx *x, const struct ut_event *ev, uint64_t addr);
/* the symbol, else the address as "0x..." in @buf */
const char *export_sym_or_addr(struct export_ctx *x, const struct ut_event *ev, uint64_t addr,
			       char *buf, size_t size);
/* the event's name and system (an UT_EV_EVENT's), NULL when its format is unknown */
const char *export_event_name(struct export_ctx *x, const struct ut_event *ev,
			      const char **system);

#endif
