// SPDX-License-Identifier: MIT
/* source.c - the registry of the recorder's sources (source.h) */
#include <stddef.h>

#include "recorder/source.h"

/* each source's file (source.h) */
extern const struct src_ops power_source, hwb_source, sched_source;

/*
 * The order they are opened in (record's messages) and run by a pass;
 * the info file lists their backends last first.
 */
const struct src_ops *const ut_sources[] = {
	&power_source,
	&hwb_source,
	&sched_source,
	NULL,
};

_Static_assert(sizeof(ut_sources) / sizeof(ut_sources[0]) <= SRC_MAX + 1, "SRC_MAX");

int src_wanted(const struct src_ops *o, const struct ut_evreg *events, uint32_t needs)
{
	return (o->need && (needs & o->need)) || (o->wanted && o->wanted(events));
}

int src_any_wanted(const struct ut_evreg *events, uint32_t needs)
{
	for (const struct src_ops *const *o = ut_sources; *o; o++)
		if (src_wanted(*o, events, needs))
			return 1;
	return 0;
}
