// SPDX-License-Identifier: MIT
/*
 * lists.c - the function lists in the kernel's syntax: set_ftrace_filter
 * and its function commands, set_ftrace_notrace, set_graph_function,
 * set_graph_notrace.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefs/tfs_int.h"

/* the lists (a file's ->arg) */
enum tfs_list { L_FILTER, L_NOTRACE, L_GFUNC, L_GNOTRACE, L_STACK };

static const char *const cmd_names[] = {
	"traceon", "traceoff", "stacktrace", "enable_event", "disable_event",
};
static const char *const known_cmds[] = {
	"traceon", "traceoff", "stacktrace", "dump", "cpudump", "snapshot",
	"enable_event", "disable_event",
};

/* a filter word split as the kernel's: glob[:mod:M] or glob:cmd[:N] */
struct fword {
	char glob[256];
	char mod[256];		/* :mod: */
	int has_mod;
	char cmd[32];		/* a command */
	char arg[64];		/* its count or argument */
	int has_arg;
	/* enable_event/disable_event: the target, then the count */
	char sys[64], event[64];
	const char *count;	/* the count as written, NULL: unlimited */
};

static int is_event_cmd(const char *cmd)
{
	return !strcmp(cmd, "enable_event") || !strcmp(cmd, "disable_event");
}

/* sys:event[:N] of an event command into @fw; -EINVAL if it is not that */
static int fword_event(struct fword *fw)
{
	const char *a = fw->arg, *e = strchr(a, ':'), *c;
	size_t ls, le;

	if (!fw->has_arg || !e)
		return -EINVAL;
	c = strchr(e + 1, ':');
	ls = (size_t)(e - a);
	le = c ? (size_t)(c - e - 1) : strlen(e + 1);
	if (!ls || !le || ls >= sizeof(fw->sys) || le >= sizeof(fw->event))
		return -EINVAL;
	memcpy(fw->sys, a, ls);
	memcpy(fw->event, e + 1, le);
	fw->count = c ? c + 1 : NULL;
	return 0;
}

static int fword_parse(const char *w, struct fword *fw)
{
	const char *c1 = strchr(w, ':'), *c2;

	memset(fw, 0, sizeof(*fw));
	if (!c1) {
		snprintf(fw->glob, sizeof(fw->glob), "%s", w);
		return strlen(w) < sizeof(fw->glob) ? 0 : -EINVAL;
	}
	if ((size_t)(c1 - w) >= sizeof(fw->glob))
		return -EINVAL;
	memcpy(fw->glob, w, (size_t)(c1 - w));
	c2 = strchr(c1 + 1, ':');
	if (c2 && (size_t)(c2 - c1 - 1) == 3 && !strncmp(c1 + 1, "mod", 3)) {
		fw->has_mod = 1;
		snprintf(fw->mod, sizeof(fw->mod), "%s", c2 + 1);
		return 0;
	}
	if ((c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1)) >= sizeof(fw->cmd))
		return -EINVAL;
	memcpy(fw->cmd, c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1));
	if (c2) {
		fw->has_arg = 1;
		snprintf(fw->arg, sizeof(fw->arg), "%s", c2 + 1);
		fw->count = fw->arg;
	}
	if (is_event_cmd(fw->cmd))
		return fword_event(fw);
	return fw->cmd[0] ? 0 : -EINVAL;
}

/* functions of @fs a glob (with an optional :mod:) selects */
static int fword_matches(const struct fword *fw, const struct tfs_func *f)
{
	if (fw->has_mod && !tfs_mod_match(fw->mod, f->mod))
		return 0;
	return !fw->glob[0] || !fnmatch(fw->glob, f->name, 0);
}

static int glob_has_match(const struct tfs_funcs *fs, const char *glob)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!fnmatch(glob, fs->f[i].name, 0))
			return 1;
	return 0;
}

static char *list_of(struct tfs_session *s, struct tfs_inst *in, enum tfs_list id)
{
	switch (id) {
	case L_FILTER:	 return in->filter;
	case L_NOTRACE:	 return in->notrace;
	case L_GFUNC:	 return s->ctl->graph_function;
	case L_GNOTRACE: return s->ctl->graph_notrace;
	case L_STACK:	 return s->ctl->stack_filter;
	default:	 return NULL;
	}
}

