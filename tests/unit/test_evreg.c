// SPDX-License-Identifier: MIT
/*
 * test_evreg.c - the session's event registry (lib/event/registry.c):
 * descriptors in bytes and back, one id per event layout, a full
 * registry, patterns, and a holder of the lock that dies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "usertrace/evreg.h"

struct raw_req {
	struct ut_trace_entry ent;
	int id;
	uint32_t path;		/* __data_loc */
	char comm[16];
};

static const struct ut_event_field req_fields[] = {
	{ "int", "id", offsetof(struct raw_req, id), 4, 1, UT_FIELD_SCALAR, 0 },
	{ "__data_loc char[]", "path", offsetof(struct raw_req, path), 4, 0, UT_FIELD_DATA_LOC, 0 },
	{ "char[16]", "comm", offsetof(struct raw_req, comm), 16, 0, UT_FIELD_ARRAY, 16 },
};

static const struct ut_event_desc req = {
	UT_TP_ABI, 0, sizeof(struct raw_req), "myapp", "request",
	"\"id=%d path=%s\", REC->id, __get_str(path)", req_fields, 3, 0,
};

static struct ut_evreg *new_reg(void)
{
	struct ut_evreg *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(r != MAP_FAILED);
	assert_int_equal(ut_evreg_init(r), 0);
	return r;
}

static void test_pack(void **state)
{
	char buf[1024];
	size_t n;
	struct ut_event_desc *d;

	(void)state;
	n = ut_event_desc_pack(&req, buf, sizeof(buf));
	assert_true(n > 12);
	d = ut_event_desc_unpack(buf, n, 1234);
	assert_non_null(d);
	assert_int_equal(d->id, 1234);
	assert_int_equal(d->size, sizeof(struct raw_req));
	assert_string_equal(d->system, "myapp");
	assert_string_equal(d->name, "request");
	assert_string_equal(d->print_fmt, req.print_fmt);
	assert_int_equal(d->nr_fields, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(d->fields[i].type, req_fields[i].type);
		assert_string_equal(d->fields[i].name, req_fields[i].name);
		assert_int_equal(d->fields[i].offset, req_fields[i].offset);
		assert_int_equal(d->fields[i].size, req_fields[i].size);
		assert_int_equal(d->fields[i].is_signed, req_fields[i].is_signed);
		assert_int_equal(d->fields[i].kind, req_fields[i].kind);
		assert_int_equal(d->fields[i].len, req_fields[i].len);
	}
	free(d);
	/* every cut of the bytes is refused, as are bad bytes */
	for (size_t k = 0; k < n; k++)
		assert_null(ut_event_desc_unpack(buf, k, 1));
	buf[0] = 'X';
	assert_null(ut_event_desc_unpack(buf, n, 1));
	/* too small a buffer */
	assert_int_equal(ut_event_desc_pack(&req, buf, 20), 0);
}

/* names become directory names: no '/', no '..', nothing empty */
static void test_bad_names(void **state)
{
	static const struct ut_event_field bad_field[] = {
		{ "int", "a b", 8, 4, 1, 0, 0 },
	};
	static const struct ut_event_field past_end[] = {
		{ "int", "x", 12, 8, 1, 0, 0 },
	};
	struct ut_event_desc d = req;
	char buf[1024];

	(void)state;
	d.system = "../etc";
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
	d = req;
	d.name = "";
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
	d = req;
	d.fields = bad_field;
	d.nr_fields = 1;
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
	d.fields = past_end;
	d.size = 16;
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
	d = req;
	d.size = 4;	/* smaller than the common fields */
	d.nr_fields = 0;
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
	d.size = UT_EVENT_MAX + 1;
	assert_int_equal(ut_event_desc_pack(&d, buf, sizeof(buf)), 0);
}

static void test_register(void **state)
{
	struct ut_evreg *r = new_reg();
	struct ut_event_desc other = req, *d;

	(void)state;
	snprintf(r->patterns, sizeof(r->patterns), "sched:* myapp:req*");
	assert_int_equal(ut_evreg_register(r, &req), 0);
	assert_int_equal(ut_evreg_register(r, &req), 0);	/* again: same id */
	assert_int_equal(r->slots[0].state, UT_EVS_RECORD);
	/* the same name with another layout: a second id */
	other.size = sizeof(struct raw_req) + 8;
	assert_int_equal(ut_evreg_register(r, &other), 1);
	other = req;
	other.name = "reply";
	assert_int_equal(ut_evreg_register(r, &other), 2);
	assert_int_equal(r->slots[2].state, 0);	/* no pattern selects it */
	assert_int_equal(r->nr, 3);
	d = ut_evreg_desc(r, 2);
	assert_non_null(d);
	assert_int_equal(d->id, UT_EVENT_ID_DYNAMIC + 2);
	assert_string_equal(d->name, "reply");
	free(d);
	assert_null(ut_evreg_desc(r, 3));
	munmap(r, sizeof(*r));
}

static void test_full(void **state)
{
	struct ut_evreg *r = new_reg();
	struct ut_event_desc d = req;
	char name[32];

	(void)state;
	for (int i = 0; i < UT_EVREG_SLOTS; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		d.name = name;
		assert_int_equal(ut_evreg_register(r, &d), i);
	}
	d.name = "one_more";
	assert_int_equal(ut_evreg_register(r, &d), -1);
	assert_int_equal(r->full, 1);
	/* those there keep their ids */
	d.name = "e7";
	assert_int_equal(ut_evreg_register(r, &d), 7);
	munmap(r, sizeof(*r));
}

static void test_match(void **state)
{
	(void)state;
	assert_true(ut_event_match("myapp:request", "myapp", "request"));
	assert_true(ut_event_match("myapp:*", "myapp", "request"));
	assert_true(ut_event_match("myapp:", "myapp", "request"));
	assert_true(ut_event_match("*:*", "myapp", "request"));
	assert_true(ut_event_match("myapp", "myapp", "request"));	/* a system */
	assert_true(ut_event_match("request", "myapp", "request"));	/* an event */
	assert_true(ut_event_match("req*", "myapp", "request"));
	assert_false(ut_event_match("myapp:reply", "myapp", "request"));
	assert_false(ut_event_match("sched:request", "myapp", "request"));
	assert_false(ut_event_match("sched", "myapp", "request"));
	assert_true(ut_event_match_list("  sched:*\tmyapp:request ", "myapp", "request"));
	assert_false(ut_event_match_list("", "myapp", "request"));
	assert_false(ut_event_match_list("sched:* kmem", "myapp", "request"));
}

/* a process killed while it holds the lock does not block the next one */
static void test_dead_holder(void **state)
{
	struct ut_evreg *r = new_reg();
	int st;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pthread_mutex_lock(&r->lock);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(ut_evreg_register(r, &req), 0);
	assert_int_equal(ut_evreg_register(r, &req), 0);
	munmap(r, sizeof(*r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_dead_holder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
