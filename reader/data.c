// SPDX-License-Identifier: MIT
/*
 * data.c - a usertrace data directory opened: its info file, its
 * threads' .dat files (their header pages, damage, the entries of their
 * chunks), and the recording's clock (raw times to ns and back).  The
 * decoder (reader/decode.c) reads the threads' pages into events.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "usertrace/datfile.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "reader/data.h"
#include "reader/data_int.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* data versions read: 1 (pages as they are), 2 (datfile.h extension, zstd) */
#define DATA_VERSION	2

/*
 * The times an event of the recording can have: from a minute before its
 * start to its end plus its length and a minute (children that outlive
 * the program, clocks of CPUs a little apart).  A page or a record
 * outside is corrupt: a time near 2^63 would otherwise pass to every
 * reader, and viewers refuse the exports that carry it.  Without the two
 * calibration points (an older or a cut info file) there is no bound.
 */
#define DATA_SLACK_NS	60000000000ull

static void data_window(struct ut_data *d)
{
	uint64_t lo, hi;

	d->raw_lo = 0;
	d->raw_span = UINT64_MAX;
	if (d->mono1 <= d->mono0 || d->mono1 - d->mono0 >= (1ull << 61))
		return;
	lo = d->mono0 > DATA_SLACK_NS ? d->mono0 - DATA_SLACK_NS : 0;
	hi = d->mono1 + (d->mono1 - d->mono0) + DATA_SLACK_NS;
	d->raw_lo = ut_data_raw(d, lo);
	d->raw_span = ut_data_raw(d, hi) - d->raw_lo;
}

static int parse_info(struct ut_data *d, const char *path)
{
	char *buf = read_file(path, NULL), *line, *save = NULL;
	int version = -1;

	if (!buf) {
		pr_err("%s: not a usertrace data directory (%s: %s)", d->dir, path, strerror(errno));
		return -1;
	}
	d->nr_cpus = 1;
	d->compress = -1;
	d->clock = UT_CLOCK_MONO;
	strcpy(d->tracer, UT_TRACER_DEFAULT);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		const char *k = line, *v;

		if (line[0] == '#' || !eq)
			continue;
		*eq = 0;
		v = eq + 1;
		if (!strcmp(k, "version"))
			version = atoi(v);
		else if (!strcmp(k, "tracer"))
			snprintf(d->tracer, sizeof(d->tracer), "%s", v);
		else if (!strcmp(k, "clock"))
			d->clock = strcmp(v, "tsc") ? UT_CLOCK_MONO : UT_CLOCK_TSC;
		else if (!strcmp(k, "tsc0"))
			d->tsc0 = strtoull(v, NULL, 10);
		else if (!strcmp(k, "tsc1"))
			d->tsc1 = strtoull(v, NULL, 10);
		else if (!strcmp(k, "mono0"))
			d->mono0 = strtoull(v, NULL, 10);
		else if (!strcmp(k, "mono1"))
			d->mono1 = strtoull(v, NULL, 10);
		else if (!strcmp(k, "nr_cpus"))
			d->nr_cpus = atoi(v) > 0 ? atoi(v) : 1;
		else if (!strcmp(k, "exit_status"))
			d->exit_status = atoi(v);
		else if (!strcmp(k, "checks"))
			d->checks = atoi(v) == 1;
		else if (!strcmp(k, "compression"))
			d->compress = !strcmp(v, "none") ? UT_COMPRESS_NONE :
				      !strncmp(v, "zstd", 4) ? UT_COMPRESS_ZSTD : -1;
		else if (!strcmp(k, "tracing_thresh_ns"))
			d->thresh_ns = strtoull(v, NULL, 10);
		else if (!strcmp(k, "cmdline"))
			snprintf(d->cmdline, sizeof(d->cmdline), "%s", v);
	}
	free(buf);
	if (version < 1 || version > DATA_VERSION) {
		pr_err("%s: unsupported data version %d (this usertrace reads version %d)", path,
		       version, DATA_VERSION);
		return -1;
	}
	if (d->clock == UT_CLOCK_TSC && (d->tsc1 <= d->tsc0 || d->mono1 <= d->mono0 ||
					 d->mono1 - d->mono0 >= (1ull << 62))) {
		pr_err("%s: bad clock calibration", path);
		return -1;
	}
	/* version 1 had no checks (a directory made version 1 by hand keeps its line) */
	if (version < 2)
		d->checks = 0;
	if (d->clock == UT_CLOCK_TSC)
		d->mult = (uint64_t)(((__int128)(d->mono1 - d->mono0) << 32) / (d->tsc1 - d->tsc0));
	data_window(d);
	return 0;
}

