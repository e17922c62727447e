/* SPDX-License-Identifier: MIT */
/*
 * profile.h - the max stack tracer's and the function profiler's texts,
 * from the statistics files the programs keep (usertrace/profile.h) in
 * a session directory (live) or a data directory (recorded): the
 * tracing directory's stack_trace, stack_max_size and
 * trace_stat/function<cpu>, and report --stack / --profile.
 */
#ifndef USERTRACE_UTILS_PROFILE_H
#define USERTRACE_UTILS_PROFILE_H

#include <stdint.h>
#include <stdio.h>

/* the deepest stack of the processes of @dir, bytes (stack_max_size) */
uint64_t prof_stack_max(const char *dir);
/* stack_max_size written: every process's maximum becomes @v (0: reset, threads too) */
int prof_stack_max_set(const char *dir, uint64_t v);
/* the kernel's stack_trace text; @enabled: the stack tracer is on */
int prof_stack_trace(const char *dir, int enabled, FILE *out);
/* report --stack: each process's deepest chain, whose thread, every thread's maximum */
int prof_stack_report(const char *dir, FILE *out);
/* report --profile: the kernel's function profile of all, then of each thread */
int prof_func_report(const char *dir, FILE *out);
/* the trace_stat/function<N> stat tracers, one per CPU (once) */
void prof_register_stats(void);

#endif
