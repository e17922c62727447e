// SPDX-License-Identifier: MIT
/*
 * funclist.c - the function lists of set_ftrace_filter and its kind, matched
 * against a function: used by the runtime (which functions to trace) and
 * by the tracing directory (which events an instance's buffers take).
 */
#include <fnmatch.h>
#include <string.h>

#include "lib/funclist/funclist.h"

/* glob (fnmatch) with the kernel's :mod: form */
int ut_funclist_pattern(const char *pat, const char *name, const char *module)
{
	const char *mod = strstr(pat, ":mod:");
	char fn[512];

	if (mod) {
		size_t n = (size_t)(mod - pat);

		if (n >= sizeof(fn))
			return 0;
		memcpy(fn, pat, n);
		fn[n] = 0;
		if (fnmatch(mod + 5, module, 0) != 0)
			return 0;
		return !n || fnmatch(fn, name, 0) == 0;
	}
	return fnmatch(pat, name, 0) == 0;
}

/* the next word of a list ("pat pat !pat", blanks or commas between); 0 at the end */
size_t ut_funclist_word(const char **list, char *buf, size_t size)
{
	for (;;) {
		size_t n;

		*list += strspn(*list, " \t\n,");
		n = strcspn(*list, " \t\n,");
		if (!n)
			return 0;
		*list += n;
		if (n < size) {
			memcpy(buf, *list - n, n);
			buf[n] = 0;
			return n;
		}
	}
}

/*
 * Apply a list to one function, in order: a pattern adds, !pattern
 * removes.  Returns -1 for an empty list (no filter).
 */
int ut_funclist_match(const char *list, const char *name, const char *module)
{
	char buf[512];
	int any = 0, in = 0;

	/*
	 * As in the kernel, removing from an empty list leaves it empty: a
	 * list of removals only is no filter at all.
	 */
	while (list && ut_funclist_word(&list, buf, sizeof(buf))) {
		any |= buf[0] != '!';
		if (buf[0] == '!')
			in &= !ut_funclist_pattern(buf + 1, name, module);
		else
			in |= ut_funclist_pattern(buf, name, module);
	}
	return any ? in : -1;
}