/* a chunk header that a reader can trust: it fits in the file and in a chunk */
int data_chunk_valid(const struct ut_dat_chunk *ch, uint64_t off, uint64_t size)
{
	return ch->magic == UT_CHUNK_MAGIC && ch->nr_pages >= 1 && ch->nr_pages <= UT_CHUNK_PAGES &&
	       ch->csize <= ZSTD_compressBound((size_t)UT_CHUNK_PAGES * RB_PAGE_SIZE) &&
	       off + sizeof(*ch) + ch->csize <= size;
}

/* the bytes a zstd frame starts with (ZSTD_MAGICNUMBER, little-endian) */
const unsigned char data_zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

/*
 * A compressed file: count its entries from the chunk headers.  Past a
 * damaged header the next one is looked for (its magic, a header that
 * fits, a zstd frame behind it), as the cursor does: what it skips is
 * said there, when it is read.
 */
static void scan_chunks(struct ut_thread_info *ti, int fd, uint64_t size)
{
	const unsigned char *map, *at;
	uint64_t off = RB_PAGE_SIZE;
	struct ut_dat_chunk ch;

	if (size <= RB_PAGE_SIZE)
		return;
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return;
	while (off + sizeof(ch) + 4 <= size) {
		memcpy(&ch, map + off, sizeof(ch));
		if (data_chunk_valid(&ch, off, size) && !memcmp(map + off + sizeof(ch), data_zstd_magic, 4)) {
			/* no more than its pages can hold (a damaged count is said when it is read) */
			if (ch.entries <= ch.nr_pages * (RB_DATA_SIZE / 4))
				ti->entries += ch.entries;
			off += sizeof(ch) + ch.csize;
			continue;
		}
		/* the next chunk magic */
		at = memmem(map + off + 1, (size_t)(size - off - 1), &(uint32_t){ UT_CHUNK_MAGIC }, 4);
		if (!at)
			break;
		off = (uint64_t)(at - map);
	}
	munmap((void *)map, (size_t)size);
}

/* the thread a file's name gives: DIR/<pid>.<tid>.<image>.dat; 1, or 0 if it is not such a name */
static int dat_name(const char *path, int *pid, int *tid, uint64_t *image)
{
	const char *base = strrchr(path, '/');
	int n = -1;

	base = base ? base + 1 : path;
	if (sscanf(base, "%d.%d.%" SCNu64 ".dat%n", pid, tid, image, &n) != 3 || n < 0 ||
	    base[n] || *pid <= 0 || *tid <= 0)
		return 0;
	return 1;
}

/*
 * The most records a thread can have dropped or overwritten: one a
 * nanosecond of the recording (a hook takes longer), and a minute either
 * side.  A header's count above it is damage, not a count.
 */
static uint64_t data_max_records(const struct ut_data *d)
{
	if (d->mono1 <= d->mono0 || d->mono1 - d->mono0 >= (1ull << 61))
		return 1ull << 40;
	return d->mono1 - d->mono0 + 2 * DATA_SLACK_NS;
}

/*
 * What is wrong with a header page, NULL if nothing: @page, @got bytes of
 * it read (the file's first page), the thread of its name if @named.
 */
static const char *header_damage(const struct ut_data *d, unsigned char *page, ssize_t got,
				 int named, int pid, int tid, uint64_t image, char *why, size_t len)
{
	const struct rb_header *h = (const void *)page;
	struct ut_dat_ext ext;
	static const unsigned char zero[sizeof(ext)];
	uint32_t check;

	if (got < (ssize_t)RB_PAGE_SIZE)
		return "the file ends inside it";
	if (memcmp(h->magic, RB_MAGIC, 8) || h->version != RB_VERSION)
		return "not a buffer header: its magic or version";
	memcpy(&ext, page + UT_DAT_EXT_OFF, sizeof(ext));
	if (memcmp(ext.magic, UT_DAT_MAGIC, 8)) {
		/* a version 1 file has none: zero bytes there; a recording with checks has it */
		if (memcmp(page + UT_DAT_EXT_OFF, zero, sizeof(zero)) || d->checks)
			return "its extension at byte 2048 is damaged";
	} else if (ext.flags & UT_DAT_CHECKED) {
		check = ext.check;
		ext.check = 0;
		memcpy(page + UT_DAT_EXT_OFF, &ext, sizeof(ext));
		if (ut_dat_check(page, RB_PAGE_SIZE, 0) != check)
			return "its check fails";
	} else if (d->checks) {
		return "its extension at byte 2048 is damaged (no checks)";
	}
	if (!memcmp(ext.magic, UT_DAT_MAGIC, 8) && ext.compress != UT_COMPRESS_NONE &&
	    ext.compress != UT_COMPRESS_ZSTD) {
		snprintf(why, len, "unknown compression %u", ext.compress);
		return why;
	}
	if (named && (h->pid != pid || h->tid != tid || h->image != image)) {
		snprintf(why, len, "it names thread %d.%d.%" PRIu64 ", not the file name's", h->pid,
			 h->tid, h->image);
		return why;
	}
	if (!(ext.flags & UT_DAT_CHECKED) &&
	    (h->lost > data_max_records(d) || h->overrun > data_max_records(d))) {
		snprintf(why, len, "an impossible count of %" PRIu64 " records %s",
			 h->lost > data_max_records(d) ? h->lost : h->overrun,
			 h->lost > data_max_records(d) ? "lost" : "overwritten");
		return why;
	}
	return NULL;
}

