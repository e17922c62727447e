// SPDX-License-Identifier: MIT
/*
 * files.c - the files and directories of the tracing directory: the
 * registry of files (the tables of each job's source file), path
 * resolution, stat and readdir, and open, read, write, truncate and
 * release dispatched to each file's handlers (struct tfs_file).
 *
 * The registry is an explicit list of tables rather than a linker
 * section: it needs nothing of the linker (the fuzz and test builds, the
 * sanitizers' padding of globals), and this list says in one place which
 * jobs have files.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event/ftrace.h"
#include "output/stat.h"
#include "tracefs/tfs_int.h"

static const struct tfs_file *const tfs_file_tables[] = {
	tfs_buffers_files, tfs_errlog_files, tfs_events_files, tfs_funcs_files,
	tfs_lists_files, tfs_readme_files, tfs_tracer_files, tfs_views_files, tfs_evfilt_files,
	tfs_evtrig_files,
	tfs_stat_files, tfs_pids_files, tfs_prof_files,
};
#define TFS_NR_TABLES	(sizeof(tfs_file_tables) / sizeof(tfs_file_tables[0]))

/*
 * Every registered file, sorted by name (readdir lists them so, as the
 * kernel's tracefs): made at the first use, read-only after.
 */
static const struct tfs_file **tfs_sorted;
static size_t tfs_nr_files;
static pthread_once_t tfs_sorted_once = PTHREAD_ONCE_INIT;

static int file_cmp(const void *a, const void *b)
{
	const struct tfs_file *x = *(const struct tfs_file *const *)a;
	const struct tfs_file *y = *(const struct tfs_file *const *)b;

	return strcmp(x->name, y->name);
}

static void registry_sort(void)
{
	size_t n = 0;

	for (size_t t = 0; t < TFS_NR_TABLES; t++)
		for (const struct tfs_file *f = tfs_file_tables[t]; f->name; f++)
			n++;
	tfs_sorted = malloc(n * sizeof(*tfs_sorted));
	if (!tfs_sorted)
		return;
	for (size_t t = 0; t < TFS_NR_TABLES; t++)
		for (const struct tfs_file *f = tfs_file_tables[t]; f->name; f++)
			tfs_sorted[tfs_nr_files++] = f;
	qsort(tfs_sorted, tfs_nr_files, sizeof(*tfs_sorted), file_cmp);
}

static void registry_init(void)
{
	pthread_once(&tfs_sorted_once, registry_sort);
}

/* the file called @len bytes at @c in a directory of kind @where (W_*); @c NULL: the first */
static const struct tfs_file *file_find(unsigned where, const char *c, size_t len)
{
	registry_init();
	for (size_t i = 0; i < tfs_nr_files; i++) {
		const struct tfs_file *f = tfs_sorted[i];

		if ((f->where & where) && (!c || (strlen(f->name) == len && !strncmp(f->name, c, len))))
			return f;
	}
	return NULL;
}

/* call @fill for each file of a directory of kind @where; stops at a nonzero return */
static int files_fill(unsigned where, int (*fill)(void *ctx, const char *name, const struct tfs_stat *st),
		      void *ctx)
{
	int ret = 0;

	registry_init();
	for (size_t i = 0; i < tfs_nr_files && !ret; i++) {
		struct tfs_stat st = { 0, tfs_sorted[i]->mode };

		if (tfs_sorted[i]->where & where)
			ret = fill(ctx, tfs_sorted[i]->name, &st);
	}
	return ret;
}

/* the kernel's modes: the top 0700, its directories 0750, eventfs 0755 */
static mode_t dir_mode(int dir, int top)
{
	switch (dir) {
	case D_ROOT:
		return top ? 0700 : 0750;
	case D_EVENTS:
	case D_EVSYS:
	case D_EVENT:
		return 0755;
	default:
		return 0750;
	}
}

