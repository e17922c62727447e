/* SPDX-License-Identifier: MIT */
/*
 * evreg.h - the session's event registry: SESSION/events, made by the
 * recorder or the tracing directory and mapped by every traced process.
 *
 * A process that finds a tracepoint (runtime/events.c) registers its
 * event under the registry's lock: an event already there with the same
 * system, name and layout keeps its id; a new one gets the next slot,
 * whose id is UT_EVENT_ID_DYNAMIC + slot, and a copy of its descriptor
 * (serialized, see lib/event/registry.c) in the blob area.  So every
 * process of a session, and every later reader, agrees on the ids.  The
 * lock is a robust process-shared mutex: a process killed while it holds
 * it does not stop the others.
 *
 * Each slot has a state word: UT_EVS_RECORD while some directory (or
 * `record -e`) enables the event.  The processes copy it into their
 * tracepoints' state when they register one and, in a tracing-directory
 * session, when the settings change.  `patterns` are record's -e
 * arguments, applied to each event when it registers.
 *
 * Filters (lib/event/evfilter.h): a slot's `filter` names one of the
 * compiled programs of progs[], which the processes run on each entry of
 * the event before they reserve room for it.  A program is rewritten
 * under the lock in a sequence count (`seq` odd while it changes); a
 * reader runs it, then checks that `seq` did not move, else runs it
 * again.  Running a torn program is harmless (evfilter.h), so readers take
 * no lock.  `filters` are record's -f arguments with the -e pattern each
 * follows, compiled for an event when it registers; an event they do not
 * compile for gets UT_EVS_FILTER_ERR and is not recorded.
 */
#ifndef USERTRACE_EVREG_H
#define USERTRACE_EVREG_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "lib/event/evfilter.h"

#define UT_EVREG_FILE		"events"
#define UT_EVREG_MAGIC		"UTEVREG\1"
#define UT_EVREG_VERSION	4
#define UT_EVREG_SLOTS		2048
#define UT_EVREG_BLOB		(1u << 20)
#define UT_EVREG_PATTERNS	4096
#define UT_EVREG_FILTERS	16384
#define UT_EVREG_PROGS		64

/*
 * Slot state bits.  RECORD: some directory (or record -e) enables the
 * event.  SOFT_MODE: a trigger names it (enable_event/disable_event, or
 * a function command of those): its tracepoints stay live, and whether
 * it is recorded is SOFT_DISABLED's say, which the triggers flip, as the
 * kernel's soft mode.  TRIGGERS: the event has triggers of its own
 * (trigs[slot]), which run whether it is recorded or not.  A process
 * keeps a tracepoint live while any of the three is set.
 */
#define UT_EVS_RECORD		1u
#define UT_EVS_SOFT_MODE	2u
#define UT_EVS_SOFT_DISABLED	4u
#define UT_EVS_TRIGGERS		8u
#define UT_EVS_FILTER_ERR	16u	/* its record -f filter does not compile for it */
/*
 * SOFT_MODE and SOFT_DISABLED are the top's; an instance's soft mode is
 * its own (dirs[d].soft_mode, soft_off).  OTHERS: an instance enables it
 * while the top holds it in soft mode: it is written whatever the top's
 * switch says.  INST_SOFT: an instance holds it in soft mode: it is
 * written while one has switched it on (soft_on[slot]).  Each directory
 * keeps what its own switches chose (the top's views, an instance's
 * pump).
 */
#define UT_EVS_OTHERS		32u
#define UT_EVS_INST_SOFT	128u
/*
 * TRIG_AFTER: some of its triggers run after the event is written (their
 * `after`), as the kernel's with TRIGGER_COND: traceon, traceoff,
 * stacktrace and snapshot of a directory that has a trigger with an `if`
 * or a traceoff or stacktrace on it.  The others run before the program
 * decides whether to write it (a traceon's event is recorded; a
 * disable_event of the event itself drops it).
 */
#define UT_EVS_TRIG_AFTER	64u
#define UT_EVS_LIVE		(UT_EVS_RECORD | UT_EVS_SOFT_MODE | UT_EVS_TRIGGERS | UT_EVS_OTHERS | \
				 UT_EVS_INST_SOFT)

/*
 * An event's triggers (events/SYS/EVENT/trigger of every directory): at
 * most UT_EVREG_TRIGS in all, one per place and directory
 * (lib/event/trigger.h).  The tracing directory writes an entry whole
 * while its cmd is 0, then publishes it by setting cmd (release); it
 * clears cmd to remove it.  The programs read cmd (acquire), then the
 * rest; `count` is shared by every process (atomic decrements; -1:
 * unlimited).  `dir` 0 is the top's trigger, which acts on the programs
 * (tracing_on, the slots' soft switches, snapshot_req); another is
 * instance dirs[dir]'s, which acts on that directory's words below.
 */