static int is_cmd(const char *name, const char *const *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, tab[i]))
			return 1;
	return 0;
}

/*
 * The function commands of every directory are one list in the control
 * page (what the programs run): the top's words as written, an
 * instance's after "D|", D its index in the registry's dirs[] (its
 * tracing_on, soft switches and stack records: evreg.h).  Word i counts
 * in cmd_count[bank][i].
 */

/* the directory a command word of the control page belongs to (0: the top); *@rest after "D|" */
static uint32_t word_dir(const char *w, const char **rest)
{
	const char *bar = w + strspn(w, "0123456789");

	if (bar != w && *bar == '|') {
		*rest = bar + 1;
		return (uint32_t)strtoul(w, NULL, 10);
	}
	*rest = w;
	return 0;
}

/* the registry index of @in's commands: 0 the top's, -1: an instance without words yet */
static int cmds_dir(struct tfs_session *s, struct tfs_inst *in)
{
	return in == &s->top ? 0 : in->rdir ? (int)in->rdir : -1;
}

/* the instance whose words are dirs[@dir] (the top for 0); NULL: none */
static struct tfs_inst *dir_inst(struct tfs_session *s, uint32_t dir)
{
	if (!dir)
		return &s->top;
	for (struct tfs_inst *in = s->insts; in; in = in->next)
		if (in->rdir == dir)
			return in;
	return NULL;
}

/* the commands of directory @dir (its words as written), into @out; how many others there are */
static int dir_cmds(struct tfs_session *s, int dir, struct tfs_words *out)
{
	struct tfs_words all = { 0 };
	int others = 0;

	tfs_words_split(&all, s->ctl->commands, strlen(s->ctl->commands));
	for (int i = 0; i < all.n; i++) {
		const char *rest;

		if ((int)word_dir(all.w[i], &rest) == dir)
			tfs_words_add(out, rest, strlen(rest));
		else
			others++;
	}
	tfs_words_free(&all);
	return others;
}

/* the control page's list with @mine as directory @dir's commands, into @dst; -ENOSPC: too long */
static int cmds_join_all(struct tfs_session *s, int dir, const struct tfs_words *mine, char *dst)
{
	struct tfs_words all = { 0 }, next = { 0 };
	int ret = 0;

	tfs_words_split(&all, s->ctl->commands, strlen(s->ctl->commands));
	for (int i = 0; i < all.n && !ret; i++) {
		const char *rest;

		if ((int)word_dir(all.w[i], &rest) != dir)
			ret = tfs_words_add(&next, all.w[i], strlen(all.w[i]));
	}
	for (int i = 0; i < mine->n && !ret; i++) {
		char w[600];
		int n = dir ? snprintf(w, sizeof(w), "%d|%s", dir, mine->w[i]) :
			      snprintf(w, sizeof(w), "%s", mine->w[i]);

		ret = n < 0 || (size_t)n >= sizeof(w) ? -ENOSPC : tfs_words_add(&next, w, (size_t)n);
	}
	if (!ret)
		ret = tfs_words_join(&next, dst);
	tfs_words_free(&all);
	tfs_words_free(&next);
	return ret;
}

/*
 * check_words - refuse what the kernel refuses: a pattern that selects no
 * function (when the processes listed theirs), a command on a file that
 * takes none, an unknown command.  Context: s->lock held.
 */
