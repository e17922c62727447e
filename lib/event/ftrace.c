// SPDX-License-Identifier: MIT
/*
 * ftrace.c - the descriptors of the `ftrace` system's events, made from
 * usertrace/ftrace.def: each field's type text, offset and size come
 * from the struct of usertrace/ftrace.h, so the format files describe
 * the structs the tools and the runtime use.
 */
#include <stddef.h>
#include <string.h>

#include "usertrace/ftrace.h"
#include "lib/event/ftrace.h"

#define UT_FE_OFF(e, name)	offsetof(struct ut_ftrace_##e, name)
#define UT_FE_SIZE(e, name)	sizeof(((struct ut_ftrace_##e *)0)->name)

/* the fields of each entry: fields_<entry>[] */
#define UT_FTRACE_ENTRY(e, id)	static const struct ut_event_field fields_##e[] = {
#define UT_FTRACE_FIELD(e, type, name, sgn) \
	{ #type, #name, UT_FE_OFF(e, name), UT_FE_SIZE(e, name), sgn, UT_FIELD_SCALAR, 0 },
#define UT_FTRACE_ARRAY(e, type, name, len, sgn) \
	{ #type "[" #len "]", #name, UT_FE_OFF(e, name), UT_FE_SIZE(e, name), sgn, UT_FIELD_ARRAY, len },
#define UT_FTRACE_FLEX(e, type, name, sgn) \
	{ #type "[]", #name, UT_FE_OFF(e, name), 0, sgn, UT_FIELD_ARRAY, 0 },
#define UT_FTRACE_PRINT(e, ...)	};
#include "usertrace/ftrace.def"
#undef UT_FTRACE_ENTRY
#undef UT_FTRACE_FIELD
#undef UT_FTRACE_ARRAY
#undef UT_FTRACE_FLEX
#undef UT_FTRACE_PRINT

/* the descriptors */
const struct ut_event_desc ut_ftrace_events[] = {
#define UT_FTRACE_ENTRY(e, num) {					\
	.abi = UT_TP_ABI, .id = num, .size = sizeof(struct ut_ftrace_##e),	\
	.system = "ftrace", .name = #e, .fields = fields_##e,		\
	.nr_fields = sizeof(fields_##e) / sizeof(fields_##e[0]),
#define UT_FTRACE_FIELD(e, type, name, sgn)
#define UT_FTRACE_ARRAY(e, type, name, len, sgn)
#define UT_FTRACE_FLEX(e, type, name, sgn)
#define UT_FTRACE_PRINT(e, ...)	.print_fmt = #__VA_ARGS__ },
#include "usertrace/ftrace.def"
#undef UT_FTRACE_ENTRY
#undef UT_FTRACE_FIELD
#undef UT_FTRACE_ARRAY
#undef UT_FTRACE_FLEX
#undef UT_FTRACE_PRINT
};

const unsigned ut_ftrace_nr_events = sizeof(ut_ftrace_events) / sizeof(ut_ftrace_events[0]);

const struct ut_event_desc *ut_ftrace_event_by_id(unsigned id)
{
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
		if (ut_ftrace_events[i].id == id)
			return &ut_ftrace_events[i];
	return NULL;
}

const struct ut_event_desc *ut_ftrace_event_by_name(const char *name)
{
	for (unsigned i = 0; name && i < ut_ftrace_nr_events; i++)
		if (!strcmp(ut_ftrace_events[i].name, name))
			return &ut_ftrace_events[i];
	return NULL;
}
