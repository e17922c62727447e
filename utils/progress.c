// SPDX-License-Identifier: MIT
/*
 * progress.c - the tools' progress bar (progress.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "utils/progress.h"
#include "utils/utils.h"

#define CHECK_EVERY	65536		/* items between two looks at the clock */
#define DELAY_NS	1000000000ull	/* shown after a second */
#define REDRAW_NS	100000000ull	/* then at most ten times a second */
#define BAR		30

void ut_progress_init(struct ut_progress *p, const char *what,
		      void (*where)(const void *arg, uint64_t *done, uint64_t *total),
		      const void *arg)
{
	const char *e = getenv(UT_PROGRESS_ENV);

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->where = where;
	p->arg = arg;
	/* on a terminal, and not where the output itself goes (it shows the progress) */
	p->on = e && *e ? strcmp(e, "0") != 0 :
			  isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
	p->forced = p->on && e && *e;
	p->t0 = p->last = ut_mono_ns();
	p->next_check = CHECK_EVERY;
}

/* 12.3M, 456K, 789 */
static void human(char *buf, size_t size, double v)
{
	if (v >= 1e9)
		snprintf(buf, size, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, size, "%.1fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, size, "%.1fK", v / 1e3);
	else
		snprintf(buf, size, "%.0f", v);
}

void ut_progress_draw(struct ut_progress *p)
{
	uint64_t now = ut_mono_ns();
	char bar[BAR + 1], rate[16], done[16];
	uint64_t at = 0, total = 0;
	double secs;
	int fill, pct;

	p->next_check = p->done + CHECK_EVERY;
	if ((!p->forced && now - p->t0 < DELAY_NS) || (p->shown && now - p->last < REDRAW_NS))
		return;
	p->last = now;
	p->shown = 1;
	secs = (double)(now - p->t0) / 1e9;
	human(rate, sizeof(rate), secs > 0 ? (double)p->done / secs : 0);
	human(done, sizeof(done), (double)p->done);
	if (p->where)
		p->where(p->arg, &at, &total);
	if (!total) {
		fprintf(stderr, "\r%s %s, %s/s ", done, p->what, rate);
		return;
	}
	pct = at >= total ? 100 : (int)(at * 100 / total);
	fill = pct * BAR / 100;
	memset(bar, '=', (size_t)fill);
	memset(bar + fill, ' ', (size_t)(BAR - fill));
	if (fill < BAR)
		bar[fill] = '>';
	bar[BAR] = 0;
	fprintf(stderr, "\r[%s] %3d%% %s %s, %s/s ", bar, pct, done, p->what, rate);
}

void ut_progress_end(struct ut_progress *p)
{
	if (p->forced) {
		p->shown = 0;	/* the last state, whatever the time since the last drawing */
		ut_progress_draw(p);
	}
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = 0;
}
