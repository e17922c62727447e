// SPDX-License-Identifier: MIT
/*
 * ctl.c - usertrace ctl: read and write the tracing directory of a
 * running session (usertrace mount) without a mount, through the session
 * daemon's socket SESSION/ctl.sock (protocol: cli/mount.c).
 *
 *   usertrace ctl (-p PID | -m DIR) read FILE
 *   usertrace ctl (-p PID | -m DIR) write FILE [TEXT...]     echo TEXT > FILE
 *   usertrace ctl (-p PID | -m DIR) append FILE [TEXT...]    echo TEXT >> FILE
 *   usertrace ctl (-p PID | -m DIR) ls [DIR] | trunc FILE | mkdir DIR | rmdir DIR
 *
 * The session of PID is found through the USERTRACE_SESSION variable in
 * /proc/PID/environ (PID is any process of the traced program), or PID is
 * the daemon itself; sessions of another user are refused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "recorder/session.h"
#include "usertrace/session.h"
#include "utils/utils.h"

#define SHM		"/dev/shm"
#define SHM_PREFIX	"usertrace."

/* a small file of the session directory, without its trailing newline */
static char *session_file(const char *session, const char *name)
{
	char path[PATH_MAX], *s;
	size_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", session, name) >= sizeof(path))
		return NULL;
	s = read_file(path, &n);
	while (s && n && s[n - 1] == '\n')
		s[--n] = 0;
	return s;
}

/* the session directory of ours whose file @name holds @value */
static int find_session(const char *name, const char *value, char *out, size_t size)
{
	DIR *d = opendir(SHM);
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		char dir[PATH_MAX], *v;
		struct stat st;

		if (strncmp(de->d_name, SHM_PREFIX, strlen(SHM_PREFIX)))
			continue;
		snprintf(dir, sizeof(dir), SHM "/%s", de->d_name);
		if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		v = session_file(dir, name);
		if (v && !strcmp(v, value)) {
			snprintf(out, size, "%s", dir);
			found = 1;
		}
		free(v);
	}
	if (d)
		closedir(d);
	return found ? 0 : -1;
}

