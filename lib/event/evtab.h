/* SPDX-License-Identifier: MIT */
/*
 * evtab.h - the events a trace can hold, for printing them: their
 * format files (those of a data directory, or made from descriptors)
 * parsed by libtraceevent, which evaluates each event's `print fmt`.
 * Only the tools link it; lib/event/evtab.c is the one file that
 * includes libtraceevent's headers (its struct trace_seq is not ours).
 */
#ifndef UT_LIB_EVENT_EVTAB_H
#define UT_LIB_EVENT_EVTAB_H

#include <stddef.h>
#include <stdint.h>

#include "usertrace/event.h"

struct ut_evtab;
struct ut_symtab;

struct ut_evtab *ut_evtab_new(void);
void ut_evtab_free(struct ut_evtab *t);

/* add the event of format text @text (system @sys); 0, or -1 if it does not parse */
int ut_evtab_add_format(struct ut_evtab *t, const char *sys, const char *text, size_t len);
/* add the event @d describes (its format text made by format.c) */
int ut_evtab_add_desc(struct ut_evtab *t, const struct ut_event_desc *d);
/*
 * add the events of data directory @dir (DIR/events/SYS/NAME/format);
 * returns how many, or -1 after a warning when DIR/events cannot be read
 * (a format file that cannot is warned about and left out)
 */
int ut_evtab_load_dir(struct ut_evtab *t, const char *dir);

/* resolve %ps and %pS addresses with @st, in the process of the event printed */
void ut_evtab_set_symtab(struct ut_evtab *t, struct ut_symtab *st);

/* "system:name" of event @id, NULL if unknown */
const char *ut_evtab_name(struct ut_evtab *t, unsigned id, const char **system);

/*
 * The event's text as the kernel prints it after the context: "name:
 * info" (info from its print fmt; an event with no known format prints
 * "id N: " and its bytes).  @entry is @len bytes, aligned.  Writes at
 * most @size bytes to @out (NUL included); returns the text's length.
 * @pid, @image and @ts say which process's symbols resolve addresses.
 */
size_t ut_evtab_print(struct ut_evtab *t, const void *entry, uint32_t len, int pid,
		      uint64_t image, uint64_t ts, char *out, size_t size);

/*
 * The fields of an event, for the exports (export/export.h): the common
 * fields first (common_type...), as its format file lists them.
 */
enum {
	UT_EVF_SIGNED = 1,
	UT_EVF_ARRAY = 2,	/* type[N], or __data_loc type[] (DYNAMIC too) */
	UT_EVF_STRING = 4,	/* char[N] or __data_loc char[] */
	UT_EVF_DYNAMIC = 8,	/* __data_loc: a u32 of (length << 16 | offset) at @offset */
	UT_EVF_COMMON = 16,	/* one of the common fields */
	UT_EVF_POINTER = 32,	/* a pointer or an unsigned long printed as %p, %ps */
};

struct ut_evfield {
	const char *name;
	const char *type;	/* the format file's: "unsigned long", "__data_loc char[]" */
	uint32_t offset, size;	/* size: of the whole field (an array's: all of it) */
	uint32_t elem_size;	/* an array's element; else size */
	unsigned flags;		/* UT_EVF_* */
};

/*
 * ut_evtab_fields - the fields of event @id in *@fields (the table's,
 * valid while it is): their number, or -1 when the event is unknown.
 */
int ut_evtab_fields(struct ut_evtab *t, unsigned id, const struct ut_evfield **fields);
/*
 * ut_evfield_value - field @f of entry @entry (@len bytes) as an integer
 * (sign-extended when signed); 0 past the entry's end or for an array.
 */
uint64_t ut_evfield_value(const struct ut_evfield *f, const void *entry, uint32_t len);
/*
 * ut_evfield_string - a string field's text, up to its NUL or the
 * field's end; *@n its length.  NULL when not a string or out of the
 * entry.
 */
const char *ut_evfield_string(const struct ut_evfield *f, const void *entry, uint32_t len,
			      uint32_t *n);

#endif /* UT_LIB_EVENT_EVTAB_H */
