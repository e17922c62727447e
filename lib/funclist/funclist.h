/* SPDX-License-Identifier: MIT */
/*
 * funclist.h - matching a function against a list in the kernel's syntax
 * ("pat pat !pat", globs, func:mod:module), shared by the runtime and the
 * tracing directory.
 */
#ifndef USERTRACE_FUNCLIST_H
#define USERTRACE_FUNCLIST_H

#include <stddef.h>

/* glob (fnmatch) with the kernel's :mod: form */
int ut_funclist_pattern(const char *pat, const char *name, const char *module);
/* the next word of a list (blanks or commas between) into @buf; 0 at the end */
size_t ut_funclist_word(const char **list, char *buf, size_t size);
/*
 * Apply a list to one function, in order: a pattern adds, !pattern
 * removes.  1: selected, 0: not, -1: the list selects nothing (no filter).
 */
int ut_funclist_match(const char *list, const char *name, const char *module);

#endif
