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
 * returns how many, or -1 after a message if a format file is unreadable
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

#endif /* UT_LIB_EVENT_EVTAB_H */
