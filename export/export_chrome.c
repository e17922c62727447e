// SPDX-License-Identifier: MIT
/*
 * export_chrome.c - `usertrace dump --chrome`: the trace as Chrome's
 * Trace Event Format (JSON), which chrome://tracing, ui.perfetto.dev,
 * DevTools' performance panel and speedscope open:
 *
 *   {"traceEvents":[
 *   {"name":"process_name","ph":"M","pid":P,"tid":P,"args":{"name":"app"}},
 *   {"name":"thread_name","ph":"M",...},            one per thread, first
 *   {"name":"work","cat":"function","ph":"B","ts":12.345678,"pid":P,"tid":T},
 *   {"name":"work","cat":"function","ph":"E","ts":12.350001,"pid":P,"tid":T},
 *   ...],
 *   "displayTimeUnit":"ns","otherData":{"tracer":...,"lost":N,...}}
 *
 * What each event becomes:
 *   ENTRY, EXIT     "B", "E" (function_graph).  An EXIT whose ENTRY is not
 *                   in the trace (it began inside the call, or the entry
 *                   was lost) is dropped, not written: an "E" closes the
 *                   innermost open slice whatever its name (export_calls.h);
 *                   otherData.unmatched_exits counts them.  Calls still
 *                   open at the end get their "E" at the last event's time.
 *   RETURN          "X" with "dur" (a call recorded at its return, --thresh)
 *   FUNC            "i" named by the function, args.caller (function tracer)
 *   EVENT           "i" named "system:name", args: its fields but the common
 *   MARKER          "i" named by its text, args.text
 *   TRACE, SAMPLE   "i" "stack trace" / "sample", args.stack: innermost first
 *   INITCALL        "i" named by the constructor, args.call or args.ret
 *   LOST            "i" "lost N records" (cat "lost"), args.lost, and the
 *                   total in otherData.lost
 *   DEPTH           the calls that ended unseen (lost) get their "E" here
 *
 * "ts" is in microseconds, the CLOCK_MONOTONIC ns printed as integer
 * microseconds and three decimals (no floating point: 12.345678 exactly).
 * It streams: one line per event, written as it comes; only the open
 * calls of each thread are kept.  The JSON stays valid when the data is
 * corrupt half-way (what was read, then the closing; the command fails).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_calls.h"
#include "utils/utils.h"

struct chrome {
	struct export_calls calls;
	uint64_t lost;
};

/* @n bytes of @s as a JSON string: control characters \u00XX, bad UTF-8 U+FFFD */
static void json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	for (size_t i = 0; i < n;) {
		size_t len = ut_utf8_len(p + i, n - i);

		if (!len) {
			fputs("\\ufffd", f);
			i++;
		} else if (len > 1) {
			fwrite(p + i, 1, len, f);
			i += len;
		} else {
			unsigned char c = p[i++];

			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c == '\n')
				fputs("\\n", f);
			else if (c == '\t')
				fputs("\\t", f);
			else if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				putc(c, f);
		}
	}
	putc('"', f);
}

static void json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

/* CLOCK_MONOTONIC ns as microseconds: integer part and three decimals */
static void json_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/*
 * The start of an event object, up to its "tid": every event is on its
 * own line, the first one after the metadata with no comma before it
 * (the metadata always comes first, so "," can lead every later line).
 */
static void ev_head(struct export_ctx *x, const char *name, size_t name_len, const char *cat,
		    const char *ph, uint64_t ts, const struct ut_event *ev)
{
	FILE *f = x->out;

	fputs(",\n{\"name\":", f);
	json_str(f, name, name_len);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":", cat, ph);
	json_us(f, ts);
	fprintf(f, ",\"pid\":%d,\"tid\":%d", ev->pid, ev->tid);
}

/* "process_name" and "thread_name" of every thread file, once per pid and tid */
static void metadata(struct export_ctx *x)
{
	struct ut_data *d = x->d;
	FILE *f = x->out;
	int n = 0;

	for (int i = 0; i < d->nr_threads; i++) {
		const struct ut_thread_info *t = &d->threads[i];
		const char *pname = NULL;
		int seen_pid = 0, seen_tid = 0;

		for (int j = 0; j < i; j++) {
			seen_pid |= d->threads[j].pid == t->pid;
			seen_tid |= d->threads[j].pid == t->pid && d->threads[j].tid == t->tid;
		}
		if (!seen_pid) {
			/* the process's name: its main thread's, else its first thread's */
			pname = t->comm;
			for (int j = 0; j < d->nr_threads; j++)
				if (d->threads[j].pid == t->pid && d->threads[j].tid == t->pid) {
					pname = d->threads[j].comm;
					break;
				}
			fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
				"\"args\":{\"name\":", n++ ? ",\n" : "", t->pid, t->pid);
			json_cstr(f, pname);
			fputs("}}", f);
		}
		if (!seen_tid) {
			fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
				"\"args\":{\"name\":", n++ ? ",\n" : "", t->pid, t->tid);
			json_cstr(f, t->comm);
			fputs("}}", f);
		}
	}
	/*
	 * Every event line starts with a comma, so one object must come
	 * first even in a directory without threads: the trace's own
	 * metadata, as a process name of pid 0 would be wrong; a clock sync
	 * marker is meaningless: use a "M" event the viewers ignore.
	 */
	if (!n)
		fputs("{\"name\":\"trace_info\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{}}", f);
}

