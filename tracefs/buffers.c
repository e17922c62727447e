// SPDX-License-Identifier: MIT
/*
 * buffers.c - the buffers and who records into them: buffer_size_kb,
 * trace_entries, buffer_total_size_kb, tracing_cpumask, saved_cmdlines,
 * saved_tgids, timestamp_mode, trace_marker (the pid lists: pids.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefs/tfs_int.h"

/* do all CPUs' buffers have one size (*@pages, else the largest)? */
int tfs_cpu_pages_same(struct tfs_session *s, struct tfs_inst *in, uint32_t *pages)
{
	uint32_t max = in->cpu_pages[0];
	int same = 1;

	for (int i = 1; i < s->ncpu; i++) {
		same &= in->cpu_pages[i] == in->cpu_pages[0];
		if (in->cpu_pages[i] > max)
			max = in->cpu_pages[i];
	}
	if (pages)
		*pages = max;
	return same;
}

void tfs_cpu_pages_init(struct tfs_inst *in, uint32_t pages)
{
	for (int i = 0; i < TFS_MAX_CPUS; i++)
		in->cpu_pages[i] = pages;
}

/* the session's thread and process ids: buffers' names and procs[] */
int tfs_session_ids(struct tfs_session *s, int **out)
{
	int *ids = NULL, nr = 0, cap = 0, k = 0;
	struct dirent *de;
	DIR *d = opendir(s->dir);

	while (d && (de = readdir(d))) {
		int pid = tfs_name_pid(de->d_name, "buf."), tid;
		const char *t;

		if (pid < 0)
			continue;
		t = strchr(de->d_name + 4, '.');
		tid = t ? tfs_name_pid(t, ".") : -1;
		for (int j = 0; j < 2; j++) {
			int v = j ? tid : pid;

			if (v > 0)
				tfs_ints_push(&ids, &nr, &cap, v);
		}
	}
	if (d)
		closedir(d);
	for (int i = 0; i < UT_CTL_PROCS; i++) {
		int pid = s->ctl->procs[i].pid;

		if (pid && tfs_ints_push(&ids, &nr, &cap, pid) < 0)
			break;
	}
	if (nr)
		qsort(ids, (size_t)nr, sizeof(*ids), tfs_cmp_int);
	for (int i = 0; i < nr; i++)
		if (!k || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	*out = ids;
	return k;
}

static unsigned long long phys_kb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	return pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)(psz / 1024)
				    : ULLONG_MAX;
}

/*
 * A buffer's name: buf.<pid>.<tid>.<image>, then .<n> for the n-th buffer
 * that replaced it after a resize (runtime.c, ut_renew()).
 */
struct buf_name {
	int pid, tid;
	unsigned long long image;
	unsigned gen;
	char name[NAME_MAX + 1];
};

static int buf_name_parse(const char *name, struct buf_name *bn)
{
	int n = 0;

	bn->gen = 0;
	if (strlen(name) > NAME_MAX ||
	    sscanf(name, "buf.%d.%d.%llu%n.%u%n", &bn->pid, &bn->tid, &bn->image, &n, &bn->gen,
		   &n) < 3 || name[n] || bn->pid <= 0)
		return -1;
	strcpy(bn->name, name);
	return 0;
}

/* the session's buffers; *@cur: how many are in use (not replaced by a resize) */
static int list_buffers(struct tfs_session *s, struct buf_name **out, int *cur)
{
	struct buf_name *v = NULL;
	struct dirent *de;
	DIR *d = opendir(s->dir);
	int n = 0;

	while (d && (de = readdir(d))) {
		struct buf_name bn;

		struct buf_name *nv;

		if (buf_name_parse(de->d_name, &bn) < 0)
			continue;
		nv = realloc(v, sizeof(*v) * ((size_t)n + 1));
		if (!nv)
			break;
		v = nv;
		v[n++] = bn;
	}
	if (d)
		closedir(d);
	*cur = 0;
	for (int i = 0; i < n; i++) {
		int newest = 1;

		for (int j = 0; j < n && newest; j++)
			newest = !(v[j].pid == v[i].pid && v[j].tid == v[i].tid &&
				   v[j].image == v[i].image && v[j].gen > v[i].gen);
		v[i].gen = newest ? UINT_MAX : v[i].gen;	/* UINT_MAX: in use */
		*cur += newest;
	}
	*out = v;
	return n;
}

