// SPDX-License-Identifier: MIT
/*
 * fuzz_tracefs.c - libFuzzer target: the tracing directory's files
 * (tracefs/, the one registry of files and handlers) driven as
 * the FUSE mount and `usertrace ctl` drive them, with no program running:
 * tracefs/live.c is replaced by fuzz/live_stub.c, which checks what
 * the handlers ask of it.
 *
 * The input is a script.  An operation is a line starting with '@' (at
 * the start of the input or after a newline); a write's bytes are what
 * follows, up to the newline before the next operation:
 *
 *   @> PATH      open PATH for writing with O_TRUNC (the shell's '>'),
 *                then write the bytes
 *   @>> PATH     the same with O_APPEND ('>>')
 *   @+           one more write(2) of the bytes on the open file
 *   @close       close it (each open closes the one before)
 *   @< PATH      read PATH whole
 *   @t PATH      truncate(2)
 *   @mkdir PATH  @rmdir PATH  @ls PATH  @stat PATH
 *   @file NAME   a file of the session directory with the bytes: a
 *                process's function list (ftrace.<pid>), a buffer's
 *                name (buf.<pid>.<tid>.<image>)...; not "control"
 *   @traceoff    the program's traceoff command fired (the control
 *   @traceon     page's tracing_on set behind the directory's back)
 *
 * Each input gets a new session: a control page as `usertrace mount`
 * creates it, a list of the program's functions (ftrace.<pid>) and an
 * event registry with the program's events myapp:request and
 * myapp:response; at the end every file of every directory is read back.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz/files.h"
#include "tracefs/tracefs.h"
#include "usertrace/evreg.h"
#include "usertrace/record.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the traced program's functions, as the runtime lists them */
static const char funcs[] =
	"main\tfuzz_tracefs\tp\n"
	"parse_a\tfuzz_tracefs\tpe\n"
	"parse_b\tfuzz_tracefs\tp\n"
	"run\tfuzz_tracefs\tp\n"
	"log_msg\tfuzz_tracefs\t\n"
	"foo::bar()\tfuzz_tracefs\tp\n"
	"foo_init\t/usr/lib/libfoo.so\tp\n"
	"foo_lock\t/usr/lib/libfoo.so\tpe\n"
	"main\t/usr/lib/libfoo.so\tp\n";

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		abort();
	}
}

/* the control page as the traced program sees it (a mapping of the file) */
static struct ut_session_ctl *prog_ctl;

/* @file: a name of the session directory the input may write */
static int file_name_ok(const char *name)
{
	if (!name[0] || !strcmp(name, "control") || !strcmp(name, UT_EVREG_FILE) ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	       strlen(name);
}

static void make_session(const char *dir)
{
	static struct ut_session_ctl ctl;
	static char page[UT_CTL_SIZE];
	char name[64];

	memset(&ctl, 0, sizeof(ctl));
	memcpy(ctl.magic, UT_CTL_MAGIC, 8);
	ctl.version = UT_CTL_VERSION;
	ctl.nr_pages = 64;
	ctl.clock = UT_CLOCK_MONO;
	ctl.tracing_on = 1;
	ctl.active_tracers = 1u << ut_tracer_index("nop");
	ctl.flags = UT_CTL_LIVE;
	memset(ctl.rec_cpumask, 0xff, sizeof(ctl.rec_cpumask));
	memcpy(page, &ctl, sizeof(ctl));
	put(dir, "control", page, sizeof(page));
	{
		char path[PATH_MAX];
		int fd;

		/* a new file each time (the last one was removed): map it again */
		snprintf(path, sizeof(path), "%s/control", dir);
		fd = open(path, O_RDWR);
		prog_ctl = fd < 0 ? MAP_FAILED : mmap(NULL, UT_CTL_SIZE, PROT_READ | PROT_WRITE,
						      MAP_SHARED, fd, 0);
		if (prog_ctl == MAP_FAILED)
			abort();
		close(fd);
	}
	snprintf(name, sizeof(name), "ftrace.%d", (int)getpid());
	put(dir, name, funcs, sizeof(funcs) - 1);
	{
		/* the program's events, registered as its runtime does */
		static const struct ut_event_field fields[] = {
			{ "int", "id", 8, 4, 1, UT_FIELD_SCALAR, 0 },
			{ "int", "status", 12, 4, 1, UT_FIELD_SCALAR, 0 },
		};
		static const struct ut_event_desc req = {
			UT_TP_ABI, 0, 12, "myapp", "request", "\"id=%d\", REC->id", fields, 1, 0,
		};
		static const struct ut_event_desc resp = {
			UT_TP_ABI, 0, 16, "myapp", "response",
			"\"id=%d status=%d\", REC->id, REC->status", fields, 2, 0,
		};
		char path[PATH_MAX];
		struct ut_evreg *r;
		int fd;

		snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, sizeof(*r)) < 0)
			abort();
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (r == MAP_FAILED || ut_evreg_init(r) || ut_evreg_register(r, &req) != 0 ||
		    ut_evreg_register(r, &resp) != 1)
			abort();
		munmap(r, sizeof(*r));
	}
	/* buffers the directory counts (buffer_total_size_kb, saved_cmdlines) */
	put(dir, "buf.1.1.1", "", 0);
	put(dir, "buf.1.2.1.1", "", 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_scratch();
	return 0;
}

