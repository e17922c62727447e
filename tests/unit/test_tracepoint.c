// SPDX-License-Identifier: MIT
/*
 * test_tracepoint.c - the tracepoint macros (include/usertrace/
 * tracepoint.h, define_trace.h) on the events of tp_sample.h and
 * tpsys2.h, created here.
 *
 * What the macros make is checked against the compiler: the descriptors
 * (offsets equal offsetof of the layout, sizes, signedness, the type
 * texts of the kernel's format files), the print fmt texts, the section
 * that lists the tracepoints.  Probes are registered and called as
 * register_trace_X() promises; a fake runtime (ops->write) receives the
 * entries and the tests read them back.  No usertrace is linked: the
 * tracepoints do nothing until a test turns them on.
 *
 * The file is C and C++: tests.mk builds it as both (test_tracepoint,
 * test_tracepoint_cxx), and links tp_cxx.cc, a C++ caller of the same
 * events, into each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#include <cmocka.h>
#ifdef __cplusplus
}
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define CREATE_TRACE_POINTS
#include "tp_sample.h"
#include "tpsys2.h"

/* probes only, without a trace header: DEFINE_TRACE, in both spellings */
#include <usertrace/tracepoint.h>
DECLARE_TRACE(local_hook, TP_PROTO(int v), TP_ARGS(v));
DEFINE_TRACE(local_hook);
DECLARE_TRACE(local_hook2, TP_PROTO(void), TP_ARGS());
DEFINE_TRACE(local_hook2, TP_PROTO(void), TP_ARGS());

#ifdef __cplusplus
extern "C" {
#endif
/* the linker's bounds of the section the runtime reads */
extern struct ut_tracepoint *__start___ut_tracepoints_ptrs[];
extern struct ut_tracepoint *__stop___ut_tracepoints_ptrs[];

/* tp_cxx.cc */
int tp_cxx_probe_request(int id, const char *path, int *got_id);
int tp_cxx_lambda_tick(void);
void tp_cxx_trace_request(int id, const char *path);
#ifdef __cplusplus
}
#endif

/* ---- a runtime of our own: records the last entry ---- */

static union {
	unsigned char b[UT_EVENT_MAX];
	uint64_t align;
} rec;
static uint32_t rec_size;
static int rec_count;
static int rec_misaligned;
static struct ut_tracepoint *rec_tp;

static void fake_write(struct ut_tracepoint *tp, struct ut_trace_entry *ent, uint32_t size)
{
	rec_tp = tp;
	rec_size = size;
	rec_count++;
	if ((uintptr_t)ent % 8)
		rec_misaligned++;
	memcpy(rec.b, ent, size <= sizeof(rec.b) ? size : sizeof(rec.b));
}

static const struct ut_tracepoint_ops fake_ops = { UT_TP_ABI, fake_write };

static void record_on(struct ut_tracepoint *tp)
{
	tp->ops = &fake_ops;
	__atomic_fetch_or(&tp->state, UT_TP_STATE_RECORD, __ATOMIC_RELEASE);
}

static void record_off(struct ut_tracepoint *tp)
{
	__atomic_fetch_and(&tp->state, ~UT_TP_STATE_RECORD, __ATOMIC_RELAXED);
	tp->ops = NULL;
}

static int reset(void **state)
{
	(void)state;
	memset(rec.b, 0xa5, sizeof(rec.b));
	rec_size = 0;
	rec_count = 0;
	rec_misaligned = 0;
	rec_tp = NULL;
	return 0;
}