static int count_buffers(struct tfs_session *s)
{
	struct buf_name *v;
	int cur;

	list_buffers(s, &v, &cur);
	free(v);
	return cur;
}

/*
 * buffer_size_kb: the threads move to buffers of the new size at their
 * next page; their old buffers stay readable.  Those that a former resize
 * replaced go now, so a thread has at most two.
 */
static void drop_replaced_buffers(struct tfs_session *s)
{
	struct buf_name *v;
	int cur, n = list_buffers(s, &v, &cur);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + NAME_MAX + 2];

		if (v[i].gen == UINT_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, v[i].name);
		unlink(path);
	}
	free(v);
}

static void show_cmdlines(struct tfs_session *s, struct tfs_sbuf *b)
{
	int *ids, n = tfs_session_ids(s, &ids);

	for (int i = 0; i < n; i++) {
		char path[64], comm[64] = "<...>";
		ssize_t r;
		int fd;

		snprintf(path, sizeof(path), "/proc/%d/comm", ids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			r = read(fd, comm, sizeof(comm) - 1);
			if (r > 0) {
				comm[r] = '\0';
				comm[strcspn(comm, "\n")] = '\0';
			} else {
				strcpy(comm, "<...>");
			}
			close(fd);
		}
		tfs_sb_printf(b, "%d %s\n", ids[i], comm);
	}
	free(ids);
}

/* the directory's tracing_cpumask: the top's is the session's (what the programs record) */
static uint32_t *cpumask_of(struct tfs_session *s, struct tfs_inst *in)
{
	return in == &s->top ? s->cpumask : in->cpumask;
}

static void show_cpumask(struct tfs_session *s, const uint32_t *cpumask, struct tfs_sbuf *b)
{
	int nw = (s->ncpu + 31) / 32;

	tfs_sb_printf(b, "%x", cpumask[nw - 1]);
	for (int i = nw - 2; i >= 0; i--)
		tfs_sb_printf(b, ",%08x", cpumask[i]);
	tfs_sb_puts(b, "\n");
}

/* a separator of tracing_cpumask's words, as the kernel's bitmap_parse() skips them */
static int mask_sep(char c)
{
	return isspace((unsigned char)c) || c == ',';
}

/*
 * tracing_cpumask, as the kernel's bitmap_parse(): 32-bit words in hex
 * (up to the first newline), the last one lowest, separated by commas or
 * blanks (any run of them, at the ends too); none is no CPU.  A word of
 * more than 8 digits, more words than the CPUs need, or a bit past the
 * CPUs: -EOVERFLOW; another character: -EINVAL.
 */
static int write_cpumask(struct tfs_session *s, uint32_t *cpumask, const char *buf, size_t size)
{
	uint32_t mask[TFS_MAX_CPUS / 32] = { 0 };
	int words = (s->ncpu + 31) / 32;
	size_t end = strnlen(buf, size);
	const char *nl = memchr(buf, '\n', end);

	if (nl)
		end = (size_t)(nl - buf);
	for (int word = 0;; word++) {
		uint32_t w = 0;
		int digits = 0;

		while (end && mask_sep(buf[end - 1]))
			end--;
		if (!end)
			break;
		if (word >= words)
			return -EOVERFLOW;
		for (; end && !mask_sep(buf[end - 1]); end--, digits++) {
			char c = buf[end - 1];

			if (!isxdigit((unsigned char)c))
				return -EINVAL;
			if (digits == 8)
				return -EOVERFLOW;
			w |= (uint32_t)(isdigit((unsigned char)c) ? c - '0' :
					 tolower((unsigned char)c) - 'a' + 10) << (4 * digits);
		}
		mask[word] = w;
	}
	for (int b = s->ncpu; b < words * 32; b++)
		if (mask[b / 32] >> (b % 32) & 1)
			return -EOVERFLOW;
	memcpy(cpumask, mask, sizeof(mask));
	return 0;
}

/* the text into the directory's marker ring, then its print triggers */
static int write_marker(struct tfs_session *s, struct tfs_inst *in, const char *buf, size_t size)
{
	int ret = live_marker_write(in->marker, buf, size);

	return ret < 0 ? ret : tfs_print_triggers(s, in, buf, size);
}

/* ---- the files ---- */

