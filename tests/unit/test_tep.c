// SPDX-License-Identifier: MIT
/*
 * test_tep.c - libtraceevent, the judge of the event files: it parses
 * every ftrace entry's format (lib/event/format.c) and header_page, finds
 * the descriptors' offsets and sizes in them, and prints records laid out
 * as the structs of usertrace/ftrace.h with the print fmts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "usertrace/ftrace.h"
#include "lib/event/builtin.h"
#include "lib/event/format.h"
#include "lib/event/ftrace.h"
#include "sample_event.h"

#define MAIN_ADDR	0x401000ull
#define START_ADDR	0x400800ull

static struct tep_handle *tep_new(void)
{
	struct tep_handle *tep = tep_alloc();

	assert_non_null(tep);
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, 4096);
	/* %ps of these addresses: the names */
	assert_int_equal(tep_register_function(tep, "main", MAIN_ADDR, NULL), 0);
	assert_int_equal(tep_register_function(tep, "_start", START_ADDR, NULL), 0);
	return tep;
}

static struct tep_event *parse(struct tep_handle *tep, const struct ut_event_desc *d)
{
	char *text = ut_event_format(d);
	struct tep_event *ev = NULL;
	enum tep_errno ret;

	assert_non_null(text);
	ret = tep_parse_format(tep, &ev, text, strlen(text), d->system);
	if (ret) {
		char msg[128];

		tep_strerror(tep, ret, msg, sizeof(msg));
		fail_msg("%s:%s: %s\n%s", d->system, d->name, msg, text);
	}
	free(text);
	assert_non_null(ev);
	assert_false(ev->flags & TEP_EVENT_FL_FAILED);
	return ev;
}

static void check_field(struct tep_format_field *tf, const char *name, int offset, int size,
			int is_signed)
{
	if (!tf)
		fail_msg("no field %s", name);
	assert_int_equal(tf->offset, offset);
	assert_int_equal(tf->size, size);
	assert_int_equal(!!(tf->flags & TEP_FIELD_IS_SIGNED), is_signed);
}

/* every entry parses, with the descriptor's fields where it says */
static void test_parse_ftrace(void **state)
{
	struct tep_handle *tep = tep_new();

	(void)state;
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++) {
		const struct ut_event_desc *d = &ut_ftrace_events[i];
		struct tep_event *ev = parse(tep, d);

		assert_int_equal(ev->id, d->id);
		assert_string_equal(ev->name, d->name);
		assert_string_equal(ev->system, "ftrace");
		assert_ptr_equal(tep_find_event(tep, d->id), ev);
		assert_ptr_equal(tep_find_event_by_name(tep, "ftrace", d->name), ev);
		assert_int_equal(ev->format.nr_common, 4);
		check_field(tep_find_common_field(ev, "common_type"), "common_type", 0, 2, 0);
		check_field(tep_find_common_field(ev, "common_flags"), "common_flags", 2, 1, 0);
		check_field(tep_find_common_field(ev, "common_preempt_count"),
			    "common_preempt_count", 3, 1, 0);
		check_field(tep_find_common_field(ev, "common_pid"), "common_pid", 4, 4, 1);
		assert_int_equal(ev->format.nr_fields, (int)d->nr_fields);
		for (uint32_t j = 0; j < d->nr_fields; j++) {
			const struct ut_event_field *f = &d->fields[j];
			struct tep_format_field *tf = tep_find_field(ev, f->name);

			check_field(tf, f->name, f->offset, f->size, f->is_signed);
			if (f->kind == UT_FIELD_ARRAY) {
				assert_true(tf->flags & TEP_FIELD_IS_ARRAY);
				assert_int_equal(tf->arraylen, f->len);
			}
		}
	}
	assert_int_equal(tep_get_events_count(tep), (int)ut_ftrace_nr_events);
	tep_free(tep);
}

/* header_page: libtraceevent finds the time stamp, commit and data where ringbuf.h has them */
static void test_header_page(void **state)
{
	struct tep_handle *tep = tep_new();
	char *text = strdup(ut_event_header_page());

	(void)state;
	assert_non_null(text);
	assert_int_equal(tep_parse_header_page(tep, text, strlen(text), sizeof(long)), 0);
	assert_int_equal(tep_get_header_timestamp_size(tep), 8);
	assert_int_equal(tep_get_header_page_size(tep), 4);	/* the commit's size */
	assert_int_equal(tep_get_sub_buffer_size(tep), 4096);	/* data offset + size */
	free(text);
	tep_free(tep);
}

/* @rec printed by its print fmt */
static void expect_print(struct tep_handle *tep, void *data, int size, const char *want)
{
	struct tep_record rec = { .ts = 1000, .size = size, .record_size = size, .data = data };
	struct trace_seq s;

	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	assert_string_equal(s.buffer, want);
	trace_seq_destroy(&s);
}