/* the kind (W_*) of the files in directory @n; 0: it has none */
static unsigned dir_where(struct tfs_session *s, const struct tfs_node *n)
{
	switch (n->dir) {
	case D_ROOT:
		return n->inst == &s->top ? W_TOP : W_INST;
	case D_OPTIONS:
		return W_OPTIONS;
	case D_STAT:
		return W_STAT;
	case D_CPU:
		return W_CPU;
	case D_EVENTS:
		return W_EVENTS;
	case D_EVSYS:
		return n->evsys ? W_EVSYS : 0;	/* events/ftrace/ holds only events */
	case D_EVENT:
		if (n->slot >= 0)
			return W_EVENT;
		return W_FTEVENT | (n->ev && n->ev->id == UT_EVENT_ID_PRINT ? W_FTPRINT : 0);
	default:
		return 0;
	}
}

/* ---- paths ---- */

/* the next component of *p: its length, *p moved past it */
size_t tfs_next_comp(const char **p, const char **comp)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	e = strchrnul(s, '/');
	*comp = s;
	*p = e;
	return (size_t)(e - s);
}

int tfs_comp_is(const char *c, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(c, name, len);
}

/* in directory @n, a file of the registry called @len bytes at @c: it is n->f */
static int node_file(struct tfs_session *s, struct tfs_node *n, const char *c, size_t len)
{
	n->f = file_find(dir_where(s, n), c, len);
	if (!n->f)
		return 0;
	n->dir = D_NONE;
	return 1;
}

/*
 * The next component of @p, in directory @n: 0 if the path ends there
 * (@n is the directory), 1 if it is one of its files (in n->f), -ENOENT
 */
static int node_last_file(struct tfs_session *s, struct tfs_node *n, const char **p)
{
	const char *c;
	size_t len = tfs_next_comp(p, &c);

	if (!len)
		return 0;
	return node_file(s, n, c, len) ? 1 : -ENOENT;
}

/* resolve @path.  Context: s->lock held. */
int tfs_resolve(struct tfs_session *s, const char *path, struct tfs_node *n)
{
	const char *p = path ? path : "", *c;
	size_t len;
	int ret;

	memset(n, 0, sizeof(*n));
	n->cpu = -1;
	n->slot = -1;
	n->inst = &s->top;
	n->dir = D_ROOT;
	len = tfs_next_comp(&p, &c);
	if (!len)
		return 0;
	if (tfs_comp_is(c, len, "instances")) {
		len = tfs_next_comp(&p, &c);
		if (!len) {
			n->dir = D_INSTANCES;
			return 0;
		}
		n->inst = tfs_inst_find(s, c, len);
		if (!n->inst)
			return -ENOENT;
		len = tfs_next_comp(&p, &c);
		if (!len)
			return 0;
	}
	if (tfs_comp_is(c, len, "options")) {
		n->dir = D_OPTIONS;
		len = tfs_next_comp(&p, &c);
		if (!len)
			return 0;
		n->opt = trace_opt_find(n->inst->tr.current_trace, c, len, &n->opt_tracer);
		if (!n->opt || !node_file(s, n, NULL, 0))
			return -ENOENT;
	} else if (tfs_comp_is(c, len, "trace_stat") && n->inst == &s->top && stat_tracer_at(0)) {
		/* as the kernel's: there once a stat tracer is registered */
		n->dir = D_STAT;
		len = tfs_next_comp(&p, &c);
		if (!len)
			return 0;
		n->stat = stat_tracer_find(c, len);
		if (!n->stat || !node_file(s, n, NULL, 0))
			return -ENOENT;
	} else if (tfs_comp_is(c, len, "per_cpu")) {
		char *end;
		long cpu;

		n->dir = D_PERCPU;
		len = tfs_next_comp(&p, &c);
		if (!len)
			return 0;
		if (len < 4 || strncmp(c, "cpu", 3) || !isdigit((unsigned char)c[3]))
			return -ENOENT;
		cpu = strtol(c + 3, &end, 10);
		if (end != c + len || cpu >= s->ncpu)
			return -ENOENT;
		n->cpu = (int)cpu;
		n->dir = D_CPU;
		if ((ret = node_last_file(s, n, &p)) <= 0)
			return ret;
	} else if (tfs_comp_is(c, len, "events")) {
		n->dir = D_EVENTS;
		len = tfs_next_comp(&p, &c);
		if (!len)
			return 0;
		if (node_file(s, n, c, len)) {
			/* events/enable, header_page... */
		} else if (tfs_comp_is(c, len, "ftrace")) {
			n->dir = D_EVSYS;
			len = tfs_next_comp(&p, &c);
			if (!len)
				return 0;
			for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
				if (tfs_comp_is(c, len, ut_ftrace_events[i].name))
					n->ev = &ut_ftrace_events[i];
			if (!n->ev)
				return -ENOENT;
			n->dir = D_EVENT;
			if ((ret = node_last_file(s, n, &p)) <= 0)
				return ret;
		} else {
			/* a system of the programs' events */
			int i = tfs_ev_find(s, NULL, c, len);

			if (i < 0)
				return -ENOENT;
			n->evsys = s->evd[i]->system;
			n->dir = D_EVSYS;
			len = tfs_next_comp(&p, &c);
			if (!len)
				return 0;
			if (!node_file(s, n, c, len)) {
				i = tfs_ev_find(s, n->evsys, c, len);
				if (i < 0)
					return -ENOENT;
				n->slot = i;
				n->ev = s->evd[i];
				n->dir = D_EVENT;
				if ((ret = node_last_file(s, n, &p)) <= 0)
					return ret;
			}
		}
	} else if (!node_file(s, n, c, len)) {
		return -ENOENT;
	}
	len = tfs_next_comp(&p, &c);
	if (len)
		return n->dir == D_NONE ? -ENOTDIR : -ENOENT;
	return 0;
}