/* leave garbage where the next calls will have their frames */
static void __attribute__((noinline)) dirty_stack(void)
{
	volatile unsigned char junk[3 * UT_EVENT_MAX];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

/* the string at a __data_loc word of the recorded entry, checked in place */
static const char *rec_str(uint32_t loc)
{
	uint32_t off = loc & 0xffff, len = loc >> 16;

	assert_true(len >= 1);
	assert_true(off + len <= rec_size);
	assert_int_equal(rec.b[off + len - 1], 0);
	assert_int_equal(strlen((const char *)rec.b + off), len - 1);
	return (const char *)rec.b + off;
}

/* ---- descriptors ---- */

/* plain char fields say signed:0 whatever the compiler's char, as the kernel's formats */

static void check_field(const struct ut_event_field *f, const char *type, const char *name,
			size_t offset, size_t size, int is_signed, int kind, int len)
{
	assert_non_null(f->type);
	assert_string_equal(f->type, type);
	assert_string_equal(f->name, name);
	assert_int_equal(f->offset, offset);
	assert_int_equal(f->size, size);
	assert_int_equal(f->is_signed, is_signed);
	assert_int_equal(f->kind, kind);
	assert_int_equal(f->len, len);
}

static const struct ut_event_desc *check_desc(struct ut_tracepoint *tp, const char *system,
					      const char *name, size_t size, uint32_t nr_fields)
{
	const struct ut_event_desc *d = tp->desc;
	char full[128];

	assert_non_null(d);
	snprintf(full, sizeof(full), "%s:%s", system, name);
	assert_string_equal(tp->name, full);
	assert_int_equal(tp->abi, UT_TP_ABI);
	assert_int_equal(tp->id, 0);
	assert_int_equal(tp->state, 0);
	assert_null(tp->ops);
	assert_int_equal(d->abi, UT_TP_ABI);
	assert_int_equal(d->id, 0);
	assert_int_equal(d->size, size);
	assert_string_equal(d->system, system);
	assert_string_equal(d->name, name);
	assert_int_equal(d->nr_fields, nr_fields);
	/* the table ends with an empty row */
	assert_null(d->fields[nr_fields].name);
	assert_null(d->fields[nr_fields].type);
	return d;
}

static void test_desc_request(void **state)
{
	const struct ut_event_desc *d;

	(void)state;
	d = check_desc(&__ut_tp_sample_request, "sample", "request", sizeof(struct ut_raw_request), 2);
	check_field(&d->fields[0], "int", "id", offsetof(struct ut_raw_request, id), 4, 1,
		    UT_FIELD_SCALAR, 0);
	check_field(&d->fields[1], "__data_loc char[]", "path",
		    offsetof(struct ut_raw_request, __data_loc_path), 4, 0,
		    UT_FIELD_DATA_LOC, 0);
	assert_string_equal(d->print_fmt, "\"id=%d path=%s\", REC->id, __get_str(path)");
	/* the layout: common fields, then the event's */
	assert_int_equal(offsetof(struct ut_raw_request, ent), 0);
	assert_int_equal(offsetof(struct ut_raw_request, id), 8);
	assert_int_equal(offsetof(struct ut_raw_request, __data_loc_path), 12);
	assert_int_equal(sizeof(struct ut_raw_request), 16);
}

static void test_desc_mixed(void **state)
{
	const struct ut_event_desc *d;

	(void)state;
	d = check_desc(&__ut_tp_sample_mixed, "sample", "mixed", sizeof(struct ut_raw_mixed), 7);
	check_field(&d->fields[0], "int", "a", offsetof(struct ut_raw_mixed, a), sizeof(int), 1,
		    UT_FIELD_SCALAR, 0);
	check_field(&d->fields[1], "unsigned long", "b", offsetof(struct ut_raw_mixed, b),
		    sizeof(unsigned long), 0, UT_FIELD_SCALAR, 0);
	check_field(&d->fields[2], "char[16]", "comm", offsetof(struct ut_raw_mixed, comm), 16,
		    0, UT_FIELD_ARRAY, 16);
	check_field(&d->fields[3], "__data_loc char[]", "name",
		    offsetof(struct ut_raw_mixed, __data_loc_name), 4, 0,
		    UT_FIELD_DATA_LOC, 0);
	check_field(&d->fields[4], "__data_loc short[]", "vals",
		    offsetof(struct ut_raw_mixed, __data_loc_vals), 4, 1, UT_FIELD_DATA_LOC, 0);
	check_field(&d->fields[5], "struct sample_pair", "pair", offsetof(struct ut_raw_mixed, pair),
		    sizeof(struct sample_pair), 0, UT_FIELD_SCALAR, 0);
	check_field(&d->fields[6], "unsigned char", "flag", offsetof(struct ut_raw_mixed, flag), 1, 0,
		    UT_FIELD_SCALAR, 0);
	assert_string_equal(d->print_fmt,
			    "\"a=%d b=%lu comm=%s name=%s vals=%s\", REC->a, REC->b, REC->comm, "
			    "__get_str(name), __print_array(__get_dynamic_array(vals), "
			    "__get_dynamic_array_len(vals) / 2, 2)");
	/* the fields in order, each aligned as the C compiler aligns it */
	assert_int_equal(offsetof(struct ut_raw_mixed, a), 8);
	assert_int_equal(offsetof(struct ut_raw_mixed, b), 16);
	assert_int_equal(offsetof(struct ut_raw_mixed, comm), 24);
	assert_int_equal(offsetof(struct ut_raw_mixed, __data_loc_name), 40);
	assert_int_equal(offsetof(struct ut_raw_mixed, __data_loc_vals), 44);
	assert_int_equal(offsetof(struct ut_raw_mixed, pair), 48);
	assert_int_equal(offsetof(struct ut_raw_mixed, flag), 64);
}

static void test_desc_class(void **state)
{
	const struct ut_event_desc *get, *put, *dump;

	(void)state;
	get = check_desc(&__ut_tp_sample_obj_get, "sample", "obj_get", sizeof(struct ut_raw_obj), 2);
	put = check_desc(&__ut_tp_sample_obj_put, "sample", "obj_put", sizeof(struct ut_raw_obj), 2);
	dump = check_desc(&__ut_tp_sample_obj_dump, "sample", "obj_dump", sizeof(struct ut_raw_obj), 2);
	/* one table for the class */
	assert_ptr_equal(get->fields, put->fields);
	assert_ptr_equal(get->fields, dump->fields);
	check_field(&get->fields[0], "const void *", "ptr", offsetof(struct ut_raw_obj, ptr),
		    sizeof(void *), 0, UT_FIELD_SCALAR, 0);
	check_field(&get->fields[1], "long", "delta", offsetof(struct ut_raw_obj, delta),
		    sizeof(long), 1, UT_FIELD_SCALAR, 0);
	assert_string_equal(get->print_fmt, "\"ptr=%p delta=%ld\", REC->ptr, REC->delta");
	assert_ptr_equal(get->print_fmt, put->print_fmt);
	/* DEFINE_EVENT_PRINT's own */
	assert_string_equal(dump->print_fmt, "\"dump %p\", REC->ptr");
}

static void test_desc_void(void **state)
{
	const struct ut_event_desc *d;

	(void)state;
	d = check_desc(&__ut_tp_sample_tick, "sample", "tick", sizeof(struct ut_trace_entry), 0);
	assert_string_equal(d->print_fmt, "\"tick\"");
	assert_int_equal(sizeof(struct ut_raw_tick), 8);
}

static void test_desc_other(void **state)
{
	const struct ut_event_desc *d;

	(void)state;
	d = check_desc(&__ut_tp_sample_blob, "sample", "blob", sizeof(struct ut_raw_blob), 2);
	check_field(&d->fields[0], "unsigned int", "len", offsetof(struct ut_raw_blob, len), 4, 0,
		    UT_FIELD_SCALAR, 0);
	check_field(&d->fields[1], "__data_loc char[]", "buf",
		    offsetof(struct ut_raw_blob, __data_loc_buf), 4, 0,
		    UT_FIELD_DATA_LOC, 0);
	assert_string_equal(d->print_fmt, "\"len=%u buf=%s\", REC->len, __get_str(buf)");

	/* the second system: the default TRACE_INCLUDE_FILE and path */
	d = check_desc(&__ut_tp_tpsys2_ping, "tpsys2", "ping", sizeof(struct ut_raw_ping), 3);
	check_field(&d->fields[0], "unsigned short", "port", offsetof(struct ut_raw_ping, port), 2, 0,
		    UT_FIELD_SCALAR, 0);
	check_field(&d->fields[1], "enum tpsys2_dir", "dir", offsetof(struct ut_raw_ping, dir),
		    sizeof(enum tpsys2_dir), 1, UT_FIELD_SCALAR, 0);
	check_field(&d->fields[2], "enum tpsys2_mode", "mode", offsetof(struct ut_raw_ping, mode),
		    sizeof(enum tpsys2_mode), 0, UT_FIELD_SCALAR, 0);
	assert_string_equal(d->print_fmt,
			    "\"port=%hu dir=%d mode=%u\", REC->port, REC->dir, REC->mode");

	/* DECLARE_TRACE: probes only */
	assert_null(__ut_tp_sample_hook.desc);
	assert_string_equal(__ut_tp_sample_hook.name, "sample_hook");
	assert_int_equal(__ut_tp_sample_hook.abi, UT_TP_ABI);
	assert_null(__ut_tp_sample_void_hook.desc);
	assert_string_equal(__ut_tp_sample_void_hook.name, "sample_void_hook");
}

/* the section lists every tracepoint, once */
static void test_section(void **state)
{
	struct ut_tracepoint *want[] = {
		&__ut_tp_sample_request, &__ut_tp_sample_mixed, &__ut_tp_sample_obj_get,
		&__ut_tp_sample_obj_put, &__ut_tp_sample_obj_dump, &__ut_tp_sample_tick,
		&__ut_tp_sample_blob, &__ut_tp_sample_hook, &__ut_tp_sample_void_hook,
		&__ut_tp_tpsys2_ping, &__ut_tp_local_hook, &__ut_tp_local_hook2,
	};
	size_t n = (size_t)(__stop___ut_tracepoints_ptrs - __start___ut_tracepoints_ptrs);
	size_t i, j;

	(void)state;
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		int found = 0;

		for (j = 0; j < n; j++)
			found += __start___ut_tracepoints_ptrs[j] == want[i];
		assert_int_equal(found, 1);
		assert_int_equal(__start___ut_tracepoints_ptrs[i]->abi, UT_TP_ABI);
	}
}

