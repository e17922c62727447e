/* SPDX-License-Identifier: MIT */
/*
 * live_int.h - what the files of the live reader share (live.h is their
 * interface):
 *
 *   live_cache.c   per session: clock calibration, symbols, event formats
 *   live_stage.c   the ring buffers of a directory as page sources, and
 *                  the view's stages on the decoded events
 *   live.c         trace, trace_pipe, per-CPU stats: a merge of the
 *                  buffers (reader/data.c's decoder) printed by output/
 *   live_pump.c    an instance's own buffers and snapshots: the events
 *                  through the same decoder and stages, into rings
 *   live_marker.c  trace_marker's ring
 *
 * Every reader decodes the records with reader/data.c (ut_merge_add(),
 * ut_cursor_new()); none interprets them itself.
 */
#ifndef USERTRACE_LIVE_INT_H
#define USERTRACE_LIVE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "tracefs/live.h"
#include "usertrace/ringbuf.h"
#include "reader/data.h"

struct ut_evtab;
struct ut_symtab;

/* ---- live_cache.c ---- */

struct live_cache {
	struct live_cache *next;
	char session[PATH_MAX];
	char dir[PATH_MAX];		/* <session>/.live.XXXXXX, "" if none */
	struct ut_data cal;		/* clock, nr_cpus, symtab; no threads */
	uint64_t maps_sig;
	const struct ut_evreg *evreg;	/* the session's events (SESSION/events), NULL: none */
};

extern pthread_mutex_t live_lock;	/* the caches and every reader's state */

/* ctl->clock of the session, or -errno */
int live_session_clock(const char *session);
/* the cache of @session, made on first use; NULL with *err set.  live_lock held. */
struct live_cache *live_cache_get(const char *session, int *err);
/* the programs' events, for printing them; NULL if none.  live_lock held. */
struct ut_evtab *live_cache_events(struct live_cache *c);
uint64_t live_cache_now(const struct live_cache *c);

/* ---- live_stage.c: buffers ---- */

/* a function selection's kept frames (set_ftrace_filter of an instance) */
#define LIVE_KEPT_MAX	UT_STREAM_MAX_OPEN

struct live_fsel {
	int on, as_func;		/* the selection these frames were chosen with */
	uint32_t known;			/* frames whose selection is known */
	uint8_t kept[LIVE_KEPT_MAX];		/* kept[i]: the open call at depth i was selected */
	uint32_t kc[LIVE_KEPT_MAX + 1];	/* kc[i]: selected calls below depth i */
};

struct live_buf {
	char name[256];
	struct rb_reader r;
	struct ut_thread_info ti;	/* the thread, as the decoder names it */
	struct ut_stream *st;		/* the decoder's state, kept across reads (trace_pipe) */
	struct live_fsel *fsel;		/* with a function selection, kept across reads */
	/* trace_pipe position */
	int started;
	uint64_t rseq;			/* page being read */
	uint32_t roff;			/* bytes of it done */
	uint64_t ovr0, retired, reported, ret_seq;
	uint64_t *cnt, *tag;		/* events read per page, by slot */
	uint64_t pending_lost;
	int gone;			/* a pump took all of it: unmapped */
	int marker;			/* a ring of trace_marker's (live_marker) */
};

/*
 * The ring buffers of directory @dir: buf.* (the threads', or an
 * instance's copies of them), and with @markers the rings of trace_marker
 * (LIVE_MARKER_RING*), added to @bufs past its @nr; returns the new count.
 */
int live_scan_bufs(const char *dir, struct live_buf **bufs, int nr, int markers);
void live_buf_free(struct live_buf *b);
/* the thread of buffer @b as the decoder and the printer see it (its comm changes) */
void live_buf_thread(struct live_buf *b);
/* the decoder's state kept with @b (made on first use) */
struct ut_stream *live_stream_get(struct live_buf *b);
/* set_ftrace_pid: is the buffer's thread (or its process) listed? */
int live_pid_selected(const char *pids, const struct live_buf *b);
/* may a buffer of @b's kind hold events that set_event_pid @evpids chooses by another task? */
int live_buf_other_tasks(const char *evpids, const struct live_buf *b);
/* does view @v show anything of buffer @b (its calls or its events)? */
int live_buf_shown(const struct live_view *v, const struct live_buf *b);
/* head and overrun read together */
void live_load_head(const struct rb_header *h, uint64_t *head, uint64_t *overrun);
uint64_t live_oldest_seq(const struct rb_header *h, uint64_t head);

