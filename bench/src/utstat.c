// SPDX-License-Identifier: MIT
/*
 * utstat.c - bench helper: what a usertrace data directory holds.
 *
 *   utstat DIR
 *
 * prints one line:  <bytes of *.dat> <records> <lost> <overrun> <threads>
 *
 * Each .dat file is a struct rb_header page followed by ring-buffer pages
 * (include/usertrace/ringbuf.h).  <records> sums the pages' `entries`
 * (records without padding and time extends: an ENTRY and an EXIT per
 * traced call); <lost> and <overrun> sum the headers' counters.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "usertrace/ringbuf.h"

static int stat_file(const char *path, uint64_t *bytes, uint64_t *records, uint64_t *lost,
		     uint64_t *overrun)
{
	unsigned char page[RB_PAGE_SIZE];
	struct rb_header h;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
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
	*bytes += RB_PAGE_SIZE;
	*lost += h.lost;
	*overrun += h.overrun;
	while (fread(page, 1, RB_PAGE_SIZE, f) == RB_PAGE_SIZE) {
		const struct rb_page *p = (const struct rb_page *)page;

		*bytes += RB_PAGE_SIZE;
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
