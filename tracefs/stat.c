// SPDX-License-Identifier: MIT
/*
 * stat.c - trace_stat/: one file per registered statistics tracer
 * (output/stat.h), in the top directory only, as the kernel's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "output/stat.h"
#include "tracefs/tfs_int.h"

static int stat_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = trace_stat_print(h->n.stat, h->s->dir, f);
	if (fclose(f) != 0 && !ret)
		ret = -ENOMEM;
	if (!ret)
		tfs_sb_add(b, text, len);
	free(text);
	return ret;
}

const struct tfs_file tfs_stat_files[] = {
	/* the name is the stat tracer's (W_STAT) */
	TFS_FILE("trace_stat", 0440, W_STAT, .show = stat_show, .sync = 1),
	TFS_FILES_END
};
