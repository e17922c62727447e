// SPDX-License-Identifier: MIT
/*
 * prof.c - the max stack tracer's files (stack_tracer_enabled,
 * stack_max_size, stack_trace) and the function profiler's switch
 * (function_profile_enabled); its trace_stat/function<cpu> files are
 * stat tracers (output/profile.c), registered by the daemon (cli/mount.c).
 * Top directory only, as the kernel's.
 *
 * Each switch is a flag of the control page (UT_CTL_STACK,
 * UT_CTL_PROFILE), applied by the programs with the handshake
 * (runtime/profile.c); the counts are the programs' statistics files.
 * The kernel's stack_tracer_enabled is /proc/sys/kernel's: here it is a
 * file of the directory, which takes an integer as the sysctl does
 * (nonzero: on).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/tracers/function_graph.h"
#include "tracefs/tfs_int.h"
#include "output/profile.h"

static int flag_show(struct tfs_handle *h, struct tfs_sbuf *b, uint32_t flag)
{
	tfs_sb_printf(b, "%d\n", h->s->ctl->flags & flag ? 1 : 0);
	return 0;
}

/* @flag on (@on) or off: TFS_WR_APPLY when it changed */
static int flag_set(struct tfs_handle *h, uint32_t flag, int on)
{
	struct ut_session_ctl *c = h->s->ctl;
	uint32_t f = on ? c->flags | flag : c->flags & ~flag;

	if (f == c->flags)
		return TFS_WR_DONE;
	c->flags = f;
	return TFS_WR_APPLY;
}

/* a signed decimal integer, blanks around it (the sysctl's proc_dointvec) */
static int parse_int(const char *buf, size_t size, long long *v)
{
	char tmp[32], *end;
	size_t i = 0, n;

	while (i < size && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	while (size > i && (buf[size - 1] == '\n' || buf[size - 1] == ' ' || buf[size - 1] == '\t'))
		size--;
	n = size - i;
	if (!n || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf + i, n);
	tmp[n] = 0;
	errno = 0;
	*v = strtoll(tmp, &end, 10);
	if (*end || end == tmp)
		return -EINVAL;
	if (errno || *v > INT_MAX || *v < INT_MIN)
		return -EINVAL;
	return 0;
}

static int stack_enabled_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	return flag_show(h, b, UT_CTL_STACK);
}

static int stack_enabled_write(struct tfs_handle *h, const char *buf, size_t size)
{
	long long v;

	if (parse_int(buf, size, &v))
		return -EINVAL;
	return flag_set(h, UT_CTL_STACK, v != 0);
}

static int stack_max_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	tfs_sb_printf(b, "%llu\n", (unsigned long long)prof_stack_max(h->s->dir));
	return 0;
}

/* as the kernel's stack_max_size_write(): a number (kstrtoul), which the next maximum must pass */
static int stack_max_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr = tfs_parse_ull(buf, size, &v);

	if (perr)
		return perr;
	prof_stack_max_set(h->s->dir, v);
	return TFS_WR_DONE;
}

static int stack_trace_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = prof_stack_trace(h->s->dir, !!(h->s->ctl->flags & UT_CTL_STACK), f);
	if (fclose(f) != 0 && !ret)
		ret = -ENOMEM;
	if (!ret)
		tfs_sb_add(b, text, len);
	free(text);
	return ret;
}

static int profile_enabled_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	return flag_show(h, b, UT_CTL_PROFILE);
}

/* as the kernel's ftrace_profile_write(): a number (kstrtoul), nonzero is on */
static int profile_enabled_write(struct tfs_handle *h, const char *buf, size_t size)
{
	unsigned long long v;
	int perr = tfs_parse_ull(buf, size, &v);

	if (perr)
		return perr;
	return flag_set(h, UT_CTL_PROFILE, v != 0);
}

/*
 * The top's function_graph option graph-time, for the profiler: the
 * programs read the flag at each return (no handshake needed).
 * Context: s->lock held.
 */
void tfs_prof_graph_time_update(struct tfs_session *s)
{
	uint32_t *w = trace_array_tracer_flags(&s->top.tr, &function_graph_tracer);

	if (w && !(*w & GRAPH_GRAPH_TIME))
		__atomic_or_fetch(&s->ctl->flags, UT_CTL_NOGRAPHTIME, __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(&s->ctl->flags, ~(uint32_t)UT_CTL_NOGRAPHTIME, __ATOMIC_RELAXED);
}

const struct tfs_file tfs_prof_files[] = {
	TFS_FILE("function_profile_enabled", 0644, W_TOP, .show = profile_enabled_show,
		 .write = profile_enabled_write),
	TFS_FILE("stack_max_size", 0644, W_TOP, .show = stack_max_show, .write = stack_max_write),
	TFS_FILE("stack_trace", 0444, W_TOP, .show = stack_trace_show),
	TFS_FILE("stack_tracer_enabled", 0644, W_TOP, .show = stack_enabled_show,
		 .write = stack_enabled_write),
	TFS_FILES_END
};