static int check_words(struct tfs_session *s, struct tfs_inst *in, enum tfs_list id,
		       const struct tfs_words *ws, const struct tfs_funcs *fs)
{
	for (int i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];
		struct fword fw;
		int neg = w[0] == '!';

		if (fword_parse(w + neg, &fw)) {
			tfs_err(s, "Invalid argument", w);
			return -EINVAL;
		}
		if (fw.cmd[0]) {
			if (id != L_FILTER) {
				tfs_err(s, "Function commands are not accepted here", w);
				return -EINVAL;
			}
			if (in != &s->top && !s->evreg) {
				tfs_err(s, "Function commands are set at the top level only", w);
				return -EINVAL;
			}
			if (!is_cmd(fw.cmd, known_cmds, sizeof(known_cmds) / sizeof(known_cmds[0]))) {
				tfs_err(s, "Unknown function command", w);
				return -EINVAL;
			}
			if (!is_cmd(fw.cmd, cmd_names, sizeof(cmd_names) / sizeof(cmd_names[0]))) {
				tfs_err(s, "Function command not supported in user space", w);
				return -EINVAL;
			}
			if (is_event_cmd(fw.cmd) && !neg &&
			    tfs_ev_find(s, fw.sys, fw.event, strlen(fw.event)) < 0) {
				tfs_err(s, "Event not found", w);
				return -EINVAL;
			}
			if (fw.count && !neg) {
				char *end;

				errno = 0;
				strtoul(fw.count, &end, 10);
				if (!fw.count[0] || *end || errno) {
					tfs_err(s, "Invalid count", w);
					return -EINVAL;
				}
			}
		}
		if (fw.has_mod || neg || !fs->present)
			continue;
		if (!glob_has_match(fs, fw.glob[0] ? fw.glob : "*")) {
			tfs_err(s, "Function not found", w);
			return -EINVAL;
		}
	}
	return 0;
}

/* drop the command words of @list whose function, command and target match @fw */
static void cmds_remove(struct tfs_words *list, const struct fword *fw)
{
	for (int i = list->n - 1; i >= 0; i--) {
		struct fword e;

		if (fword_parse(list->w[i], &e))
			continue;
		if (strcmp(e.cmd, fw->cmd) || strcmp(e.sys, fw->sys) || strcmp(e.event, fw->event))
			continue;
		if (strcmp(e.glob, fw->glob) && fnmatch(fw->glob, e.glob, 0))
			continue;
		tfs_words_del(list, i);
	}
}

/*
 * filter_remove - `!pat`: the list no longer selects the functions @pat
 * matches.  A word equal to @pat, or a name @pat matches, goes; a glob
 * that selects other functions as well is replaced by the names it still
 * selects (as the kernel, whose lists are sets of functions).
 */
static void filter_remove(struct tfs_words *list, const char *pat, const struct tfs_funcs *fs)
{
	struct fword rm;

	if (fword_parse(pat, &rm))
		return;
	for (int i = list->n - 1; i >= 0; i--) {
		struct fword e;
		struct tfs_words keep = { 0 };
		int hit = 0;

		if (!strcmp(list->w[i], pat)) {
			tfs_words_del(list, i);
			continue;
		}
		if (list->w[i][0] == '!' || fword_parse(list->w[i], &e))
			continue;
		if (!strpbrk(e.glob, "*?[") && !e.has_mod) {
			if (!rm.has_mod && !fnmatch(rm.glob[0] ? rm.glob : "*", e.glob, 0))
				tfs_words_del(list, i);
			continue;
		}
		/* a glob: expand what it keeps */
		for (size_t k = 0; k < fs->n; k++) {
			if (!fword_matches(&e, &fs->f[k]))
				continue;
			if (fword_matches(&rm, &fs->f[k])) {
				hit = 1;
				continue;
			}
			if (tfs_words_find(&keep, fs->f[k].name) < 0)
				tfs_words_add(&keep, fs->f[k].name, strlen(fs->f[k].name));
		}
		if (!hit) {
			tfs_words_free(&keep);
			continue;
		}
		tfs_words_del(list, i);
		for (int k = keep.n - 1; k >= 0; k--) {
			char **nw = realloc(list->w, (size_t)(list->n + 1) * sizeof(*nw));

			if (!nw)
				break;
			list->w = nw;
			memmove(list->w + i + 1, list->w + i, sizeof(*nw) * (size_t)(list->n - i));
			list->w[i] = keep.w[k];
			keep.w[k] = NULL;
			list->n++;
		}
		tfs_words_free(&keep);
	}
}

/*
 * cmds_add - a command on the functions its glob selects: one word per
 * function (name:cmd[:arg]), as the kernel registers a probe on each
 * function the glob matches then and lists it on a line of its own, each
 * with its own count.  A glob kept as written only while no process has
 * listed its functions yet.  -ENOSPC past UT_CTL_CMDS commands (each
 * needs a count shared by the processes).
 */