/* connect to SESSION/ctl.sock; @who names the session in messages */
static int connect_session(const char *session, const char *who)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", session, SESSION_SOCK) >=
	    sizeof(sa.sun_path)) {
		pr_err("%s: session path too long: %s", who, session);
		return -1;
	}
	if (lstat(session, &st) == 0 && st.st_uid != geteuid()) {
		pr_err("%s: the session %s belongs to another user", who, session);
		return -1;
	}
	if (lstat(sa.sun_path, &st) < 0) {
		if (errno == ENOENT)
			pr_err("%s: session %s has no tracing directory (not started by "
			       "'usertrace mount', or its daemon has exited)", who, session);
		else
			pr_err("%s: %s: %s", who, sa.sun_path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		pr_err("%s: %s is not a session socket of yours; refused", who, sa.sun_path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		pr_err("socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == ECONNREFUSED || errno == ENOENT)
			pr_err("%s: the session daemon is gone (%s)", who, strerror(errno));
		else
			pr_err("%s: %s: %s", who, sa.sun_path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int session_connect_pid(pid_t pid)
{
	char path[64], who[32], session[PATH_MAX], *env, *p;
	size_t len;

	snprintf(who, sizeof(who), "process %d", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		pr_err("%s: %s", who, strerror(ESRCH));
		return -1;
	}
	env = read_file(path, &len);
	if (!env) {
		int e = errno;

		if (e == ENOENT || e == ESRCH)
			pr_err("%s: %s", who, strerror(ESRCH));
		else
			pr_err("%s: cannot read its environment: %s", who, strerror(e));
		return -1;
	}
	session[0] = 0;
	for (p = env; p < env + len; p += strlen(p) + 1)
		if (!strncmp(p, UT_SESSION_ENV "=", strlen(UT_SESSION_ENV) + 1)) {
			snprintf(session, sizeof(session), "%s", p + strlen(UT_SESSION_ENV) + 1);
			break;
		}
	free(env);
	if (!session[0]) {
		char text[32];

		/* the daemon itself? */
		snprintf(text, sizeof(text), "%d", (int)pid);
		if (find_session(SESSION_DAEMON, text, session, sizeof(session)) < 0) {
			pr_err("%s is not traced by usertrace (no %s in its environment)", who,
			       UT_SESSION_ENV);
			return -1;
		}
	}
	return connect_session(session, who);
}

int session_connect_mount(const char *dir, int quiet)
{
	char abs[PATH_MAX], session[PATH_MAX];

	/* a mount whose daemon died cannot be resolved: use the path as given */
	if (!realpath(dir, abs)) {
		char cwd[PATH_MAX - 256];

		if (dir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
			snprintf(abs, sizeof(abs), "%s", dir);
		else
			snprintf(abs, sizeof(abs), "%s/%s", cwd, dir);
		for (size_t n = strlen(abs); n > 1 && abs[n - 1] == '/'; n--)
			abs[n - 1] = 0;
	}
	if (find_session(SESSION_MOUNTPOINT, abs, session, sizeof(session)) < 0) {
		if (!quiet)
			pr_err("%s: no usertrace session is mounted there", dir);
		return -1;
	}
	return connect_session(session, dir);
}

static void ctl_usage(FILE *f)
{
	fprintf(f,
		"usage: usertrace ctl (-p PID | -m DIR) COMMAND [ARGS]\n"
		"\n"
		"  -p, --pid PID        the session of process PID (or of its daemon)\n"
		"  -m, --mount DIR      the session mounted at DIR\n"
		"\n"
		"commands (FILE is relative to the tracing directory):\n"
		"  read FILE            print FILE (cat); trace_pipe streams\n"
		"  write FILE [TEXT]    echo TEXT > FILE\n"
		"  append FILE [TEXT]   echo TEXT >> FILE\n"
		"  trunc FILE           truncate FILE (: > FILE)\n"
		"  ls [DIR]             the names in DIR\n"
		"  mkdir DIR, rmdir DIR instances/NAME\n"
		"\n"
		"See usertrace-ctl(1).\n");
}

static int recv_all(int fd, void *p, size_t n)
{
	char *c = p;

	while (n) {
		ssize_t r = recv(fd, c, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static int recv_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		ssize_t r = recv(fd, buf + n, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
	return 0;
}

int command_ctl(int argc, char **argv)
{
	const char *verb, *file = "";
	char *data = NULL, hdr[PATH_MAX + 64], line[64], *chunk = NULL;
	size_t dlen = 0, chunk_size = 0;
	pid_t pid = 0;
	const char *mnt = NULL;
	int i = 1, fd, err = -1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			ctl_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-p") || !strcmp(a, "--pid") || !strcmp(a, "-m") || !strcmp(a, "--mount")) {
			if (i + 1 >= argc) {
				pr_err("option '%s' needs an argument", a);
				return 2;
			}
			if (a[1] == 'p' || a[2] == 'p') {
				char *end;
				long v = strtol(argv[++i], &end, 10);

				if (*end || end == argv[i] || v <= 0 || v > INT32_MAX) {
					pr_err("invalid pid '%s'", argv[i]);
					return 2;
				}
				pid = (pid_t)v;
			} else {
				mnt = argv[++i];
			}
			continue;
		}
		pr_err("unknown option '%s' (see usertrace ctl -h)", a);
		return 2;
	}
	if (!pid == !mnt) {
		pr_err("which session? usertrace ctl -p PID or -m DIR");
		ctl_usage(stderr);
		return 2;
	}
	if (i >= argc) {
		pr_err("no command: read, write, append, trunc, ls, mkdir or rmdir");
		return 2;
	}
	verb = argv[i++];
	if (!strcmp(verb, "cat"))
		verb = "read";
	if (strcmp(verb, "read") && strcmp(verb, "write") && strcmp(verb, "append") &&
	    strcmp(verb, "trunc") && strcmp(verb, "ls") && strcmp(verb, "mkdir") &&
	    strcmp(verb, "rmdir")) {
		pr_err("unknown command '%s' (read, write, append, trunc, ls, mkdir, rmdir)", verb);
		return 2;
	}
	if (i < argc)
		file = argv[i++];
	else if (strcmp(verb, "ls")) {
		pr_err("%s: which file?", verb);
		return 2;
	}
	while (*file == '/')
		file++;
	if (strchr(file, '\n')) {
		pr_err("invalid file name");
		return 2;
	}
	if (!strcmp(verb, "write") || !strcmp(verb, "append")) {
		/* as echo prints its arguments: blank-separated, a newline at the end */
		for (int k = i; k < argc; k++)
			dlen += strlen(argv[k]) + 1;
		data = xmalloc(dlen + 1);
		dlen = 0;
		for (int k = i; k < argc; k++)
			dlen += (size_t)sprintf(data + dlen, "%s%s", k > i ? " " : "", argv[k]);
		data[dlen++] = '\n';
	} else if (i < argc) {
		pr_err("%s: too many arguments", verb);
		return 2;
	}

	fd = pid ? session_connect_pid(pid) : session_connect_mount(mnt, 0);
	if (fd < 0) {
		free(data);
		return 1;
	}
	snprintf(hdr, sizeof(hdr), "%s %zu %s\n", verb, dlen, file);
	if (ut_send_all(fd, hdr, strlen(hdr)) < 0 || (dlen && ut_send_all(fd, data, dlen) < 0)) {
		pr_err("sending to the session daemon: %s", strerror(errno));
		goto out;
	}
	/* D LEN\n<data>... then S ERRNO\n */
	for (;;) {
		size_t n;

		if (recv_line(fd, line, sizeof(line)) < 0)
			break;
		if (line[0] == 'S') {
			if (sscanf(line, "S %d", &err) != 1)
				err = -1;
			break;
		}
		if (line[0] != 'D' || sscanf(line, "D %zu", &n) != 1)
			break;
		if (n > chunk_size) {
			free(chunk);
			chunk = xmalloc(n);
			chunk_size = n;
		}
		if (recv_all(fd, chunk, n) < 0)
			break;
		if (fwrite(chunk, 1, n, stdout) != n || fflush(stdout) != 0) {
			err = 0;	/* our reader went away (| head) */
			break;
		}
	}
	if (err < 0)
		pr_err("%s: the session daemon went away", *file ? file : ".");
	else if (err > 0)
		pr_err("%s: %s", *file ? file : ".", strerror(err));
out:
	close(fd);
	free(data);
	free(chunk);
	return err == 0 ? 0 : 1;
}
