// SPDX-License-Identifier: MIT
/*
 * symmaps.c - the maps snapshots of a recording,
 * DIR/maps.<pid>.<image>.<n>: their list and their lines.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/symtab.h"
#include "utils/utils.h"
#include "reader/symtab_int.h"

static int cmp_maps_file(const void *a, const void *b)
{
	const struct maps_file *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return 0;
}

int parse_u64(const char *s, const char **end, int base, uint64_t *v)
{
	char *e;

	if (*s < '0' || *s > 'f')	/* strtoull would accept "-1" and spaces */
		return -1;
	errno = 0;
	*v = strtoull(s, &e, base);
	if (errno || e == s)
		return -1;
	*end = e;
	return 0;
}

/* "maps.<pid>.<image>.<n>" with decimal numbers and nothing else */
static int parse_maps_name(const char *name, struct maps_file *mf)
{
	const char *p;
	uint64_t pid, n;

	if (strncmp(name, "maps.", 5) || strlen(name) >= sizeof(mf->name))
		return -1;
	p = name + 5;
	if (parse_u64(p, &p, 10, &pid) || *p++ != '.' || pid > INT32_MAX)
		return -1;
	if (parse_u64(p, &p, 10, &mf->image) || *p++ != '.')
		return -1;
	if (parse_u64(p, &p, 10, &n) || *p || n > UINT32_MAX)
		return -1;
	mf->pid = (int)pid;
	mf->n = (unsigned)n;
	strcpy(mf->name, name);
	return 0;
}

/* the maps.* files of @dir sorted by (pid, image, n); -1 if @dir can't be read */
int list_maps(const char *dir, struct maps_file **out, size_t *nr)
{
	struct maps_file *v = NULL, mf;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	/* room for "/sym/<hash>.sym.tmp" in the fixed-size path buffers */
	if (strlen(dir) > 4000)
		return errno = ENAMETOOLONG, -1;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (parse_maps_name(de->d_name, &mf))
			continue;
		if (n == cap)
			v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
		v[n++] = mf;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_maps_file);
	*out = v;
	*nr = n;
	return 0;
}

/*
 * One line of /proc/PID/maps: "start-end perms offset dev inode   path".
 * @line is modified (the path is cut at its end).  Returns -1 if the line
 * does not look like one.
 */
int parse_maps_line(char *line, struct maps_line *ml)
{
	const char *p = line;
	uint64_t inode;
	char *path;
	size_t len;

	if (parse_u64(p, &p, 16, &ml->start) || *p++ != '-')
		return -1;
	if (parse_u64(p, &p, 16, &ml->end) || *p++ != ' ' || ml->end <= ml->start)
		return -1;
	if (strlen(p) < 5 || p[4] != ' ')
		return -1;
	ml->exec = p[2] == 'x';
	p += 5;
	if (parse_u64(p, &p, 16, &ml->off) || *p++ != ' ')
		return -1;
	/* device "fd:01" */
	while (*p && *p != ' ')
		p++;
	if (*p++ != ' ' || parse_u64(p, &p, 10, &inode))
		return -1;
	while (*p == ' ' || *p == '\t')
		p++;
	path = (char *)p;
	len = strlen(path);
	while (len && (path[len - 1] == '\n' || path[len - 1] == '\r'))
		path[--len] = 0;
	ml->deleted = 0;
	if (len > 10 && !strcmp(path + len - 10, " (deleted)")) {
		ml->deleted = 1;
		path[len - 10] = 0;
	}
	ml->path = path[0] == '/' ? path : NULL;
	return 0;
}
