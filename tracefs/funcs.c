// SPDX-License-Identifier: MIT
/*
 * funcs.c - the functions of the traced processes (their ftrace.<pid>
 * files): available_filter_functions, enabled_functions,
 * dyn_ftrace_total_info.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

static uint64_t str_hash(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ull;
	h = (h ^ '\t') * 1099511628211ull;
	for (; *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ull;
	return h;
}

static int funcs_rehash(struct tfs_funcs *fs)
{
	size_t size = fs->tab_size ? fs->tab_size * 2 : 1024;
	size_t *tab = calloc(size, sizeof(*tab));

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n; i++) {
		size_t k = str_hash(fs->f[i].name, fs->f[i].mod) & (size - 1);

		while (tab[k])
			k = (k + 1) & (size - 1);
		tab[k] = i + 1;
	}
	free(fs->tab);
	fs->tab = tab;
	fs->tab_size = size;
	return 0;
}

static void funcs_add(struct tfs_funcs *fs, const char *name, const char *mod, int exe,
		      const char *flags)
{
	struct tfs_func *f;
	size_t k;

	if ((fs->n + 1) * 2 > fs->tab_size && funcs_rehash(fs))
		return;
	k = str_hash(name, mod) & (fs->tab_size - 1);
	while (fs->tab[k]) {
		f = &fs->f[fs->tab[k] - 1];
		if (!strcmp(f->name, name) && !strcmp(f->mod, mod)) {
			f->patchable |= !!strchr(flags, 'p');
			f->enabled |= !!strchr(flags, 'e');
			return;
		}
		k = (k + 1) & (fs->tab_size - 1);
	}
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 256;
		struct tfs_func *nf = realloc(fs->f, cap * sizeof(*nf));

		if (!nf)
			return;
		fs->f = nf;
		fs->cap = cap;
	}
	f = &fs->f[fs->n];
	f->name = strdup(name);
	f->mod = strdup(mod);
	if (!f->name || !f->mod) {
		free(f->name);
		free(f->mod);
		return;
	}
	f->exe = exe;
	f->patchable = !!strchr(flags, 'p');
	f->enabled = !!strchr(flags, 'e');
	fs->tab[k] = ++fs->n;
}

void tfs_funcs_free(struct tfs_funcs *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->f[i].name);
		free(fs->f[i].mod);
	}
	free(fs->f);
	free(fs->tab);
	memset(fs, 0, sizeof(*fs));
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static void funcs_load_file(struct tfs_funcs *fs, const char *dir, const char *fname, int pid)
{
	char path[PATH_MAX], exe[PATH_MAX] = "", *line = NULL;
	size_t cap = 0;
	ssize_t n, k;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, fname);
	fp = fopen(path, "re");
	if (!fp)
		return;
	fs->present = 1;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	k = readlink(path, exe, sizeof(exe) - 1);
	if (k > 0) {
		exe[k] = '\0';
		/* a deleted executable: "/path/app (deleted)" */
		if (k > 10 && !strcmp(exe + k - 10, " (deleted)"))
			exe[k - 10] = '\0';
		memmove(exe, base_name(exe), strlen(base_name(exe)) + 1);
	} else {
		exe[0] = '\0';
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		char *name = line, *mod, *flags;

		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		mod = strchr(name, '\t');
		if (!mod)
			continue;
		*mod++ = '\0';
		flags = strchr(mod, '\t');
		if (flags)
			*flags++ = '\0';
		else
			flags = "";
		if (!exe[0])
			snprintf(exe, sizeof(exe), "%s", base_name(mod));
		funcs_add(fs, name, mod, !strcmp(base_name(mod), exe), flags);
	}
	free(line);
	fclose(fp);
}

/* every ftrace.<pid> of the session, in pid order */
void tfs_funcs_load(struct tfs_session *s, struct tfs_funcs *fs)
{
	int *pids = NULL, nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	memset(fs, 0, sizeof(*fs));
	d = opendir(s->dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int pid = tfs_name_pid(de->d_name, "ftrace.");

		if (pid < 0 || strchr(de->d_name + 7, '.'))
			continue;
		if (tfs_ints_push(&pids, &nr, &cap, pid) < 0)
			break;
	}
	closedir(d);
	if (nr)
		qsort(pids, (size_t)nr, sizeof(*pids), tfs_cmp_int);
	for (int i = 0; i < nr; i++) {
		char fname[32];

		snprintf(fname, sizeof(fname), "ftrace.%d", pids[i]);
		funcs_load_file(fs, s->dir, fname, pids[i]);
	}
	free(pids);
}

void tfs_func_print(struct tfs_sbuf *b, const struct tfs_func *f)
{
	if (f->exe)
		tfs_sb_puts(b, f->name);
	else
		tfs_sb_printf(b, "%s [%s]", f->name, f->mod);
}

/* does module @mod (a path or a name) match a `:mod:` glob */
int tfs_mod_match(const char *glob, const char *mod)
{
	return !fnmatch(glob, mod, 0) || !fnmatch(glob, base_name(mod), 0);
}

/* which listing a file is (its ->arg) */
enum { FN_AVAIL, FN_ENABLED, FN_DYNINFO };

static int funcs_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_session *s = h->s;
	int id = h->n.f->arg;
	struct tfs_funcs fs;
	size_t patchable = 0;
	struct tfs_words mods = { 0 };

	tfs_funcs_load(s, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		const struct tfs_func *f = &fs.f[i];

		if (id == FN_AVAIL) {
			tfs_func_print(b, f);
			tfs_sb_puts(b, "\n");
		} else if (id == FN_ENABLED && f->enabled) {
			tfs_func_print(b, f);
			tfs_sb_puts(b, " (1)\n");
		} else if (id == FN_DYNINFO && f->patchable) {
			patchable++;
			if (tfs_words_find(&mods, f->mod) < 0)
				tfs_words_add(&mods, f->mod, strlen(f->mod));
		}
	}
	/* the kernel's dyn_ftrace records are 16 bytes, in 4 KiB pages */
	if (id == FN_DYNINFO)
		tfs_sb_printf(b, "%zu pages:%zu groups: %d\n", patchable,
			      (patchable * 16 + 4095) / 4096, mods.n);
	tfs_words_free(&mods);
	tfs_funcs_free(&fs);
	return 0;
}

const struct tfs_file tfs_funcs_files[] = {
	TFS_FILE("available_filter_functions", 0440, W_TOP, .show = funcs_show, .arg = FN_AVAIL),
	TFS_FILE("enabled_functions", 0440, W_TOP, .show = funcs_show, .arg = FN_ENABLED),
	TFS_FILE("dyn_ftrace_total_info", 0440, W_TOP, .show = funcs_show, .arg = FN_DYNINFO),
	TFS_FILES_END
};
