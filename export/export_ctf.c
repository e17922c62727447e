// SPDX-License-Identifier: MIT
/*
 * export_ctf.c - `usertrace dump --ctf DIR`: the trace as a CTF 1.8
 * trace directory (babeltrace2, Trace Compass).
 *
 * Why not libbabeltrace2: its CTF writer is the sink.ctf.fs component,
 * which only takes messages from a source component, so we would have
 * to write a babeltrace2 plugin (component classes, message iterators,
 * field classes for each event) and link a large library into the CLI.
 * CTF 1.8 itself is small: a text file (TSDL) that declares the binary
 * layout, and binary stream files in exactly that layout.  Writing it
 * here costs a few hundred lines and no dependency.
 *
 *   DIR/metadata              TSDL text: the trace, env, clock, one
 *                             stream class, one event class per
 *                             usertrace event kind and per event
 *                             (tracepoint) format of the data directory
 *   DIR/stream_<pid>_<tid>    one thread's events (all its images)
 *
 * Every stream file is a run of packets:
 *
 *   +--------------------------------+
 *   | header: magic, uuid, stream_id |   24 bytes
 *   | context: timestamp_begin/end,  |   52 bytes
 *   |  content_size, packet_size,    |
 *   |  packet_seq_num,               |
 *   |  events_discarded, cpu_id      |
 *   +--------------------------------+
 *   | event: header (id, timestamp), |
 *   |  context (vpid, vtid), payload |
 *   | event ...                      |
 *   +--------------------------------+
 *
 * All integers are byte-aligned little endian, so nothing is padded.
 * A packet is kept in memory until it reaches UT_CTF_PACKET bytes (or
 * the thread changes CPU: a packet has one cpu_id), then appended to its
 * file: memory is one packet per thread whatever the trace's length.
 * events_discarded is the stream's running count of lost records (CTF
 * counts it per stream, not per packet; babeltrace2 reports the
 * difference between two packets).
 *
 * The metadata is written first: the event classes come from the data
 * directory's formats (the table export_run loaded), not from the events
 * seen, so an unwritable DIR fails before the events are read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export.h"
#include "usertrace/record.h"
#include "utils/utils.h"

#define UT_CTF_PACKET		(64 * 1024)	/* bytes a packet grows to before it is written */
#define UT_CTF_MAGIC		0xc1fc1fc1u
#define UT_CTF_HDR		(24 + 52)	/* packet header and context */
#define UT_CTF_VERSION		"0.1"

/*
 * The event classes of usertrace's own event kinds; a tracepoint event
 * of id N (its common_type) is class CTF_EV_FIRST + N.  The payload of
 * each is written by ctf_event() in the order given here: keep them the
 * same.  Names start with '_', as LTTng's do: TSDL keywords (string,
 * event, ...) cannot clash, and babeltrace2 removes one underscore.
 */
enum {
	CTF_FUNC_ENTRY,
	CTF_FUNC_EXIT,
	CTF_FUNC_RETURN,
	CTF_FUNCTION,
	CTF_MARKER,
	CTF_LOST,
	CTF_STACK_TRACE,
	CTF_SAMPLE,
	CTF_DEPTH,
	CTF_INITCALL,
	CTF_INITCALL_RETURN,
	CTF_UNKNOWN_EVENT,
	CTF_EV_FIRST = 16,
};