static void fill_common(struct ut_trace_entry *ent, unsigned id)
{
	ent->type = (uint16_t)id;
	ent->flags = 0;
	ent->preempt_count = 0;
	ent->pid = 1234;
}

/* records laid out as ftrace.h's structs print as the kernel's */
static void test_print_records(void **state)
{
	struct tep_handle *tep = tep_new();
	union {
		struct ut_ftrace_print p;
		struct ut_ftrace_function fn;
		struct ut_ftrace_funcgraph_entry ge;
		struct ut_ftrace_funcgraph_exit gx;
		char raw[256];
	} r;
	static const char text[] = "hello world";

	(void)state;
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
		parse(tep, &ut_ftrace_events[i]);

	memset(&r, 0, sizeof(r));
	fill_common(&r.p.ent, UT_EVENT_ID_PRINT);
	r.p.ip = MAIN_ADDR;
	memcpy(r.p.buf, text, sizeof(text));
	expect_print(tep, &r, (int)(sizeof(r.p) + sizeof(text)), "main: hello world");

	memset(&r, 0, sizeof(r));
	fill_common(&r.fn.ent, UT_EVENT_ID_FUNCTION);
	r.fn.ip = MAIN_ADDR;
	r.fn.parent_ip = START_ADDR;
	expect_print(tep, &r, (int)sizeof(r.fn), " main <-- _start");

	memset(&r, 0, sizeof(r));
	fill_common(&r.ge.ent, UT_EVENT_ID_FUNCGRAPH_ENTRY);
	r.ge.func = MAIN_ADDR;
	r.ge.depth = 3;
	expect_print(tep, &r, (int)sizeof(r.ge), "--> main (3)");

	memset(&r, 0, sizeof(r));
	fill_common(&r.gx.ent, UT_EVENT_ID_FUNCGRAPH_EXIT);
	r.gx.func = MAIN_ADDR;
	r.gx.depth = 2;
	r.gx.calltime = 0x10;
	r.gx.rettime = 0x20;
	expect_print(tep, &r, (int)sizeof(r.gx), "<-- main (2) (start: 10  end: 20) over: 2");
	tep_free(tep);
}

static void test_sample(void **state)
{
	struct tep_handle *tep = tep_new();
	static const char path[] = "/api/x";
	struct tep_event *ev = parse(tep, &sample);
	struct tep_format_field *tf;
	union {
		struct sample s;
		char raw[128];
	} r;
	int size = (int)(sizeof(r.s) + sizeof(path));

	(void)state;
	tf = tep_find_field(ev, "path");
	assert_non_null(tf);
	assert_true(tf->flags & TEP_FIELD_IS_DYNAMIC);
	tf = tep_find_field(ev, "comm");
	assert_non_null(tf);
	assert_true(tf->flags & TEP_FIELD_IS_ARRAY);
	assert_int_equal(tf->arraylen, 16);

	memset(&r, 0, sizeof(r));
	fill_common(&r.s.ent, sample.id);
	r.s.id = -7;
	strcpy(r.s.comm, "app");
	r.s.__data_loc_path = (uint32_t)sizeof(path) << 16 | (uint32_t)sizeof(r.s);
	r.s.delta = -100;
	memcpy(r.s.__data, path, sizeof(path));
	expect_print(tep, &r, size, "id=-7 comm=app path=/api/x delta=-100");
	tep_free(tep);
}

/* the built-in events parse, with their fields where the descriptors say */
static void test_parse_builtin(void **state)
{
	struct tep_handle *tep = tep_new();

	(void)state;
	for (unsigned i = 0; i < ut_builtin_nr; i++) {
		struct ut_event_desc d = *ut_builtin_tps[i]->desc;
		struct tep_event *ev;

		d.id = (uint16_t)(UT_EVENT_ID_DYNAMIC + i);
		ev = parse(tep, &d);
		assert_int_equal(ev->id, d.id);
		assert_string_equal(ev->system, d.system);
		assert_string_equal(ev->name, d.name);
		assert_int_equal(ev->format.nr_fields, (int)d.nr_fields);
		for (uint32_t j = 0; j < d.nr_fields; j++) {
			const struct ut_event_field *f = &d.fields[j];
			struct tep_format_field *tf = tep_find_field(ev, f->name);

			check_field(tf, f->name, f->offset, f->size, f->is_signed);
			if (f->kind == UT_FIELD_DATA_LOC)
				assert_true(tf->flags & TEP_FIELD_IS_DYNAMIC);
		}
	}
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ftrace),
		cmocka_unit_test(test_header_page),
		cmocka_unit_test(test_print_records),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_parse_builtin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