static int buffer_size_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_inst *in = h->n.inst;
	uint32_t pages;

	/* as the kernel: one CPU's size, the common size, or X when they differ */
	if (h->n.cpu >= 0)
		tfs_sb_printf(b, "%u\n", in->cpu_pages[h->n.cpu] * 4);
	else if (tfs_cpu_pages_same(h->s, in, &pages))
		tfs_sb_printf(b, "%u\n", pages * 4);
	else
		tfs_sb_puts(b, "X\n");
	return 0;
}

static int buffer_size_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	struct ut_session_ctl *c = s->ctl;
	unsigned long long v;
	uint32_t pages, max;
	int perr;

	if ((perr = tfs_parse_ull(buf, size, &v)) || !v) {
		tfs_err(s, "Invalid buffer size", h->n.f->name);
		return perr ? perr : -EINVAL;
	}
	/* the smallest ring: two pages */
	if (v < 8)
		v = 8;
	if (v > phys_kb() || v / 4 >= UINT32_MAX) {
		tfs_err(s, "Buffer larger than the machine's memory", h->n.f->name);
		return -ENOMEM;
	}
	pages = (uint32_t)((v + 3) / 4);
	/* per_cpu/cpuN: that CPU's; the top file: every CPU's */
	if (h->n.cpu >= 0)
		in->cpu_pages[h->n.cpu] = pages;
	else
		tfs_cpu_pages_init(in, pages);
	tfs_cpu_pages_same(s, in, &max);
	pages = max;
	live_marker_resize(in->marker, pages);
	if (in->pump) {
		tfs_inst_pump(in);
		live_pump_resize(in->pump, pages);
		in->nr_pages = pages;
	} else if (pages != c->nr_pages) {
		drop_replaced_buffers(s);
		__atomic_store_n(&c->nr_pages, pages, __ATOMIC_RELEASE);
	}
	return 0;
}

static int buffer_total_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	struct tfs_inst *in = h->n.inst;
	int nb = in->pump ? live_pump_buffers(in->pump) : count_buffers(h->s);

	tfs_sb_printf(b, "%llu\n", (unsigned long long)(in->pump ? in->nr_pages : h->s->ctl->nr_pages) *
				  4 * (nb ? nb : 1));
	return 0;
}

static int cpumask_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	show_cpumask(h->s, cpumask_of(h->s, h->n.inst), b);
	return 0;
}

/*
 * The top's mask is what the programs record (tfs_recording_update()); an
 * instance's, what its pump takes from them from now on (what it took
 * before stays, as in the kernel's buffer).
 */
static int cpumask_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_session *s = h->s;
	struct tfs_inst *in = h->n.inst;
	uint32_t mask[TFS_MAX_CPUS / 32];
	int ret;

	memcpy(mask, cpumask_of(s, in), sizeof(mask));
	ret = write_cpumask(s, mask, buf, size);
	if (ret) {
		tfs_err(s, ret == -EOVERFLOW ? "CPU mask beyond the CPUs" : "Invalid CPU mask",
			h->n.f->name);
		return ret;
	}
	if (in == &s->top) {
		memcpy(s->cpumask, mask, sizeof(mask));
		return tfs_recording_update(s);
	}
	tfs_inst_pump(in);		/* what came before, with the old mask */
	memcpy(in->cpumask, mask, sizeof(mask));
	/* CPUs past the configured ones: none to leave out */
	for (int i = s->ncpu; i < TFS_MAX_CPUS; i++)
		mask[i / 32] |= 1u << (i % 32);
	live_pump_set_cpumask(in->pump, mask);
	return 0;
}

/*
 * buffer_subbuf_size_kb: the size of the ring buffer's pages (the
 * kernel's sub-buffers), RB_PAGE_SIZE here, one system page.  A write
 * is read as the kernel's: a decimal size in KB, rounded up to a power
 * of two pages, between 1 and 128 pages (EINVAL otherwise, ERANGE past
 * an unsigned long); one page is the size already.  The buffers' format
 * has pages of one size: larger ones are EINVAL with an error_log line.
 */
static int subbuf_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	(void)h;
	tfs_sb_printf(b, "%u\n", RB_PAGE_SIZE / 1024);
	return 0;
}