/* ---- probes ---- */

struct hit {
	int calls;
	int id;
	const char *path;
	int order;		/* the value of `seq` at the last call */
};
static int seq;

static void probe_request(void *data, int id, const char *path)
{
	struct hit *h = (struct hit *)data;

	h->calls++;
	h->id = id;
	h->path = path;
	h->order = ++seq;
}

static void probe_request2(void *data, int id, const char *path)
{
	probe_request(data, id, path);
}

static void probe_tick(void *data)
{
	((struct hit *)data)->calls++;
}

static void probe_tick_int(void *data, int v)
{
	((struct hit *)data)->calls += v == 6;
}

static void probe_hook(void *data, int x, const char *why)
{
	probe_request(data, x, why);
}

static void probe_blob(void *data, const char *buf, unsigned int len, int unused)
{
	(void)buf;
	(void)unused;
	probe_request(data, (int)len, NULL);
}

static void test_probes(void **state)
{
	struct hit h1 = { 0, 0, NULL, 0 }, h2 = { 0, 0, NULL, 0 };

	(void)state;
	/* nothing registered: nothing happens, and nothing is linked */
	assert_int_equal(trace_request_enabled(), 0);
	trace_request(1, "/a");
	assert_int_equal(rec_count, 0);

	assert_int_equal(register_trace_request(probe_request, &h1), 0);
	assert_int_equal(__ut_tp_sample_request.state, UT_TP_STATE_PROBES);
	assert_int_equal(trace_request_enabled(), 1);
	trace_request(7, "/api/x");
	assert_int_equal(h1.calls, 1);
	assert_int_equal(h1.id, 7);
	assert_string_equal(h1.path, "/api/x");

	/* the same probe with the same data, again: refused */
	assert_int_equal(register_trace_request(probe_request, &h1), -EEXIST);
	/* with other data, or another probe: a second call */
	assert_int_equal(register_trace_request(probe_request, &h2), 0);
	assert_int_equal(register_trace_request(probe_request2, &h1), 0);
	trace_request(8, "/b");
	assert_int_equal(h1.calls, 3);
	assert_int_equal(h2.calls, 1);
	assert_int_equal(h2.id, 8);
	/* in the order of registration */
	assert_true(h2.order < h1.order);

	assert_int_equal(unregister_trace_request(probe_request2, &h2), -ENOENT);
	assert_int_equal(unregister_trace_request(probe_request, &h1), 0);
	assert_int_equal(unregister_trace_request(probe_request, &h1), -ENOENT);
	trace_request(9, "/c");
	assert_int_equal(h1.calls, 4);		/* probe_request2 only */
	assert_int_equal(h2.calls, 2);
	assert_int_equal(h2.id, 9);
	assert_int_equal(unregister_trace_request(probe_request, &h2), 0);
	assert_int_equal(unregister_trace_request(probe_request2, &h1), 0);
	assert_int_equal(__ut_tp_sample_request.state, 0);
	assert_int_equal(trace_request_enabled(), 0);
	trace_request(10, "/d");
	assert_int_equal(h1.calls, 4);
	assert_int_equal(h2.calls, 2);
	assert_int_equal(rec_count, 0);
	assert_int_equal(register_trace_request(NULL, &h1), -EINVAL);
}

