/* SPDX-License-Identifier: MIT */
/*
 * branchstat.h - the payload of the branch profilers' statistics files
 * (usertrace/statarea.h): SESSION/stat/branch_annotated.<pid>.<img> and
 * branch_all.<pid>.<img>, written by the runtime (runtime/branch.c) at
 * each sync from the sites of usertrace/branch.h, read by the tools
 * (output/branch_stat.c).
 *
 * A row per site: its counts (branch_all: correct = miss, incorrect =
 * hit), its line, the function and the file's name (the path's last
 * part), NUL-terminated and cut to fit.  Rows past @cap (sites found
 * after the file was made, by a later dlopen) are counted in @dropped.
 */
#ifndef USERTRACE_BRANCHSTAT_H
#define USERTRACE_BRANCHSTAT_H

#include <stdint.h>

#define UT_BRANCH_STAT_VERSION	1
#define UT_BRANCH_STAT_ANNOTATED	"branch_annotated"
#define UT_BRANCH_STAT_ALL	"branch_all"
#define UT_BRANCH_NAME_MAX	64

struct ut_branch_row {
	uint64_t correct;
	uint64_t incorrect;
	uint64_t constant;
	uint32_t line;
	uint32_t reserved;
	char func[UT_BRANCH_NAME_MAX];
	char file[UT_BRANCH_NAME_MAX];
};

struct ut_branch_stat {
	uint32_t nr;		/* rows filled */
	uint32_t cap;		/* rows the file has room for */
	uint32_t dropped;	/* sites left out */
	uint32_t reserved;
	struct ut_branch_row rows[];
};

#endif