static const struct {
	const char *name;
	const char *fields;
} ctf_kinds[] = {
	[CTF_FUNC_ENTRY] = { "func_entry",
		"xint64_t _ip; string _name; uint32_t _depth; xint64_t _parent_ip;" },
	[CTF_FUNC_EXIT] = { "func_exit", "xint64_t _ip; string _name; uint32_t _depth;" },
	[CTF_FUNC_RETURN] = { "func_return",
		"xint64_t _ip; string _name; uint32_t _depth; uint64_t _duration;" },
	[CTF_FUNCTION] = { "function",
		"xint64_t _ip; string _name; xint64_t _parent_ip; string _parent_name;" },
	[CTF_MARKER] = { "marker", "string _text;" },
	[CTF_LOST] = { "lost", "uint64_t _count;" },
	[CTF_STACK_TRACE] = { "stack_trace",
		"uint32_t _dir; uint32_t _nr; xint64_t _ips[_nr]; string _names[_nr];" },
	[CTF_SAMPLE] = { "sample",
		"uint32_t _weight; uint32_t _nr; xint64_t _ips[_nr]; string _names[_nr];" },
	[CTF_DEPTH] = { "depth", "uint32_t _depth; uint64_t _was;" },
	[CTF_INITCALL] = { "initcall", "xint64_t _ip; string _name;" },
	[CTF_INITCALL_RETURN] = { "initcall_return",
		"xint64_t _ip; string _name; uint64_t _ret;" },
	[CTF_UNKNOWN_EVENT] = { "unknown_event",
		"uint32_t _type; uint32_t _len; uint8_t _data[_len];" },
};

/* how an event field is written: the metadata and the stream agree through ctf_field_shape() */
enum ctf_shape { CTF_INT, CTF_STRING, CTF_ARRAY, CTF_SEQ };

struct ctf_stream {
	int pid, tid;
	unsigned char *buf;	/* the packet being filled, its header room first */
	size_t len, cap;
	int open;		/* the packet has events */
	uint32_t cpu;
	uint64_t ts_begin, ts_end;
	uint64_t discarded;	/* records lost in the stream so far */
	uint64_t seq;		/* packets written */
};

struct ctf_writer {
	char dir[4096];
	unsigned char uuid[16];
	struct ctf_stream **by_thread;	/* x->d->threads[i]'s stream (shared by its images) */
	struct ctf_stream *streams;
	int nr_streams;
	int write_failed;		/* a stream file could not be written (said once) */
	unsigned char *ev;		/* the event being encoded */
	size_t ev_len, ev_cap;
};

/* --- encoding --- */

static void ev_room(struct ctf_writer *c, size_t n)
{
	if (c->ev_len + n <= c->ev_cap)
		return;
	while (c->ev_len + n > c->ev_cap)
		c->ev_cap = c->ev_cap ? 2 * c->ev_cap : 4096;
	c->ev = xrealloc(c->ev, c->ev_cap);
}

static void put_bytes(struct ctf_writer *c, const void *p, size_t n)
{
	ev_room(c, n);
	if (n)
		memcpy(c->ev + c->ev_len, p, n);
	c->ev_len += n;
}

/* @v, @size bytes little endian (the metadata's byte_order) */
static void put_int(struct ctf_writer *c, uint64_t v, unsigned size)
{
	unsigned char b[8];

	for (unsigned i = 0; i < size; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(c, b, size);
}

/* a CTF string: the bytes up to the first NUL of @n, then a NUL */
static void put_str(struct ctf_writer *c, const char *s, size_t n)
{
	const char *z = s ? memchr(s, 0, n) : NULL;

	if (!s)
		n = 0;
	else if (z)
		n = (size_t)(z - s);
	put_bytes(c, s, n);
	put_int(c, 0, 1);
}

static void put_cstr(struct ctf_writer *c, const char *s)
{
	put_str(c, s, s ? strlen(s) : 0);
}

/* an ip and its symbol ("" when 0, else the address when no symbol names it) */
static void put_ip_name(struct ctf_writer *c, struct export_ctx *x, const struct ut_event *ev,
			uint64_t ip)
{
	char buf[32];

	put_int(c, ip, 8);
	put_cstr(c, ip ? export_sym_or_addr(x, ev, ip, buf, sizeof(buf)) : "");
}

/* a stack: its number of ips, the ips, their names */
static void put_stack(struct ctf_writer *c, struct export_ctx *x, const struct ut_event *ev)
{
	uint64_t n = ut_event_trace_len(ev);
	char buf[32];

	put_int(c, n, 4);
	for (uint64_t i = 0; i < n; i++)
		put_int(c, ut_event_trace_ip(ev, i), 8);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ip = ut_event_trace_ip(ev, i);

		put_cstr(c, export_sym_or_addr(x, ev, ip, buf, sizeof(buf)));
	}
}

