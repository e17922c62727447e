// SPDX-License-Identifier: MIT
/*
 * trace_seq.c - building the text of the output: struct trace_seq's
 * buffer and its number helpers (the kernel's trace_seq.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "output/tracer.h"
#include "utils/utils.h"

/* ---- building the text ---- */

void ut_seq_init(struct trace_seq *s, FILE *out)
{
	s->out = out;
	s->len = 0;
}

void ut_seq_flush(struct trace_seq *s)
{
	if (s->len)
		fwrite_unlocked(s->buf, 1, s->len, s->out);
	s->len = 0;
}

void ut_seq_putmem_slow(struct trace_seq *s, const void *p, size_t n)
{
	ut_seq_flush(s);
	if (n >= sizeof(s->buf)) {
		fwrite_unlocked(p, 1, n, s->out);
		return;
	}
	memcpy(s->buf, p, n);
	s->len = n;
}

void ut_seq_printf(struct trace_seq *s, const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		pr_err("out of memory");
		exit(1);
	}
	ut_seq_putmem(s, text, (size_t)n);
	free(text);
}

void ut_seq_fill_slow(struct trace_seq *s, char c, uint64_t n)
{
	size_t room, k;

	while (n) {
		if (s->len == sizeof(s->buf))
			ut_seq_flush(s);
		room = sizeof(s->buf) - s->len;
		k = n < room ? (size_t)n : room;
		memset(s->buf + s->len, c, k);
		s->len += k;
		n -= k;
	}
}

/*
 * @v in @base, after a '-' if @neg, in @width columns as printf pads it:
 * with @pad on the left, or with spaces on the right if @width < 0.  The
 * number and its usual padding go out in one piece.
 */
static inline void put_num(struct trace_seq *s, uint64_t v, int neg, unsigned base,
			   int width, char pad)
{
	char buf[48], *end = buf + sizeof(buf), *p = ut_seq_digits(end, v, base);
	size_t n, w = width < 0 ? -(size_t)width : (size_t)width;

	if (neg)
		*--p = '-';
	n = (size_t)(end - p);
	if (width > 0) {
		while (n < w && p > buf) {
			*--p = pad;
			n++;
		}
		if (n < w)	/* wider than buf: the rest of the padding first */
			ut_seq_fill(s, pad, w - n);
	}
	ut_seq_putmem(s, p, n);
	if (width < 0 && n < w)
		ut_seq_spaces(s, w - n);
}

void ut_seq_dec(struct trace_seq *s, int64_t v, int width)
{
	put_num(s, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, width, ' ');
}

void ut_seq_comm_pid(struct trace_seq *s, const char *comm, size_t len, size_t width, int pid)
{
	if (len < width)
		ut_seq_spaces(s, width - len);
	ut_seq_putmem(s, comm, len);
	ut_seq_putc(s, '-');
	ut_seq_dec(s, pid, -7);
}

void ut_seq_udec(struct trace_seq *s, uint64_t v, int width, char pad)
{
	put_num(s, v, 0, 10, width, pad);
}

void ut_seq_hex(struct trace_seq *s, uint64_t v, int width)
{
	put_num(s, v, 0, 16, width, '0');
}
