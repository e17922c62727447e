// SPDX-License-Identifier: MIT
/*
 * format.c - the texts of the event files (see format.h).
 *
 * A field line is written as the kernel writes it (f_show() in
 * trace_events.c), from the field's type text:
 *
 *   "int"                 field:int NAME;
 *   "char[16]", len 16    field:char NAME[16];
 *   "char[]", len 0       field:char NAME[];
 *   "__data_loc char[]"   field:__data_loc char[] NAME;
 *
 * each followed by offset, size and signed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/ringbuf.h"
#include "lib/event/format.h"

/* snprintf into a window that may be full: keeps counting the length */
struct out {
	char *p;
	size_t size, len;
};

__attribute__((format(printf, 2, 3)))
static void out_printf(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->p + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void field_line(struct out *o, const char *type, const char *name, unsigned offset,
		       unsigned size, int is_signed, unsigned len)
{
	const char *br = strchr(type, '[');

	/* a data_loc's type is printed whole: "__data_loc char[] NAME" */
	if (!strncmp(type, "__data_loc", 10))
		br = NULL;
	if (!br)
		out_printf(o, "\tfield:%s %s;", type, name);
	else if (len)
		out_printf(o, "\tfield:%.*s %s[%u];", (int)(br - type), type, name, len);
	else
		out_printf(o, "\tfield:%.*s %s[];", (int)(br - type), type, name);
	out_printf(o, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", offset, size, !!is_signed);
}

#define COMMON(m, text, fname, sgn)							\
	{ text, fname, offsetof(struct ut_trace_entry, m),				\
	  sizeof(((struct ut_trace_entry *)0)->m), sgn, UT_FIELD_SCALAR, 0 }

/* the common fields, as every kernel format file has them */
static const struct ut_event_field common_fields[] = {
	COMMON(type, "unsigned short", "common_type", 0),
	COMMON(flags, "unsigned char", "common_flags", 0),
	COMMON(preempt_count, "unsigned char", "common_preempt_count", 0),
	COMMON(pid, "int", "common_pid", 1),
};

size_t ut_event_format_buf(char *buf, size_t size, const struct ut_event_desc *d)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	out_printf(&o, "name: %s\nID: %u\nformat:\n", d->name ? d->name : "", d->id);
	for (size_t i = 0; i < sizeof(common_fields) / sizeof(common_fields[0]); i++) {
		const struct ut_event_field *f = &common_fields[i];

		field_line(&o, f->type, f->name, f->offset, f->size, f->is_signed, f->len);
	}
	out_printf(&o, "\n");
	for (uint32_t i = 0; i < d->nr_fields; i++) {
		const struct ut_event_field *f = &d->fields[i];

		field_line(&o, f->type ? f->type : "", f->name ? f->name : "", f->offset,
			   f->size, f->is_signed, f->len);
	}
	out_printf(&o, "\nprint fmt: %s\n", d->print_fmt ? d->print_fmt : "\"\"");
	return o.len;
}

char *ut_event_format(const struct ut_event_desc *d)
{
	size_t len = ut_event_format_buf(NULL, 0, d);
	char *p = malloc(len + 1);

	if (p)
		ut_event_format_buf(p, len + 1, d);
	return p;
}

/*
 * events/header_page.  The kernel's names the parts of its buffer page
 * (struct buffer_data_page) that readers use, and libtraceevent
 * (tep_parse_header_page()) reads exactly these four, in this order:
 * timestamp, commit, overwrite (optional), data.  Our page
 * (struct rb_page, ringbuf.h) maps onto them as:
 *
 *   timestamp   rb_page.ts: the time the page's first delta counts from,
 *               as the kernel's time_stamp
 *   commit      rb_page.commit: the bytes of data committed.  A u32
 *               where the kernel has a local_t (long)
 *   overwrite   rb_page.flags: the records lost just before this page
 *               (a count, saturated at RB_PAGE_LOST_MASK).  The kernel's
 *               is the "events missed" flag kept in commit's top bits;
 *               both say that the stream has a hole before this page
 *   data        rb_page.data to the end of the page, as the kernel's, so
 *               that offset + size is the page size (libtraceevent's
 *               tep_get_sub_buffer_size()); the records use the first
 *               RB_DATA_SIZE bytes, the last RB_PAGE_SLACK never
 *
 * rb_page.seq, .entries and .cpu have no place in this text (a fifth
 * field would make libtraceevent miss `data`); ring-buffer.md describes
 * them.  The records themselves are ours, not the kernel's: header_event.
 */
static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield: u32 commit;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield: u32 overwrite;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield: char data;\toffset:32;\tsize:4064;\tsigned:0;\n";

#define RB_MEMBER_SIZE(m)	sizeof(((struct rb_page *)0)->m)
_Static_assert(offsetof(struct rb_page, ts) == 8 && RB_MEMBER_SIZE(ts) == 8,
	       "header_page: timestamp");
_Static_assert(offsetof(struct rb_page, commit) == 16 && RB_MEMBER_SIZE(commit) == 4,
	       "header_page: commit");
_Static_assert(offsetof(struct rb_page, flags) == 28 && RB_MEMBER_SIZE(flags) == 4,
	       "header_page: overwrite");
_Static_assert(offsetof(struct rb_page, data) == 32 && RB_PAGE_HDR == 32 && RB_PAGE_SIZE == 4096,
	       "header_page: data");

/*
 * events/header_event: the record header, in the kernel's words.  The
 * kernel's is a 5-bit type_len (the length in words, or a special type)
 * and a 27-bit delta, with a 32-bit length word after it for long
 * records.  Ours (ringbuf.h) is a 4-bit type in the low bits and a
 * 28-bit delta above it; the types that carry a length have it as a u16
 * after the header (entries.h), the rest have a length of their own.
 * Type 15 is the time extend (the delta's bits above 27 in a u32), type
 * 0 is never written, and there is neither padding (a page's commit
 * says where its records end) nor an absolute time stamp record.
 */
static const char header_event[] =
	"# compressed entry header\n"
	"\ttype        :    4 bits\n"
	"\ttime_delta  :   28 bits\n"
	"\tarray       :   16 bits\n"
	"\n"
	"\treserved    : type == 0\n"
	"\ttime_extend : type == 15\n"
	"\tdata max type  == 14\n";

_Static_assert(RB_TYPE_BITS == 4 && RB_DELTA_BITS == 28 && RB_TYPE_TIME_EXTEND == 15,
	       "header_event: the record header");

const char *ut_event_header_page(void)
{
	return header_page;
}

const char *ut_event_header_event(void)
{
	return header_event;
}