static void test_probes_full(void **state)
{
	struct hit h[UT_TP_PROBES + 1];
	int i;

	(void)state;
	memset(h, 0, sizeof(h));
	for (i = 0; i < UT_TP_PROBES; i++)
		assert_int_equal(register_trace_request(probe_request, &h[i]), 0);
	assert_int_equal(register_trace_request(probe_request, &h[UT_TP_PROBES]), -ENOMEM);
	/* a hole in the middle keeps the others in order, and makes room */
	assert_int_equal(unregister_trace_request(probe_request, &h[3]), 0);
	assert_int_equal(register_trace_request(probe_request, &h[UT_TP_PROBES]), 0);
	trace_request(5, "/e");
	for (i = 0; i <= UT_TP_PROBES; i++) {
		assert_int_equal(h[i].calls, i != 3);
		if (i > 0 && i != 3 && i != 4)
			assert_true(h[i].order > h[i - 1].order);
	}
	assert_true(h[4].order > h[2].order);
	assert_true(h[UT_TP_PROBES].order > h[UT_TP_PROBES - 1].order);
	for (i = 0; i <= UT_TP_PROBES; i++)
		assert_int_equal(unregister_trace_request(probe_request, &h[i]), i == 3 ? -ENOENT : 0);
	assert_int_equal(__ut_tp_sample_request.state, 0);
}