/*
 * ut_thread_info_from - @ti's thread as buffer header @h names it: pid,
 * tid, image, and its comm, printable (a byte outside ' '..'~' is '?')
 */
void ut_thread_info_from(struct ut_thread_info *ti, const struct rb_header *h)
{
	ti->pid = h->pid;
	ti->tid = h->tid;
	ti->image = h->image;
	memcpy(ti->comm, h->comm, 16);
	ti->comm[16] = 0;
	for (char *c = ti->comm; *c; c++)
		if (*c < ' ' || *c > '~')
			*c = '?';
}

/* read the header page of a .dat file and count its entries */
static int scan_thread(struct ut_data *d, struct ut_thread_info *ti, const char *path)
{
	unsigned char page[RB_PAGE_SIZE];
	const struct rb_header *h = (const void *)page;
	struct ut_dat_ext ext;
	char why[160];
	const char *bad;
	struct stat st;
	uint64_t nr, i, size, image = 0;
	int pid = 0, tid = 0, named;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		pr_warn("%s: %s; skipped", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		d->skipped++;
		return -1;
	}
	if (strlen(path) >= sizeof(ti->path)) {
		close(fd);
		return -1;
	}
	memset(ti, 0, sizeof(*ti));
	memset(page, 0, sizeof(page));
	size = (uint64_t)st.st_size;
	got = pread(fd, page, RB_PAGE_SIZE, 0);
	named = dat_name(path, &pid, &tid, &image);
	bad = header_damage(d, page, got, named, pid, tid, image, why, sizeof(why));
	if (bad && !named) {
		pr_err("%s: not a usertrace buffer file (%s); skipped", path, bad);
		close(fd);
		d->skipped++;
		return -1;
	}
	memcpy(&ext, page + UT_DAT_EXT_OFF, sizeof(ext));
	if (bad) {
		uint32_t magic = 0;

		/*
		 * The pages may well be whole: the thread is the file name's,
		 * the compression and checks what info (or the first chunk) says.
		 */
		ti->damaged = 1;
		ti->counts_unknown = 1;
		ti->pid = pid;
		ti->tid = tid;
		ti->image = image;
		strcpy(ti->comm, "<...>");
		if (d->compress >= 0)
			ti->compress = d->compress;
		else if (pread(fd, &magic, 4, RB_PAGE_SIZE) == 4 && magic == UT_CHUNK_MAGIC)
			ti->compress = UT_COMPRESS_ZSTD;
		ti->checked = d->checks;
		if (got < (ssize_t)RB_PAGE_SIZE)
			pr_err("%s: truncated to %" PRIu64 " bytes, inside its header page (bytes "
			       "0-4095): no events left", path, size);
		else
			pr_err("%s: header page (bytes 0-4095) damaged (%s): the thread taken from "
			       "the file name, its lost and overwritten counts unknown; its pages "
			       "are read", path, bad);
	} else {
		if (!memcmp(ext.magic, UT_DAT_MAGIC, 8)) {
			ti->compress = (int)ext.compress;
			ti->checked = !!(ext.flags & UT_DAT_CHECKED);
		}
		ut_thread_info_from(ti, h);
		ti->lost = h->lost;
		ti->overrun = h->overrun;
	}
	ti->entries = 0;
	if (ti->compress == UT_COMPRESS_ZSTD) {
		scan_chunks(ti, fd, size);
	} else if (size >= RB_PAGE_SIZE) {
		if (size % RB_PAGE_SIZE) {
			pr_err("%s: truncated: bytes %" PRIu64 "-%" PRIu64 " (%" PRIu64 " bytes of page "
			       "%" PRIu64 ") ignored", path, size - size % RB_PAGE_SIZE, size - 1,
			       size % RB_PAGE_SIZE, size / RB_PAGE_SIZE - 1);
			ti->damaged = 1;
			ti->cut = 1;
		}
		nr = size / RB_PAGE_SIZE - 1;
		for (i = 0; i < nr; i++) {
			const struct rb_page *p = (const void *)page;

			if (pread(fd, page, RB_PAGE_HDR, (off_t)((i + 1) * RB_PAGE_SIZE)) != RB_PAGE_HDR)
				break;
			if (p->commit <= RB_DATA_SIZE && p->entries <= RB_DATA_SIZE / 4)
				ti->entries += p->entries;
		}
	}
	ti->written = ti->entries + ti->overrun;
	close(fd);
	memcpy(ti->path, path, strlen(path) + 1);
	return 0;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct ut_thread_info *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->image < y->image ? -1 : x->image > y->image;
}