static int chrome_begin(struct export_ctx *x)
{
	struct chrome *c = xcalloc(1, sizeof(*c));

	x->priv = c;
	if (export_calls_init(&c->calls, x) < 0)
		return -1;
	fputs("{\"traceEvents\":[\n", x->out);
	metadata(x);
	return 0;
}

/* "E" of @call at @ts on @ev's thread */
static void slice_end(struct export_ctx *x, const struct ut_cs_frame *call, uint64_t ts,
		      const struct ut_event *ev)
{
	struct ut_event e = *ev;
	char buf[32];
	const char *name;

	e.image = call->image;
	name = export_sym_or_addr(x, &e, call->ip, buf, sizeof(buf));
	ev_head(x, name, strlen(name), "function", "E", ts, ev);
	fputs("}", x->out);
}

static void slice_ends(struct export_ctx *x, const struct ut_cs_frame *calls, uint32_t n,
		       uint64_t ts, const struct ut_event *ev)
{
	while (n-- > 0)
		slice_end(x, &calls[n], ts, ev);
}

/* the event's fields but the common ones, as "args" members */
static void event_args(struct export_ctx *x, const struct ut_event *ev)
{
	const struct ut_evfield *fl;
	int nf = x->events ? ut_evtab_fields(x->events, ev->id, &fl) : -1;
	FILE *f = x->out;
	int n = 0;

	fputs(",\"args\":{", f);
	for (int i = 0; i < nf; i++) {
		const struct ut_evfield *fd = &fl[i];

		if (fd->flags & UT_EVF_COMMON)
			continue;
		fprintf(f, "%s", n++ ? "," : "");
		json_cstr(f, fd->name);
		putc(':', f);
		if (fd->flags & UT_EVF_STRING) {
			uint32_t len = 0;
			const char *s = ut_evfield_string(fd, ev->data, ev->data_len, &len);

			if (s)
				json_str(f, s, len);
			else
				fputs("null", f);
		} else if (fd->flags & UT_EVF_ARRAY) {
			uint32_t ne = 0, es;
			const unsigned char *p = export_field_array(fd, ev->data, ev->data_len,
								    &ne, &es);

			putc('[', f);
			for (uint32_t k = 0; p && k < ne; k++) {
				uint64_t v = export_field_elem(fd, p, es, k);

				if (fd->flags & UT_EVF_SIGNED)
					fprintf(f, "%s%" PRId64, k ? "," : "", (int64_t)v);
				else
					fprintf(f, "%s%" PRIu64, k ? "," : "", v);
			}
			putc(']', f);
		} else {
			uint64_t v = ut_evfield_value(fd, ev->data, ev->data_len);

			if (fd->flags & UT_EVF_POINTER) {
				const char *s = export_sym(x, ev, v);

				/* an address as the kernel's %ps prints it: the symbol, else hex */
				if (s)
					json_cstr(f, s);
				else
					fprintf(f, "\"%#" PRIx64 "\"", v);
			} else if (fd->flags & UT_EVF_SIGNED) {
				fprintf(f, "%" PRId64, (int64_t)v);
			} else {
				fprintf(f, "%" PRIu64, v);
			}
		}
	}
	if (nf < 0)
		fprintf(f, "\"id\":%u", ev->id);
	putc('}', f);
}

/* args.stack of a UT_EV_TRACE or UT_EV_SAMPLE */
static void stack_args(struct export_ctx *x, const struct ut_event *ev)
{
	uint64_t n = ut_event_trace_len(ev);

	fputs(",\"args\":{\"stack\":[", x->out);
	for (uint64_t i = 0; i < n; i++) {
		char buf[32];

		if (i)
			putc(',', x->out);
		json_cstr(x->out, export_sym_or_addr(x, ev, ut_event_trace_ip(ev, i), buf,
						     sizeof(buf)));
	}
	putc(']', x->out);
	if (ev->type == UT_EV_SAMPLE)
		fprintf(x->out, ",\"weight\":%u", ev->weight);
	putc('}', x->out);
}