/*
 * The shape of field @f, with *@elem its element size (1, 2, 4, 8) and
 * *@count a fixed array's length.  Sizes other than 1, 2, 4 and 8 (a
 * struct field) are written as bytes.
 */
static enum ctf_shape ctf_field_shape(const struct ut_evfield *f, uint32_t *elem, uint32_t *count)
{
	uint32_t e = f->elem_size;

	if (e != 1 && e != 2 && e != 4 && e != 8)
		e = 1;
	*elem = e;
	*count = 0;
	/* libtraceevent calls an unsigned char array a string too: those are bytes */
	if (f->flags & UT_EVF_STRING && !(f->type && strstr(f->type, "unsigned")))
		return CTF_STRING;
	if (f->flags & UT_EVF_DYNAMIC)
		return CTF_SEQ;
	if (!(f->flags & UT_EVF_ARRAY) && f->size == e)
		return CTF_INT;
	if (f->size % e)
		*elem = e = 1;
	*count = f->size / e;
	return CTF_ARRAY;
}

/*
 * A field written with its symbol: an unsigned long that the format
 * prints as %ps (libtraceevent marks it UT_EVF_POINTER, as it does a
 * real pointer: those, a '*' in the type, are data and only get hex),
 * or one of the kernel's names for a code address that libtraceevent
 * does not mark (ftrace:print's ip)
 */
static int ctf_field_is_code(const struct ut_evfield *f)
{
	if (f->size != 8 || f->flags & UT_EVF_SIGNED)
		return 0;
	if (f->flags & UT_EVF_POINTER)
		return !f->type || !strchr(f->type, '*');
	return !strcmp(f->name, "ip") || !strcmp(f->name, "parent_ip") ||
	       !strcmp(f->name, "call_site");
}

/* a string field (a flexible `char buf[]` runs to the entry's end) */
static void put_field_string(struct ctf_writer *c, const struct ut_evfield *f,
			     const struct ut_event *ev)
{
	uint32_t n = 0;
	const char *s;

	s = ut_evfield_string(f, ev->data, ev->data_len, &n);
	put_str(c, s, n);
}

/* @n elements of @e bytes at @off of the entry, 0 past its end */
static void put_elems(struct ctf_writer *c, const struct ut_event *ev, uint32_t off, uint32_t n,
		      uint32_t e)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = 0;
		uint64_t at = (uint64_t)off + (uint64_t)i * e;

		if (at + e <= ev->data_len)
			for (uint32_t k = 0; k < e; k++)
				v |= (uint64_t)(unsigned char)ev->data[at + k] << (8 * k);
		put_int(c, v, e);
	}
}

static void put_tracepoint(struct ctf_writer *c, struct export_ctx *x, const struct ut_event *ev,
			   const struct ut_evfield *f, int nf)
{
	for (int i = 0; i < nf; i++, f++) {
		uint32_t e, count, loc = 0, off, n;

		if (f->flags & UT_EVF_COMMON)
			continue;
		switch (ctf_field_shape(f, &e, &count)) {
		case CTF_INT:
			put_int(c, ut_evfield_value(f, ev->data, ev->data_len), e);
			if (ctf_field_is_code(f)) {
				uint64_t a = ut_evfield_value(f, ev->data, ev->data_len);
				const char *s = export_sym(x, ev, a);

				put_cstr(c, s ? s : "");
			}
			break;
		case CTF_STRING:
			put_field_string(c, f, ev);
			break;
		case CTF_ARRAY:
			put_elems(c, ev, f->offset, count, e);
			break;
		case CTF_SEQ:
			if ((uint64_t)f->offset + 4 <= ev->data_len)
				memcpy(&loc, ev->data + f->offset, 4);
			off = loc & 0xffff;
			n = (loc >> 16) / e;
			if ((uint64_t)off + (uint64_t)n * e > ev->data_len)
				n = 0;
			put_int(c, n, 4);
			put_elems(c, ev, off, n, e);
			break;
		}
	}
}

