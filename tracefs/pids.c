// SPDX-License-Identifier: MIT
/*
 * pids.c - whom a directory traces: set_ftrace_pid, set_ftrace_notrace_pid,
 * set_event_pid and set_event_notrace_pid, read and written by one parser
 * as the kernel's four files are (trace_pid_write()), and the -fork
 * options (function-fork, event-fork) that add a listed thread's children
 * to its lists and take the threads that exit out of them.
 *
 * A thread records calls if it is in set_ftrace_pid (or that list is
 * empty) and not in set_ftrace_notrace_pid; events likewise with the two
 * event lists.  The programs filter on the union of what the directories
 * want (instances.c, rec_filter_update()); the top's views and the
 * instances' pumps show each directory's own choice (tfs_pids_view()).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

/* as the kernel's parser: a longer word fails the write (PID_BUF_SIZE + 1) */
#define PID_WORD_MAX	128
/* ids from here on are no pid: EPERM, as the kernel's pid lists refuse them */
#define PID_LIMIT	(1L << 30)

/*
 * The next id of a list at @p into *@v (words that are not numbers are
 * passed over): what follows it, or NULL at the list's end.
 */
static const char *next_id(const char *p, long *v)
{
	while (*p) {
		char *end;

		*v = strtol(p, &end, 10);
		if (end != p)
			return end;
		p++;
	}
	return NULL;
}

/* the ids of @list (ascending text) into @ids, at most @max; how many, -1 beyond */
int tfs_pids_parse(const char *list, int32_t *ids, uint32_t max)
{
	uint32_t n = 0;
	long v;

	for (const char *p = list; (p = next_id(p, &v));) {
		if (n == max)
			return -1;
		ids[n++] = (int32_t)v;
	}
	return (int)n;
}

/* is @id in @list? */
int tfs_pids_has(const char *list, long id)
{
	long v;

	for (const char *p = list; (p = next_id(p, &v));) {
		if (v == id)
			return 1;
	}
	return 0;
}

/* does directory @in follow the forks of the threads of its list @list (TFS_PIDS_*)? */
int tfs_pids_follows(const struct tfs_inst *in, int list)
{
	uint32_t bit = list <= TFS_PIDS_FUNC_NO ? TRACE_ITER_FUNC_FORK : TRACE_ITER_EVENT_FORK;

	return (in->tr.trace_flags & bit) != 0;
}

static int long_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* @n ids of @v as a list: ascending, without repeats.  0 or -ENOSPC */
static int pids_text(long *v, size_t n, char *out, size_t size)
{
	size_t len = 0;

	qsort(v, n, sizeof(*v), long_cmp);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int k;

		if (i && v[i] == v[i - 1])
			continue;
		k = snprintf(out + len, size - len, "%s%ld", len ? " " : "", v[i]);
		if (k < 0 || (size_t)k >= size - len)
			return -ENOSPC;
		len += (size_t)k;
	}
	return 0;
}

/*
 * One word of a write as the kernel's kstrtoul(word, 0): an unsigned
 * number as C writes it (`+5`, `0x10`, `010`); the id is its value modulo
 * 2^32.  -EINVAL if it is not one (`-5`, `!5`, `7,8`, `08`, too large for
 * 64 bits), -EPERM from 2^30 on.
 */
static int pid_word(const char *w, long *id)
{
	unsigned long long u;
	char *end;

	if (w[0] == '-' || (w[0] == '+' && !isdigit((unsigned char)w[1])))
		return -EINVAL;
	errno = 0;
	u = strtoull(w, &end, 0);
	if (end == w || *end || errno)
		return -EINVAL;
	*id = (long)(uint32_t)u;
	return *id >= PID_LIMIT ? -EPERM : 0;
}

static const char *const pids_file[TFS_NR_PIDS] = {
	"set_ftrace_pid", "set_ftrace_notrace_pid", "set_event_pid", "set_event_notrace_pid",
};

