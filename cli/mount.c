// SPDX-License-Identifier: MIT
/*
 * mount.c - usertrace mount: the session daemon of a tracing directory,
 * and usertrace umount.
 *
 *   usertrace mount DIR [-b SIZE] -- PROG ARGS
 *   usertrace umount DIR
 *
 * The daemon creates a session (recorder/session.c) whose runtime starts with
 * the nop tracer, tracing_on 1 and overwrite buffers, starts PROG, and
 * serves the files of tracefs/tracefs.h two ways:
 *
 *  - a FUSE mount at DIR (libfuse3, low-level API, multithreaded: a
 *    reader blocked in trace_pipe does not stop other requests); mount
 *    option default_permissions, no allow_other: only its owner uses it;
 *  - the UNIX socket SESSION/ctl.sock (0600; the peer's uid is checked
 *    with SO_PEERCRED) that usertrace ctl and umount talk to.
 *
 * Socket protocol, one request per connection:
 *
 *   request:  VERB LEN PATH\n  then LEN bytes of data (writes only)
 *             VERB is read, write, append, trunc, ls, mkdir, rmdir or
 *             umount; PATH is relative to the tracing directory, may be
 *             empty, and runs to the end of the line
 *   reply:    any number of  D LEN\n<LEN bytes>  (data: file contents,
 *             ls names one per line), then  S ERRNO\n  (0: success), then
 *             the daemon closes the connection
 *
 * read streams until end of file (trace_pipe: until the tracer changes or
 * the program has ended and everything is read) or until the client goes
 * away.  write opens with O_TRUNC (the shell's '>'), append with O_APPEND
 * ('>>').  umount replies once the mount and the session are gone.
 *
 * The daemon reaps PROG and its descendants (it is a child subreaper),
 * calls tfs_session_ended() when the last one has exited, and keeps
 * serving until umount (or fusermount3 -u DIR, or a signal once the
 * program has ended: before, SIGINT, SIGTERM, SIGHUP and SIGQUIT go to
 * PROG).  Then it removes the session and exits with PROG's status.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "recorder/daemon_sources.h"
#include "recorder/session.h"
#include "lib/event/builtin.h"
#include "tracefs/tracefs.h"
#include "usertrace/record.h"
#include "usertrace/ringbuf.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "output/profile.h"
#include "utils/utils.h"

#define DEFAULT_BUF_SIZE	(1u << 20)
#define MAX_WRITE		(1u << 20)	/* bytes in one ctl write */

static struct {
	struct session sess;
	struct tfs_session *tfs;
	struct sched_live *sched;	/* the sched events' source (recorder/daemon_sources.c) */
	char mountpoint[PATH_MAX];
	struct timespec start;

	struct fuse_session *se;
	pthread_t fuse_thr;
	int fuse_up;
	volatile int fuse_done;

