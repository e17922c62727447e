/* SPDX-License-Identifier: MIT */
/*
 * ftrace.h - the descriptors of the `ftrace` system's events
 * (usertrace/ftrace.def), for the tools: format files, decoding.
 */
#ifndef UT_LIB_EVENT_FTRACE_H
#define UT_LIB_EVENT_FTRACE_H

#include "usertrace/event.h"

/* in ftrace.def order */
extern const struct ut_event_desc ut_ftrace_events[];
extern const unsigned ut_ftrace_nr_events;

/* the event with id @id (UT_EVENT_ID_*) or name @name, or NULL */
const struct ut_event_desc *ut_ftrace_event_by_id(unsigned id);
const struct ut_event_desc *ut_ftrace_event_by_name(const char *name);

#endif /* UT_LIB_EVENT_FTRACE_H */
