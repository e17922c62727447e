/* SPDX-License-Identifier: MIT */
/*
 * statarea.h - reading the statistics files the programs keep
 * (usertrace/statarea.h) in a session directory (live) or a data
 * directory (recorded).
 */
#ifndef USERTRACE_UTILS_STATAREA_H
#define USERTRACE_UTILS_STATAREA_H

#include <stddef.h>
#include <stdint.h>

#include "usertrace/statarea.h"

/*
 * One file, read: @payload holds hdr->size bytes (a copy: the program
 * may go on writing the file).  Return nonzero to stop the walk.
 */
typedef int (*ut_stat_fn)(const struct ut_stat_hdr *hdr, const void *payload, void *arg);

/*
 * ut_stat_foreach - call @fn for each file DIR/stat/NAME.* of layout
 * @version, by pid then image.  A file that is not a statistics file of
 * that name, is cut short or has another layout is skipped with a
 * warning.  Returns the number of files given to @fn (0 when there is
 * none, or no stat/ directory).
 */
int ut_stat_foreach(const char *dir, const char *name, uint32_t version, ut_stat_fn fn, void *arg);

/* ut_stat_save - copy SESSION/stat/ into OUTDIR/stat/: 0, or -1 after a warning */
int ut_stat_save(const char *session, const char *outdir);

#endif