	int lsock;
	pthread_t accept_thr;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop_requested;	/* umount asked */
	int stopped;		/* the mount and the session are gone */
	int pending_replies;	/* umount requests not answered yet */
	int active;		/* connections being served */
} D = { .lsock = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* wake the main thread (it waits for signals, all blocked in every thread) */
static void wake_main(void)
{
	kill(getpid(), SIGUSR1);
}

/* ---- FUSE: inode numbers are indexes in a table of paths ---- */

static pthread_mutex_t nodes_lock = PTHREAD_MUTEX_INITIALIZER;
static char **nodes;		/* nodes[ino - 1]: the path; ino 1 is "" */
static size_t nr_nodes, nodes_cap;

static fuse_ino_t node_get(const char *path)
{
	fuse_ino_t ino = 0;

	pthread_mutex_lock(&nodes_lock);
	for (size_t i = 0; i < nr_nodes; i++)
		if (!strcmp(nodes[i], path)) {
			ino = i + 1;
			break;
		}
	if (!ino) {
		if (nr_nodes == nodes_cap) {
			nodes_cap = nodes_cap ? nodes_cap * 2 : 256;
			nodes = realloc(nodes, nodes_cap * sizeof(*nodes));
			if (!nodes) {
				fputs("usertrace: out of memory\n", stderr);
				exit(1);
			}
		}
		nodes[nr_nodes++] = xstrdup(path);
		ino = nr_nodes;
	}
	pthread_mutex_unlock(&nodes_lock);
	return ino;
}

/* a copy of the path of @ino, or NULL */
static char *node_path(fuse_ino_t ino)
{
	char *p = NULL;

	pthread_mutex_lock(&nodes_lock);
	if (ino >= 1 && ino <= nr_nodes)
		p = xstrdup(nodes[ino - 1]);
	pthread_mutex_unlock(&nodes_lock);
	return p;
}

static char *child_path(fuse_ino_t parent, const char *name)
{
	char *pp = node_path(parent), *p;
	size_t n;

	if (!pp)
		return NULL;
	n = strlen(pp) + strlen(name) + 2;
	p = xmalloc(n);
	snprintf(p, n, "%s%s%s", pp, *pp ? "/" : "", name);
	free(pp);
	return p;
}

static void fill_attr(fuse_ino_t ino, const struct tfs_stat *st, struct stat *a)
{
	memset(a, 0, sizeof(*a));
	a->st_ino = ino;
	a->st_mode = (st->is_dir ? S_IFDIR : S_IFREG) | (st->mode & 07777);
	a->st_nlink = st->is_dir ? 2 : 1;
	a->st_uid = getuid();
	a->st_gid = getgid();
	a->st_blksize = 4096;
	a->st_atim = a->st_mtim = a->st_ctim = D.start;
}

static void reply_entry(fuse_req_t req, const char *path)
{
	struct fuse_entry_param e;
	struct tfs_stat st;
	int r = tfs_stat(D.tfs, path, &st);

	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = node_get(path);
	fill_attr(e.ino, &st, &e.attr);
	/* no caching: instances come and go, modes may change */
	e.attr_timeout = 0;
	e.entry_timeout = 0;
	fuse_reply_entry(req, &e);
}

static void fs_init(void *data, struct fuse_conn_info *conn)
{
	(void)data;
	/* the shell's '>' reaches open() as O_TRUNC, as tfs_open wants it */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	char *path = child_path(parent, name);

	if (!path) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	reply_entry(req, path);
	free(path);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	char *path = node_path(ino);
	struct tfs_stat st;
	struct stat a;
	int r;

	(void)fi;
	r = path ? tfs_stat(D.tfs, path, &st) : -ENOENT;
	if (r < 0) {
		fuse_reply_err(req, -r);
	} else {
		fill_attr(ino, &st, &a);
		fuse_reply_attr(req, &a, 0);
	}
	free(path);
}

static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	char *path = node_path(ino);
	struct tfs_stat st;
	struct stat a;
	int r = path ? 0 : -ENOENT;

	(void)attr;
	(void)fi;
	if (!r && (to_set & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)))
		r = -EPERM;
	if (!r && (to_set & FUSE_SET_ATTR_SIZE))
		r = tfs_truncate(D.tfs, path);
	/* times: accepted and ignored (touch) */
	if (!r)
		r = tfs_stat(D.tfs, path, &st);
	if (r < 0) {
		fuse_reply_err(req, -r);
	} else {
		fill_attr(ino, &st, &a);
		fuse_reply_attr(req, &a, 0);
	}
	free(path);
}

struct dirlist {
	size_t n, cap;
	char **names;
	struct stat *st;
};

static int dir_fill(void *ctx, const char *name, const struct tfs_stat *st)
{
	struct dirlist *d = ctx;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 32;
		d->names = realloc(d->names, d->cap * sizeof(*d->names));
		d->st = realloc(d->st, d->cap * sizeof(*d->st));
		if (!d->names || !d->st) {
			fputs("usertrace: out of memory\n", stderr);
			exit(1);
		}
	}
	d->names[d->n] = xstrdup(name);
	memset(&d->st[d->n], 0, sizeof(d->st[d->n]));
	d->st[d->n].st_mode = (st->is_dir ? S_IFDIR : S_IFREG) | (st->mode & 07777);
	d->n++;
	return 0;
}

