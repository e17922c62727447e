// SPDX-License-Identifier: MIT
/*
 * statarea.c - the statistics files of a session or data directory
 * (statarea.h).  Each is read whole into memory, checked, then given to
 * the caller: a file being written is read as it is at that moment, and
 * a broken one is a warning, never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/statarea.h"
#include "utils/utils.h"

struct stat_ent {
	char *file;
	int pid;
	unsigned long long img;
};

static int ent_cmp(const void *a, const void *b)
{
	const struct stat_ent *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->img < y->img ? -1 : x->img > y->img;
}

/* NAME.<pid>.<img>: 1 and the numbers if @file is one of @name's */
static int parse_name(const char *file, const char *name, int *pid, unsigned long long *img)
{
	size_t n = strlen(name);
	char *end;
	long p;

	if (strncmp(file, name, n) || file[n] != '.')
		return 0;
	errno = 0;
	p = strtol(file + n + 1, &end, 10);
	if (errno || end == file + n + 1 || *end != '.' || p <= 0 || p > 0x7fffffff)
		return 0;
	*pid = (int)p;
	*img = strtoull(end + 1, &end, 10);
	return !*end && !errno;
}

/* the file's header and payload, checked; NULL after a warning */
static void *read_stat(const char *path, const char *name, uint32_t version)
{
	struct ut_stat_hdr *h;
	size_t len;
	char *p = read_file(path, &len);

	if (!p) {
		pr_warn("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	h = (struct ut_stat_hdr *)p;
	if (len < sizeof(*h) || memcmp(h->magic, UT_STAT_MAGIC, 8)) {
		pr_warn("%s: not a statistics file", path);
	} else if (strncmp(h->name, name, sizeof(h->name)) || h->hdr_size < sizeof(*h) ||
		   h->hdr_size > len || h->size > len - h->hdr_size) {
		pr_warn("%s: corrupt statistics file (name, header or size)", path);
	} else if (h->version != version) {
		pr_warn("%s: layout %u, this usertrace reads %u: skipped", path, h->version, version);
	} else {
		h->comm[sizeof(h->comm) - 1] = '\0';
		return p;
	}
	free(p);
	return NULL;
}

int ut_stat_foreach(const char *dir, const char *name, uint32_t version, ut_stat_fn fn, void *arg)
{
	struct stat_ent *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	char path[4096];
	int given = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" UT_STAT_DIR, dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int pid;
		unsigned long long img;

		if (!parse_name(de->d_name, name, &pid, &img))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n].file = xstrdup(de->d_name);
		v[n].pid = pid;
		v[n++].img = img;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), ent_cmp);
	for (size_t i = 0; i < n; i++) {
		char *p;

		snprintf(path, sizeof(path), "%s/" UT_STAT_DIR "/%s", dir, v[i].file);
		p = read_stat(path, name, version);
		if (p) {
			const struct ut_stat_hdr *h = (const void *)p;
			int stop = fn(h, p + h->hdr_size, arg);

			given++;
			free(p);
			if (stop)
				i = n;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].file);
	free(v);
	return given;
}

int ut_stat_save(const char *session, const char *outdir)
{
	char from[4096], to[4096];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(from, sizeof(from), "%s/" UT_STAT_DIR, session);
	d = opendir(from);
	if (!d)
		return 0;
	snprintf(to, sizeof(to), "%s/" UT_STAT_DIR, outdir);
	if (mkdir(to, 0755) < 0 && errno != EEXIST) {
		pr_warn("cannot make %s: %s", to, strerror(errno));
		closedir(d);
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/" UT_STAT_DIR "/%s", session, de->d_name);
		snprintf(to, sizeof(to), "%s/" UT_STAT_DIR "/%s", outdir, de->d_name);
		if (ut_copy_file(from, to, 0644) < 0) {
			pr_warn("cannot save the statistics %s", de->d_name);
			ret = -1;
		}
	}
	closedir(d);
	return ret;
}