/* the class and payload of @ev in c->ev (after the header and context) */
static uint32_t ctf_payload(struct ctf_writer *c, struct export_ctx *x, const struct ut_event *ev)
{
	const struct ut_evfield *f;
	int nf;

	switch (ev->type) {
	case UT_EV_ENTRY:
		put_ip_name(c, x, ev, ev->ip);
		put_int(c, ev->depth, 4);
		put_int(c, ev->parent, 8);
		return CTF_FUNC_ENTRY;
	case UT_EV_EXIT:
		put_ip_name(c, x, ev, ev->ip);
		put_int(c, ev->depth, 4);
		return CTF_FUNC_EXIT;
	case UT_EV_RETURN:
		put_ip_name(c, x, ev, ev->ip);
		put_int(c, ev->depth, 4);
		put_int(c, ev->duration, 8);
		return CTF_FUNC_RETURN;
	case UT_EV_FUNC:
		put_ip_name(c, x, ev, ev->ip);
		put_ip_name(c, x, ev, ev->parent);
		return CTF_FUNCTION;
	case UT_EV_MARKER:
		put_str(c, ev->data, ev->data ? ev->data_len : 0);
		return CTF_MARKER;
	case UT_EV_LOST:
		put_int(c, ev->count, 8);
		return CTF_LOST;
	case UT_EV_TRACE:
		put_int(c, ev->dir, 4);
		put_stack(c, x, ev);
		return CTF_STACK_TRACE;
	case UT_EV_SAMPLE:
		put_int(c, ev->weight, 4);
		put_stack(c, x, ev);
		return CTF_SAMPLE;
	case UT_EV_DEPTH:
		put_int(c, ev->depth, 4);
		put_int(c, ev->count, 8);
		return CTF_DEPTH;
	case UT_EV_INITCALL:
		put_ip_name(c, x, ev, ut_event_trace_ip(ev, 0));
		if (ev->dir != UT_TRACE_DIR_ICRET)
			return CTF_INITCALL;
		put_int(c, ut_event_trace_ip(ev, 1), 8);
		return CTF_INITCALL_RETURN;
	case UT_EV_EVENT:
		nf = x->events ? ut_evtab_fields(x->events, ev->id, &f) : -1;
		if (nf >= 0 && ev->id <= 0xffff) {
			put_tracepoint(c, x, ev, f, nf);
			return CTF_EV_FIRST + ev->id;
		}
		break;
	}
	/* an event whose format is unknown (or a type this writer does not know): its bytes */
	put_int(c, ev->type == UT_EV_EVENT ? ev->id : 0x10000u + ev->type, 4);
	put_int(c, ev->data ? ev->data_len : 0, 4);
	put_bytes(c, ev->data, ev->data ? ev->data_len : 0);
	return CTF_UNKNOWN_EVENT;
}

/* --- streams --- */

static void ctf_stream_path(struct ctf_writer *c, const struct ctf_stream *s, char *buf,
			    size_t size)
{
	snprintf(buf, size, "%s/stream_%d_%d", c->dir, s->pid, s->tid);
}