static int verbose = -1;	/* FUZZ_VERBOSE set: what each operation did, on stderr */

static void read_all(struct tfs_session *s, const char *path)
{
	struct tfs_handle *h;
	char buf[4096];
	off_t off = 0;
	ssize_t n;

	/*
	 * trace_pipe: read without waiting (O_NONBLOCK: EAGAIN once it is
	 * empty), as a reader that polls would; a blocking read of an empty
	 * one waits for the program, as the kernel's.
	 */
	if (tfs_open(s, path, O_RDONLY | (strstr(path, "trace_pipe") ? O_NONBLOCK : 0), &h))
		return;
	if (verbose)
		fprintf(stderr, "< %s\n", path);
	do {
		n = tfs_read(h, buf, sizeof(buf), off);
		off += n > 0 ? n : 0;
	} while (n > 0);
	tfs_release(h);
}

struct walk {
	struct tfs_session *s;
	const char *dir;
	int depth;
};

static int walk_fill(void *ctx, const char *name, const struct tfs_stat *st);

static void walk(struct tfs_session *s, const char *dir, int depth)
{
	struct walk w = { s, dir, depth };

	tfs_readdir(s, dir, walk_fill, &w);
}

static int walk_fill(void *ctx, const char *name, const struct tfs_stat *st)
{
	struct walk *w = ctx;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s%s", w->dir, w->dir[0] ? "/" : "", name);
	if (st->is_dir) {
		/* per_cpu: the first CPU only (they are all alike) */
		if (w->depth < 3 && (strcmp(w->dir, "per_cpu") || !strcmp(name, "cpu0")))
			walk(w->s, path, w->depth + 1);
	} else if (st->mode & 0444) {
		read_all(w->s, path);
	}
	return 0;
}

static int op_is(const char *line, size_t len, const char *op, const char **arg)
{
	size_t n = strlen(op);

	if (len < n || memcmp(line, op, n))
		return 0;
	if (len == n) {
		*arg = "";
		return 1;
	}
	if (line[n] != ' ')
		return 0;
	*arg = line + n + 1;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fz_scratch(), *p = (const char *)data, *end = p + size;
	struct tfs_handle *w = NULL;
	struct tfs_session *s;
	struct tfs_stat st;
	int ops = 0;

	if (verbose < 0)
		verbose = getenv("FUZZ_VERBOSE") != NULL;
	fz_clean(dir);
	make_session(dir);
	s = tfs_session_open(dir);
	if (!s)
		abort();
	/* to the first operation */
	while (p < end && *p != '@') {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : end;
	}
	while (p < end && ops++ < 256) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *body, *next, *arg;
		char line[256];
		size_t len = (size_t)((nl ? nl : end) - p), blen;

		body = nl ? nl + 1 : end;
		for (next = body; next < end; next++)
			if (*next == '@' && (next == body || next[-1] == '\n'))
				break;
		blen = (size_t)(next - body);
		if (blen && body[blen - 1] == '\n')
			blen--;
		if (len >= sizeof(line) || memchr(p, '\0', len)) {
			p = next;
			continue;
		}
		memcpy(line, p + 1, len - 1);
		line[len - 1] = '\0';
		len--;
		if (op_is(line, len, ">", &arg) || op_is(line, len, ">>", &arg)) {
			long r;

			tfs_release(w);
			w = NULL;
			r = tfs_open(s, arg, O_WRONLY | (line[1] == '>' ? O_APPEND : O_TRUNC), &w);
			if (!r)
				r = tfs_write(w, body, blen, 0);
			if (verbose)
				fprintf(stderr, "%s '%.*s': %ld\n", line, (int)blen, body, r);
		} else if (op_is(line, len, "+", &arg)) {
			if (w) {
				long r = tfs_write(w, body, blen, 0);

				if (verbose)
					fprintf(stderr, "+ '%.*s': %ld\n", (int)blen, body, r);
			}
		} else if (op_is(line, len, "close", &arg)) {
			tfs_release(w);
			w = NULL;
		} else if (op_is(line, len, "<", &arg)) {
			read_all(s, arg);
		} else if (op_is(line, len, "t", &arg)) {
			tfs_truncate(s, arg);
		} else if (op_is(line, len, "mkdir", &arg)) {
			tfs_mkdir(s, arg);
		} else if (op_is(line, len, "rmdir", &arg)) {
			tfs_rmdir(s, arg);
		} else if (op_is(line, len, "ls", &arg)) {
			walk(s, arg, 3);
		} else if (op_is(line, len, "stat", &arg)) {
			tfs_stat(s, arg, &st);
		} else if (op_is(line, len, "file", &arg)) {
			if (file_name_ok(arg))
				put(dir, arg, body, blen);
		} else if (op_is(line, len, "traceoff", &arg) || op_is(line, len, "traceon", &arg)) {
			__atomic_store_n(&prog_ctl->tracing_on, line[6] == 'n', __ATOMIC_RELEASE);
		}
		p = next;
	}
	tfs_release(w);
	walk(s, "", 0);
	tfs_session_close(s);
	munmap(prog_ctl, UT_CTL_SIZE);
	return 0;
}
