// SPDX-License-Identifier: MIT
/*
 * symsave.c - the symbol files of a recording, written at its end.
 *
 * Saving: every executable file mapping in the DIR/maps.<pid>.<image>.<n>
 * snapshots names an ELF file.  Its function symbols (.symtab merged with
 * .dynsym), its e_type and its PT_LOAD headers go to DIR/sym/<hash>.sym, a
 * text file:
 *
 *   # usertrace sym 1
 *   # path /usr/lib/x86_64-linux-gnu/libc.so.6
 *   # type 3
 *   # load <p_vaddr> <p_offset> <p_filesz> <p_memsz> <p_flags>   (one per PT_LOAD)
 *   <addr> <size> <name>                                          (sorted by addr)
 *   # end <number of symbols>
 *
 * numbers in hex (but the count at the end), <hash> the 64-bit FNV-1a of
 * the path in 16 hex digits.  The end line tells a whole file from one cut
 * short by a full disk: a cut file would lend its last symbol to every
 * function after it, so it is not used at all.
 * DIR/sym/index lists "<hash> <path>" for people and scripts; loading
 * does not need it since the hash is computed from the path in the maps.
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

/*
 * names are free text up to the end of the line: no control characters;
 * a tab, then the ELF name, when the name was demangled
 */
static void put_name(FILE *f, const char *s, const char *raw)
{
	for (; *s; s++)
		fputc((unsigned char)*s < ' ' || *s == 0x7f ? '?' : *s, f);
	if (raw) {
		fputc('\t', f);
		put_name(f, raw, NULL);
		return;
	}
	fputc('\n', f);
}

static int write_sym_file(const char *file, const char *path, const struct elfinfo *ei)
{
	char tmp[4200];
	FILE *f;
	int err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= sizeof(tmp))
		return errno = ENAMETOOLONG, -1;
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, SYM_MAGIC "\n# path ");
	put_name(f, path, NULL);
	fprintf(f, "# type %d\n", ei->e_type);
	for (size_t i = 0; i < ei->nr_loads; i++) {
		const GElf_Phdr *ph = &ei->loads[i];

		fprintf(f, "# load %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx32 "\n",
			(uint64_t)ph->p_vaddr, (uint64_t)ph->p_offset,
			(uint64_t)ph->p_filesz, (uint64_t)ph->p_memsz, (uint32_t)ph->p_flags);
	}
	for (size_t i = 0; i < ei->nr_syms; i++) {
		fprintf(f, "%" PRIx64 " %" PRIx64 " ", ei->syms[i].addr, ei->syms[i].size);
		put_name(f, ei->syms[i].name, ei->syms[i].raw);
	}
	fprintf(f, "# end %zu\n", ei->nr_syms);
	err = ferror(f);
	if (fclose(f) || err || rename(tmp, file)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int ut_symtab_save(const char *datadir)
{
	struct maps_file *mf = NULL;
	size_t nr_mf, nr_paths = 0, cap_paths = 0, saved = 0;
	char **paths = NULL, symdir[4096], file[4200];
	FILE *index;
	int ret = 0;

	if (list_maps(datadir, &mf, &nr_mf)) {
		pr_err("cannot read %s: %s", datadir, strerror(errno));
		return -1;
	}
	/* the distinct ELF files of all executable mappings */
	for (size_t i = 0; i < nr_mf; i++) {
		char *buf, *line, *pos;
		size_t len;

		snprintf(file, sizeof(file), "%s/%s", datadir, mf[i].name);
		buf = read_file(file, &len);
		if (!buf) {
			pr_warn("cannot read %s: %s", file, strerror(errno));
			continue;
		}
		for (pos = buf; (line = next_line(&pos, buf + len));) {
			struct maps_line ml;

			if (parse_maps_line(line, &ml) || !ml.exec || !ml.path)
				continue;
			if (ml.deleted) {
				/* whatever is at that path now is not what ran */
				pr_dbg("%s: %s was deleted, no symbols", mf[i].name, ml.path);
				continue;
			}
			if (nr_paths == cap_paths)
				paths = xrealloc(paths, (cap_paths = cap_paths ? cap_paths * 2 : 32) * sizeof(*paths));
			paths[nr_paths++] = xstrdup(ml.path);
		}
		free(buf);
	}
	free(mf);
	if (nr_paths)
		qsort(paths, nr_paths, sizeof(*paths), cmp_str);

	snprintf(symdir, sizeof(symdir), "%s/sym", datadir);
	if (mkdir_p(symdir, 0755)) {
		pr_err("cannot create %s: %s", symdir, strerror(errno));
		ret = -1;
		goto out;
	}
	snprintf(file, sizeof(file), "%s/index", symdir);
	index = fopen(file, "w");
	if (!index) {
		pr_err("cannot create %s: %s", file, strerror(errno));
		ret = -1;
		goto out;
	}
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < nr_paths; i++) {
		struct elfinfo ei;
		const char *why;
		uint64_t h;

		if (i && !strcmp(paths[i], paths[i - 1]))
			continue;
		if (read_elf(paths[i], &ei, &why)) {
			pr_warn("no symbols for %s: %s", paths[i], why);
			continue;
		}
		h = fnv1a(paths[i]);
		snprintf(file, sizeof(file), "%s/%016" PRIx64 ".sym", symdir, h);
		if (write_sym_file(file, paths[i], &ei)) {
			pr_warn("cannot write %s: %s", file, strerror(errno));
		} else {
			fprintf(index, "%016" PRIx64 " ", h);
			put_name(index, paths[i], NULL);
			saved++;
		}
		free_elfinfo(&ei);
	}
	if (fclose(index)) {
		pr_err("cannot write %s/index", symdir);
		ret = -1;
	}
	pr_dbg("saved symbols of %zu files", saved);
out:
	for (size_t i = 0; i < nr_paths; i++)
		free(paths[i]);
	free(paths);
	return ret;
}