/* write the packet of @s to its file (the header filled in now); 0 or -1 (said) */
static int ctf_flush(struct ctf_writer *c, struct ctf_stream *s)
{
	char path[4096 + 64];
	unsigned char *p = s->buf;
	uint64_t bits = (uint64_t)s->len * 8;
	const uint64_t ctx[] = { s->ts_begin, s->ts_end, bits, bits, s->seq, s->discarded };
	size_t done = 0;
	off_t start;
	int fd;

	if (!s->open)
		return 0;
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(UT_CTF_MAGIC >> (8 * i));
	memcpy(p + 4, c->uuid, 16);
	memset(p + 20, 0, 4);	/* stream_id: the one stream class */
	p += 24;
	for (size_t i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++)
		for (int k = 0; k < 8; k++)
			*p++ = (unsigned char)(ctx[i] >> (8 * k));
	for (int k = 0; k < 4; k++)
		*p++ = (unsigned char)(s->cpu >> (8 * k));
	/* opened per packet: a trace of thousands of threads would run out of descriptors */
	ctf_stream_path(c, s, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		pr_err("dump --ctf: %s: %s", path, strerror(errno));
		c->write_failed = 1;
		return -1;
	}
	start = lseek(fd, 0, SEEK_END);
	while (done < s->len) {
		ssize_t w = write(fd, s->buf + done, s->len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			pr_err("dump --ctf: writing %s: %s", path, w < 0 ? strerror(errno) : "short write");
			/*
			 * A packet cut short (ENOSPC) makes babeltrace2 refuse
			 * the whole directory: drop it, so that DIR stays a
			 * trace of the packets written before.
			 */
			if (start >= 0 && ftruncate(fd, start) < 0)
				pr_err("dump --ctf: %s ends in a partial packet", path);
			close(fd);
			c->write_failed = 1;
			return -1;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0) {
		pr_err("dump --ctf: writing %s: %s", path, strerror(errno));
		c->write_failed = 1;
		return -1;
	}
	s->open = 0;
	s->len = 0;
	s->seq++;
	return 0;
}

/* add c->ev (one encoded event of time @ts on @cpu) to @s's packet */
/*
 * the event in c->ev appended to @s's packet (a new one when it is full
 * or the CPU changed); @lost records lost before it count in the packet
 * it goes into, whose events_discarded then says so
 */
static int ctf_append(struct ctf_writer *c, struct ctf_stream *s, uint64_t ts, uint32_t cpu,
		      uint64_t lost)
{
	if (s->open && (s->len + c->ev_len > UT_CTF_PACKET || s->cpu != cpu) && ctf_flush(c, s) < 0)
		return -1;
	s->discarded += lost;
	if (!s->open) {
		s->len = UT_CTF_HDR;
		s->open = 1;
		s->cpu = cpu;
		s->ts_begin = ts;
	}
	/* one event larger than a packet has a packet of its own */
	if (s->len + c->ev_len > s->cap) {
		s->cap = s->len + c->ev_len > UT_CTF_PACKET ? s->len + c->ev_len : UT_CTF_PACKET;
		s->buf = xrealloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, c->ev, c->ev_len);
	s->len += c->ev_len;
	s->ts_end = ts;
	return 0;
}

static struct ctf_stream *ctf_stream_of(struct ctf_writer *c, struct export_ctx *x,
					const struct ut_event *ev)
{
	int i = export_thread_index(x, ev);

	if (i >= 0)
		return c->by_thread[i];
	for (i = 0; i < c->nr_streams; i++)
		if (c->streams[i].pid == ev->pid && c->streams[i].tid == ev->tid)
			return &c->streams[i];
	return NULL;
}

/* --- metadata --- */

/* @s as a TSDL string literal's contents */
static void tsdl_str(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < ' ')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/*
 * The TSDL names of one event's fields.  babeltrace2 refuses the whole
 * trace when two fields of an event have one name, and it takes leading
 * underscores off (so "_n" and "__n" are one name to it): the names made
 * here (a code field's "_X_sym", a dynamic array's "__X_length") can meet
 * a real field's (a field ip_sym next to ip, vals_length next to vals), as
 * can two fields of a corrupt format.  The first keeps its name, a later
 * one gets "_2", "_3", ...
 */
struct tsdl_names {
	char **v;
	int n;
};

static int tsdl_taken(const struct tsdl_names *t, const char *s)
{
	s += strspn(s, "_");
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->v[i] + strspn(t->v[i], "_"), s))
			return 1;
	return 0;
}

