// SPDX-License-Identifier: MIT
/*
 * errlog.c - error_log: each directory's last TFS_ERRLOG_MAX refused
 * writes, in the kernel's format.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tfs_int.h"

/*
 * tfs_err - add an entry to error_log, in the kernel's format:
 *   [  123.456789] tracing: error: No such tracer
 *     Command: foo
 *                ^
 * Context: s->lock held.
 */
void tfs_err(struct tfs_session *s, const char *msg, const char *cmd)
{
	char *e = NULL;

	if (asprintf(&e, "tracing: error: %s\n  Command: %s\n%11s^\n", msg, cmd ? cmd : "", "") < 0)
		return;
	tfs_err_raw(s, e);
	free(e);
}

/* an entry whose text (after the time) is made by the caller: "location: error: ..." */
void tfs_err_raw(struct tfs_session *s, const char *text)
{
	uint64_t ns = tfs_mono_ns();
	struct tfs_inst *in = s->err_inst ? s->err_inst : &s->top;
	char *e = NULL;

	if (asprintf(&e, "[%5llu.%06llu] %s", (unsigned long long)(ns / 1000000000ull),
		     (unsigned long long)(ns % 1000000000ull / 1000), text) < 0)
		return;
	if (in->nr_err == TFS_ERRLOG_MAX) {
		free(in->errlog[0]);
		memmove(in->errlog, in->errlog + 1, sizeof(in->errlog[0]) * (TFS_ERRLOG_MAX - 1));
		in->nr_err--;
	}
	in->errlog[in->nr_err++] = e;
}

void tfs_errlog_clear(struct tfs_inst *in)
{
	for (int i = 0; i < in->nr_err; i++)
		free(in->errlog[i]);
	in->nr_err = 0;
}

static int errlog_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	for (int i = 0; i < h->n.inst->nr_err; i++)
		tfs_sb_puts(b, h->n.inst->errlog[i]);
	return 0;
}

/* as the kernel: opening with O_TRUNC clears it; a write does nothing */
static int errlog_open(struct tfs_handle *h, int flags)
{
	if (tfs_open_trunc(flags))
		tfs_errlog_clear(h->n.inst);
	return 0;
}

static int errlog_truncate(struct tfs_handle *h)
{
	tfs_errlog_clear(h->n.inst);
	return 0;
}

static int errlog_write(struct tfs_handle *h, const char *buf, size_t size)
{
	(void)h;
	(void)buf;
	(void)size;
	return 0;
}

const struct tfs_file tfs_errlog_files[] = {
	TFS_FILE("error_log", 0640, W_TOP | W_INST, .show = errlog_show, .write = errlog_write,
		 .open = errlog_open, .truncate = errlog_truncate),
	TFS_FILES_END
};
