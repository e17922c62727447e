// SPDX-License-Identifier: MIT
/*
 * tp_cxx.cc - a C++ user of tp_sample.h's events for test_tracepoint:
 * it includes the header without CREATE_TRACE_POINTS, as most of a
 * program's files would, and calls, registers and unregisters through
 * the same tracepoints as the test, whichever language created them.
 */
#include "tp_sample.h"

namespace {

struct seen {
	int calls;
	int id;
};

void probe(void *data, int id, const char *path)
{
	seen *s = static_cast<seen *>(data);

	s->calls++;
	s->id = path ? id : -1;
}

} // namespace

extern "C" int tp_cxx_probe_request(int id, const char *path, int *got_id)
{
	seen s = { 0, 0 };

	if (register_trace_request(probe, &s) != 0)
		return -1;
	if (register_trace_request(probe, &s) != -EEXIST)
		return -2;
	trace_request(id, path);
	if (unregister_trace_request(probe, &s) != 0)
		return -3;
	trace_request(id + 1, path);
	*got_id = s.id;
	return s.calls;
}

/* a lambda without captures is a probe too */
extern "C" int tp_cxx_lambda_tick(void)
{
	int n = 0;
	void (*probe_tick)(void *) = [](void *data) { ++*static_cast<int *>(data); };

	if (register_trace_tick(probe_tick, &n) != 0)
		return -1;
	trace_tick();
	trace_tick();
	unregister_trace_tick(probe_tick, &n);
	trace_tick();
	return n;
}

extern "C" void tp_cxx_trace_request(int id, const char *path)
{
	trace_request(id, path);
}
