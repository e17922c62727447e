// SPDX-License-Identifier: MIT
/*
 * export_perfetto.c - `usertrace dump --perfetto`: the trace in
 * Perfetto's protobuf format (ui.perfetto.dev, trace_processor).
 *
 * A trace is a perfetto.protos.Trace: field 1 (packet) repeated, each a
 * TracePacket.  We write, on one packet sequence (id 1):
 *
 *   TrackDescriptor packets first: a process track per pid (its name),
 *   a thread track per thread (pid, tid, name), child of its process's;
 *   the first packet says SEQ_INCREMENTAL_STATE_CLEARED.
 *   TrackEvent packets, timestamp in ns (CLOCK_MONOTONIC, left as the
 *   default trace clock: there is no other clock to relate it to):
 *     ENTRY, EXIT    TYPE_SLICE_BEGIN, TYPE_SLICE_END (exits paired with
 *                    entries as --chrome does, export_calls.h)
 *     RETURN         a BEGIN at ts - duration and an END at ts
 *     FUNC, EVENT, MARKER, TRACE, SAMPLE, INITCALL, LOST  TYPE_INSTANT,
 *                    with debug annotations (caller, the fields, stack...)
 *   Function and event names are interned (InternedData.event_names,
 *   emitted in the packet that first uses them): the table of names is
 *   the only state that grows, bounded by the distinct names.  Marker
 *   and lost texts are not interned (unbounded): TrackEvent.name.
 *
 * Why a hand-written encoder instead of protobuf-c: we only write, a
 * dozen fields of five messages; the wire format for that is varints and
 * length-prefixed bytes (below), which is less code than the generated
 * files and adds no dependency.  A nested message's length is written
 * after its body: its tag is followed by a 4-byte varint left to patch
 * (a varint may be padded with 0x80 continuation bytes; decoders accept
 * it), so a packet is built in one pass in one buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_calls.h"
#include "utils/utils.h"

/* field numbers, from Perfetto's protos/perfetto/trace/ (the .proto files) */
enum {
	TRACE_PACKET = 1,			/* Trace.packet */

	PKT_TIMESTAMP = 8,			/* TracePacket */
	PKT_SEQUENCE_ID = 10,			/* trusted_packet_sequence_id */
	PKT_TRACK_EVENT = 11,
	PKT_INTERNED_DATA = 12,
	PKT_SEQUENCE_FLAGS = 13,
	PKT_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,

	TD_UUID = 1,				/* TrackDescriptor */
	TD_NAME = 2,
	TD_PROCESS = 3,
	TD_THREAD = 4,
	TD_PARENT_UUID = 5,
	PD_PID = 1,				/* ProcessDescriptor */
	PD_PROCESS_NAME = 6,
	THD_PID = 1,				/* ThreadDescriptor */
	THD_TID = 2,
	THD_THREAD_NAME = 5,

	TE_DEBUG_ANNOTATIONS = 4,		/* TrackEvent */
	TE_TYPE = 9,
	TE_NAME_IID = 10,
	TE_TRACK_UUID = 11,
	TE_CATEGORIES = 22,
	TE_NAME = 23,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,

	DA_UINT_VALUE = 3,			/* DebugAnnotation */
	DA_INT_VALUE = 4,
	DA_STRING_VALUE = 6,
	DA_POINTER_VALUE = 7,
	DA_NAME = 10,

	ID_EVENT_NAMES = 2,			/* InternedData */
	EN_IID = 1,				/* EventName */
	EN_NAME = 2,
};

enum { WT_VARINT = 0, WT_LEN = 2 };

#define SEQ_ID	1

/* the packet being built */
struct pb {
	unsigned char *b;
	size_t len, cap;
};

static void pb_room(struct pb *p, size_t n)
{
	if (p->len + n > p->cap) {
		while (p->len + n > p->cap)
			p->cap = p->cap ? 2 * p->cap : 4096;
		p->b = xrealloc(p->b, p->cap);
	}
}