static int cmds_add(struct tfs_words *cmds, const char *w, const struct fword *fw,
		    const struct tfs_funcs *fs, int others)
{
	const char *rest = w + strlen(fw->glob);	/* ":cmd[:arg]" */

	if (!fs->present)
		return tfs_words_add(cmds, w, strlen(w)) < 0 ? -ENOMEM : 0;
	for (size_t k = 0; k < fs->n; k++) {
		char word[512];
		int n;

		if (!fword_matches(fw, &fs->f[k]))
			continue;
		n = snprintf(word, sizeof(word), "%s%s", fs->f[k].name, rest);
		if (n < 0 || (size_t)n >= sizeof(word) || tfs_words_find(cmds, word) >= 0)
			continue;
		if (others + cmds->n >= UT_CTL_CMDS)
			return -ENOSPC;
		if (tfs_words_add(cmds, word, (size_t)n) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* a command word's count as written: N, or -1 (unlimited) */
static int64_t cmd_count_of(const char *w)
{
	struct fword fw;

	if (fword_parse(w, &fw) || !fw.count)
		return -1;
	return strtoll(fw.count, NULL, 10);
}

/* the soft-mode holds of the event commands of @ws: @delta each */
static int cmds_hold(struct tfs_session *s, const struct tfs_words *ws, int delta)
{
	int apply = 0;

	for (int i = 0; i < ws->n; i++) {
		struct tfs_inst *in;
		const char *rest;
		struct fword fw;
		int slot;

		in = dir_inst(s, word_dir(ws->w[i], &rest));
		if (!in || fword_parse(rest, &fw) || !fw.sys[0])
			continue;
		slot = tfs_ev_find(s, fw.sys, fw.event, strlen(fw.event));
		if (slot >= 0)
			apply |= tfs_ev_soft_ref(s, in, (uint32_t)slot, delta);
	}
	return apply;
}

/*
 * The commands' list @text into the control page, with the counts in the
 * other bank: a command that stays keeps its runs left, a new one starts
 * from its count (session.h, cmd_count).  The targets of enable_event and
 * disable_event are held in soft mode while a command names them.
 * Context: s->lock held.
 */
static void cmds_publish(struct tfs_session *s, const char *text)
{
	struct ut_session_ctl *c = s->ctl;
	uint32_t ob = __atomic_load_n(&c->cmd_bank, __ATOMIC_ACQUIRE) & 1, nb = ob ^ 1;
	struct tfs_words old = { 0 }, now = { 0 };

	tfs_words_split(&old, c->commands, strlen(c->commands));
	tfs_words_split(&now, text, strlen(text));
	for (int i = 0; i < now.n && i < UT_CTL_CMDS; i++) {
		int j = tfs_words_find(&old, now.w[i]);

		c->cmd_count[nb][i] = j >= 0 && j < UT_CTL_CMDS ?
				      __atomic_load_n(&c->cmd_count[ob][j], __ATOMIC_RELAXED) :
				      cmd_count_of(now.w[i]);
	}
	cmds_hold(s, &now, 1);
	cmds_hold(s, &old, -1);
	tfs_words_free(&old);
	tfs_words_free(&now);
	strcpy(c->commands, text);
	__atomic_store_n(&c->cmd_bank, nb, __ATOMIC_RELEASE);
	/* an instance with a traceon command may turn on any time: the programs record for it */
	for (struct tfs_inst *in = s->insts; in; in = in->next) {
		struct tfs_words mine = { 0 };

		in->traceon_cmds = 0;
		if (in->rdir)
			dir_cmds(s, (int)in->rdir, &mine);
		in->nr_cmds = mine.n;
		for (int i = 0; i < mine.n; i++) {
			struct fword fw;

			in->traceon_cmds += !fword_parse(mine.w[i], &fw) && !strcmp(fw.cmd, "traceon");
		}
		tfs_words_free(&mine);
	}
}

int tfs_cmds_free_inst(struct tfs_session *s, struct tfs_inst *in)
{
	struct tfs_words none = { 0 };
	char tmp[UT_LIST_MAX];

	if (!in->rdir || cmds_join_all(s, (int)in->rdir, &none, tmp) || !strcmp(tmp, s->ctl->commands))
		return 0;
	cmds_publish(s, tmp);
	return 1;
}

/*
 * list_write - one write(2) to a list file: @trunc starts from an empty
 * list.  Returns 1 if the control page changed (the caller applies it).
 * Context: s->lock held.
 */
static int list_write(struct tfs_session *s, struct tfs_inst *in, enum tfs_list id, const char *buf,
		      size_t size, int trunc)
{
	struct tfs_words ws = { 0 }, list = { 0 }, cmds = { 0 };
	struct tfs_funcs fs;
	char *dst = list_of(s, in, id);
	int ret, dir = -1, others = 0;

	tfs_funcs_load(s, &fs);
	ret = tfs_words_split(&ws, buf, size);
	if (!ret)
		ret = check_words(s, in, id, &ws, &fs);
	if (ret)
		goto out;
	/* an instance's commands: its words in the registry, given at its first */
	for (int i = 0; i < ws.n && id == L_FILTER && in != &s->top && !in->rdir; i++) {
		struct fword fw;

		if (ws.w[i][0] != '!' && !fword_parse(ws.w[i], &fw) && fw.cmd[0] &&
		    tfs_inst_rdir(s, in) < 0) {
			tfs_err(s, "Too many instances with triggers or commands", ws.w[i]);
			ret = -ENOSPC;
			goto out;
		}
	}
	if (id == L_FILTER)
		dir = cmds_dir(s, in);
	if (!trunc)
		tfs_words_split(&list, dst, strlen(dst));
	/* '>' replaces the functions; commands stay, as the kernel's */
	if (dir >= 0)
		others = dir_cmds(s, dir, &cmds);
	for (int i = 0; i < ws.n; i++) {
		const char *w = ws.w[i];
		int neg = w[0] == '!';
		struct fword fw;

		fword_parse(w + neg, &fw);
		if (fw.cmd[0]) {
			cmds_remove(&cmds, &fw);
			if (!neg && cmds_add(&cmds, w, &fw, &fs, others) < 0) {
				tfs_err(s, "Too many function commands", w);
				ret = -ENOSPC;
				goto out;
			}
		} else if (neg) {
			filter_remove(&list, w + 1, &fs);
		} else if (tfs_words_find(&list, w) < 0) {
			tfs_words_add(&list, w, strlen(w));
		}
	}
	{
		char tmp[UT_LIST_MAX], tmpc[UT_LIST_MAX];

		ret = tfs_words_join(&list, tmp);
		if (!ret && dir >= 0)
			ret = cmds_join_all(s, dir, &cmds, tmpc);
		if (ret) {
			tfs_err(s, "List too long", "");
			goto out;
		}
		ret = strcmp(tmp, dst) != 0;
		if (ret && in != &s->top)
			tfs_inst_pump(in);	/* what came before is taken with the old lists */
		strcpy(dst, tmp);
		if (id == L_FILTER || id == L_NOTRACE)
			ret = tfs_lists_update(s);
		if (dir >= 0 && strcmp(tmpc, s->ctl->commands)) {
			cmds_publish(s, tmpc);
			/* an instance's traceon: the programs record while it may turn on */
			tfs_recording_update(s);
			ret = 1;
		}
	}
out:
	tfs_words_free(&ws);
	tfs_words_free(&list);
	tfs_words_free(&cmds);
	tfs_funcs_free(&fs);
	return ret;
}

/* the text of a list file: the functions it selects, then the commands */
static void list_show(struct tfs_session *s, struct tfs_inst *in, enum tfs_list id, struct tfs_sbuf *b)
{
	struct tfs_words list = { 0 };
	struct tfs_funcs fs;
	char *sel = NULL;
	const char *src = list_of(s, in, id);

	tfs_words_split(&list, src, strlen(src));
	if (!list.n) {
		if (id == L_FILTER || id == L_GFUNC || id == L_STACK)
			tfs_sb_puts(b, "#### all functions enabled ####\n");
		else
			tfs_sb_puts(b, "#### no functions disabled ####\n");
	} else {
		tfs_funcs_load(s, &fs);
		sel = calloc(fs.n + 1, 1);
		for (int i = 0; sel && i < list.n; i++) {
			int neg = list.w[i][0] == '!', any = 0;
			struct fword fw;

			if (fword_parse(list.w[i] + neg, &fw))
				continue;
			for (size_t k = 0; k < fs.n; k++) {
				if (fword_matches(&fw, &fs.f[k])) {
					sel[k] = !neg;
					any = 1;
				}
			}
			if (!any && !neg) {
				/* nothing known matches yet (not loaded): the pattern */
				tfs_sb_puts(b, list.w[i]);
				tfs_sb_puts(b, "\n");
			}
		}
		for (size_t k = 0; sel && k < fs.n; k++) {
			if (sel[k]) {
				tfs_func_print(b, &fs.f[k]);
				tfs_sb_puts(b, "\n");
			}
		}
		free(sel);
		tfs_funcs_free(&fs);
	}
	tfs_words_free(&list);
	if (id != L_FILTER || cmds_dir(s, in) < 0)
		return;
	tfs_words_split(&list, s->ctl->commands, strlen(s->ctl->commands));
	if (list.n)
		tfs_funcs_load(s, &fs);
	for (int i = 0; i < list.n; i++) {
		uint32_t bank = __atomic_load_n(&s->ctl->cmd_bank, __ATOMIC_ACQUIRE) & 1;
		const struct tfs_func *f = NULL;
		const char *rest;
		struct fword fw;

		/* the directory's own (word i counts in cmd_count[bank][i]) */
		if ((int)word_dir(list.w[i], &rest) != cmds_dir(s, in) || fword_parse(rest, &fw))
			continue;
		/* as the kernel's %ps: a function of a library with its module */
		for (size_t k = 0; k < fs.n && !f; k++)
			if (!strcmp(fs.f[k].name, fw.glob))
				f = &fs.f[k];
		if (f)
			tfs_func_print(b, f);
		else
			tfs_sb_puts(b, fw.glob);
		tfs_sb_printf(b, ":%s", fw.cmd);
		if (fw.sys[0])
			tfs_sb_printf(b, ":%s:%s", fw.sys, fw.event);
		/* as the kernel: the runs left, shared by the processes */
		if (fw.count && i < UT_CTL_CMDS)
			tfs_sb_printf(b, ":count=%lld\n",
				      (long long)__atomic_load_n(&s->ctl->cmd_count[bank][i],
								 __ATOMIC_RELAXED));
		else if (fw.count)
			tfs_sb_printf(b, ":count=%s\n", fw.count);
		else
			tfs_sb_puts(b, ":unlimited\n");
	}
	if (list.n)
		tfs_funcs_free(&fs);
	tfs_words_free(&list);
}

/* ---- the files: ->arg is the list ---- */

static int list_file_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	list_show(h->s, h->n.inst, (enum tfs_list)h->n.f->arg, b);
	return 0;
}

static int list_file_write(struct tfs_handle *h, const char *buf, size_t size)
{
	int ret = list_write(h->s, h->n.inst, (enum tfs_list)h->n.f->arg, buf, size,
			     h->trunc_pending);

	if (ret >= 0)
		h->trunc_pending = 0;
	return ret;
}

/* a list emptied (O_TRUNC with nothing written, or truncate(2)): TFS_WR_APPLY if changed */
static int list_file_truncate(struct tfs_handle *h)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	enum tfs_list id = (enum tfs_list)h->n.f->arg;
	char *l = list_of(s, in, id);

	if (!l || !l[0])
		return 0;
	if (in != &s->top)
		tfs_inst_pump(in);
	l[0] = '\0';
	return id == L_FILTER || id == L_NOTRACE ? tfs_lists_update(s) : TFS_WR_APPLY;
}

#define LIST_FILE(name, where, list)							\
	TFS_FILE(name, 0640, where, .show = list_file_show, .write = list_file_write,	\
		 .open = tfs_list_open, .truncate = list_file_truncate,			\
		 .release = tfs_list_release, .arg = list)

const struct tfs_file tfs_lists_files[] = {
	LIST_FILE("set_ftrace_filter", W_TOP | W_INST, L_FILTER),
	LIST_FILE("set_ftrace_notrace", W_TOP | W_INST, L_NOTRACE),
	LIST_FILE("set_graph_function", W_TOP, L_GFUNC),
	LIST_FILE("set_graph_notrace", W_TOP, L_GNOTRACE),
	/* the max stack tracer's functions (runtime/profile.c) */
	LIST_FILE("stack_trace_filter", W_TOP, L_STACK),
	TFS_FILES_END
};