static void test_probes_other(void **state)
{
	struct hit h = { 0, 0, NULL, 0 };

	(void)state;
	/* TP_PROTO(void) */
	assert_int_equal(register_trace_tick(probe_tick, &h), 0);
	trace_tick();
	assert_int_equal(h.calls, 1);
	assert_int_equal(unregister_trace_tick(probe_tick, &h), 0);
	trace_tick();
	assert_int_equal(h.calls, 1);

	/* DECLARE_TRACE, with and without arguments */
	h.calls = 0;
	assert_int_equal(trace_sample_hook_enabled(), 0);
	assert_int_equal(register_trace_sample_hook(probe_hook, &h), 0);
	assert_int_equal(trace_sample_hook_enabled(), 1);
	trace_sample_hook(3, "why");
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.id, 3);
	assert_string_equal(h.path, "why");
	assert_int_equal(register_trace_sample_hook(probe_hook, &h), -EEXIST);
	assert_int_equal(unregister_trace_sample_hook(probe_hook, &h), 0);
	trace_sample_hook(4, "not");
	assert_int_equal(h.calls, 1);
	assert_int_equal(register_trace_sample_void_hook(probe_tick, &h), 0);
	trace_sample_void_hook();
	assert_int_equal(h.calls, 2);
	assert_int_equal(unregister_trace_sample_void_hook(probe_tick, &h), 0);

	/* DEFINE_TRACE's */
	assert_null(__ut_tp_local_hook.desc);
	assert_string_equal(__ut_tp_local_hook.name, "local_hook");
	assert_string_equal(__ut_tp_local_hook2.name, "local_hook2");
	h.calls = 0;
	assert_int_equal(register_trace_local_hook(probe_tick_int, &h), 0);
	assert_int_equal(register_trace_local_hook2(probe_tick, &h), 0);
	trace_local_hook(6);
	trace_local_hook2();
	assert_int_equal(h.calls, 2);
	assert_int_equal(unregister_trace_local_hook(probe_tick_int, &h), 0);
	assert_int_equal(unregister_trace_local_hook2(probe_tick, &h), 0);
	trace_local_hook(6);
	assert_int_equal(h.calls, 2);
	h.calls = 2;

	/* a probe-only tracepoint is never recorded */
	record_on(&__ut_tp_sample_hook);
	assert_int_equal(register_trace_sample_hook(probe_hook, &h), 0);
	trace_sample_hook(5, "x");
	assert_int_equal(h.calls, 3);
	assert_int_equal(rec_count, 0);
	assert_int_equal(unregister_trace_sample_hook(probe_hook, &h), 0);
	record_off(&__ut_tp_sample_hook);

	/* TP_CONDITION(len != 13) */
	h.calls = 0;
	assert_int_equal(register_trace_blob(probe_blob, &h), 0);
	trace_blob("abc", 3, 0);
	assert_int_equal(h.calls, 1);
	assert_int_equal(h.id, 3);
	trace_blob("abc", 13, 0);
	assert_int_equal(h.calls, 1);
	assert_int_equal(unregister_trace_blob(probe_blob, &h), 0);
}

/*
 * Probes come and go while another thread calls: each call must see a
 * probe with its own data (the sequence lock), never one with another's.
 */
