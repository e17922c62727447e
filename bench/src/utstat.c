// SPDX-License-Identifier: MIT
/*
 * utstat.c - bench helper: what a usertrace data directory holds.
 *
 *   utstat DIR
 *
 * prints one line:  <bytes of *.dat> <records> <lost> <overrun> <threads>
 *
 * Each .dat file is a struct rb_header page followed by ring-buffer pages
 * (include/usertrace/ringbuf.h), stored as they are or in zstd chunks
 * (include/usertrace/datfile.h).  <records> sums the events (an ENTRY and
 * an EXIT per traced call): from the chunk headers of a compressed file,
 * from the pages' `entries` of an uncompressed one.  <lost> and <overrun>
 * sum the header pages' counters.  <bytes> is the size of the files.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "usertrace/datfile.h"
#include "usertrace/ringbuf.h"

static int stat_file(const char *path, uint64_t *bytes, uint64_t *records, uint64_t *lost,
		     uint64_t *overrun)
{
	unsigned char page[RB_PAGE_SIZE];
	struct rb_header h;
	struct ut_dat_ext ext;
	struct ut_dat_chunk ck;
	FILE *f = fopen(path, "rb");
	long size;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		fclose(f);
		return -1;
	}
	if (fread(page, 1, RB_PAGE_SIZE, f) != RB_PAGE_SIZE) {
		fprintf(stderr, "%s: no header page\n", path);
		fclose(f);
		return -1;
	}
	memcpy(&h, page, sizeof(h));
	if (memcmp(h.magic, RB_MAGIC, sizeof(h.magic))) {
		fprintf(stderr, "%s: not a usertrace buffer\n", path);
		fclose(f);
		return -1;
	}
	memcpy(&ext, page + UT_DAT_EXT_OFF, sizeof(ext));
	*bytes += size;
	*lost += h.lost;
	*overrun += h.overrun;
	if (!memcmp(ext.magic, UT_DAT_MAGIC, sizeof(ext.magic)) &&
	    ext.compress == UT_COMPRESS_ZSTD) {
		/* chunk headers: count the events without decompressing */
		while (fread(&ck, sizeof(ck), 1, f) == 1) {
			if (ck.magic != UT_CHUNK_MAGIC || fseek(f, ck.csize, SEEK_CUR)) {
				fprintf(stderr, "%s: bad chunk\n", path);
				fclose(f);
				return -1;
			}
			*records += ck.entries;
		}
		fclose(f);
		return 0;
	}
	while (fread(page, 1, RB_PAGE_SIZE, f) == RB_PAGE_SIZE) {
		const struct rb_page *p = (const struct rb_page *)page;

		*records += p->entries;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t bytes = 0, records = 0, lost = 0, overrun = 0;
	int threads = 0, ret = 0;
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: utstat DIR\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[4096];

		if (len < 5 || strcmp(de->d_name + len - 4, ".dat"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (stat_file(path, &bytes, &records, &lost, &overrun) < 0)
			ret = 1;
		threads++;
	}
	closedir(d);
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n", bytes, records, lost,
	       overrun, threads);
	return ret;
}
