// SPDX-License-Identifier: MIT
/* utils.c - messages, allocation that cannot fail, sizes, files */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "utils/utils.h"

int debug;

static void vpr(const char *prefix, const char *fmt, va_list ap)
{
	/* one line, also when the recorder's threads report at once */
	flockfile(stderr);
	fprintf(stderr, "usertrace: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpr("", fmt, ap);
	va_end(ap);
}

void pr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vpr("warning: ", fmt, ap);
	va_end(ap);
}

void pr_killed(int wstatus, const char *then)
{
	if (wstatus == -1 || !WIFSIGNALED(wstatus))
		return;
	pr_err("program killed by signal %d (%s%s)%s", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)),
	       WCOREDUMP(wstatus) ? ", core dumped" : "", then);
}

void pr_dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	vpr("debug: ", fmt, ap);
	va_end(ap);
}

static void *oom(void)
{
	fputs("usertrace: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom();
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	return p ? p : oom();
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : oom();
}

long long parse_size(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0 || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end == 'b' || *end == 'B')
		end++;
	return *end ? -1 : v;
}

long long parse_time(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0 || end == s)
		return -1;
	if (!*end || !strcmp(end, "us"))
		return v * 1000;
	if (!strcmp(end, "ns"))
		return v;
	if (!strcmp(end, "ms"))
		return v * 1000000;
	if (!strcmp(end, "s"))
		return v * 1000000000;
	return -1;
}

int mkdir_p(const char *path, int mode)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int remove_tree(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int ret = 0;

	if (!d)
		return unlink(path);
	while ((de = readdir(d))) {
		char sub[4096];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (de->d_type == DT_DIR)
			ret |= remove_tree(sub);
		else if (unlink(sub) < 0)
			ret = -1;
	}
	closedir(d);
	if (rmdir(path) < 0)
		ret = -1;
	return ret;
}

char *read_file(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap)
			buf = xrealloc(buf, cap *= 2);
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

uint64_t ut_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ut_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

void ut_calibrate(uint64_t *tsc, uint64_t *mono)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = ut_rdtsc(), m = ut_mono_ns(), t1 = ut_rdtsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*mono = m;
		}
	}
}

/* all of @n bytes to a socket, or -1 (no SIGPIPE if the peer is gone) */
int ut_send_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* copy the file @from to @to (created with @mode, or truncated) */
int ut_copy_file(const char *from, const char *to, int mode)
{
	size_t len;
	char *buf = read_file(from, &len);
	int fd, ret = -1;

	if (!buf)
		return -1;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd >= 0) {
		ret = write(fd, buf, len) == (ssize_t)len ? 0 : -1;
		close(fd);
	}
	free(buf);
	return ret;
}

size_t ut_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* the second byte's range excludes overlong forms, surrogates, > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}
