/* SPDX-License-Identifier: MIT */
/*
 * files.h - a fuzzer input that holds several files (a data directory, a
 * session directory), and writing them into a scratch directory.
 *
 * The input is a sequence of sections, each a header line
 *
 *     === NAME
 *
 * at the start of the input or right after a newline, then the file's
 * bytes up to the newline before the next header (that newline is not
 * part of the file; nor is a final newline at the end of the input).
 * fuzz/pack.sh makes such an input from a directory.  NAME is a file
 * name ([A-Za-z0-9._-], not "." or ".."), possibly under one directory
 * ("sym/index"); names starting with '@' are instructions to the
 * harness, not files (see each harness).  Sections with other names are
 * ignored, as are bytes before the first header.
 */
#ifndef USERTRACE_FUZZ_FILES_H
#define USERTRACE_FUZZ_FILES_H

#include <stddef.h>
#include <stdint.h>

#define FZ_MAX_SECTIONS	64
#define FZ_NAME_MAX	128

struct fz_section {
	char name[FZ_NAME_MAX];
	const uint8_t *data;
	size_t len;
};

struct fz_input {
	struct fz_section s[FZ_MAX_SECTIONS];
	int n;
};

/* split @data into sections; those with an invalid name are left out */
void fz_split(struct fz_input *in, const uint8_t *data, size_t size);
/* the first section called @name, or NULL */
const struct fz_section *fz_find(const struct fz_input *in, const char *name);
/*
 * a fresh, empty scratch directory under /dev/shm (or $TMPDIR when
 * /dev/shm is missing), the same one on every call of the process;
 * removed at exit
 */
const char *fz_scratch(void);
/* write every file section of @in under @dir (creating sub-directories); 0 or -1 */
int fz_write(const struct fz_input *in, const char *dir);
/* remove everything in @dir, not @dir itself */
void fz_clean(const char *dir);
/* the harness's output: /dev/null, opened once */
void *fz_devnull(void);

#endif