static struct hit pa, pb;
static int threads_stop, threads_bad, threads_calls, threads_running;

static void probe_pa(void *data, int id, const char *path)
{
	(void)id;
	(void)path;
	if (data != &pa)
		__atomic_fetch_add(&threads_bad, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&threads_calls, 1, __ATOMIC_RELAXED);
}

static void probe_pb(void *data, int id, const char *path)
{
	(void)id;
	(void)path;
	if (data != &pb)
		__atomic_fetch_add(&threads_bad, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&threads_calls, 1, __ATOMIC_RELAXED);
}

static void *caller(void *arg)
{
	(void)arg;
	__atomic_store_n(&threads_running, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&threads_stop, __ATOMIC_RELAXED))
		trace_request(1, "x");
	return NULL;
}

static void test_probes_threads(void **state)
{
	pthread_t t;
	int i;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, caller, NULL), 0);
	while (!__atomic_load_n(&threads_running, __ATOMIC_RELAXED))
		sched_yield();
	/* until the caller has met the probes often enough */
	for (i = 0; i < 200000 || (__atomic_load_n(&threads_calls, __ATOMIC_RELAXED) < 20000 &&
				 i < 20000000); i++) {
		assert_int_equal(register_trace_request(probe_pa, &pa), 0);
		assert_int_equal(register_trace_request(probe_pb, &pb), 0);
		assert_int_equal(unregister_trace_request(probe_pa, &pa), 0);
		/* pa's slot now holds pb, and pb's slot pa again */
		assert_int_equal(register_trace_request(probe_pa, &pa), 0);
		assert_int_equal(unregister_trace_request(probe_pb, &pb), 0);
		assert_int_equal(unregister_trace_request(probe_pa, &pa), 0);
	}
	__atomic_store_n(&threads_stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(threads_bad, 0);
	assert_true(threads_calls > 0);
	assert_int_equal(__ut_tp_sample_request.state, 0);
}

/* ---- recording ---- */

static void test_record_request(void **state)
{
	const struct ut_raw_request *e = (const struct ut_raw_request *)rec.b;
	struct hit h = { 0, 0, NULL, 0 };

	(void)state;
	/* RECORD without ops (a runtime half-way): nothing, no crash */
	__atomic_fetch_or(&__ut_tp_sample_request.state, UT_TP_STATE_RECORD, __ATOMIC_RELAXED);
	trace_request(1, "/a");
	assert_int_equal(rec_count, 0);

	record_on(&__ut_tp_sample_request);
	trace_request(42, "/api/x");
	assert_int_equal(rec_count, 1);
	assert_int_equal(rec_misaligned, 0);
	assert_ptr_equal(rec_tp, &__ut_tp_sample_request);
	/* fixed part up to __data, then the string and its NUL */
	assert_int_equal(rec_size, offsetof(struct ut_raw_request, __data) + 7);
	assert_int_equal(e->ent.type, 0);
	assert_int_equal(e->ent.flags, 0);
	assert_int_equal(e->ent.preempt_count, 0);
	assert_int_equal(e->ent.pid, 0);
	assert_int_equal(e->id, 42);
	assert_int_equal(e->__data_loc_path, 7u << 16 | offsetof(struct ut_raw_request, __data));
	assert_string_equal(rec_str(e->__data_loc_path), "/api/x");

	/* NULL prints as the kernel's "(null)" */
	trace_request(43, NULL);
	assert_int_equal(rec_count, 2);
	assert_string_equal(rec_str(e->__data_loc_path), "(null)");

	/* probes first, then the record */
	assert_int_equal(register_trace_request(probe_request, &h), 0);
	trace_request(44, "");
	assert_int_equal(h.calls, 1);
	assert_int_equal(rec_count, 3);
	assert_int_equal(e->id, 44);
	assert_int_equal(e->__data_loc_path >> 16, 1);
	assert_string_equal(rec_str(e->__data_loc_path), "");
	assert_int_equal(unregister_trace_request(probe_request, &h), 0);

	record_off(&__ut_tp_sample_request);
	assert_int_equal(__ut_tp_sample_request.state, 0);
	trace_request(45, "/off");
	assert_int_equal(rec_count, 3);
}

