// SPDX-License-Identifier: MIT
/*
 * errlog.c - error_log: each directory's last TFS_ERRLOG_MAX refused
 * writes, in the kernel's format.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/tracefs/tfs_int.h"

/*
 * tfs_err - add an entry to error_log, in the kernel's format:
 *   [  123.456789] tracing: error: No such tracer
 *     Command: foo
 *                ^
 * Context: s->lock held.
 */
void tfs_err(struct tfs_session *s, const char *msg, const char *cmd)
{
	uint64_t ns = mono_ns();
	char *e = NULL;

	if (asprintf(&e, "[%5llu.%06llu] tracing: error: %s\n  Command: %s\n%11s^\n",
		     (unsigned long long)(ns / 1000000000ull),
		     (unsigned long long)(ns % 1000000000ull / 1000), msg, cmd ? cmd : "", "") < 0)
		return;
	struct tfs_inst *in = s->err_inst ? s->err_inst : &s->top;

	if (in->nr_err == TFS_ERRLOG_MAX) {
		free(in->errlog[0]);
		memmove(in->errlog, in->errlog + 1, sizeof(in->errlog[0]) * (TFS_ERRLOG_MAX - 1));
		in->nr_err--;
	}
	in->errlog[in->nr_err++] = e;
}

void errlog_clear(struct tfs_inst *in)
{
	for (int i = 0; i < in->nr_err; i++)
		free(in->errlog[i]);
	in->nr_err = 0;
}