/* ---- stat, readdir ---- */

static void node_stat(struct tfs_session *s, const struct tfs_node *n, struct tfs_stat *st)
{
	st->is_dir = n->dir != D_NONE;
	st->mode = st->is_dir ? dir_mode(n->dir, n->inst == &s->top) : n->f->mode;
}

int tfs_stat(struct tfs_session *s, const char *path, struct tfs_stat *st)
{
	struct tfs_node n;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = tfs_resolve(s, path, &n);
	pthread_mutex_unlock(&s->lock);
	if (!ret)
		node_stat(s, &n, st);
	return ret;
}

int tfs_readdir(struct tfs_session *s, const char *path,
		int (*fill)(void *ctx, const char *name, const struct tfs_stat *st), void *ctx)
{
	struct tfs_stat dir = { 1, 0750 }, evdir = { 1, 0755 };
	struct tfs_node n;
	struct tfs_words names = { 0 };
	unsigned where;
	int ret, top;

	pthread_mutex_lock(&s->lock);
	ret = tfs_resolve(s, path, &n);
	if (ret || n.dir == D_NONE) {
		pthread_mutex_unlock(&s->lock);
		return ret ? ret : -ENOTDIR;
	}
	top = n.inst == &s->top;
	where = dir_where(s, &n);
	if (n.dir == D_INSTANCES)
		for (struct tfs_inst *in = s->insts; in; in = in->next)
			tfs_words_add(&names, in->name, strlen(in->name));
	if (n.dir == D_EVENTS || (n.dir == D_EVSYS && n.evsys)) {
		/* the programs' systems, or the events of one */
		tfs_ev_refresh(s);
		for (uint32_t i = 0; i < s->nr_evd; i++) {
			const char *w;

			if (!tfs_ev_is(s, i, n.evsys, NULL))
				continue;
			w = n.evsys ? s->evd[i]->name : s->evd[i]->system;
			if (tfs_words_find(&names, w) >= 0 || !strcmp(w, "ftrace"))
				continue;
			/* hidden by a file of that name */
			if (file_find(where, w, strlen(w)))
				continue;
			tfs_words_add(&names, w, strlen(w));
		}
	}
	pthread_mutex_unlock(&s->lock);

	/* the files first (options/ has the options' names), then the directories */
	ret = where == W_OPTIONS || where == W_STAT ? 0 : files_fill(where, fill, ctx);
	switch (n.dir) {
	case D_ROOT:
		if (!ret)
			ret = fill(ctx, "options", &dir);
		if (!ret)
			ret = fill(ctx, "per_cpu", &dir);
		if (!ret)
			ret = fill(ctx, "events", &evdir);
		if (!ret && top)
			ret = fill(ctx, "instances", &dir);
		if (!ret && top && stat_tracer_at(0))
			ret = fill(ctx, "trace_stat", &dir);
		break;
	case D_STAT: {
		const struct tfs_file *f = file_find(W_STAT, NULL, 0);
		struct tfs_stat st = { 0, f ? f->mode : 0 };
		struct tracer_stat *t;

		for (unsigned i = 0; f && (t = stat_tracer_at(i)) && !ret; i++)
			ret = fill(ctx, t->name, &st);
		break;
	}
	case D_OPTIONS: {
		const struct tfs_file *f = file_find(W_OPTIONS, NULL, 0);
		struct tfs_stat st = { 0, f ? f->mode : 0 };

		/* the global options, then the directory's tracer's own */
		for (int i = 0; f && i < TRACE_NR_OPTS && !ret; i++)
			ret = fill(ctx, trace_opts[i].name, &st);
		for (const struct trace_opt_info *o = n.inst->tr.current_trace->opts;
		     f && o && o->name && !ret; o++)
			ret = fill(ctx, o->name, &st);
		break;
	}
	case D_PERCPU:
		for (int i = 0; i < s->ncpu && !ret; i++) {
			char name[16];

			snprintf(name, sizeof(name), "cpu%d", i);
			ret = fill(ctx, name, &dir);
		}
		break;
	case D_INSTANCES:
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &dir);
		break;
	case D_EVENTS:
		if (!ret)
			ret = fill(ctx, "ftrace", &evdir);
		for (int i = 0; i < names.n && !ret; i++)
			ret = fill(ctx, names.w[i], &evdir);
		break;
	case D_EVSYS:
		if (n.evsys) {
			for (int i = 0; i < names.n && !ret; i++)
				ret = fill(ctx, names.w[i], &evdir);
			break;
		}
		for (unsigned i = 0; i < ut_ftrace_nr_events && !ret; i++)
			ret = fill(ctx, ut_ftrace_events[i].name, &evdir);
		break;
	}
	tfs_words_free(&names);
	return ret > 0 ? 0 : ret;
}