static int subbuf_write(struct tfs_handle *h, const char *buf, size_t size)
{
	const unsigned long long page_kb = RB_PAGE_SIZE / 1024;
	unsigned long long kb, pages;
	int ret = tfs_parse_ull(buf, size, &kb);

	if (!ret && kb > ULONG_MAX)
		ret = -ERANGE;
	if (ret) {
		tfs_err(h->s, "Invalid argument", h->n.f->name);
		return ret;
	}
	pages = kb / page_kb + (kb % page_kb != 0);
	if (!pages || pages > 128) {
		tfs_err(h->s, "Sub-buffer size must be 1 to 128 pages", h->n.f->name);
		return -EINVAL;
	}
	if (pages > 1) {
		tfs_err(h->s, "Sub-buffers of more than one page are not supported", h->n.f->name);
		return -EINVAL;
	}
	return 0;
}

static int cmdlines_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	show_cmdlines(h->s, b);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * saved_tgids: "PID TGID" per thread, ascending, as the kernel's, which
 * fills it only while the record-tgid option is set (empty before).  The
 * buffers' names (buf.PID.TID) and procs[] give each thread's process.
 */
static int tgids_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	uint64_t *v = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	if (!(h->s->top.tr.trace_flags & TRACE_ITER_RECORD_TGID))
		return 0;
	d = opendir(h->s->dir);
	for (int i = 0; d || i < UT_CTL_PROCS; ) {
		int pid, tid;

		if (d) {
			const char *t;

			if (!(de = readdir(d))) {
				closedir(d);
				d = NULL;
				continue;
			}
			if ((pid = tfs_name_pid(de->d_name, "buf.")) < 0)
				continue;
			t = strchr(de->d_name + 4, '.');
			tid = t ? tfs_name_pid(t, ".") : pid;
			if (tid < 0)
				continue;
		} else {
			pid = tid = h->s->ctl->procs[i++].pid;
			if (pid <= 0)
				continue;
		}
		if (nr == cap) {
			uint64_t *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[nr++] = (uint64_t)tid << 32 | (uint32_t)pid;
	}
	if (d)
		closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < nr; i++)
		if (!i || v[i] >> 32 != v[i - 1] >> 32)
			tfs_sb_printf(b, "%d %d\n", (int)(v[i] >> 32), (int)(uint32_t)v[i]);
	free(v);
	return 0;
}

/* timestamp_mode: the kernel's choice between delta and absolute; ours are deltas */
static int tsmode_show(struct tfs_handle *h, struct tfs_sbuf *b)
{
	(void)h;
	tfs_sb_puts(b, "[delta] absolute\n");
	return 0;
}

static int marker_write(struct tfs_handle *h, const char *buf, size_t size)
{
	struct tfs_inst *in = h->n.inst;

	/* as the kernel: the markers option off refuses them */
	if (!(in->tr.trace_flags & TRACE_ITER_MARKERS))
		return -EINVAL;
	/* a buffer that is off takes no marker */
	if (!tfs_inst_on(h->s, in))
		return -EBADF;
	return write_marker(h->s, in, buf, size);
}

const struct tfs_file tfs_buffers_files[] = {
	TFS_FILE("buffer_size_kb", 0640, W_TOP | W_INST | W_CPU,
		 .show = buffer_size_show, .write = buffer_size_write),
	/* 2.6.27's name of buffer_size_kb */
	TFS_FILE("trace_entries", 0640, W_TOP, .show = buffer_size_show, .write = buffer_size_write),
	TFS_FILE("buffer_total_size_kb", 0440, W_TOP | W_INST, .show = buffer_total_show),
	TFS_FILE("buffer_subbuf_size_kb", 0640, W_TOP | W_INST, .show = subbuf_show,
		 .write = subbuf_write),
	TFS_FILE("tracing_cpumask", 0640, W_TOP | W_INST, .show = cpumask_show, .write = cpumask_write),
	TFS_FILE("saved_cmdlines", 0440, W_TOP, .show = cmdlines_show),
	TFS_FILE("saved_tgids", 0440, W_TOP, .show = tgids_show),
	TFS_FILE("timestamp_mode", 0440, W_TOP | W_INST, .show = tsmode_show),
	TFS_FILE("trace_marker", 0220, W_TOP | W_INST, .write = marker_write,
		 .max_write = LIVE_MARKER_MAX),
	TFS_FILES_END
};
