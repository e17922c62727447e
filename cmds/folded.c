// SPDX-License-Identifier: MIT
/*
 * folded.c - `usertrace report --folded`: the sysprof tracer's samples
 * as folded stacks, one line per distinct stack, outermost frame first,
 * with the number of samples that had it:
 *
 *	_start;__libc_start_main;[unknown];main;burn 212
 *
 * the input of flame graph tools (flamegraph.pl, inferno, speedscope).
 * Lines are sorted by stack.  A frame without a symbol is [unknown]; a
 * caller's return address is looked up one byte back (the call), so
 * that a call at the end of a function names that function.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmds/cmds.h"
#include "utils/data.h"
#include "utils/symtab.h"
#include "utils/utils.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void frame_name(struct ut_data *d, const struct ut_event *ev, uint64_t addr, char *buf,
		       size_t size)
{
	const struct ut_sym *sym = NULL;

	if (d->symtab)
		sym = ut_symtab_find(d->symtab, ev->pid, ev->image, addr, ev->ts);
	snprintf(buf, size, "%s", sym && sym->name && *sym->name ? sym->name : "[unknown]");
	/* the separators of the format stay separators */
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == ' ')
			*p = '_';
}

int report_folded(struct ut_data *d, FILE *out, unsigned long long *nsamples)
{
	struct ut_merge *m = ut_merge_new(d, NULL, 0);
	struct ut_event ev;
	char **lines = NULL, name[512];
	size_t n = 0, cap = 0, i, j;
	int r, bad = 0;

	*nsamples = 0;
	if (!m)
		return -1;
	while ((r = ut_merge_next(m, &ev)) != 0) {
		uint64_t k = 0, len, cnt;
		char *line;

		if (r < 0) {
			bad = 1;
			break;
		}
		if (ev.type != UT_EV_SAMPLE || !(cnt = ut_event_trace_len(&ev)))
			continue;
		line = xmalloc(cnt * (sizeof(name) + 1));
		len = 0;
		for (k = cnt; k-- > 0;) {
			uint64_t ip = ut_event_trace_ip(&ev, k);

			frame_name(d, &ev, k ? ip - 1 : ip, name, sizeof(name));
			if (len)
				line[len++] = ';';
			memcpy(line + len, name, strlen(name));
			len += strlen(name);
		}
		line[len] = 0;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		lines[n++] = line;
	}
	ut_merge_free(m);
	*nsamples = n;
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(lines[i], lines[j]); j++)
			;
		fprintf(out, "%s %zu\n", lines[i], j - i);
	}
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return bad ? -1 : 0;
}