/* ---- handles ---- */

/* open(2) flags that empty the file: written, O_TRUNC */
int tfs_open_trunc(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC);
}

/*
 * The open of a list (set_ftrace_filter, set_ftrace_pid...): with O_TRUNC
 * (the shell's '>'), the first write replaces it, and the release empties
 * it if nothing was written; O_APPEND ('>>') adds to it.
 */
int tfs_list_open(struct tfs_handle *h, int flags)
{
	h->trunc_pending = tfs_open_trunc(flags) && !(flags & O_APPEND);
	return TFS_WR_DONE;
}

int tfs_list_release(struct tfs_handle *h)
{
	return h->trunc_pending ? h->n.f->truncate(h) : TFS_WR_DONE;
}

int tfs_open(struct tfs_session *s, const char *path, int flags, struct tfs_handle **hp)
{
	struct tfs_handle *h;
	struct tfs_node n;
	int ret, apply = 0;

	tfs_collect(s);
	pthread_mutex_lock(&s->lock);
	ret = tfs_resolve(s, path, &n);
	if (ret)
		goto out;
	ret = -EISDIR;
	if (n.dir != D_NONE)
		goto out;
	/*
	 * No mode check: as in the kernel, the owner opens any file; a write
	 * to a file that takes none, or a read of trace_marker, is EINVAL
	 * (the FUSE mount lets the kernel check the modes for other users)
	 */
	ret = -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		goto out;
	h->s = s;
	h->n = n;
	h->flags = flags;
	n.inst->refs++;
	ret = n.f->open ? n.f->open(h, flags) : 0;
	if (ret < 0) {
		n.inst->refs--;
		free(h);
		goto out;
	}
	apply = ret == TFS_WR_APPLY;
	ret = 0;
	*hp = h;
out:
	pthread_mutex_unlock(&s->lock);
	if (apply)
		tfs_ctl_apply(s);
	if (ret == 0 && (flags & (O_TRUNC | O_ACCMODE)))
		tfs_collect(s);
	return ret;
}

