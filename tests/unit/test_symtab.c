// SPDX-License-Identifier: MIT
/*
 * test_symtab.c - unit tests of reader/symtab.c.
 *
 * The test names its own addresses: it copies /proc/self/maps into a
 * temporary data directory, saves and loads the symbols, and looks up a
 * static function of its own and a function of libc.  Programs compiled
 * with cc at test time cover non-PIE and PIE executables.  The rest feeds
 * garbage and truncated files, which must give NULL and no crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/symtab.h"
#include "utils/utils.h"

/* the function the test looks for by address: static, so only in .symtab */
__attribute__((noinline, used)) static int symtab_test_target(int x)
{
	return x * 3 + 1;
}

/* fopen in libc itself, not a sanitizer's interceptor of it */
static void *libc_fopen(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *fn;

	assert_non_null(h);
	fn = dlsym(h, "fopen");
	dlclose(h);
	return fn;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void copy_self_maps(const char *dir, int pid, uint64_t image, unsigned n)
{
	char path[4200], *maps = read_file("/proc/self/maps", NULL);

	assert_non_null(maps);
	snprintf(path, sizeof(path), "%s/maps.%d.%" PRIu64 ".%u", dir, pid, image, n);
	write_text(path, maps);
	free(maps);
}

static char *make_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xmalloc(4096);

	snprintf(dir, 4096, "%s/test_symtab.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* the module name that /proc/self/exe has in the maps */
static const char *self_base(void)
{
	static char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	assert_true(n > 0);
	exe[n] = 0;
	slash = strrchr(exe, '/');
	return slash ? slash + 1 : exe;
}

static void test_self(void **state)
{
	char *dir = make_dir();
	struct ut_symtab *st;
	const struct ut_sym *s, *s2;
	uint64_t fn = (uint64_t)(uintptr_t)symtab_test_target;
	void *libc_fn = libc_fopen();
	int pid = getpid();

	(void)state;
	copy_self_maps(dir, pid, 1, 0);
	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);

	s = ut_symtab_find(st, pid, 1, fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	assert_string_equal(s->module, self_base());
	assert_true(s->addr == fn);

	/* inside the function: the same symbol, the same pointer */
	s2 = ut_symtab_find(st, pid, 1, fn + 1, UT_SYMTAB_LATEST);
	assert_ptr_equal(s, s2);

	/* a shared library at a randomized address */
	assert_non_null(libc_fn);
	s = ut_symtab_find(st, pid, 1, (uint64_t)(uintptr_t)libc_fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->module, "libc.so.6");
	assert_non_null(strstr(s->name, "fopen"));
	assert_true(s->addr == (uint64_t)(uintptr_t)libc_fn);

	/* no maps for this image or pid: fall back to what there is */
	s = ut_symtab_find(st, pid, 99, fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	s = ut_symtab_find(st, pid + 100000, 1, fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	s = ut_symtab_find(st, pid + 100000, 77, fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");

	/* addresses that are not in any executable mapping */
	assert_null(ut_symtab_find(st, pid, 1, 0, UT_SYMTAB_LATEST));
	assert_null(ut_symtab_find(st, pid, 1, 0x10, UT_SYMTAB_LATEST));
	assert_null(ut_symtab_find(st, pid, 1, (uint64_t)(uintptr_t)&st, UT_SYMTAB_LATEST));
	assert_null(ut_symtab_find(NULL, pid, 1, fn, UT_SYMTAB_LATEST));

	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	free(dir);
}

/* a later snapshot that maps something else over the function hides it */
static void test_later_snapshot_wins(void **state)
{
	char *dir = make_dir(), path[4200], line[256];
	uint64_t fn = (uint64_t)(uintptr_t)symtab_test_target;
	uint64_t page = fn & ~0xfffull;
	struct ut_symtab *st;
	const struct ut_sym *s;

	(void)state;
	copy_self_maps(dir, 10, 1, 0);
	snprintf(path, sizeof(path), "%s/maps.10.1.1", dir);
	snprintf(line, sizeof(line), "%" PRIx64 "-%" PRIx64 " rwxp 00000000 00:00 0 \n", page, page + 0x1000);
	write_text(path, line);
	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);
	assert_null(ut_symtab_find(st, 10, 1, fn, UT_SYMTAB_LATEST));
	/* the rest of libc is untouched */
	s = ut_symtab_find(st, 10, 1, (uint64_t)(uintptr_t)libc_fopen(), UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->module, "libc.so.6");
	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	free(dir);
}

/* the line of /proc/self/maps that holds @addr, and @addr's offset in its file */
static void maps_line_of(uint64_t addr, char *line, size_t size, uint64_t *file_off)
{
	char *maps = read_file("/proc/self/maps", NULL), *l, *save = NULL;
	unsigned long long lo, hi, off;

	assert_non_null(maps);
	for (l = strtok_r(maps, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (sscanf(l, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 && addr >= lo && addr < hi) {
			snprintf(line, size, "%s", l);
			*file_off = addr - lo + off;
			free(maps);
			return;
		}
	}
	fail();
}

static uint64_t twice(const void *ctx, uint64_t raw)
{
	assert_ptr_equal(ctx, &twice);
	return raw * 2;
}

/*
 * The page of our function holds, in time: our code (snapshot 0), libc's
 * code from 1000 on (a library loaded where another was), nothing from
 * 2000 on, our code again from 3000 on.  Each time is named by what was
 * there then.
 */
static void test_mapped_in_time(void **state)
{
	char *dir = make_dir(), path[4200], text[8192], self[4096], libc[4096], *lpath;
	uint64_t fn = (uint64_t)(uintptr_t)symtab_test_target, page = fn & ~0xfffull;
	uint64_t fopen_addr = (uint64_t)(uintptr_t)libc_fopen(), self_off, libc_off, at;
	struct ut_symtab *st;
	const struct ut_sym *s;
	static const struct {
		void (*fn)(void **);
		const char *name;
	} others[] = {
		{ test_self, "test_self" },
		{ test_later_snapshot_wins, "test_later_snapshot_wins" },
		{ test_mapped_in_time, "test_mapped_in_time" },
	};
	uint64_t other = 0;
	const char *other_name = NULL;

	(void)state;
	/* a function of ours on another page */
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]) && !other; i++)
		if (((uint64_t)(uintptr_t)others[i].fn & ~0xfffull) != page) {
			other = (uint64_t)(uintptr_t)others[i].fn;
			other_name = others[i].name;
		}
	assert_true(other != 0);
	maps_line_of(fn, self, sizeof(self), &self_off);
	maps_line_of(fopen_addr, libc, sizeof(libc), &libc_off);
	lpath = strchr(libc, '/');
	assert_non_null(lpath);
	/* fopen's page of libc, mapped where our function's page is */
	at = page + (libc_off & 0xfff);
	copy_self_maps(dir, 10, 1, 0);
	snprintf(path, sizeof(path), "%s/maps.10.1.1", dir);
	snprintf(text, sizeof(text), "# time 1000\n%" PRIx64 "-%" PRIx64 " r-xp %" PRIx64 " 00:00 1 %s\n",
		 page, page + 0x1000, (uint64_t)(libc_off & ~0xfffull), lpath);
	write_text(path, text);
	snprintf(path, sizeof(path), "%s/maps.10.1.2", dir);
	write_text(path, "# time 2000\n");
	snprintf(path, sizeof(path), "%s/maps.10.1.3", dir);
	snprintf(text, sizeof(text), "# time 3000\n%s\n", self);
	write_text(path, text);
	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);

	s = ut_symtab_find(st, 10, 1, fn, 999);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	assert_int_equal(ut_symtab_since(st, 10, 1, fn, 999), 0);
	assert_int_equal(ut_symtab_since(st, 10, 1, fn, 0), 0);
	s = ut_symtab_find(st, 10, 1, at, 1000);
	assert_non_null(s);
	assert_non_null(strstr(s->name, "fopen"));
	assert_string_equal(s->module, "libc.so.6");
	assert_int_equal(ut_symtab_since(st, 10, 1, at, 1999), 1000);
	/* after the cached answer, an earlier time again */
	s = ut_symtab_find(st, 10, 1, fn, 500);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	/* the libc mapping is not unmapped by the empty snapshot: nothing else is there */
	s = ut_symtab_find(st, 10, 1, at, 2500);
	assert_non_null(s);
	assert_non_null(strstr(s->name, "fopen"));
	s = ut_symtab_find(st, 10, 1, fn, 3000);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	assert_int_equal(ut_symtab_since(st, 10, 1, fn, UT_SYMTAB_LATEST), 3000);
	/* the rest of our code was never covered */
	s = ut_symtab_find(st, 10, 1, other, 1500);
	assert_non_null(s);
	assert_string_equal(s->name, other_name);

	/* times converted as the events' are: libc from 2000 to 6000 */
	ut_symtab_set_clock(st, twice, &twice);
	s = ut_symtab_find(st, 10, 1, fn, 1500);
	assert_non_null(s);
	assert_string_equal(s->name, "symtab_test_target");
	s = ut_symtab_find(st, 10, 1, at, 2000);
	assert_non_null(s);
	assert_non_null(strstr(s->name, "fopen"));
	assert_int_equal(ut_symtab_since(st, 10, 1, fn, 7000), 6000);
	ut_symtab_free(st);

	/* a bad time line is a warning; the snapshot still counts, from the start */
	snprintf(path, sizeof(path), "%s/maps.10.1.1", dir);
	snprintf(text, sizeof(text), "# time 12x\n%" PRIx64 "-%" PRIx64 " r-xp %" PRIx64 " 00:00 1 %s\n",
		 page, page + 0x1000, (uint64_t)(libc_off & ~0xfffull), lpath);
	write_text(path, text);
	snprintf(path, sizeof(path), "%s/maps.10.1.3", dir);
	assert_int_equal(unlink(path), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);
	s = ut_symtab_find(st, 10, 1, at, 1);
	assert_non_null(s);
	assert_non_null(strstr(s->name, "fopen"));
	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	free(dir);
}

/* a C++ function: its name demangled, and the ELF name kept beside it */
static void test_cxx_names(void **state)
{
	char *dir = make_dir();
	void *lib = dlopen("libstdc++.so.6", RTLD_NOW);
	void *fn;
	struct ut_symtab *st;
	const struct ut_sym *s;

	(void)state;
	if (!lib) {
		/* no C++ runtime here: nothing to name */
		free(dir);
		skip();
	}
	fn = dlsym(lib, "_ZSt9terminatev");
	assert_non_null(fn);
	copy_self_maps(dir, 10, 1, 0);
	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);
	s = ut_symtab_find(st, 10, 1, (uint64_t)(uintptr_t)fn, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "std::terminate");
	assert_non_null(s->raw);
	assert_string_equal(s->raw, "_ZSt9terminatev");
	/* a C function has no other name */
	s = ut_symtab_find(st, 10, 1, (uint64_t)(uintptr_t)libc_fopen(), UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_null(s->raw);
	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	free(dir);
}

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int prog_target(int x) { return x + 1; }\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	char path[4096], buf[65536];\n"
	"	size_t n;\n"
	"	FILE *in = fopen(\"/proc/self/maps\", \"r\"), *out;\n"
	"	snprintf(path, sizeof(path), \"%s/maps.%d.5.0\", argv[1], getpid());\n"
	"	out = fopen(path, \"w\");\n"
	"	if (!in || !out) return 1;\n"
	"	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) fwrite(buf, 1, n, out);\n"
	"	fclose(out);\n"
	"	printf(\"%d %lx\\n\", getpid(), (unsigned long)prog_target);\n"
	"	return prog_target(argc) == 0;\n"
	"}\n";

/* compile a program with @flags, run it, and name its function */
static void check_compiled(const char *flags)
{
	char *dir = make_dir(), src[4200], cmd[9000];
	struct ut_symtab *st;
	const struct ut_sym *s;
	unsigned long addr;
	int pid;
	FILE *p;

	snprintf(src, sizeof(src), "%s/prog.c", dir);
	write_text(src, prog_src);
	snprintf(cmd, sizeof(cmd), "cc %s -O1 -o %s/prog %s 2>/dev/null", flags, dir, src);
	if (system(cmd)) {
		remove_tree(dir);
		free(dir);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "%s/prog %s", dir, dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d %lx", &pid, &addr), 2);
	assert_int_equal(pclose(p), 0);

	/* the binary may change or go away after saving */
	assert_int_equal(ut_symtab_save(dir), 0);
	snprintf(cmd, sizeof(cmd), "%s/prog", dir);
	assert_int_equal(unlink(cmd), 0);

	st = ut_symtab_load(dir);
	assert_non_null(st);
	s = ut_symtab_find(st, pid, 5, addr, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "prog_target");
	assert_string_equal(s->module, "prog");
	assert_true(s->addr == addr);
	s = ut_symtab_find(st, pid, 5, addr + 2, UT_SYMTAB_LATEST);
	assert_non_null(s);
	assert_string_equal(s->name, "prog_target");
	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	free(dir);
}

static void test_no_pie(void **state)
{
	(void)state;
	check_compiled("-no-pie -fno-pie");
}

static void test_pie(void **state)
{
	(void)state;
	check_compiled("-pie -fpie");
}

static const char garbage_maps[] =
	"this is not a maps file\n"
	"\n"
	"zzzz-0000 r-xp 0 0 0 /bin/sh\n"
	"1000-0800 r-xp 00000000 08:01 1 /bin/sh\n"
	"1000-2000 r-xp\n"
	"1000-2000 r-xp 00000000 08:01 1\n"
	"1000-2000 r-xp 00000000 08:01 1 /nonexistent/lib.so\n"
	"3000-4000 r-xp 00000000 08:01 1 /etc/passwd\n"
	"5000-6000 r-xp 00000000 08:01 1 /tmp/gone (deleted)\n"
	"7000-8000 r-xp 00000000 00:00 0 [vdso]\n"
	"9000-a000 r-xp 00000000 08:01 1 /proc\n"
	"-1-2 r-xp 00000000 08:01 1 /bin/sh\n"
	"b000-c000 r-xp ffffffffffffffffffffff 08:01 1 /bin/sh\n"
	"\x01\x02\x03\xff\xfe";

static void test_garbage_maps(void **state)
{
	char *dir = make_dir(), path[4200];
	struct ut_symtab *st;

	(void)state;
	snprintf(path, sizeof(path), "%s/maps.1.1.0", dir);
	write_text(path, garbage_maps);
	/* names that are not maps files */
	snprintf(path, sizeof(path), "%s/maps.x.1.0", dir);
	write_text(path, "1000-2000 r-xp 00000000 08:01 1 /bin/sh\n");
	snprintf(path, sizeof(path), "%s/maps.1.1.0.tmp", dir);
	write_text(path, "1000-2000 r-xp 00000000 08:01 1 /bin/sh\n");
	snprintf(path, sizeof(path), "%s/maps.-1.1.0", dir);
	write_text(path, "1000-2000 r-xp 00000000 08:01 1 /bin/sh\n");
	/* a maps file that is a directory */
	snprintf(path, sizeof(path), "%s/maps.2.1.0", dir);
	assert_int_equal(mkdir(path, 0755), 0);

	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);
	for (uint64_t a = 0; a < 0x10000; a += 0x100) {
		assert_null(ut_symtab_find(st, 1, 1, a, UT_SYMTAB_LATEST));
		assert_null(ut_symtab_find(st, 3, 3, a, UT_SYMTAB_LATEST));
	}
	ut_symtab_free(st);

	/* no maps at all, or no directory */
	assert_int_equal(remove_tree(dir), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(ut_symtab_save(dir), 0);
	st = ut_symtab_load(dir);
	assert_non_null(st);
	assert_null(ut_symtab_find(st, 1, 1, 0x1000, UT_SYMTAB_LATEST));
	ut_symtab_free(st);
	assert_int_equal(remove_tree(dir), 0);
	assert_int_equal(ut_symtab_save(dir), -1);
	assert_null(ut_symtab_load(dir));
	free(dir);
}

/* the sym file of the test itself, found through the index */
static void self_sym_file(const char *dir, char *out, size_t size)
{
	char path[4200], *index, *line;
	const char *base = self_base();

	snprintf(path, sizeof(path), "%s/sym/index", dir);
	index = read_file(path, NULL);
	assert_non_null(index);
	for (line = strtok(index, "\n"); line; line = strtok(NULL, "\n")) {
		const char *p = strchr(line, ' ');

		if (p && strlen(p) > strlen(base) && !strcmp(p + strlen(p) - strlen(base), base) &&
		    p[strlen(p) - strlen(base) - 1] == '/') {
			snprintf(out, size, "%s/sym/%.*s.sym", dir, (int)(p - line), line);
			free(index);
			return;
		}
	}
	free(index);
	fail_msg("test binary not in %s", path);
}

static void damage(const char *file, const char *how, size_t keep)
{
	size_t len;
	char *buf = read_file(file, &len);
	FILE *f;

	assert_non_null(buf);
	f = fopen(file, "w");
	assert_non_null(f);
	if (!strcmp(how, "truncate")) {
		fwrite(buf, 1, keep < len ? keep : len, f);
	} else if (!strcmp(how, "half")) {
		fwrite(buf, 1, len / 2, f);
	} else if (!strcmp(how, "cutend")) {
		char *end = strstr(buf, "\n# end ");

		assert_non_null(end);
		fwrite(buf, 1, (size_t)(end - buf) + 1, f);
	} else if (!strcmp(how, "garbage")) {
		for (size_t i = 0; i < len; i++)
			fputc((int)((i * 7919 + 13) & 0xff), f);
	} else if (!strcmp(how, "badlines")) {
		/* the header, then lines of nonsense among the symbols */
		for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
			if (l[0] == '#')
				fprintf(f, "%s\n", l);
			else
				fprintf(f, "%s\nzz 1 x\n-5 -5 y\n10 20\n\n", l);
		}
	}
	fclose(f);
	free(buf);
}

static void test_damaged_sym(void **state)
{
	static const struct { const char *how; size_t keep; int found; } cases[] = {
		{ "truncate", 0, 0 },
		{ "truncate", 10, 0 },
		{ "truncate", 30, 0 },		/* the magic but no path */
		{ "half", 0, 0 },		/* some symbols, but no end line */
		{ "truncate", 1 << 30, 1 },
		{ "cutend", 0, 0 },		/* all but the end line */
		{ "garbage", 0, 0 },
		{ "badlines", 0, 1 },
	};
	uint64_t fn = (uint64_t)(uintptr_t)symtab_test_target;
	int pid = getpid();

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *dir = make_dir(), file[4400];
		struct ut_symtab *st;
		const struct ut_sym *s;

		copy_self_maps(dir, pid, 1, 0);
		assert_int_equal(ut_symtab_save(dir), 0);
		self_sym_file(dir, file, sizeof(file));
		damage(file, cases[i].how, cases[i].keep);
		st = ut_symtab_load(dir);
		assert_non_null(st);
		for (uint64_t a = fn - 4096; a < fn + 4096; a += 16)
			ut_symtab_find(st, pid, 1, a, UT_SYMTAB_LATEST);
		s = ut_symtab_find(st, pid, 1, fn, UT_SYMTAB_LATEST);
		if (cases[i].found == 1) {
			assert_non_null(s);
			assert_string_equal(s->name, "symtab_test_target");
		} else if (cases[i].found == 0) {
			assert_null(s);
		}
		/* other modules are still fine */
		s = ut_symtab_find(st, pid, 1, (uint64_t)(uintptr_t)libc_fopen(), UT_SYMTAB_LATEST);
		assert_non_null(s);
		ut_symtab_free(st);
		assert_int_equal(remove_tree(dir), 0);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_later_snapshot_wins),
		cmocka_unit_test(test_mapped_in_time),
		cmocka_unit_test(test_cxx_names),
		cmocka_unit_test(test_no_pie),
		cmocka_unit_test(test_pie),
		cmocka_unit_test(test_garbage_maps),
		cmocka_unit_test(test_damaged_sym),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
