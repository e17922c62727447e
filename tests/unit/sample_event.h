/* SPDX-License-Identifier: MIT */
/*
 * sample_event.h - a TRACE_EVENT-like event for the format tests
 * (test_format.c, test_tep.c): a signed field, a fixed array, a
 * __data_loc string.
 */
#ifndef UT_TESTS_SAMPLE_EVENT_H
#define UT_TESTS_SAMPLE_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include "usertrace/event.h"

struct sample {
	struct ut_trace_entry ent;
	int32_t id;
	char comm[16];
	uint32_t __data_loc_path;
	long delta;
	char __data[];
};

static const struct ut_event_field sample_fields[] = {
	{ "int", "id", offsetof(struct sample, id), 4, 1, UT_FIELD_SCALAR, 0 },
	{ "char[16]", "comm", offsetof(struct sample, comm), 16, 0, UT_FIELD_ARRAY, 16 },
	{ "__data_loc char[]", "path", offsetof(struct sample, __data_loc_path), 4, 0,
	  UT_FIELD_DATA_LOC, 0 },
	{ "long", "delta", offsetof(struct sample, delta), 8, 1, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_desc sample = {
	.abi = UT_TP_ABI, .id = 1000, .size = sizeof(struct sample),
	.system = "myapp", .name = "request",
	.print_fmt = "\"id=%d comm=%s path=%s delta=%ld\", REC->id, REC->comm, __get_str(path), REC->delta",
	.fields = sample_fields, .nr_fields = 4,
};

#endif /* UT_TESTS_SAMPLE_EVENT_H */