/* a copy of the pages a buffer holds now (trace, stats, snapshots): not consuming */
struct live_pages {
	unsigned char *pages;		/* nr pages of RB_PAGE_SIZE */
	uint64_t nr, next;
	uint64_t overrun;		/* events overwritten before the first */
};
void live_pages_copy(struct live_pages *s, const struct live_buf *b);
void live_pages_free(struct live_pages *s);
void live_pages_src(struct live_pages *s, struct ut_page_src *src);

/* what is new past a trace_pipe reader's position, consumed as it is read */
struct live_pipe_src {
	struct live_buf *b;
	uint64_t seq, head;
	int first;
	uint64_t limit;			/* records at or past this raw time stay for the next read; 0: none */
	union {
		struct rb_page p;
		unsigned char bytes[RB_PAGE_SIZE];
	} page;
};
void live_pipe_src(struct live_pipe_src *ps, struct live_buf *b, struct ut_page_src *src);

/* ---- live_stage.c: the view's stages ---- */

struct live_pump_sink;

struct live_stage {
	const struct ut_data *cal;
	uint64_t since;			/* ns: events at or before are not shown */
	int cpu;			/* -1: all */
	const uint64_t *hide;		/* [from, to) pairs, ns */
	int nr_hide;
	const uint64_t *cut;		/* per-CPU: raw times before which a CPU's events are out */
	uint32_t nr_cut;
	const uint64_t *ev_on;		/* the programs' events shown (live_view.ev_on) */
	const struct ut_evfilter *const *ev_filter;	/* live_view.ev_filter */
	int events_only;		/* calls are not taken (a pump for the nop tracer) */
	uint64_t other_entries;		/* the ids (< 64) of other tracers' own entries: not shown */
	int drop_all;			/* a thread set_ftrace_pid leaves out: consumed, not shown */
	const char *pids, *evpids;	/* set_ftrace_pid and set_event_pid (NULL: all) */
	int calls_off, events_off;	/* the buffer's calls, its events are not shown */
	/* an instance's tracing_cpumask (LIVE_CPUMASK_WORDS): other CPUs' events are not taken */
	const uint32_t *cpumask;
	/*
	 * the registry slots of sched_switch (sw) and of the wake-ups
	 * (sched_waking, sched_wakeup, sched_wakeup_new: wk), which
	 * set_event_pid chooses by both of their tasks (stage_sched_pids())
	 */
	uint32_t sw_slot[4], wk_slot[12];
	int nr_sw, nr_wk;
	/* function selection: set_ftrace_filter, set_ftrace_notrace; NULL: none */
	const char *ffilter, *fnotrace;
	int as_func;			/* function tracer: calls become FUNC events, returns go */
	struct ut_symtab *symtab;
	int32_t pid;			/* the buffer's, for the symbols */
	uint64_t image;
	struct live_fsel *fsel;
	/* what was shown: counted records, their bytes, the first one's time */
	uint64_t entries, bytes, first_ts;
	int have_first;
	struct live_pump_sink *sink;		/* set: the events go to an instance's ring */
	uint32_t trace_dir;		/* live_view.trace_dir */
	/* an instance's trigger changes (a pump), and their state at the buffer's events so far */
	const struct live_timeline *tl;
	int tl_next, tl_on;
	uint64_t tl_soft[LIVE_EV_WORDS];
};

/* the stages of view @v (NULL: none) for buffer @b (NULL: set later) */
void live_stage_init(struct live_stage *f, const struct live_cache *c, const struct live_view *v);
void live_stage_buffer(struct live_stage *f, struct live_buf *b);
/* the stages in order, as one ut_stage_fn */
int live_stages(void *arg, const struct ut_stream *s, struct ut_event *ev);
/* is an event at @ns of @cpu at @raw in the view's time and CPU's buffer? */
int live_stage_time(const struct live_stage *f, uint64_t ns);
int live_stage_cut(const struct live_stage *f, uint32_t cpu, uint64_t raw);
/* the per-CPU cuts of view @v into @f (live_cuts_free() frees them) */
void live_cuts_set(struct live_stage *f, struct live_buf *bufs, int nr, const struct live_view *v);
void live_cuts_free(struct live_stage *f);
/* the kept-frames state of buffer @b for a selection (made on first use) */
struct live_fsel *live_fsel_get(struct live_buf *b);

/* ---- live_pump.c ---- */

/* the last stage of a pump: the event into the sink's ring */
int live_sink_put(struct live_pump_sink *k, const struct live_stage *f, const struct ut_stream *s,
		  struct ut_event *ev);

#endif /* USERTRACE_LIVE_INT_H */