/* @prefix @name @suffix, made unique among @t's: kept in @t */
static const char *tsdl_name(struct tsdl_names *t, const char *prefix, const char *name,
			     const char *suffix)
{
	size_t len = strlen(prefix) + strlen(name) + strlen(suffix) + 16;
	char *s = xmalloc(len);

	snprintf(s, len, "%s%s%s", prefix, name, suffix);
	for (unsigned k = 2; tsdl_taken(t, s); k++)
		snprintf(s, len, "%s%s%s_%u", prefix, name, suffix, k);
	t->v[t->n++] = s;
	return s;
}

static void tsdl_tracepoint_fields(FILE *f, const struct ut_evfield *fl, int nf)
{
	static const char *const uint_t[] = { [1] = "uint8_t", [2] = "uint16_t", [4] = "uint32_t",
					      [8] = "uint64_t" };
	static const char *const int_t[] = { [1] = "int8_t", [2] = "int16_t", [4] = "int32_t",
					     [8] = "int64_t" };
	struct tsdl_names names = { xcalloc(2 * (size_t)nf + 1, sizeof(char *)), 0 };
	const char **own = xcalloc((size_t)nf + 1, sizeof(*own));

	/* the fields' own names first: they win over the made ones */
	for (int i = 0; i < nf; i++)
		if (!(fl[i].flags & UT_EVF_COMMON))
			own[i] = tsdl_name(&names, "_", fl[i].name, "");
	for (int i = 0; i < nf; i++) {
		uint32_t e, count;
		const char *t;

		if (fl[i].flags & UT_EVF_COMMON)
			continue;
		switch (ctf_field_shape(&fl[i], &e, &count)) {
		case CTF_INT:
			t = fl[i].flags & UT_EVF_SIGNED ? int_t[e] : uint_t[e];
			if (ctf_field_is_code(&fl[i]) || fl[i].flags & UT_EVF_POINTER)
				t = e == 8 ? "xint64_t" : e == 4 ? "xint32_t" : t;
			fprintf(f, "\t\t%s %s;\n", t, own[i]);
			if (ctf_field_is_code(&fl[i]))
				fprintf(f, "\t\tstring %s;\n",
					tsdl_name(&names, "_", fl[i].name, "_sym"));
			break;
		case CTF_STRING:
			fprintf(f, "\t\tstring %s;\n", own[i]);
			break;
		case CTF_ARRAY:
			t = fl[i].flags & UT_EVF_SIGNED ? int_t[e] : uint_t[e];
			fprintf(f, "\t\t%s %s[%" PRIu32 "];\n", t, own[i], count);
			break;
		case CTF_SEQ: {
			const char *len = tsdl_name(&names, "__", fl[i].name, "_length");

			t = fl[i].flags & UT_EVF_SIGNED ? int_t[e] : uint_t[e];
			fprintf(f, "\t\tuint32_t %s;\n\t\t%s %s[%s];\n", len, t, own[i], len);
			break;
		}
		}
	}
	for (int i = 0; i < names.n; i++)
		free(names.v[i]);
	free(names.v);
	free(own);
}

static const char tsdl_types[] =
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 8; align = 8; signed = true; } := int8_t;\n"
	"typealias integer { size = 16; align = 8; signed = true; } := int16_t;\n"
	"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; base = 16; } := xint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64_t;\n";

static const char tsdl_stream[] =
	"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
	" := uint64_clock_monotonic_t;\n\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\t\tuint64_clock_monotonic_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t cpu_id;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tuint32_t id;\n"
	"\t\tuint64_clock_monotonic_t timestamp;\n"
	"\t};\n"
	"\tevent.context := struct {\n"
	"\t\tint32_t _vpid;\n"
	"\t\tint32_t _vtid;\n"
	"\t};\n"
	"};\n\n";