/**
 * ut_data_open - open a data directory written by usertrace record
 *
 * Returns 0, or -1 after printing why the directory cannot be read.
 */
int ut_data_open(struct ut_data *d, const char *dir)
{
	char path[4200];
	struct dirent *de;
	DIR *dh;
	int cap = 0;

	memset(d, 0, sizeof(*d));
	snprintf(d->dir, sizeof(d->dir), "%s", dir);
	dh = opendir(dir);
	if (!dh) {
		int err = errno;

		/* the default name, not here: the user is in another directory than record was */
		if (err == ENOENT && !strcmp(dir, "usertrace.data"))
			pr_err("cannot open data directory %s: %s (usertrace record -- PROG writes it "
			       "in the current directory; -i DIR reads another)", dir, strerror(err));
		else
			pr_err("cannot open data directory %s: %s", dir, strerror(err));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/info", dir);
	if (parse_info(d, path) < 0) {
		closedir(dh);
		return -1;
	}
	while ((de = readdir(dh))) {
		size_t n = strlen(de->d_name);

		if (n < 5 || strcmp(de->d_name + n - 4, ".dat"))
			continue;
		if (d->nr_threads == cap)
			d->threads = xrealloc(d->threads, sizeof(*d->threads) * (cap = cap ? 2 * cap : 16));
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (scan_thread(d, &d->threads[d->nr_threads], path) == 0)
			d->nr_threads++;
	}
	closedir(dh);
	if (d->nr_threads)
		qsort(d->threads, (size_t)d->nr_threads, sizeof(*d->threads), thread_cmp);
	d->symtab = ut_symtab_load(dir);
	ut_symtab_set_clock(d->symtab, ut_data_ns_of, d);
	return 0;
}

/**
 * ut_data_add_thread - add one .dat file to @d's threads, kept in order
 * @path: a file in the .dat format (e.g. a snapshot of a live buffer)
 *
 * Returns 0, or -1 (with a warning) if the file is not a buffer file.
 */
int ut_data_add_thread(struct ut_data *d, const char *path)
{
	d->threads = xrealloc(d->threads, sizeof(*d->threads) * ((size_t)d->nr_threads + 1));
	if (scan_thread(d, &d->threads[d->nr_threads], path) < 0)
		return -1;
	d->nr_threads++;
	qsort(d->threads, (size_t)d->nr_threads, sizeof(*d->threads), thread_cmp);
	return 0;
}

void ut_data_close(struct ut_data *d)
{
	free(d->threads);
	d->threads = NULL;
	if (d->symtab)
		ut_symtab_free(d->symtab);
	d->symtab = NULL;
}

/* ut_data_ns() for a callback (ut_symtab_set_clock()) */
uint64_t ut_data_ns_of(const void *d, uint64_t raw)
{
	return ut_data_ns(d, raw);
}

/* the raw clock value of @ns, the inverse of ut_data_ns() */
uint64_t ut_data_raw(const struct ut_data *d, uint64_t ns)
{
	__int128 t;

	if (d->clock != UT_CLOCK_TSC || !d->mult)
		return ns;
	/* times before mono0 are negative: a multiplication, as a shift of them is undefined */
	t = (__int128)(int64_t)(ns - d->mono0) * ((__int128)1 << 32) / (__int128)d->mult;
	return d->tsc0 + (uint64_t)(int64_t)t;
}
