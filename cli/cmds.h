/* SPDX-License-Identifier: MIT */
/* cmds.h - one function per subcommand, dispatched from usertrace.c */
#ifndef USERTRACE_CMDS_H
#define USERTRACE_CMDS_H

#include <stdio.h>

int command_record(int argc, char **argv);
int command_replay(int argc, char **argv);
int command_report(int argc, char **argv);
int command_live(int argc, char **argv);
int command_dump(int argc, char **argv);
int command_mount(int argc, char **argv);
int command_umount(int argc, char **argv);
int command_ctl(int argc, char **argv);

/* replay the whole of @dir with the recorded tracer and default options into @out */
int replay_dir(const char *dir, FILE *out);

struct ut_data;
/* the sysprof samples of @d as folded stacks (folded.c); -1: some could not be read */
int report_folded(struct ut_data *d, FILE *out, unsigned long long *nsamples);

#endif