static int chrome_event(struct export_ctx *x, const struct ut_event *ev)
{
	struct chrome *c = x->priv;
	const struct ut_cs_frame *calls;
	const char *name, *sys;
	FILE *f = x->out;
	char buf[64];
	/* the calls an EXIT or a DEPTH restatement ends */
	uint32_t n = export_calls_event(&c->calls, x, ev, &calls);

	slice_ends(x, calls, n, ev->ts, ev);
	switch (ev->type) {
	case UT_EV_ENTRY:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_head(x, name, strlen(name), "function", "B", ev->ts, ev);
		fputs("}", f);
		break;
	case UT_EV_EXIT:
	case UT_EV_DEPTH:
		break;
	case UT_EV_RETURN:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_head(x, name, strlen(name), "function", "X",
			ev->ts > ev->duration ? ev->ts - ev->duration : 0, ev);
		fputs(",\"dur\":", f);
		json_us(f, ev->duration);
		fputs("}", f);
		break;
	case UT_EV_FUNC:
		name = export_sym_or_addr(x, ev, ev->ip, buf, sizeof(buf));
		ev_head(x, name, strlen(name), "function", "i", ev->ts, ev);
		fputs(",\"s\":\"t\",\"args\":{\"caller\":", f);
		name = export_sym_or_addr(x, ev, ev->parent, buf, sizeof(buf));
		json_cstr(f, name);
		fputs("}}", f);
		break;
	case UT_EV_EVENT:
		name = export_event_name(x, ev, &sys);
		if (name)
			snprintf(buf, sizeof(buf), "%s:%s", sys ? sys : "", name);
		else
			snprintf(buf, sizeof(buf), "event %u", ev->id);
		ev_head(x, buf, strlen(buf), "event", "i", ev->ts, ev);
		fputs(",\"s\":\"t\"", f);
		event_args(x, ev);
		fputs("}", f);
		break;
	case UT_EV_MARKER: {
		size_t len = ev->data ? ev->data_len : 0;

		while (len && (ev->data[len - 1] == '\n' || ev->data[len - 1] == '\0'))
			len--;
		if (len)
			ev_head(x, ev->data, len, "marker", "i", ev->ts, ev);
		else
			ev_head(x, "marker", 6, "marker", "i", ev->ts, ev);
		fputs(",\"s\":\"t\",\"args\":{\"text\":", f);
		json_str(f, len ? ev->data : "", len);
		fputs("}}", f);
		break;
	}
	case UT_EV_TRACE:
	case UT_EV_SAMPLE:
		name = ev->type == UT_EV_TRACE ? "stack trace" : "sample";
		ev_head(x, name, strlen(name), ev->type == UT_EV_TRACE ? "stack" : "sample", "i",
			ev->ts, ev);
		fputs(",\"s\":\"t\"", f);
		stack_args(x, ev);
		fputs("}", f);
		break;
	case UT_EV_INITCALL:
		name = export_sym_or_addr(x, ev, ut_event_trace_ip(ev, 0), buf, sizeof(buf));
		ev_head(x, name, strlen(name), "initcall", "i", ev->ts, ev);
		if (ev->dir == UT_TRACE_DIR_ICRET)
			fprintf(f, ",\"s\":\"t\",\"args\":{\"ret\":%" PRId64 "}}",
				(int64_t)ut_event_trace_ip(ev, 1));
		else
			fputs(",\"s\":\"t\",\"args\":{\"call\":true}}", f);
		break;
	case UT_EV_LOST:
		c->lost += ev->count;
		/* 0: damaged data skipped, how many is not known */
		if (ev->count)
			snprintf(buf, sizeof(buf), "lost %" PRIu64 " records", ev->count);
		else
			snprintf(buf, sizeof(buf), "lost records (damaged data)");
		ev_head(x, buf, strlen(buf), "lost", "i", ev->ts, ev);
		fprintf(f, ",\"s\":\"t\",\"args\":{\"lost\":%" PRIu64 "}}", ev->count);
		break;
	}
	return 0;
}

static int chrome_end(struct export_ctx *x, int failed)
{
	struct chrome *c = x->priv;
	const struct ut_cs_frame *calls;
	FILE *f = x->out;

	if (!c)
		return 0;	/* begin was not called: the driver said why */
	/* the calls the trace stopped in end with it */
	for (int i = 0; i < c->calls.nr; i++) {
		struct export_calls_stream *s = &c->calls.st[i];
		struct ut_event ev = { .pid = s->pid, .tid = s->tid };
		uint32_t n = export_calls_end(&c->calls, i, &calls, &ev.ts);

		slice_ends(x, calls, n, ev.ts, &ev);
	}
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tracer\":", f);
	json_cstr(f, x->d->tracer);
	fputs(",\"cmdline\":", f);
	json_cstr(f, x->d->cmdline);
	fprintf(f, ",\"clock\":\"CLOCK_MONOTONIC\",\"records\":%" PRIu64 ",\"lost\":%" PRIu64
		",\"unmatched_exits\":%" PRIu64 ",\"complete\":%s}}\n", x->nr_events, c->lost,
		c->calls.dropped, failed || x->damaged ? "false" : "true");
	export_calls_free(&c->calls);
	free(c);
	x->priv = NULL;
	return 0;
}

const struct export_writer export_chrome = {
	.name = "chrome",
	.help = "Chrome's Trace Event Format (JSON): chrome://tracing, ui.perfetto.dev",
	.begin = chrome_begin,
	.event = chrome_event,
	.end = chrome_end,
};