#define UT_EVREG_TRIGS		16

struct ut_evreg_trig {
	volatile uint32_t cmd;		/* enum ut_trig_cmd + 1; 0: unused */
	uint32_t target;		/* enable/disable_event: the target's slot */
	volatile int64_t count;
	uint32_t filter;		/* 0: none (the filter of an `if`, see evfilter.h) */
	uint16_t dir;			/* 0: the top's; else its instance's dirs[] */
	volatile uint16_t after;	/* runs after the write (UT_EVS_TRIG_AFTER) */
};

/*
 * An instance's side of its triggers.  The tracing directory gives an
 * instance a dirs[] entry (1.. UT_EVREG_DIRS - 1) when it first needs
 * one; `on` and the soft bits are the instance's tracing_on and its
 * events' soft switches, which its triggers flip (atomically: a trigger
 * spends a run of its count only when it changes one).  Each change is
 * logged with its time, so that the instance's pump, which copies the
 * session's buffers some milliseconds later, keeps exactly what the
 * directory would have recorded: a writer takes a position (head), sets
 * the entry's seq to 0, fills it, then sets seq to the position + 1
 * (release); a reader copies the entry between two reads of seq.  The
 * log keeps the last UT_EVREG_DIRLOG changes; when more came between two
 * runs of the pump, it applies those left, the state before them taken
 * from what they changed.
 */
#define UT_EVREG_DIRS		32
#define UT_EVREG_DIRLOG		1024
#define UT_EVREG_WORDS		(UT_EVREG_SLOTS / 64)

struct ut_evreg_fire {
	volatile uint64_t seq;		/* its position + 1, once written */
	uint64_t ts;			/* ut_clock() */
	uint32_t what;			/* enum ut_trig_cmd + 1: TRACEON, TRACEOFF, ENABLE/DISABLE_EVENT */
	uint32_t target;		/* ENABLE/DISABLE_EVENT: the slot */
};

struct ut_evreg_dir {
	volatile uint32_t on;		/* the instance's tracing_on */
	uint32_t pad;
	volatile uint64_t snapshot_req;	/* its snapshot triggers that fired */
	/*
	 * ut_clock() when the last one fired (dirs[0]: the top's), written
	 * before snapshot_req: the snapshot shows nothing recorded after it
	 */
	volatile uint64_t snapshot_ts;
	volatile uint64_t soft_mode[UT_EVREG_WORDS];	/* its events in soft mode */
	volatile uint64_t soft_off[UT_EVREG_WORDS];	/* ... and switched off */
	volatile uint64_t head;		/* changes logged */
	struct ut_evreg_fire log[UT_EVREG_DIRLOG];
};

struct ut_evreg_slot {
	volatile uint32_t state;	/* UT_EVS_* */
	uint32_t desc_len;		/* bytes of the serialized descriptor */
	uint64_t desc_off;		/* its offset in blob[] */
	uint64_t hash;			/* of the serialized descriptor */
	volatile uint32_t filter;	/* its program: index in progs[] + 1; 0: none */
	uint32_t pad;
};

/* a compiled filter in the registry */
struct ut_evreg_prog {
	volatile uint32_t seq;		/* odd while it is written */
	uint32_t slot;			/* the slot it filters + 1; 0: free */
	struct ut_evfilter f;
};

struct ut_evreg {
	char magic[8];
	uint32_t version;
	volatile uint32_t nr;		/* slots in use; a slot is complete before nr counts it */
	uint64_t blob_used;
	volatile uint32_t full;		/* registrations refused for want of room */
	uint32_t pad;
	pthread_mutex_t lock;		/* robust, process-shared */
	char patterns[UT_EVREG_PATTERNS];	/* record -e: "sys:event sys:* name ..." */
	char filters[UT_EVREG_FILTERS];	/* record -f: "PATTERN\0EXPR\0" pairs, then "\0" */
	struct ut_evreg_slot slots[UT_EVREG_SLOTS];
	struct ut_evreg_trig trigs[UT_EVREG_SLOTS][UT_EVREG_TRIGS];
	/* the top's snapshot triggers that fired: the tracing directory takes one per change */
	volatile uint64_t snapshot_req;
	/*
	 * An instance makes the programs record (the tracing directory keeps
	 * it): then the top's traceon/traceoff (its triggers, the function
	 * commands, the programs' tracing_on()/tracing_off()) switch the top's
	 * words, dirs[0].on with its log, not the programs' tracing_on, and
	 * the top's views hide what it did not take (ut_top_switch()).
	 */
	volatile uint32_t insts_on;
	/*
	 * the directories whose stacktrace option is set (bit d: dirs[d]'s,
	 * bit 0 the top's): after writing an event the programs write their
	 * stack for each (a TRACE_DIR record, as a stacktrace trigger's)
	 */
	volatile uint32_t opt_stack;
	/* by slot: the instances that hold it in soft mode, switched on (INST_SOFT) */
	volatile int32_t soft_on[UT_EVREG_SLOTS];
	struct ut_evreg_dir dirs[UT_EVREG_DIRS];	/* [0]: the top's on and log (insts_on) */
	char blob[UT_EVREG_BLOB];
	struct ut_evreg_prog progs[UT_EVREG_PROGS];
};

