/* tp.c - a program with two tracepoints, myapp:request and myapp:response,
 * written by hand as tracepoint.h will make them (a descriptor, a struct
 * ut_tracepoint, a pointer to it in section __ut_tracepoints_ptrs).  The
 * event scenarios (test.d/8[45]*.tc) start it in the traced program's
 * session; it hits both tracepoints every millisecond (TP_BURST times in
 * a row, if set) until the file argv[1] exists. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "usertrace/event.h"

struct raw_request {
	struct ut_trace_entry ent;
	int id;
};

struct raw_response {
	struct ut_trace_entry ent;
	int id;
	int status;
};

static const struct ut_event_field request_fields[] = {
	{ "int", "id", offsetof(struct raw_request, id), 4, 1, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_field response_fields[] = {
	{ "int", "id", offsetof(struct raw_response, id), 4, 1, UT_FIELD_SCALAR, 0 },
	{ "int", "status", offsetof(struct raw_response, status), 4, 1, UT_FIELD_SCALAR, 0 },
};

static const struct ut_event_desc request_desc = {
	UT_TP_ABI, 0, sizeof(struct raw_request), "myapp", "request",
	"\"id=%d\", REC->id", request_fields, 1, 0,
};

static const struct ut_event_desc response_desc = {
	UT_TP_ABI, 0, sizeof(struct raw_response), "myapp", "response",
	"\"id=%d status=%d\", REC->id, REC->status", response_fields, 2, 0,
};

struct ut_tracepoint tp_request = { 0, UT_TP_ABI, 0, "myapp:request", &request_desc, NULL, NULL, { { 0, 0 } }, 0, 0 };
struct ut_tracepoint tp_response = { 0, UT_TP_ABI, 0, "myapp:response", &response_desc, NULL, NULL, { { 0, 0 } }, 0, 0 };

static struct ut_tracepoint *tp_ptrs[] __attribute__((used, section(UT_TP_SECTION))) = {
	&tp_request, &tp_response,
};

static int recording(struct ut_tracepoint *tp)
{
	return __atomic_load_n(&tp->state, __ATOMIC_RELAXED) & UT_TP_STATE_RECORD;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	int id = 0, b = 0, burst = getenv("TP_BURST") ? atoi(getenv("TP_BURST")) : 1;

	while (argc < 2 || access(argv[1], F_OK) != 0) {
		id++;
		if (recording(&tp_request)) {
			struct raw_request r;

			memset(&r, 0, sizeof(r));
			r.id = id;
			tp_request.ops->write(&tp_request, &r.ent, sizeof(r));
		}
		if (recording(&tp_response)) {
			struct raw_response r;

			memset(&r, 0, sizeof(r));
			r.id = id;
			r.status = 200;
			tp_response.ops->write(&tp_response, &r.ent, sizeof(r));
		}
		if (++b >= burst) {
			b = 0;
			nanosleep(&ms, NULL);
		}
	}
	return 0;
}