static void dirlist_free(struct dirlist *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
	free(d->st);
	free(d);
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	char *path = node_path(ino);
	struct dirlist *d = xcalloc(1, sizeof(*d));
	int r;

	dir_fill(d, ".", &(struct tfs_stat){ .is_dir = 1, .mode = 0755 });
	dir_fill(d, "..", &(struct tfs_stat){ .is_dir = 1, .mode = 0755 });
	r = path ? tfs_readdir(D.tfs, path, dir_fill, d) : -ENOENT;
	if (r < 0) {
		dirlist_free(d);
		fuse_reply_err(req, -r);
		free(path);
		return;
	}
	/* the inode numbers readdir shows are the ones lookup gives */
	d->st[0].st_ino = ino;
	d->st[1].st_ino = 1;
	for (size_t i = 2; i < d->n; i++) {
		char *p = child_path(ino, d->names[i]);

		d->st[i].st_ino = p ? node_get(p) : 0;
		free(p);
	}
	free(path);
	fi->fh = (uintptr_t)d;
	fuse_reply_open(req, fi);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct dirlist *d = (struct dirlist *)(uintptr_t)fi->fh;
	char *buf = xmalloc(size);
	size_t pos = 0;

	(void)ino;
	for (size_t i = (size_t)off; off >= 0 && i < d->n; i++) {
		size_t n = fuse_add_direntry(req, buf + pos, size - pos, d->names[i], &d->st[i],
					     (off_t)i + 1);

		if (n > size - pos)
			break;
		pos += n;
	}
	fuse_reply_buf(req, buf, pos);
	free(buf);
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dirlist_free((struct dirlist *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	char *path = node_path(ino);
	struct tfs_handle *h = NULL;
	int r = path ? tfs_open(D.tfs, path, fi->flags, &h) : -ENOENT;

	free(path);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fi->fh = (uintptr_t)h;
	/* sizes are 0 and contents change: no page cache */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	if (fuse_reply_open(req, fi) == -ENOENT)	/* the opener was interrupted */
		tfs_release(h);
}

static void fs_interrupt(fuse_req_t req, void *data)
{
	(void)req;
	tfs_interrupt(data);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct tfs_handle *h = (struct tfs_handle *)(uintptr_t)fi->fh;
	char *buf = xmalloc(size ? size : 1);
	ssize_t n;

	(void)ino;
	fuse_req_interrupt_func(req, fs_interrupt, h);
	n = tfs_read(h, buf, size, off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_buf(req, buf, (size_t)n);
	free(buf);
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct tfs_handle *h = (struct tfs_handle *)(uintptr_t)fi->fh;
	ssize_t n;

	(void)ino;
	fuse_req_interrupt_func(req, fs_interrupt, h);
	n = tfs_write(h, buf, size, off);
	if (n < 0)
		fuse_reply_err(req, (int)-n);
	else
		fuse_reply_write(req, (size_t)n);
}

static void fs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	tfs_release((struct tfs_handle *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void fs_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	char *path = child_path(parent, name);
	int r = path ? tfs_mkdir(D.tfs, path) : -ENOENT;

	(void)mode;
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		reply_entry(req, path);
	free(path);
}

static void fs_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	char *path = child_path(parent, name);
	int r = path ? tfs_rmdir(D.tfs, path) : -ENOENT;

	fuse_reply_err(req, r < 0 ? -r : 0);
	free(path);
}

static const struct fuse_lowlevel_ops fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.flush = fs_flush,
	.release = fs_release,
	.mkdir = fs_mkdir,
	.rmdir = fs_rmdir,
};

static void *fuse_thread(void *arg)
{
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	(void)arg;
	/* each blocked trace_pipe reader holds a worker */
	fuse_loop_cfg_set_max_threads(cfg, 256);
	fuse_session_loop_mt(D.se, cfg);
	fuse_loop_cfg_destroy(cfg);
	D.fuse_done = 1;
	wake_main();
	return NULL;
}

static int fuse_start(void)
{
	char *argv[] = { "usertrace", "-o",
			 "default_permissions,fsname=usertrace,subtype=tracefs", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);

	node_get("");	/* FUSE_ROOT_ID, 1 */
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		pr_warn("cannot mount %s: /dev/fuse: %s; serving usertrace ctl only",
			D.mountpoint, strerror(errno));
		return -1;
	}
	D.se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), NULL);
	fuse_opt_free_args(&args);	/* libfuse may have added to them */
	if (!D.se) {
		pr_warn("cannot mount %s: FUSE session failed; serving usertrace ctl only",
			D.mountpoint);
		return -1;
	}
	if (fuse_session_mount(D.se, D.mountpoint) != 0) {
		pr_warn("cannot mount %s (FUSE mount failed, see above); serving usertrace ctl only",
			D.mountpoint);
		fuse_session_destroy(D.se);
		D.se = NULL;
		return -1;
	}
	if (pthread_create(&D.fuse_thr, NULL, fuse_thread, NULL)) {
		pr_warn("cannot start the FUSE thread; serving usertrace ctl only");
		fuse_session_unmount(D.se);
		fuse_session_destroy(D.se);
		D.se = NULL;
		return -1;
	}
	D.fuse_up = 1;
	return 0;
}

