/* SPDX-License-Identifier: MIT */
/*
 * format.h - the texts of the event files, as the kernel's tracefs
 * writes them: events/SYS/NAME/format from a descriptor, and
 * events/header_page, events/header_event for usertrace's ring buffer.
 * The tracing directory serves them; the recorder will write the same
 * texts into the data directory.
 */
#ifndef UT_LIB_EVENT_FORMAT_H
#define UT_LIB_EVENT_FORMAT_H

#include <stddef.h>
#include "usertrace/event.h"

/*
 * The `format` file of @d: `name:`, `ID:`, `format:`, the common fields,
 * an empty line, @d's fields, an empty line, `print fmt:`.  As snprintf:
 * writes at most @size bytes (NUL included) to @buf and returns the
 * length of the whole text.
 */
size_t ut_event_format_buf(char *buf, size_t size, const struct ut_event_desc *d);

/* the same text, malloc'd (the caller frees it); NULL without memory */
char *ut_event_format(const struct ut_event_desc *d);

/* the texts of events/header_page and events/header_event (static) */
const char *ut_event_header_page(void);
const char *ut_event_header_event(void);

#endif /* UT_LIB_EVENT_FORMAT_H */
