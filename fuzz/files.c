// SPDX-License-Identifier: MIT
/*
 * files.c - several files in one fuzzer input (see files.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/files.h"

static const char HDR[] = "=== ";
#define HDR_LEN (sizeof(HDR) - 1)

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* one path component: name characters, not "." or ".." */
static int comp_ok(const char *s, size_t n)
{
	if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]))
			return 0;
	return 1;
}

static int name_ok(const char *name)
{
	const char *slash = strchr(name, '/');

	if (name[0] == '@')
		return comp_ok(name + 1, strlen(name + 1));
	if (!slash)
		return comp_ok(name, strlen(name));
	return comp_ok(name, (size_t)(slash - name)) && comp_ok(slash + 1, strlen(slash + 1));
}

/* the next header at or after @p (at the start or after a newline), or NULL */
static const uint8_t *next_header(const uint8_t *start, const uint8_t *p, const uint8_t *end)
{
	while (p && p + HDR_LEN <= end) {
		if ((p == start || p[-1] == '\n') && !memcmp(p, HDR, HDR_LEN))
			return p;
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	return NULL;
}

void fz_split(struct fz_input *in, const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *h = next_header(data, data, end);

	in->n = 0;
	while (h && in->n < FZ_MAX_SECTIONS) {
		const uint8_t *name = h + HDR_LEN, *nl = memchr(name, '\n', (size_t)(end - name));
		const uint8_t *body, *next, *body_end;
		struct fz_section *s = &in->s[in->n];
		size_t nlen;

		if (!nl)
			break;
		body = nl + 1;
		next = next_header(data, body, end);
		body_end = next ? next : end;
		/* the separating newline is not the file's */
		if (body_end > body && body_end[-1] == '\n')
			body_end--;
		nlen = (size_t)(nl - name);
		if (nlen < sizeof(s->name) && !memchr(name, 0, nlen)) {
			memcpy(s->name, name, nlen);
			s->name[nlen] = '\0';
			if (name_ok(s->name)) {
				s->data = body;
				s->len = (size_t)(body_end - body);
				in->n++;
			}
		}
		h = next;
	}
}

const struct fz_section *fz_find(const struct fz_input *in, const char *name)
{
	for (int i = 0; i < in->n; i++)
		if (!strcmp(in->s[i].name, name))
			return &in->s[i];
	return NULL;
}

static char scratch[256];

static void scratch_remove(void)
{
	if (scratch[0]) {
		fz_clean(scratch);
		rmdir(scratch);
	}
}

const char *fz_scratch(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	if (!scratch[0]) {
		snprintf(scratch, sizeof(scratch), "%s/usertrace-fuzz.XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(scratch)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(scratch_remove);
	}
	return scratch;
}

static int write_all(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0) {
			close(fd);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return close(fd);
}

int fz_write(const struct fz_input *in, const char *dir)
{
	char path[512];

	for (int i = 0; i < in->n; i++) {
		const struct fz_section *s = &in->s[i];
		const char *slash = strchr(s->name, '/');

		if (s->name[0] == '@')
			continue;
		if (slash) {
			snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(slash - s->name), s->name);
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				continue;	/* a file of that name: as on disk, no such file */
		}
		snprintf(path, sizeof(path), "%s/%s", dir, s->name);
		if (write_all(path, s->data, s->len) < 0 && errno != EISDIR && errno != ENOTDIR)
			return -1;
	}
	return 0;
}

void fz_clean(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_type == DT_DIR) {
			fz_clean(path);
			rmdir(path);
		} else {
			unlink(path);
		}
	}
	closedir(d);
}

void *fz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}