static int run_wait(char *const argv[])
{
	int st;
	pid_t p = fork();

	if (p < 0)
		return -1;
	if (p == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* the kernel unmount; the FUSE loop then ends */
static void unmount_dir(const char *dir)
{
	if (geteuid() == 0) {
		if (umount2(dir, 0) == 0 || errno == EINVAL)
			return;
		umount2(dir, MNT_DETACH);
		return;
	}
	if (run_wait((char *const[]){ "fusermount3", "-u", (char *)dir, NULL }) < 0)
		run_wait((char *const[]){ "fusermount3", "-u", "-z", (char *)dir, NULL });
}

static void fuse_stop(void)
{
	struct timespec ts;

	if (!D.fuse_up)
		return;
	if (!D.fuse_done) {
		fuse_session_exit(D.se);
		unmount_dir(D.mountpoint);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 3;
	if (pthread_timedjoin_np(D.fuse_thr, NULL, &ts) == 0) {
		/* quiet: the connection is gone already */
		fuse_session_unmount(D.se);
		fuse_session_destroy(D.se);
	}
	/* else a reader still holds a lazily unmounted file: exiting ends it */
	D.fuse_up = 0;
}

/* ---- the socket ---- */

struct conn {
	int fd;
	char buf[PATH_MAX + 64];
	size_t len;		/* bytes in buf */
};

static int send_data(int fd, const char *p, size_t n)
{
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "D %zu\n", n);

	return ut_send_all(fd, hdr, (size_t)k) || ut_send_all(fd, p, n) ? -1 : 0;
}

static void send_status(int fd, int err)
{
	char hdr[32];
	int k = snprintf(hdr, sizeof(hdr), "S %d\n", err);

	ut_send_all(fd, hdr, (size_t)k);
}

/* the client went away while we wait in tfs_read: interrupt it */
struct watch {
	int fd, efd;
	struct tfs_handle *h;
	volatile int gone;
};

static void *watcher(void *arg)
{
	struct watch *w = arg;
	struct pollfd pf[2] = { { .fd = w->fd, .events = POLLRDHUP }, { .fd = w->efd, .events = POLLIN } };

	for (;;) {
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[1].revents)
			break;
		if (pf[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
			w->gone = 1;
			tfs_interrupt(w->h);
			break;
		}
	}
	return NULL;
}

static int serve_read(int fd, const char *path)
{
	struct tfs_handle *h;
	struct watch w = { .fd = fd, .efd = -1 };
	pthread_t thr;
	int watching = 0, r;
	off_t off = 0;
	char *buf;

	r = tfs_open(D.tfs, path, O_RDONLY, &h);
	if (r < 0)
		return r;
	w.h = h;
	w.efd = eventfd(0, EFD_CLOEXEC);
	if (w.efd >= 0 && pthread_create(&thr, NULL, watcher, &w) == 0)
		watching = 1;
	buf = xmalloc(65536);
	for (;;) {
		ssize_t n;

		if (w.gone) {
			r = -EPIPE;
			break;
		}
		n = tfs_read(h, buf, 65536, off);
		if (n < 0) {
			r = (int)n;
			break;
		}
		if (n == 0) {
			r = 0;
			break;
		}
		off += n;
		if (send_data(fd, buf, (size_t)n) < 0) {
			r = -EPIPE;
			break;
		}
	}
	free(buf);
	if (watching) {
		uint64_t one = 1;

		if (write(w.efd, &one, sizeof(one)) < 0)
			pthread_cancel(thr);
		pthread_join(thr, NULL);
	}
	if (w.efd >= 0)
		close(w.efd);
	tfs_release(h);
	return r;
}

static int serve_write(const char *path, int flags, const char *data, size_t len)
{
	struct tfs_handle *h;
	size_t done = 0;
	int r = tfs_open(D.tfs, path, O_WRONLY | flags, &h);

	if (r < 0)
		return r;
	while (done < len || (len == 0 && done == 0)) {
		ssize_t n = tfs_write(h, data + done, len - done, (off_t)done);

		if (n < 0) {
			r = (int)n;
			break;
		}
		if (len == 0 || n == 0)
			break;
		done += (size_t)n;
	}
	tfs_release(h);
	return r;
}

static int ls_fill(void *ctx, const char *name, const struct tfs_stat *st)
{
	struct dirlist *d = ctx;

	return dir_fill(d, name, st);
}

static int serve_ls(int fd, const char *path)
{
	struct dirlist *d = xcalloc(1, sizeof(*d));
	int r = tfs_readdir(D.tfs, path, ls_fill, d);

	for (size_t i = 0; r >= 0 && i < d->n; i++) {
		size_t n = strlen(d->names[i]);

		d->names[i][n] = '\n';
		if (send_data(fd, d->names[i], n + 1) < 0)
			r = -EPIPE;
		d->names[i][n] = 0;
	}
	dirlist_free(d);
	return r < 0 ? r : 0;
}

static int serve_umount(void)
{
	pthread_mutex_lock(&D.lock);
	D.stop_requested = 1;
	D.pending_replies++;
	wake_main();
	while (!D.stopped)
		pthread_cond_wait(&D.cond, &D.lock);
	pthread_mutex_unlock(&D.lock);
	return 0;
}

/* read until a newline; the line is left NUL-terminated in c->buf */
static int read_line(struct conn *c, size_t *linelen)
{
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->len);
		ssize_t n;

		if (nl) {
			*nl = 0;
			*linelen = (size_t)(nl - c->buf) + 1;
			return 0;
		}
		if (c->len == sizeof(c->buf))
			return -1;
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c->len += (size_t)n;
	}
}