static void pb_varint(struct pb *p, uint64_t v)
{
	pb_room(p, 10);
	while (v >= 0x80) {
		p->b[p->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p->b[p->len++] = (unsigned char)v;
}

static void pb_tag(struct pb *p, unsigned field, unsigned wt)
{
	pb_varint(p, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	pb_tag(p, field, WT_VARINT);
	pb_varint(p, v);
}

/* int32/int64 fields: a negative value is its 64-bit two's complement */
static void pb_int(struct pb *p, unsigned field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

static void pb_bytes(struct pb *p, unsigned field, const void *s, size_t n)
{
	pb_tag(p, field, WT_LEN);
	pb_varint(p, n);
	pb_room(p, n);
	memcpy(p->b + p->len, s, n);
	p->len += n;
}

static void pb_str(struct pb *p, unsigned field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

/* open a nested message: returns where its length goes (pb_end patches it) */
static size_t pb_begin(struct pb *p, unsigned field)
{
	size_t at;

	pb_tag(p, field, WT_LEN);
	pb_room(p, 4);
	at = p->len;
	p->len += 4;
	return at;
}

static void pb_end(struct pb *p, size_t at)
{
	size_t n = p->len - at - 4;

	/* 4 varint bytes hold 28 bits: a packet is far smaller (a stack is 64 KiB at most) */
	p->b[at] = (unsigned char)(n | 0x80);
	p->b[at + 1] = (unsigned char)(n >> 7 | 0x80);
	p->b[at + 2] = (unsigned char)(n >> 14 | 0x80);
	p->b[at + 3] = (unsigned char)(n >> 21 & 0x7f);
}

/* the interned names: name -> iid, open addressing */
struct intern {
	char **name;
	uint64_t *iid;
	size_t cap, nr;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* the iid of @s, 0 if new: then *@slot is where intern_add puts it */
static uint64_t intern_find(struct intern *t, const char *s, size_t *slot)
{
	size_t i = hash_str(s) & (t->cap - 1);

	while (t->name[i]) {
		if (!strcmp(t->name[i], s))
			return t->iid[i];
		i = (i + 1) & (t->cap - 1);
	}
	*slot = i;
	return 0;
}

static uint64_t intern_add(struct intern *t, const char *s, size_t slot)
{
	t->name[slot] = xstrdup(s);
	t->iid[slot] = ++t->nr;
	if (2 * t->nr >= t->cap) {
		struct intern n = { .cap = 2 * t->cap };

		n.name = xcalloc(n.cap, sizeof(*n.name));
		n.iid = xcalloc(n.cap, sizeof(*n.iid));
		for (size_t i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->name[i])
				continue;
			j = hash_str(t->name[i]) & (n.cap - 1);
			while (n.name[j])
				j = (j + 1) & (n.cap - 1);
			n.name[j] = t->name[i];
			n.iid[j] = t->iid[i];
		}
		free(t->name);
		free(t->iid);
		t->name = n.name;
		t->iid = n.iid;
		t->cap = n.cap;
	}
	return t->nr;
}

struct perfetto {
	struct export_calls calls;
	struct intern names;
	struct pb pkt;		/* the packet being built */
	struct pb out;		/* its Trace.packet framing */
	size_t te;		/* where the TrackEvent's length goes */
	uint64_t lost;
};

/*
 * a thread's track is its process's and its tid's (a tid may come back
 * in another process), a process's its pid's; pids and tids are below
 * 2^22 (PID_MAX_LIMIT), so the fields do not meet
 */
static uint64_t thread_uuid(int pid, int tid)
{
	return 1ull << 62 | (uint64_t)(uint32_t)pid << 31 | (uint32_t)tid;
}

static uint64_t process_uuid(int pid)
{
	return 1ull << 63 | (uint32_t)pid;
}

/* write the packet built in p->pkt as one Trace.packet */
static void pkt_flush(struct export_ctx *x, struct perfetto *p)
{
	p->out.len = 0;
	pb_tag(&p->out, TRACE_PACKET, WT_LEN);
	pb_varint(&p->out, p->pkt.len);
	fwrite(p->out.b, 1, p->out.len, x->out);
	fwrite(p->pkt.b, 1, p->pkt.len, x->out);
	p->pkt.len = 0;
}

static void track_descriptors(struct export_ctx *x, struct perfetto *p)
{
	struct ut_data *d = x->d;
	int first = 1;

	for (int i = 0; i < d->nr_threads; i++) {
		const struct ut_thread_info *t = &d->threads[i];
		int seen_pid = 0, seen_tid = 0;
		size_t td, sub;

		for (int j = 0; j < i; j++) {
			seen_pid |= d->threads[j].pid == t->pid;
			seen_tid |= d->threads[j].pid == t->pid && d->threads[j].tid == t->tid;
		}
		if (!seen_pid) {
			const char *pname = t->comm;

			for (int j = 0; j < d->nr_threads; j++)
				if (d->threads[j].pid == t->pid && d->threads[j].tid == t->pid) {
					pname = d->threads[j].comm;
					break;
				}
			pb_uint(&p->pkt, PKT_SEQUENCE_ID, SEQ_ID);
			if (first)
				pb_uint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
			first = 0;
			td = pb_begin(&p->pkt, PKT_TRACK_DESCRIPTOR);
			pb_uint(&p->pkt, TD_UUID, process_uuid(t->pid));
			sub = pb_begin(&p->pkt, TD_PROCESS);
			pb_int(&p->pkt, PD_PID, t->pid);
			pb_str(&p->pkt, PD_PROCESS_NAME, pname);
			pb_end(&p->pkt, sub);
			pb_end(&p->pkt, td);
			pkt_flush(x, p);
		}
		if (seen_tid)
			continue;
		pb_uint(&p->pkt, PKT_SEQUENCE_ID, SEQ_ID);
		td = pb_begin(&p->pkt, PKT_TRACK_DESCRIPTOR);
		pb_uint(&p->pkt, TD_UUID, thread_uuid(t->pid, t->tid));
		pb_uint(&p->pkt, TD_PARENT_UUID, process_uuid(t->pid));
		sub = pb_begin(&p->pkt, TD_THREAD);
		pb_int(&p->pkt, THD_PID, t->pid);
		pb_int(&p->pkt, THD_TID, t->tid);
		pb_str(&p->pkt, THD_THREAD_NAME, t->comm);
		pb_end(&p->pkt, sub);
		pb_end(&p->pkt, td);
		pkt_flush(x, p);
	}
	if (first) {
		/* no thread: the flag still opens the sequence */
		pb_uint(&p->pkt, PKT_SEQUENCE_ID, SEQ_ID);
		pb_uint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		pkt_flush(x, p);
	}
}

static int perfetto_begin(struct export_ctx *x)
{
	struct perfetto *p = xcalloc(1, sizeof(*p));

	x->priv = p;
	p->names.cap = 256;
	p->names.name = xcalloc(p->names.cap, sizeof(*p->names.name));
	p->names.iid = xcalloc(p->names.cap, sizeof(*p->names.iid));
	if (export_calls_init(&p->calls, x) < 0)
		return -1;
	track_descriptors(x, p);
	return 0;
}

/*
 * Start a TrackEvent packet of @type at @ts on @tid's track, named @name
 * (interned when @intern, else inline; NULL: none, a slice's end); the
 * caller adds annotations, then ev_done().
 */
static void ev_start(struct perfetto *p, unsigned type, uint64_t ts, uint64_t track, const char *name,
		     int intern, const char *cat)
{
	uint64_t iid = 0;
	size_t slot = 0, idata, en;

	pb_uint(&p->pkt, PKT_TIMESTAMP, ts);
	pb_uint(&p->pkt, PKT_SEQUENCE_ID, SEQ_ID);
	if (name && intern) {
		iid = intern_find(&p->names, name, &slot);
		if (!iid) {
			iid = intern_add(&p->names, name, slot);
			idata = pb_begin(&p->pkt, PKT_INTERNED_DATA);
			en = pb_begin(&p->pkt, ID_EVENT_NAMES);
			pb_uint(&p->pkt, EN_IID, iid);
			pb_str(&p->pkt, EN_NAME, name);
			pb_end(&p->pkt, en);
			pb_end(&p->pkt, idata);
		}
		pb_uint(&p->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	}
	p->te = pb_begin(&p->pkt, PKT_TRACK_EVENT);
	pb_uint(&p->pkt, TE_TYPE, type);
	pb_uint(&p->pkt, TE_TRACK_UUID, track);
	if (cat)
		pb_str(&p->pkt, TE_CATEGORIES, cat);
	if (name && intern)
		pb_uint(&p->pkt, TE_NAME_IID, iid);
	else if (name)
		pb_str(&p->pkt, TE_NAME, name);
}

static void ev_done(struct export_ctx *x, struct perfetto *p)
{
	pb_end(&p->pkt, p->te);
	pkt_flush(x, p);
}

static void ann_str(struct perfetto *p, const char *name, const char *s, size_t n)
{
	size_t da = pb_begin(&p->pkt, TE_DEBUG_ANNOTATIONS);

	pb_str(&p->pkt, DA_NAME, name);
	pb_bytes(&p->pkt, DA_STRING_VALUE, s, n);
	pb_end(&p->pkt, da);
}

static void ann_num(struct perfetto *p, const char *name, unsigned field, uint64_t v)
{
	size_t da = pb_begin(&p->pkt, TE_DEBUG_ANNOTATIONS);

	pb_str(&p->pkt, DA_NAME, name);
	pb_uint(&p->pkt, field, v);
	pb_end(&p->pkt, da);
}

static void slice_ends(struct export_ctx *x, struct perfetto *p, uint32_t n, uint64_t ts,
		       uint64_t track)
{
	while (n-- > 0) {
		ev_start(p, TYPE_SLICE_END, ts, track, NULL, 0, NULL);
		ev_done(x, p);
	}
}

/* the event's fields but the common ones, as debug annotations */
static void event_anns(struct export_ctx *x, struct perfetto *p, const struct ut_event *ev)
{
	const struct ut_evfield *fl;
	int nf = x->events ? ut_evtab_fields(x->events, ev->id, &fl) : -1;

	for (int i = 0; i < nf; i++) {
		const struct ut_evfield *fd = &fl[i];

		if (fd->flags & UT_EVF_COMMON)
			continue;
		if (fd->flags & UT_EVF_STRING) {
			uint32_t len = 0;
			const char *s = ut_evfield_string(fd, ev->data, ev->data_len, &len);

			ann_str(p, fd->name, s ? s : "", s ? len : 0);
		} else if (fd->flags & UT_EVF_ARRAY) {
			/* the elements as text, "[1, 2, 3]": bounded by the entry's size */
			uint32_t ne = 0, es;
			const unsigned char *a = export_field_array(fd, ev->data, ev->data_len,
								    &ne, &es);
			struct pb t = { 0 };

			pb_room(&t, 2);
			t.b[t.len++] = '[';
			for (uint32_t k = 0; a && k < ne; k++) {
				uint64_t v = export_field_elem(fd, a, es, k);
				char num[24];
				int w = fd->flags & UT_EVF_SIGNED ?
					snprintf(num, sizeof(num), "%s%" PRId64, k ? ", " : "",
						 (int64_t)v) :
					snprintf(num, sizeof(num), "%s%" PRIu64, k ? ", " : "", v);

				pb_room(&t, (size_t)w + 1);
				memcpy(t.b + t.len, num, (size_t)w);
				t.len += (size_t)w;
			}
			pb_room(&t, 1);
			t.b[t.len++] = ']';
			ann_str(p, fd->name, (const char *)t.b, t.len);
			free(t.b);
		} else {
			uint64_t v = ut_evfield_value(fd, ev->data, ev->data_len);
			const char *s = fd->flags & UT_EVF_POINTER ? export_sym(x, ev, v) : NULL;

			if (s)
				ann_str(p, fd->name, s, strlen(s));
			else
				ann_num(p, fd->name, fd->flags & UT_EVF_POINTER ? DA_POINTER_VALUE :
						     fd->flags & UT_EVF_SIGNED ? DA_INT_VALUE :
						     DA_UINT_VALUE, v);
		}
	}
	if (nf < 0)
		ann_num(p, "id", DA_UINT_VALUE, ev->id);
}

/* a stack, innermost first, one function a line */
static void stack_ann(struct export_ctx *x, struct perfetto *p, const struct ut_event *ev)
{
	uint64_t n = ut_event_trace_len(ev);
	struct pb t = { 0 };

	for (uint64_t i = 0; i < n; i++) {
		char buf[32];
		const char *s = export_sym_or_addr(x, ev, ut_event_trace_ip(ev, i), buf,
						   sizeof(buf));
		size_t len = strlen(s);

		pb_room(&t, len + 1);
		memcpy(t.b + t.len, s, len);
		t.len += len;
		if (i + 1 < n)
			t.b[t.len++] = '\n';
	}
	ann_str(p, "stack", t.b ? (const char *)t.b : "", t.len);
	free(t.b);
}

static int perfetto_event(struct export_ctx *x, const struct ut_event *ev)
{
	struct perfetto *p = x->priv;
	const struct ut_cs_frame *calls;
	const char *name, *sys;
	uint64_t track = thread_uuid(ev->pid, ev->tid);
	char buf[64];
	/* the calls an EXIT or a DEPTH restatement ends */
	uint32_t n = export_calls_event(&p->calls, x, ev, &calls);

	slice_ends(x, p, n, ev->ts, track);
	switch (ev->type) {
	case UT_EV_ENTRY:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_start(p, TYPE_SLICE_BEGIN, ev->ts, track, name, 1, NULL);
		ev_done(x, p);
		break;
	case UT_EV_EXIT:
	case UT_EV_DEPTH:
		break;
	case UT_EV_RETURN:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_start(p, TYPE_SLICE_BEGIN, ev->ts > ev->duration ? ev->ts - ev->duration : 0,
			 track, name, 1, NULL);
		ev_done(x, p);
		slice_ends(x, p, 1, ev->ts, track);
		break;
	case UT_EV_FUNC:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_start(p, TYPE_INSTANT, ev->ts, track, name, 1, NULL);
		name = export_sym_or_addr(x, ev, ev->parent, buf, sizeof(buf));
		ann_str(p, "caller", name, strlen(name));
		ev_done(x, p);
		break;
	case UT_EV_EVENT:
		name = export_event_name(x, ev, &sys);
		if (name)
			snprintf(buf, sizeof(buf), "%s:%s", sys ? sys : "", name);
		else
			snprintf(buf, sizeof(buf), "event %u", ev->id);
		ev_start(p, TYPE_INSTANT, ev->ts, track, buf, 1, "event");
		event_anns(x, p, ev);
		ev_done(x, p);
		break;
	case UT_EV_MARKER: {
		size_t len = ev->data ? ev->data_len : 0;
		char *text;

		while (len && (ev->data[len - 1] == '\n' || ev->data[len - 1] == '\0'))
			len--;
		text = xmalloc(len + 1);
		memcpy(text, ev->data ? ev->data : "", len);
		text[len] = '\0';
		ev_start(p, TYPE_INSTANT, ev->ts, track, len ? text : "marker", 0, "marker");
		ann_str(p, "text", text, len);
		ev_done(x, p);
		free(text);
		break;
	}
	case UT_EV_TRACE:
	case UT_EV_SAMPLE:
		ev_start(p, TYPE_INSTANT, ev->ts, track,
			 ev->type == UT_EV_TRACE ? "stack trace" : "sample", 1, NULL);
		stack_ann(x, p, ev);
		if (ev->type == UT_EV_SAMPLE)
			ann_num(p, "weight", DA_UINT_VALUE, ev->weight);
		ev_done(x, p);
		break;
	case UT_EV_INITCALL:
		name = export_sym_or_addr(x, ev, ut_event_trace_ip(ev, 0), buf, sizeof(buf));
		ev_start(p, TYPE_INSTANT, ev->ts, track, name, 1, "initcall");
		if (ev->dir == UT_TRACE_DIR_ICRET)
			ann_num(p, "ret", DA_INT_VALUE, ut_event_trace_ip(ev, 1));
		else
			ann_str(p, "call", "", 0);
		ev_done(x, p);
		break;
	case UT_EV_LOST:
		p->lost += ev->count;
		/* 0: damaged data skipped, how many is not known */
		if (ev->count)
			snprintf(buf, sizeof(buf), "lost %" PRIu64 " records", ev->count);
		else
			snprintf(buf, sizeof(buf), "lost records (damaged data)");
		ev_start(p, TYPE_INSTANT, ev->ts, track, buf, 0, "lost");
		ann_num(p, "lost", DA_UINT_VALUE, ev->count);
		ev_done(x, p);
		break;
	}
	return 0;
}

static int perfetto_end(struct export_ctx *x, int failed)
{
	struct perfetto *p = x->priv;
	const struct ut_cs_frame *calls;

	(void)failed;	/* a cut trace ends as any: its open slices end */
	if (!p)
		return 0;	/* begin was not called: the driver said why */
	for (int i = 0; i < p->calls.nr; i++) {
		struct export_calls_stream *s = &p->calls.st[i];
		uint64_t ts;
		uint32_t n = export_calls_end(&p->calls, i, &calls, &ts);

		slice_ends(x, p, n, ts, thread_uuid(s->pid, s->tid));
	}
	for (size_t i = 0; i < p->names.cap; i++)
		free(p->names.name[i]);
	free(p->names.name);
	free(p->names.iid);
	free(p->pkt.b);
	free(p->out.b);
	export_calls_free(&p->calls);
	free(p);
	x->priv = NULL;
	return 0;
}

const struct export_writer export_perfetto = {
	.name = "perfetto",
	.help = "Perfetto's protobuf trace: ui.perfetto.dev, trace_processor",
	.begin = perfetto_begin,
	.event = perfetto_event,
	.end = perfetto_end,
};
