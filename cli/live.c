// SPDX-License-Identifier: MIT
/*
 * live.c - usertrace live: record, then print the whole trace.
 *
 *   usertrace live [-o FILE] [-t TRACER] [-b SIZE] -- PROG ARGS
 *
 * The trace goes to a private temporary directory ($TMPDIR, else /tmp)
 * and is printed (with the recorded tracer's format and default options)
 * to stdout or FILE once PROG and all its descendants have exited.
 *
 * The directory goes whatever ends live: the trace is printed by a child
 * process while live waits for it, so that a reader that goes away
 * (`usertrace live -- ./app | head`: SIGPIPE), ^C, SIGTERM or an error
 * in the printing ends the child, and live removes the directory, then
 * ends as the child did (the same signal, or its status).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "recorder/record.h"
#include "utils/utils.h"

static const int live_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static volatile sig_atomic_t printer, pending;

/*
 * ^C, SIGTERM...: for the printer, live waits for it, then cleans up.
 * While the program runs, record's handlers take them (for the program);
 * one that comes when there is neither is kept in @pending: nothing more
 * is printed, and live ends by it once its directory is gone.
 */
static void forward(int sig)
{
	int saved = errno;

	if (printer > 0)
		kill(printer, sig);
	else
		pending = sig;
	errno = saved;
}

/*
 * Print the recording @dir to @out in a child process; its wait status
 * (as waitpid's), or -1 (a message said why, or a signal came first).
 */
static int print_trace(const char *dir, FILE *out)
{
	sigset_t block, orig;
	int ws = -1;
	pid_t pid;

	/* held from before the fork until forward() knows the printer: none is missed */
	sigemptyset(&block);
	for (size_t i = 0; i < ARRAY_SIZE(live_sigs); i++)
		sigaddset(&block, live_sigs[i]);
	sigprocmask(SIG_BLOCK, &block, &orig);
	if (pending) {
		sigprocmask(SIG_SETMASK, &orig, NULL);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pr_err("fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &orig, NULL);
		return -1;
	}
	if (pid == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(live_sigs); i++)
			signal(live_sigs[i], SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &orig, NULL);
		if (replay_dir(dir, out) < 0)
			_exit(1);
		if (fflush(out) != 0 || ferror(out))
			_exit(1);
		_exit(0);
	}
	printer = pid;
	sigprocmask(SIG_SETMASK, &orig, NULL);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	/* the handlers stay: a signal now does not stop the cleanup, live ends after it */
	printer = 0;
	return ws;
}

int command_live(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	const char *outfile = NULL;
	struct record_opts o;
	char **rargv;
	int rargc = 0, status = 0, ws, ret, pws = 0;
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
		if (!strncmp(argv[i], "--output=", 9)) {
			outfile = argv[i] + 9;
			continue;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc) {
				pr_err("option '%s' needs a file name (see usertrace live -h)", argv[i]);
				free(rargv);
				return 2;
			}
			outfile = argv[++i];
			continue;
		}
		rargv[rargc++] = argv[i];
	}
	if (record_options(rargc, rargv, &o, "live") < 0) {
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
	/* from now on a signal to live ends it without its directory (record's forward them meanwhile) */
	{
		struct sigaction sa = { .sa_handler = forward };

		for (size_t i = 0; i < ARRAY_SIZE(live_sigs); i++)
			sigaction(live_sigs[i], &sa, NULL);
	}
	ret = record_run(&o, &status, &ws);
	if (ret == 0 || access(tmpl, F_OK) == 0) {
		char info[PATH_MAX + 8];

		snprintf(info, sizeof(info), "%s/info", tmpl);
		if (access(info, F_OK) == 0)
			pws = print_trace(tmpl, out);
	}
	if (out != stdout)
		fclose(out);
	remove_tree(tmpl);
	free(rargv);
	/* the printer was killed (its reader went, ^C): end as it did, the data gone */
	if (pws != -1 && WIFSIGNALED(pws)) {
		signal(WTERMSIG(pws), SIG_DFL);
		raise(WTERMSIG(pws));
	}
	if (pending) {
		signal(pending, SIG_DFL);
		raise(pending);
	}
	/* after the trace, as a shell says it after the program's output */
	pr_killed(ws, "");
	if ((pws == -1 || (WIFEXITED(pws) && WEXITSTATUS(pws))) && !status)
		status = 1;
	if (ret < 0 && !status)
		return 1;
	return status;
}