static void serve(struct conn *c)
{
	char verb[16], *path, *data = NULL, *end;
	unsigned long long dlen;
	size_t linelen, have;
	int r = -EINVAL, umount = 0;

	if (read_line(c, &linelen) < 0)
		return;
	/* VERB LEN PATH */
	end = strchr(c->buf, ' ');
	if (!end || (size_t)(end - c->buf) >= sizeof(verb))
		goto out;
	memcpy(verb, c->buf, (size_t)(end - c->buf));
	verb[end - c->buf] = 0;
	errno = 0;
	dlen = strtoull(end + 1, &path, 10);
	if (errno || path == end + 1 || (*path && *path != ' '))
		goto out;
	if (*path)
		path++;
	while (*path == '/')
		path++;
	if (dlen > MAX_WRITE) {
		r = -EFBIG;
		goto out;
	}
	/* the data of a write */
	data = xmalloc(dlen + 1);
	have = c->len - linelen;
	if (have > dlen)
		have = dlen;
	memcpy(data, c->buf + linelen, have);
	while (have < dlen) {
		ssize_t n = recv(c->fd, data + have, dlen - have, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto done;
		have += (size_t)n;
	}
	if (!strcmp(verb, "read"))
		r = serve_read(c->fd, path);
	else if (!strcmp(verb, "write"))
		r = serve_write(path, O_TRUNC, data, dlen);
	else if (!strcmp(verb, "append"))
		r = serve_write(path, O_APPEND, data, dlen);
	else if (!strcmp(verb, "trunc"))
		r = tfs_truncate(D.tfs, path);
	else if (!strcmp(verb, "ls"))
		r = serve_ls(c->fd, path);
	else if (!strcmp(verb, "mkdir"))
		r = tfs_mkdir(D.tfs, path);
	else if (!strcmp(verb, "rmdir"))
		r = tfs_rmdir(D.tfs, path);
	else if (!strcmp(verb, "umount"))
		r = serve_umount(), umount = 1;
out:
	send_status(c->fd, r < 0 ? -r : 0);
	if (umount) {
		pthread_mutex_lock(&D.lock);
		D.pending_replies--;
		pthread_cond_broadcast(&D.cond);
		pthread_mutex_unlock(&D.lock);
	}
done:
	free(data);
}

static void *conn_thread(void *arg)
{
	struct conn *c = arg;

	serve(c);
	close(c->fd);
	free(c);
	pthread_mutex_lock(&D.lock);
	D.active--;
	pthread_mutex_unlock(&D.lock);
	return NULL;
}

static void *accept_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		pthread_attr_t attr;
		pthread_t thr;
		struct conn *c;
		int fd = accept4(D.lsock, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				if (errno != EINTR && errno != ECONNABORTED)
					usleep(10000);
				continue;
			}
			return NULL;	/* shut down */
		}
		/* only the session's owner */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != geteuid()) {
			send_status(fd, EACCES);
			close(fd);
			continue;
		}
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		pthread_mutex_lock(&D.lock);
		D.active++;
		pthread_mutex_unlock(&D.lock);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&thr, &attr, conn_thread, c)) {
			send_status(fd, EAGAIN);
			close(fd);
			free(c);
			pthread_mutex_lock(&D.lock);
			D.active--;
			pthread_mutex_unlock(&D.lock);
		}
		pthread_attr_destroy(&attr);
	}
}

