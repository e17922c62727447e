// SPDX-License-Identifier: MIT
/*
 * usertrace.c - the command-line tool: one table of subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmds.h"
#include "utils/utils.h"

#define USERTRACE_VERSION "0.1"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", command_record, "Run a program and save its trace" },
	{ "replay", command_replay, "Print a saved trace in ftrace's formats" },
	{ "report", command_report, "Print per-function statistics of a saved trace" },
	{ "live", command_live, "Run a program and print its trace when it exits" },
	{ "dump", command_dump, "Print the raw records of a saved trace" },
	{ "mount", command_mount, "Run a program and serve its tracing directory" },
	{ "umount", command_umount, "Stop serving a tracing directory" },
	{ "ctl", command_ctl, "Read or write the tracing directory of a process" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: usertrace COMMAND [OPTIONS] [-- PROG ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nusertrace COMMAND -h shows the options of COMMAND; see usertrace(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("usertrace %s\n", USERTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	/* one line and where to look, as a bad option of a command gets */
	pr_err("unknown %s '%s' (see usertrace -h)", argv[1][0] == '-' ? "option" : "command",
	       argv[1]);
	return 2;
}