static void test_record_mixed(void **state)
{
	const struct ut_raw_mixed *e = (const struct ut_raw_mixed *)rec.b;
	static const short vals[5] = { 1, -2, 300, -32768, 32767 };
	struct sample_pair pair = { -5, 1LL << 40 };
	short got[5];
	uint32_t off, len;

	(void)state;
	record_on(&__ut_tp_sample_mixed);
	dirty_stack();
	trace_mixed(-3, 0xdeadbeefUL, "a-very-long-command-name", "abcdefghijk", vals, 5, pair);
	assert_int_equal(rec_count, 1);
	/* what no field covers is zero: the common fields, the padding */
	assert_int_equal(e->ent.type, 0);
	assert_int_equal(e->ent.pid, 0);
	assert_int_equal(rec.b[offsetof(struct ut_raw_mixed, a) + 4], 0);
	assert_int_equal(rec.b[offsetof(struct ut_raw_mixed, b) - 1], 0);
	assert_int_equal(e->a, -3);
	assert_int_equal(e->b, 0xdeadbeefUL);
	assert_string_equal(e->comm, "a-very-long-com");
	assert_string_equal(rec_str(e->__data_loc_name), "abcdefghijk");
	assert_int_equal(e->__data_loc_name & 0xffff, offsetof(struct ut_raw_mixed, __data));
	/* the array after the string (which ends at an odd offset past the
	 * fixed part), aligned for its type, the gap zeroed */
	off = e->__data_loc_vals & 0xffff;
	len = e->__data_loc_vals >> 16;
	assert_int_equal(len, sizeof(vals));
	assert_int_equal(off % sizeof(short), 0);
	assert_int_equal(off, (e->__data_loc_name & 0xffff) + 12 + 1);
	assert_true(off > sizeof(struct ut_raw_mixed));
	assert_int_equal(rec.b[off - 1], 0);
	assert_int_equal(rec_size, off + len);
	memcpy(got, rec.b + off, sizeof(got));
	assert_memory_equal(got, vals, sizeof(vals));
	assert_int_equal(e->pair.lo, -5);
	assert_int_equal(e->pair.hi, 1LL << 40);
	assert_int_equal(e->flag, 0xff);

	/* no elements: a zero-length array */
	trace_mixed(0, 0, "", "", vals, 0, pair);
	assert_int_equal(e->__data_loc_vals >> 16, 0);
	assert_string_equal(rec_str(e->__data_loc_name), "");
	/* an entry never ends inside its fixed part */
	assert_int_equal(rec_size, sizeof(struct ut_raw_mixed));
	record_off(&__ut_tp_sample_mixed);
}

/* an overlong string is cut so that the entry fits, NUL kept */
static void test_record_overlong(void **state)
{
	const struct ut_raw_request *r = (const struct ut_raw_request *)rec.b;
	const struct ut_raw_mixed *m = (const struct ut_raw_mixed *)rec.b;
	static char big[3 * UT_EVENT_MAX];
	static short vals[UT_EVENT_MAX];
	struct sample_pair pair = { 0, 0 };
	uint32_t off, len;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	record_on(&__ut_tp_sample_request);
	trace_request(1, big);
	assert_int_equal(rec_count, 1);
	assert_int_equal(rec_size, UT_EVENT_MAX);
	len = r->__data_loc_path >> 16;
	assert_int_equal(len, UT_EVENT_MAX - offsetof(struct ut_raw_request, __data));
	assert_int_equal(strlen(rec_str(r->__data_loc_path)), len - 1);
	record_off(&__ut_tp_sample_request);

	/* the string takes the room; the array after it gets what is left, in whole elements */
	record_on(&__ut_tp_sample_mixed);
	big[UT_EVENT_MAX - 80] = 0;
	trace_mixed(1, 2, "c", big, vals, UT_EVENT_MAX, pair);
	assert_int_equal(rec_count, 2);
	assert_true(rec_size <= UT_EVENT_MAX);
	assert_int_equal(strlen(rec_str(m->__data_loc_name)), UT_EVENT_MAX - 80);
	off = m->__data_loc_vals & 0xffff;
	len = m->__data_loc_vals >> 16;
	assert_int_equal(off % 2, 0);
	assert_int_equal(len % 2, 0);
	assert_true(len > 0);
	assert_true(UT_EVENT_MAX - (off + len) < 2);
	assert_int_equal(rec_size, off + len);

	/* no room left at all: an empty array, still within bounds */
	big[UT_EVENT_MAX - 80] = 'x';
	trace_mixed(1, 2, "c", big, vals, 3, pair);
	assert_int_equal(rec_size, UT_EVENT_MAX);
	assert_int_equal(m->__data_loc_vals >> 16, 0);
	assert_true((m->__data_loc_vals & 0xffff) <= UT_EVENT_MAX);
	rec_str(m->__data_loc_name);
	record_off(&__ut_tp_sample_mixed);
}