static int socket_start(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", D.sess.dir, SESSION_SOCK);
	D.lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (D.lsock < 0) {
		pr_err("socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177);
	r = bind(D.lsock, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || chmod(sa.sun_path, 0600) < 0 || listen(D.lsock, 64) < 0) {
		pr_err("%s: %s", sa.sun_path, strerror(errno));
		return -1;
	}
	if (pthread_create(&D.accept_thr, NULL, accept_thread, NULL)) {
		pr_err("cannot start the socket thread");
		return -1;
	}
	return 0;
}

static int write_session_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", D.sess.dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	r = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return r;
}

/* ---- the command ---- */

static void mount_usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace mount DIR [-b SIZE] -- PROG [ARGS...]\n"
		"\n"
		"Run PROG and serve its tracing directory at DIR (FUSE) and to\n"
		"usertrace ctl, until usertrace umount DIR.  PROG starts with the nop\n"
		"tracer: echo function_graph > DIR/current_tracer starts tracing.\n"
		"\n"
		"  -b, --buffer SIZE    ring buffer per thread, e.g. 512K, 8M (default 1M)\n"
		"\n"
		"See usertrace-mount(1).\n");
}

static int status_of(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

/* reap what has exited; 1 when no child is left */
static int reap(pid_t prog, int *prog_ws)
{
	pid_t w;
	int ws;

	while ((w = waitpid(-1, &ws, WNOHANG)) > 0)
		if (w == prog)
			*prog_ws = ws;
	return w < 0 && errno == ECHILD;
}

int command_mount(int argc, char **argv)
{
	const char *dir = NULL;
	size_t buf_size = DEFAULT_BUF_SIZE;
	char lib[PATH_MAX], text[64];
	sigset_t block, orig;
	int i, prog_ws = -1, ended = 0, said = 0;
	char killed[PATH_MAX + 64];
	char **prog_argv = NULL;
	struct stat st;
	pid_t prog;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			mount_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "-b") || !strcmp(a, "--buffer")) {
			if (++i >= argc) {
				pr_err("option '%s' needs a size", a);
				return 2;
			}
			val = argv[i];
		} else if (!strncmp(a, "-b", 2)) {
			val = a + 2;
		} else if (!strncmp(a, "--buffer=", 9)) {
			val = a + 9;
		} else if (a[0] == '-' && a[1]) {
			pr_err("unknown option '%s' (see usertrace mount -h)", a);
			return 2;
		} else if (!dir) {
			dir = a;
			continue;
		} else {
			break;	/* PROG without -- */
		}
		{
			long long size = parse_size(val);

			if (size < 2 * (long long)RB_PAGE_SIZE || size > (1ll << 34)) {
				pr_err("invalid buffer size '%s' (from 8K to 16G, e.g. 64K, 8M)", val);
				return 2;
			}
			buf_size = (size_t)size;
		}
	}
	if (!dir) {
		pr_err("no mount point: usertrace mount DIR [-b SIZE] -- PROG [ARGS...]");
		return 2;
	}
	if (i >= argc) {
		pr_err("no program to run: usertrace mount DIR [-b SIZE] -- PROG [ARGS...]");
		return 2;
	}
	prog_argv = argv + i;
	if (stat(dir, &st) < 0) {
		pr_err("%s: %s", dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		pr_err("%s: %s", dir, strerror(ENOTDIR));
		return 1;
	}
	if (!realpath(dir, D.mountpoint)) {
		pr_err("%s: %s", dir, strerror(errno));
		return 1;
	}
	if (session_find_runtime(lib, sizeof(lib)) < 0) {
		pr_err("cannot find libusertrace.so (next to the usertrace binary; or set USERTRACE_LIB)");
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &D.start);

	/*
	 * Every signal we wait for is blocked in all threads (they inherit
	 * the mask) and taken by sigwaitinfo() in this one; PROG gets the
	 * mask we were started with.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &orig);

	if (session_create(&D.sess) < 0)
		return 1;
	/* available_events lists the built-in events from the start, as the kernel's */
	if (ut_builtin_register(D.sess.events) < 0)
		pr_warn("the built-in events do not fit in the event registry");
	D.sess.ctl->flags = UT_CTL_LIVE;
	D.sess.ctl->active_tracers = 1u << ut_tracer_index(UT_TRACER_NONE);	/* current_tracer */
	D.sess.ctl->nr_pages = (uint32_t)(buf_size / RB_PAGE_SIZE);
	D.sess.ctl->buf_mode = RB_MODE_OVERWRITE;
	D.sess.ctl->clock = (uint32_t)session_default_clock();
	D.sess.ctl->tracing_on = 1;
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (write_session_file(SESSION_MOUNTPOINT, D.mountpoint) < 0 ||
	    write_session_file(SESSION_DAEMON, text) < 0) {
		pr_err("cannot write into %s: %s", D.sess.dir, strerror(errno));
		session_destroy(&D.sess);
		return 1;
	}
	/* the function profiler's trace_stat/function<cpu> (output/profile.c) */
	prof_register_stats();
	D.tfs = tfs_session_open(D.sess.dir);
	if (!D.tfs || socket_start() < 0) {
		session_destroy(&D.sess);
		return 1;
	}
	/* the sched events, collected here while a directory wants them */
	D.sched = sched_live_start(&D.sess);
	tfs_session_set_collector(D.tfs, sched_live_sync, D.sched);
	fuse_start();
	prog = session_start(&D.sess, prog_argv, lib, &orig);
	if (prog < 0) {
		/* nothing to trace: stop serving */
		ended = 1;
		D.stop_requested = 1;
	}

	while (!D.stop_requested && !D.fuse_done) {
		siginfo_t si;
		int sig;

		if (!ended && reap(prog, &prog_ws)) {
			ended = 1;
			sched_live_ended(D.sched);
			tfs_session_ended(D.tfs);
		}
		/* a crash is said at once: the daemon serves on, the user may not know */
		if (!said && prog_ws != -1) {
			said = 1;
			snprintf(killed, sizeof(killed), "; %s serves its trace until usertrace umount",
				 D.mountpoint);
			pr_killed(prog_ws, killed);
		}
		sig = sigwaitinfo(&block, &si);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) {
			if (!ended)
				kill(prog, sig);	/* for the program, as record does */
			else
				break;
		}
	}

	/* stop serving: the mount, the socket, the session */
	if (!ended)
		D.sess.ctl->tracing_on = 0;
	fuse_stop();
	shutdown(D.lsock, SHUT_RDWR);
	close(D.lsock);
	pthread_join(D.accept_thr, NULL);
	{
		char sock[PATH_MAX];

		snprintf(sock, sizeof(sock), "%s/%s", D.sess.dir, SESSION_SOCK);
		unlink(sock);
	}
	/* the kernel's instance or the perf events go before the buffers */
	sched_live_stop(D.sched);
	/* nor does the instances' pump read a session being removed */
	tfs_session_stop_pump(D.tfs);
	session_destroy(&D.sess);
	pthread_mutex_lock(&D.lock);
	D.stopped = 1;
	pthread_cond_broadcast(&D.cond);
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 2;
		while (D.pending_replies &&
		       pthread_cond_timedwait(&D.cond, &D.lock, &ts) == 0)
			;
	}
	if (!D.active && ended)
		tfs_session_close(D.tfs);
	pthread_mutex_unlock(&D.lock);

	/* unmounted while the program runs: wait for it, untraced */
	while (!ended) {
		siginfo_t si;
		int sig;

		if (reap(prog, &prog_ws)) {
			if (!said)
				pr_killed(prog_ws, "");
			break;
		}
		sig = sigwaitinfo(&block, &si);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)
			kill(prog, sig);
	}
	if (prog < 0)
		return 1;
	return prog_ws == -1 ? 1 : status_of(prog_ws);
}