/* directory @in's list @k is now @text: its instance takes what came before first */
static int pids_set(struct tfs_session *s, struct tfs_inst *in, int k, const char *text)
{
	if (!strcmp(text, in->pids[k]))
		return 0;
	if (in != &s->top)
		tfs_inst_pump(in);
	strcpy(in->pids[k], text);
	/* the user's own choice: the views follow it from now on */
	in->pids_gone[k][0] = '\0';
	return tfs_recording_update(s);
}

/*
 * A write into list @k of directory @in, as the kernel's
 * trace_pid_write(): the words (between blanks or NUL bytes) are ids
 * added to the list; the first that is not one fails the whole write
 * and changes nothing.  An empty write changes nothing either.  A list
 * of more than UT_LIST_MAX bytes: ENOSPC.  The failures add a line to
 * error_log (the kernel's add none).  Returns 0, 1 (apply) or -errno.
 */
static int pids_write(struct tfs_session *s, struct tfs_inst *in, int k, const char *buf,
		      size_t size)
{
	int32_t *old = malloc(UT_LIST_MAX / 2 * sizeof(*old));
	long *v = malloc((size / 2 + 1 + UT_LIST_MAX / 2) * sizeof(*v));
	char word[PID_WORD_MAX + 1], text[UT_LIST_MAX];
	size_t nv = 0, i = 0;
	int ret = 0, nold;

	if (!old || !v) {
		ret = -ENOMEM;
		goto out;
	}
	while (i < size && !ret) {
		size_t len = 0;

		while (i < size && (isspace((unsigned char)buf[i]) || !buf[i]))
			i++;
		while (i < size && !isspace((unsigned char)buf[i]) && buf[i] && len < PID_WORD_MAX)
			word[len++] = buf[i++];
		if (!len)
			break;
		word[len] = '\0';
		if (len == PID_WORD_MAX) {
			tfs_err(s, "Invalid pid", word);
			ret = -EINVAL;
		} else if ((ret = pid_word(word, &v[nv])) < 0) {
			tfs_err(s, ret == -EPERM ? "Pid out of range" : "Invalid pid", word);
		} else {
			nv++;
		}
	}
	if (ret || !nv)
		goto out;
	nold = tfs_pids_parse(in->pids[k], old, UT_LIST_MAX / 2);
	for (int j = 0; j < nold; j++)
		v[nv++] = old[j];
	if (pids_text(v, nv, text, sizeof(text)) < 0) {
		tfs_err(s, "List too long", pids_file[k]);
		ret = -ENOSPC;
		goto out;
	}
	ret = pids_set(s, in, k, text);
out:
	free(old);
	free(v);
	return ret;
}

/* ---- the -fork options ---- */

/* add @id to @list (ascending text); 1 if it was not there and fits */
static int pids_add(char *list, long id)
{
	int32_t ids[UT_LIST_MAX / 2];
	long v[UT_LIST_MAX / 2 + 1];
	char text[UT_LIST_MAX];
	int n;

	if (tfs_pids_has(list, id) || (n = tfs_pids_parse(list, ids, UT_LIST_MAX / 2)) < 0)
		return 0;
	for (int i = 0; i < n; i++)
		v[i] = ids[i];
	v[n++] = id;
	if (pids_text(v, (size_t)n, text, sizeof(text)) < 0)
		return 0;
	strcpy(list, text);
	return 1;
}

/* remove @id from @list (ascending text) */
static void pids_del(char *list, long id)
{
	char text[UT_LIST_MAX];
	size_t len = 0;
	long v;

	text[0] = '\0';
	for (const char *p = list; (p = next_id(p, &v));) {
		if (v != id)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%ld", len ? " " : "", v);
	}
	strcpy(list, text);
}