static void test_record_other(void **state)
{
	const struct ut_raw_obj *o = (const struct ut_raw_obj *)rec.b;
	const struct ut_raw_blob *b = (const struct ut_raw_blob *)rec.b;
	const struct ut_raw_ping *p = (const struct ut_raw_ping *)rec.b;
	int x;

	(void)state;
	/* the events of a class record each through its own tracepoint */
	record_on(&__ut_tp_sample_obj_put);
	trace_obj_get(&x, 1);
	assert_int_equal(rec_count, 0);
	trace_obj_put(&x, -1);
	assert_int_equal(rec_count, 1);
	assert_ptr_equal(rec_tp, &__ut_tp_sample_obj_put);
	assert_ptr_equal(o->ptr, &x);
	assert_int_equal(o->delta, -1);
	assert_int_equal(rec_size, sizeof(struct ut_raw_obj));
	record_off(&__ut_tp_sample_obj_put);

	/* no fields: the common ones only */
	record_on(&__ut_tp_sample_tick);
	trace_tick();
	assert_int_equal(rec_count, 2);
	assert_int_equal(rec_size, sizeof(struct ut_trace_entry));
	record_off(&__ut_tp_sample_tick);

	/* __string_len: that many bytes and a NUL; the condition holds records too */
	record_on(&__ut_tp_sample_blob);
	trace_blob("abcdef", 3, 0);
	assert_int_equal(rec_count, 3);
	assert_int_equal(b->len, 3);
	assert_int_equal(b->__data_loc_buf >> 16, 4);
	assert_string_equal(rec_str(b->__data_loc_buf), "abc");
	trace_blob(NULL, 3, 0);
	assert_string_equal(rec_str(b->__data_loc_buf), "(null)");
	trace_blob("abcdef", 13, 0);
	assert_int_equal(rec_count, 4);
	record_off(&__ut_tp_sample_blob);

	/* the second system */
	record_on(&__ut_tp_tpsys2_ping);
	trace_ping(8080, TPSYS2_IN, TPSYS2_UDP);
	assert_int_equal(rec_count, 5);
	assert_ptr_equal(rec_tp, &__ut_tp_tpsys2_ping);
	assert_int_equal(p->port, 8080);
	assert_int_equal(p->dir, TPSYS2_IN);
	assert_int_equal(p->mode, TPSYS2_UDP);
	record_off(&__ut_tp_tpsys2_ping);
	assert_int_equal(rec_misaligned, 0);
}

/* tp_cxx.cc calls and probes the same tracepoints from C++ */
static void test_cxx_caller(void **state)
{
	const struct ut_raw_request *e = (const struct ut_raw_request *)rec.b;
	int id = 0;

	(void)state;
	assert_int_equal(tp_cxx_probe_request(11, "/cxx", &id), 1);
	assert_int_equal(id, 11);
	assert_int_equal(__ut_tp_sample_request.state, 0);
	assert_int_equal(tp_cxx_lambda_tick(), 2);
	record_on(&__ut_tp_sample_request);
	tp_cxx_trace_request(12, "/from-c++");
	assert_int_equal(rec_count, 1);
	assert_int_equal(e->id, 12);
	assert_string_equal(rec_str(e->__data_loc_path), "/from-c++");
	record_off(&__ut_tp_sample_request);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_desc_request, reset),
		cmocka_unit_test_setup(test_desc_mixed, reset),
		cmocka_unit_test_setup(test_desc_class, reset),
		cmocka_unit_test_setup(test_desc_void, reset),
		cmocka_unit_test_setup(test_desc_other, reset),
		cmocka_unit_test_setup(test_section, reset),
		cmocka_unit_test_setup(test_probes, reset),
		cmocka_unit_test_setup(test_probes_full, reset),
		cmocka_unit_test_setup(test_probes_other, reset),
		cmocka_unit_test_setup(test_probes_threads, reset),
		cmocka_unit_test_setup(test_record_request, reset),
		cmocka_unit_test_setup(test_record_mixed, reset),
		cmocka_unit_test_setup(test_record_overlong, reset),
		cmocka_unit_test_setup(test_record_other, reset),
		cmocka_unit_test_setup(test_cxx_caller, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
