// SPDX-License-Identifier: MIT
/*
 * util.c - text and number helpers shared by the tracing directory's
 * files: the growing text buffer, written values and numbers, lists of
 * words.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracefs/tfs_int.h"

uint64_t tfs_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tfs_sb_add(struct tfs_sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (b->len + n + 1 > cap)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
void tfs_sb_printf(struct tfs_sbuf *b, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		tfs_sb_add(b, small, (size_t)n);
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		tfs_sb_add(b, big, (size_t)n);
		free(big);
	}
}

void tfs_sb_puts(struct tfs_sbuf *b, const char *s)
{
	tfs_sb_add(b, s, strlen(s));
}

/* a written value: its text without surrounding blanks, NUL-terminated */
char *tfs_strip_dup(const char *buf, size_t size)
{
	char *s;

	while (size && isspace((unsigned char)*buf)) {
		buf++;
		size--;
	}
	while (size && isspace((unsigned char)buf[size - 1]))
		size--;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, buf, size);
	s[size] = '\0';
	return s;
}

/*
 * A written number, as the kernel's kstrtoull_from_user(base 10): an
 * optional '+', decimal digits, one optional trailing newline; nothing
 * else (no blanks).  The text ends at a NUL byte, as the kernel's copy
 * of it does ("1\0x" is 1).  -EINVAL, or -ERANGE when it does not fit.
 */
int tfs_parse_ull(const char *buf, size_t size, unsigned long long *v)
{
	unsigned long long x = 0;
	size_t i = 0;

	size = strnlen(buf, size);
	if (size && buf[size - 1] == '\n')
		size--;
	if (i < size && buf[i] == '+')
		i++;
	if (i == size)
		return -EINVAL;
	for (; i < size; i++) {
		unsigned d = (unsigned char)buf[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (x > (ULLONG_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int tfs_name_pid(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);
	char *end;
	long v;

	if (strncmp(name, prefix, l) || !isdigit((unsigned char)name[l]))
		return -1;
	v = strtol(name + l, &end, 10);
	if (v <= 0 || v > INT_MAX)
		return -1;
	if (*end && *end != '.')
		return -1;
	return (int)v;
}

int tfs_cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* append @v to the growing array *@a of *@nr (capacity *@cap); -1 if out of memory */
int tfs_ints_push(int **a, int *nr, int *cap, int v)
{
	if (*nr == *cap) {
		int c = *cap ? *cap * 2 : 16;
		int *n = realloc(*a, (size_t)c * sizeof(*n));

		if (!n)
			return -1;
		*a = n;
		*cap = c;
	}
	(*a)[(*nr)++] = v;
	return 0;
}

void tfs_words_free(struct tfs_words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
	ws->w = NULL;
	ws->n = 0;
}

int tfs_words_add(struct tfs_words *ws, const char *s, size_t len)
{
	char **nw = realloc(ws->w, (size_t)(ws->n + 1) * sizeof(*nw));

	if (!nw)
		return -ENOMEM;
	ws->w = nw;
	ws->w[ws->n] = strndup(s, len);
	if (!ws->w[ws->n])
		return -ENOMEM;
	ws->n++;
	return 0;
}

int tfs_words_split(struct tfs_words *ws, const char *buf, size_t size)
{
	size_t i = 0;

	while (i < size) {
		size_t j;

		while (i < size && (isspace((unsigned char)buf[i]) || !buf[i]))
			i++;
		for (j = i; j < size && buf[j] && !isspace((unsigned char)buf[j]); j++)
			;
		if (j > i && tfs_words_add(ws, buf + i, j - i))
			return -ENOMEM;
		i = j;
	}
	return 0;
}

void tfs_words_del(struct tfs_words *ws, int i)
{
	free(ws->w[i]);
	memmove(ws->w + i, ws->w + i + 1, sizeof(*ws->w) * (size_t)(ws->n - i - 1));
	ws->n--;
}

int tfs_words_find(const struct tfs_words *ws, const char *w)
{
	for (int i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i], w))
			return i;
	return -1;
}

/* the list back into the control page; -ENOSPC if it does not fit */
int tfs_words_join(const struct tfs_words *ws, char *dst)
{
	size_t len = 0;

	for (int i = 0; i < ws->n; i++)
		len += strlen(ws->w[i]) + 1;
	if (len >= UT_LIST_MAX)
		return -ENOSPC;
	dst[0] = '\0';
	for (int i = 0, off = 0; i < ws->n; i++)
		off += sprintf(dst + off, "%s%s", i ? " " : "", ws->w[i]);
	return 0;
}

/* the index of the one word written (@find), or -EINVAL with @err in error_log */
int tfs_word_index(struct tfs_session *s, const char *buf, size_t size,
		      int (*find)(const char *), const char *err)
{
	char *w = tfs_strip_dup(buf, size);
	int i;

	if (!w)
		return -ENOMEM;
	i = find(w);
	if (i < 0) {
		tfs_err(s, err, w);
		i = -EINVAL;
	}
	free(w);
	return i;
}