ssize_t tfs_read(struct tfs_handle *h, char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	int ret = 0;

	if ((h->flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	/* the text is made at the first read: from what is collected until now */
	if (h->n.f->read || !h->have_text)
		tfs_collect(s);
	if (h->n.f->sync && !h->have_text)
		tfs_ctl_apply(s);
	if (h->n.f->read)
		return h->n.f->read(h, buf, size);
	if (off < 0)
		return -EINVAL;
	pthread_mutex_lock(&s->lock);
	if (!h->have_text) {
		struct tfs_sbuf b = { 0 };

		ret = h->n.f->show ? h->n.f->show(h, &b) : -EINVAL;
		if (!ret && b.err)
			ret = -ENOMEM;
		if (ret) {
			free(b.p);
		} else {
			h->text = b.p;
			h->len = b.len;
			h->have_text = 1;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (ret)
		return ret;
	if ((size_t)off >= h->len)
		return 0;
	if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->text + off, size);
	return (ssize_t)size;
}

ssize_t tfs_write(struct tfs_handle *h, const char *buf, size_t size, off_t off)
{
	struct tfs_session *s = h->s;
	const struct tfs_file *f = h->n.f;
	int ret, apply;

	(void)off;
	if ((h->flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	/* as the kernel, a marker longer than an event can hold is cut: the write is short */
	if (f->max_write && size > f->max_write)
		size = f->max_write;
	/* what was collected before the change is taken as things were */
	tfs_collect(s);
	pthread_mutex_lock(&s->lock);
	s->err_inst = h->n.inst;
	s->ev_apply = 0;
	ret = f->write ? f->write(h, buf, size) : -EINVAL;
	/* a write that failed after it changed the events: they are applied */
	apply = ret < 0 && s->ev_apply;
	s->err_inst = NULL;
	pthread_mutex_unlock(&s->lock);
	if (ret == TFS_WR_THRESH) {
		/* tracing_thresh: the TSC rate is measured without the lock */
		uint64_t t = tfs_us_to_ticks(s, s->thresh_us);

		pthread_mutex_lock(&s->lock);
		s->ctl->tracing_thresh = t;
		pthread_mutex_unlock(&s->lock);
		ret = TFS_WR_APPLY;
	}
	if (ret == TFS_WR_APPLY || apply)
		tfs_ctl_apply(s);
	tfs_collect(s);
	return ret < 0 ? ret : (ssize_t)size;
}

int tfs_truncate(struct tfs_session *s, const char *path)
{
	struct tfs_handle h = { .s = s, .flags = O_WRONLY };
	int ret, apply = 0;

	tfs_collect(s);
	pthread_mutex_lock(&s->lock);
	ret = tfs_resolve(s, path, &h.n);
	if (!ret && h.n.dir != D_NONE)
		ret = -EISDIR;
	if (!ret && !(h.n.f->mode & 0222))
		ret = -EINVAL;
	if (!ret && h.n.f->truncate) {
		ret = h.n.f->truncate(&h);
		apply = ret == TFS_WR_APPLY;
		ret = ret < 0 ? ret : 0;
	}
	pthread_mutex_unlock(&s->lock);
	if (apply)
		tfs_ctl_apply(s);
	tfs_collect(s);
	return ret;
}

void tfs_interrupt(struct tfs_handle *h)
{
	pthread_mutex_lock(&h->s->lock);
	h->intr = 1;
	pthread_cond_broadcast(&h->s->cond);
	pthread_mutex_unlock(&h->s->lock);
}

void tfs_release(struct tfs_handle *h)
{
	struct tfs_session *s;
	int apply = 0;

	if (!h)
		return;
	s = h->s;
	pthread_mutex_lock(&s->lock);
	if (h->n.f->release)
		apply = h->n.f->release(h) == TFS_WR_APPLY;
	h->n.inst->refs--;
	pthread_mutex_unlock(&s->lock);
	if (apply)
		tfs_ctl_apply(s);
	if (apply)
		tfs_collect(s);
	/* h->rd is the directory's: it stays */
	free(h->pend);
	free(h->text);
	free(h);
}