/* has id @id (a thread or a process) ended?  Ids below 1 never do (0: the idle task) */
static int id_gone(long id)
{
	char path[32];

	if (id <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld", id);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

/*
 * Forks: the entries of the programs' fork log since the last call.  The
 * child joins every list, of a directory that follows its kind, that
 * holds its parent (its thread or process id).  *@donep: the entries
 * taken.  Returns 1 if a list changed.
 */
static int follow_forks(struct tfs_session *s, uint32_t *donep)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t done = c->forklog_done, head = __atomic_load_n(&c->forklog_head, __ATOMIC_ACQUIRE);
	int changed = 0;

	if (head - done > UT_FORKLOG)
		done = head - UT_FORKLOG;	/* overwritten before we came: lost */
	for (; done != head; done++) {
		struct ut_forklog *e = &c->forklog[done % UT_FORKLOG];
		uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

		if (seq != done + 1) {
			if ((int32_t)(seq - (done + 1)) > 0)
				continue;	/* a later one took its place */
			break;			/* being written: next time */
		}
		for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next)
			for (int k = 0; k < TFS_NR_PIDS; k++)
				if (tfs_pids_follows(in, k) &&
				    (tfs_pids_has(in->pids[k], e->ptid) || tfs_pids_has(in->pids[k], e->ppid))) {
					/*
					 * in the list from its fork on, as the kernel
					 * adds it in sched_process_fork: what it recorded
					 * since (an instance's pump has not taken it yet)
					 * goes by the list with it, not by the list of
					 * before (the child of a thread excluded by
					 * set_event_notrace_pid had its first events)
					 */
					changed |= pids_add(in->pids[k], e->child);
					pids_add(s->pids_followed, e->child);
				}
	}
	*donep = done;
	return changed;
}

/*
 * Exits: the ids of a following directory's lists whose thread or
 * process has ended (and was reaped, as the kernel's tasks leave at
 * sched_process_free) leave them.  Only the session's own threads and
 * processes (their buffers, procs[], the children a -fork option added)
 * are looked at: an id that named no thread of the programs stays.  Returns 1 if a list changed.
 */
static int follow_exits(struct tfs_session *s)
{
	int *ids = NULL, nids = -1, changed = 0;
	long id;

	for (struct tfs_inst *in = &s->top; in; in = in == &s->top ? s->insts : in->next)
		for (int k = 0; k < TFS_NR_PIDS; k++) {
			int32_t v[UT_LIST_MAX / 2];
			int n;

			if (!tfs_pids_follows(in, k) || !in->pids[k][0])
				continue;
			n = tfs_pids_parse(in->pids[k], v, UT_LIST_MAX / 2);
			for (int i = 0; i < n; i++) {
				if (!id_gone(v[i]))
					continue;
				if (nids < 0)
					nids = tfs_session_ids(s, &ids);
				if (!tfs_pids_has(s->pids_followed, v[i]) &&
				    !bsearch(&v[i], ids, (size_t)nids, sizeof(*ids), tfs_cmp_int))
					continue;
				if (in != &s->top)
					tfs_inst_pump(in);	/* it takes the last of the thread first */
				else if (!tfs_pids_has(in->pids_gone[k], v[i]))
					pids_add(in->pids_gone[k], v[i]);
				pids_del(in->pids[k], v[i]);
				changed = 1;
			}
		}
	free(ids);
	/* the ended children no list holds any more */
	for (const char *p = s->pids_followed; (p = next_id(p, &id));) {
		int held = 0;

		for (struct tfs_inst *in = &s->top; in && !held; in = in == &s->top ? s->insts : in->next)
			for (int k = 0; k < TFS_NR_PIDS && !held; k++)
				held = tfs_pids_has(in->pids[k], id);
		if (!held && id_gone(id)) {
			pids_del(s->pids_followed, id);
			p = s->pids_followed;
		}
	}
	return changed;
}

/**
 * tfs_pids_follow - the -fork options: the children the programs made join
 * their parents' lists, the threads that ended leave them
 *
 * Then the programs have the new lists, and the children that record as
 * their parent until now (runtime/funcfilter.c, ut_pid_follow()) go by them.
 * Context: s->lock held; before a view, a pump or a pid file is read.
 */