/* ---- usertrace umount DIR ---- */

static int is_fuse_mount(const char *dir)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char mp[PATH_MAX], *dash;

		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		dash = strstr(line, " - ");
		if (!strcmp(mp, dir) && dash && !strncmp(dash + 3, "fuse.tracefs", 12))
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

int command_umount(int argc, char **argv)
{
	char abs[PATH_MAX], line[64];
	size_t len = 0;
	int fd, err = -1;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: usertrace umount DIR\n\nStop the session daemon serving DIR "
		       "(usertrace mount); see usertrace-mount(1).\n");
		return 0;
	}
	if (argc != 2) {
		pr_err("usage: usertrace umount DIR");
		return 2;
	}
	/* not a directory to look for a session in (./-x is one) */
	if (argv[1][0] == '-') {
		pr_err("unknown option '%s' (see usertrace umount -h)", argv[1]);
		return 2;
	}
	fd = session_connect_mount(argv[1], 1);
	if (fd < 0) {
		/* no daemon answers: a FUSE mount of ours left behind? */
		if (!realpath(argv[1], abs))
			snprintf(abs, sizeof(abs), "%s", argv[1]);
		if (is_fuse_mount(abs) &&
		    run_wait((char *const[]){ "fusermount3", "-u", abs, NULL }) == 0)
			return 0;
		pr_err("%s: no usertrace session is mounted there", argv[1]);
		return 1;
	}
	if (ut_send_all(fd, "umount 0 \n", 10) < 0) {
		pr_err("%s: %s", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	/* the reply: S ERRNO */
	while (len < sizeof(line) - 1) {
		ssize_t n = recv(fd, line + len, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || line[len] == '\n')
			break;
		len++;
	}
	line[len] = 0;
	close(fd);
	if (sscanf(line, "S %d", &err) != 1) {
		pr_err("%s: the session daemon did not answer", argv[1]);
		return 1;
	}
	if (err) {
		pr_err("%s: %s", argv[1], strerror(err));
		return 1;
	}
	return 0;
}