/* the id of slot @i, and back */
#define UT_EVREG_ID(i)		((uint16_t)(UT_EVENT_ID_DYNAMIC + (i)))

/*
 * lib/event/registry.c, built into both the runtime and the tools.
 */
/* initialize a new registry (zeroed memory); 0 or -errno */
int ut_evreg_init(struct ut_evreg *r);
/* does the ftrace event pattern @pat ("sys:event", "sys:*", "*:*", a bare
 * system or event name; globs) select event @system:@name? */
int ut_event_match(const char *pat, const char *system, const char *name);
/* the next word of a blank-separated @list into @w (@size bytes); what
 * follows it, or NULL at the end (longer words are skipped) */
const char *ut_event_next_word(const char *list, char *w, size_t size);
/* does a blank-separated list of patterns select it? */
int ut_event_match_list(const char *list, const char *system, const char *name);
/* serialize @d into @buf (@cap bytes): its length, or 0 if it does not fit */
size_t ut_event_desc_pack(const struct ut_event_desc *d, char *buf, size_t cap);
/*
 * A descriptor from @len bytes at @buf, allocated in one block (free()),
 * with @id; NULL if the bytes are not a valid descriptor.
 */
struct ut_event_desc *ut_event_desc_unpack(const char *buf, size_t len, uint16_t id);
/*
 * Register @d: its slot index (same system, name and layout: the slot it
 * has), or -1 if the registry is full or the descriptor too large.
 */
int ut_evreg_register(struct ut_evreg *r, const struct ut_event_desc *d);
/* the descriptor of slot @i (allocated, free()), NULL if invalid */
struct ut_event_desc *ut_evreg_desc(const struct ut_evreg *r, uint32_t i);
/*
 * The slots of event @system:@name (every layout of it) into @out (at
 * most @max): how many there are.  No lock: slots are complete before
 * `nr` counts them.
 */
int ut_evreg_find(const struct ut_evreg *r, const char *system, const char *name,
		  uint32_t *out, int max);

/*
 * record -f: filter @expr for the events the -e @pattern selects, applied
 * as they register (the first pair whose pattern selects an event).
 * 0, or -ENOSPC.
 */
int ut_evreg_add_filter(struct ut_evreg *r, const char *pattern, const char *expr);
/* the record -f filter for @system:@name, or NULL */
const char *ut_evreg_filter_text(const struct ut_evreg *r, const char *system, const char *name);
/*
 * Set (@f) or clear (@f NULL) the filter of slot @i.  0, -EINVAL (no
 * such slot, @f not compiled) or -ENOSPC (every program in use).
 */
int ut_evreg_set_filter(struct ut_evreg *r, uint32_t i, const struct ut_evfilter *f);
/*
 * Does the entry @ent (@size bytes) of slot @i pass its filter?  @fill
 * is called to fill @ctx with what the program needs (UT_EVF_NEED_*).
 * 1 without a filter.
 *
 * Context: the traced program, on each event of a filtered slot: no
 * lock, no allocation.
 */
int ut_evreg_filter_match(const struct ut_evreg *r, uint32_t i, const void *ent, uint32_t size,
			  struct ut_evf_ctx *ctx, void (*fill)(struct ut_evf_ctx *ctx, unsigned needs));

/*
 * A trigger's `if` filter: a program of progs[] of its own.  Its number
 * (index + 1, for ut_evreg_trig.filter), or -ENOSPC / -EINVAL.  Free it
 * after the trigger that uses it was unpublished and the programs
 * applied the change.
 */
int ut_evreg_prog_alloc(struct ut_evreg *r, const struct ut_evfilter *f);
void ut_evreg_prog_free(struct ut_evreg *r, uint32_t k);

#endif /* USERTRACE_EVREG_H */