void tfs_pids_follow(struct tfs_session *s)
{
	struct ut_session_ctl *c = s->ctl;
	int changed, any = __atomic_load_n(&c->nr_follow, __ATOMIC_RELAXED) != 0;
	uint32_t done;

	if (!any && c->forklog_done == __atomic_load_n(&c->forklog_head, __ATOMIC_ACQUIRE))
		return;
	changed = follow_forks(s, &done);
	changed |= any && follow_exits(s);
	if (changed)
		tfs_recording_update(s);	/* no filter goes on or off: no handshake */
	__atomic_store_n(&c->forklog_done, done, __ATOMIC_RELEASE);
}

/*
 * What the views of @in show, as live_view.pids (@events 0) or evpids
 * (1): the ids of its pid list, none meaning all, and "!ID" for its
 * notrace list.  The top's add the ids the -fork options took out at
 * their exit (pids_gone; an instance's pump took their events before):
 * their past stays as it was recorded.
 */
void tfs_pids_view(const struct tfs_inst *in, int events, char *out, size_t size)
{
	int k = events ? TFS_PIDS_EVENT : TFS_PIDS_FUNC;
	/* the ids shown (the ended ones only while the list chooses), then those hidden */
	const char *part[4] = { in->pids[k], in->pids[k][0] ? in->pids_gone[k] : "", in->pids[k + 1],
				in->pids_gone[k + 1] };
	size_t len = 0;

	out[0] = '\0';
	for (int j = 0; j < 4; j++)
		for (const char *p = part[j]; *p;) {
			size_t n = strcspn(p, " ");

			if (n && len + n + 3 < size)
				len += (size_t)snprintf(out + len, size - len, "%s%s%.*s", len ? " " : "",
							j >= 2 ? "!" : "", (int)n, p);
			p += n + (p[n] == ' ');
		}
}

/* ---- the files ---- */

/* as the kernel's: one id a line; set_ftrace_pid and set_ftrace_notrace_pid say "no pid" when empty */
static int pids_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	int k = h->n.f->arg;
	const char *p;

	tfs_pids_follow(h->s);
	p = h->n.inst->pids[k];
	if (!*p && k <= TFS_PIDS_FUNC_NO)
		tfs_sb_puts(b, "no pid\n");
	while (*p) {
		size_t n = strcspn(p, " ");

		tfs_sb_printf(b, "%.*s\n", (int)n, p);
		p += n + (p[n] == ' ');
	}
	return 0;
}

static int pids_file_write(struct tfs_handle *h, const char *buf, size_t size)
{
	tfs_pids_follow(h->s);
	return pids_write(h->s, h->n.inst, h->n.f->arg, buf, size);
}

static int pids_truncate(struct tfs_handle *h)
{
	return pids_set(h->s, h->n.inst, h->n.f->arg, "");
}

/* as the kernel's: opening with O_TRUNC empties the list, appending or not */
static int pids_open(struct tfs_handle *h, int flags)
{
	return tfs_open_trunc(flags) ? pids_truncate(h) : 0;
}

#define PIDS_FILE(name, k)                                                                    \
	TFS_FILE(name, 0640, W_TOP | W_INST, .show = pids_show, .write = pids_file_write,    \
		 .open = pids_open, .truncate = pids_truncate, .arg = (k))

const struct tfs_file tfs_pids_files[] = {
	PIDS_FILE("set_ftrace_pid", TFS_PIDS_FUNC),
	PIDS_FILE("set_ftrace_notrace_pid", TFS_PIDS_FUNC_NO),
	PIDS_FILE("set_event_pid", TFS_PIDS_EVENT),
	PIDS_FILE("set_event_notrace_pid", TFS_PIDS_EVENT_NO),
	TFS_FILES_END
};