static void tsdl_event(FILE *f, uint32_t id, const char *sys, const char *name)
{
	fprintf(f, "event {\n\tname = \"");
	tsdl_str(f, sys);
	fputc(':', f);
	tsdl_str(f, name);
	fprintf(f, "\";\n\tid = %" PRIu32 ";\n\tstream_id = 0;\n\tfields := struct {\n", id);
}

static int ctf_metadata(struct ctf_writer *c, struct export_ctx *x)
{
	char path[4096 + 16], host[256] = "";
	char uuid[40];
	const unsigned char *u = c->uuid;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/metadata", c->dir);
	f = fopen(path, "w");
	if (!f) {
		pr_err("dump --ctf: %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(uuid, sizeof(uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "/* CTF 1.8 */\n\n%s\n", tsdl_types);
	fprintf(f, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		   "\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		   "\t\tuint32_t stream_id;\n\t};\n};\n\n", uuid);
	/* the exporting host: the data directory does not say where it was recorded */
	fprintf(f, "env {\n\thostname = \"");
	tsdl_str(f, host);
	fprintf(f, "\";\n\tdomain = \"ust\";\n\ttracer_name = \"usertrace\";\n"
		   "\ttracer_major = 0;\n\ttracer_minor = 1;\n\tusertrace_tracer = \"");
	tsdl_str(f, x->d->tracer);
	fprintf(f, "\";\n\tcmdline = \"");
	tsdl_str(f, x->d->cmdline);
	fprintf(f, "\";\n\texit_status = %d;\n\tnr_cpus = %d;\n};\n\n", x->d->exit_status,
		x->d->nr_cpus);
	/*
	 * The recording's CLOCK_MONOTONIC, in ns since boot: no offset to
	 * the epoch is known, so the clock is not absolute.
	 */
	fprintf(f, "clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		   "\tdescription = \"CLOCK_MONOTONIC of the recording\";\n"
		   "\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n\toffset = 0;\n"
		   "\tabsolute = false;\n};\n\n%s", uuid, tsdl_stream);
	for (uint32_t k = 0; k < sizeof(ctf_kinds) / sizeof(ctf_kinds[0]); k++) {
		if (!ctf_kinds[k].name)
			continue;
		tsdl_event(f, k, "usertrace", ctf_kinds[k].name);
		fprintf(f, "\t\t%s\n\t};\n};\n\n", ctf_kinds[k].fields);
	}
	/*
	 * The event table has no iterator; ids are the u16 common_type,
	 * and asking each one is a lookup in a sorted table: 65536 of them
	 * take about a millisecond.
	 */
	for (uint32_t id = 0; x->events && id <= 0xffff; id++) {
		const struct ut_evfield *fl;
		const char *sys = NULL, *name = ut_evtab_name(x->events, id, &sys);
		int nf;

		if (!name || (nf = ut_evtab_fields(x->events, id, &fl)) < 0)
			continue;
		tsdl_event(f, CTF_EV_FIRST + id, sys ? sys : "", name);
		tsdl_tracepoint_fields(f, fl, nf);
		fprintf(f, "\t};\n};\n\n");
	}
	err = ferror(f);
	if (fclose(f) != 0 || err) {
		pr_err("dump --ctf: writing %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --- the writer --- */

/* DIR made, or an empty directory: 0, or -1 (said) */
static int ctf_make_dir(const char *dir)
{
	DIR *d;
	struct dirent *e;
	int empty = 1;

	if (!mkdir(dir, 0755))
		return 0;
	if (errno == ENOENT && !mkdir_p(dir, 0755))
		return 0;
	if (errno != EEXIST) {
		pr_err("dump --ctf: cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		pr_err("dump --ctf: %s: %s", dir, strerror(errno));
		return -1;
	}
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	/* refused rather than overwritten: stream files of another trace would stay and mix in */
	if (!empty) {
		pr_err("dump --ctf: %s exists and is not empty: give a new or empty directory", dir);
		return -1;
	}
	return 0;
}

static void ctf_uuid(unsigned char *u)
{
	uint64_t t = ut_mono_ns() ^ ((uint64_t)getpid() << 32);

	if (getrandom(u, 16, GRND_NONBLOCK) != 16)
		for (int i = 0; i < 16; i++, t = t * 6364136223846793005ULL + 1442695040888963407ULL)
			u[i] = (unsigned char)(t >> 56);
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);	/* version 4 (random) */
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
}

static int ctf_begin(struct export_ctx *x)
{
	struct ctf_writer *c;
	struct ut_data *d = x->d;

	if (!x->path || !*x->path) {
		pr_err("dump --ctf: no directory given");
		return -1;
	}
	if (strlen(x->path) >= sizeof(c->dir) - 64) {
		pr_err("dump --ctf: %s: name too long", x->path);
		return -1;
	}
	if (ctf_make_dir(x->path) < 0)
		return -1;
	c = xcalloc(1, sizeof(*c));
	x->priv = c;
	snprintf(c->dir, sizeof(c->dir), "%s", x->path);
	ctf_uuid(c->uuid);
	/* a thread's images (before and after an exec) are one stream; threads are sorted */
	c->by_thread = xcalloc((size_t)d->nr_threads + 1, sizeof(*c->by_thread));
	c->streams = xcalloc((size_t)d->nr_threads + 1, sizeof(*c->streams));
	for (int i = 0; i < d->nr_threads; i++) {
		struct ctf_stream *s = c->nr_streams ? &c->streams[c->nr_streams - 1] : NULL;

		if (!s || s->pid != d->threads[i].pid || s->tid != d->threads[i].tid) {
			s = &c->streams[c->nr_streams++];
			s->pid = d->threads[i].pid;
			s->tid = d->threads[i].tid;
		}
		c->by_thread[i] = s;
	}
	return ctf_metadata(c, x);
}

static int ctf_event(struct export_ctx *x, const struct ut_event *ev)
{
	struct ctf_writer *c = x->priv;
	struct ctf_stream *s = ctf_stream_of(c, x, ev);
	uint32_t id;

	if (!s)
		return 0;	/* not a thread of the directory: cannot happen with one merge */
	/* the header's id is known once the payload is: encode it after room for both */
	c->ev_len = 0;
	put_int(c, 0, 4);
	put_int(c, ev->ts, 8);
	put_int(c, (uint32_t)ev->pid, 4);
	put_int(c, (uint32_t)ev->tid, 4);
	id = ctf_payload(c, x, ev);
	for (int k = 0; k < 4; k++)
		c->ev[k] = (unsigned char)(id >> (8 * k));
	return ctf_append(c, s, ev->ts, ev->cpu, ev->type == UT_EV_LOST ? ev->count : 0);
}

static int ctf_end(struct export_ctx *x, int failed)
{
	struct ctf_writer *c = x->priv;
	int ret = 0;

	if (!c)
		return 0;
	/*
	 * After a corrupt record too: the packets kept make DIR a readable
	 * trace of the events before it (the export still fails).
	 */
	(void)failed;
	for (int i = 0; i < c->nr_streams; i++) {
		if (!c->write_failed && ctf_flush(c, &c->streams[i]) < 0)
			ret = -1;
		free(c->streams[i].buf);
	}
	free(c->streams);
	free(c->by_thread);
	free(c->ev);
	free(c);
	x->priv = NULL;
	return ret;
}

const struct export_writer export_ctf = {
	.name = "ctf",
	.arg = 1,
	.arg_name = "DIR",
	.help = "a CTF 1.8 trace directory (babeltrace2, Trace Compass)",
	.begin = ctf_begin,
	.event = ctf_event,
	.end = ctf_end,
};
