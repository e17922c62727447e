// SPDX-License-Identifier: MIT
/*
 * live.c - usertrace live: record, then print the whole trace.
 *
 *   usertrace live [-o FILE] [-t TRACER] [-b SIZE] -- PROG ARGS
 *
 * The trace goes to a private temporary directory and is printed (with
 * the recorded tracer's format and default options) to stdout or FILE
 * once PROG and all its descendants have exited.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds/cmds.h"
#include "cmds/record.h"
#include "utils/utils.h"

int command_live(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	const char *outfile = NULL;
	struct record_opts o;
	char **rargv;
	int rargc = 0, status = 0, ret;
	FILE *out = stdout;

	/* our own -o is a file; the rest are record's options */
	rargv = xcalloc((size_t)argc + 3, sizeof(char *));
	rargv[rargc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				rargv[rargc++] = argv[i];
			break;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc) {
				pr_err("option '%s' needs a file name", argv[i]);
				free(rargv);
				return 2;
			}
			outfile = argv[++i];
			continue;
		}
		rargv[rargc++] = argv[i];
	}
	if (record_options(rargc, rargv, &o) < 0) {
		free(rargv);
		return 2;
	}
	if (outfile && !(out = fopen(outfile, "w"))) {
		pr_err("cannot write %s: %s", outfile, strerror(errno));
		free(rargv);
		return 2;
	}
	/* $TMPDIR, as mktemp(1) and the C library's tmpfile() take it */
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	errno = ENAMETOOLONG;
	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/usertrace-live.XXXXXX", tmpdir) >= sizeof(tmpl) ||
	    !mkdtemp(tmpl)) {
		pr_err("cannot create a temporary directory in %s: %s", tmpdir, strerror(errno));
		free(rargv);
		return 2;
	}
	o.outdir = tmpl;
	ret = record_run(&o, &status);
	if (ret == 0 || access(tmpl, F_OK) == 0) {
		char info[PATH_MAX + 8];

		snprintf(info, sizeof(info), "%s/info", tmpl);
		if (access(info, F_OK) == 0 && replay_dir(tmpl, out) < 0 && !status)
			status = 1;
	}
	if (out != stdout)
		fclose(out);
	else
		fflush(stdout);
	remove_tree(tmpl);
	free(rargv);
	if (ret < 0 && !status)
		return 1;
	return status;
}
