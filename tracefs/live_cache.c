// SPDX-License-Identifier: MIT
/*
 * live_cache.c - per session, what every reader of its live buffers needs:
 * the clock calibration, the symbols and the events' formats.
 *
 * A cache (a directory <session>/.live.XXXXXX, removed at exit) holds an
 * info file with the clock calibration, copies of the maps snapshots and
 * the symbol tables built from them (ut_symtab_save()); the tables are
 * rebuilt only when the maps files change.
 *
 * Clock: with the TSC, the calibration is two (tsc, CLOCK_MONOTONIC)
 * pairs taken 2 ms apart when the session is first read by this process
 * (the buffers carry no creation time), and stays fixed, so that
 * live_now() and the events' timestamps always agree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/event/evtab.h"
#include "lib/event/ftrace.h"
#include "tracefs/live_int.h"
#include "usertrace/session.h"
#include "usertrace/tracers.h"
#include "reader/symtab.h"
#include "utils/utils.h"

pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct live_cache *caches;
static int atexit_done;

static void live_cleanup(void)
{
	for (struct live_cache *c = caches; c; c = c->next) {
		if (c->dir[0])
			remove_tree(c->dir);
		if (c->evreg)
			munmap((void *)c->evreg, sizeof(*c->evreg));
	}
}

int live_session_clock(const char *session)
{
	struct ut_session_ctl ctl;
	char path[PATH_MAX];
	size_t want = offsetof(struct ut_session_ctl, procs);
	int fd, clock;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/control", session);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &ctl, want, 0);
	close(fd);
	if (n != (ssize_t)want || memcmp(ctl.magic, UT_CTL_MAGIC, 8))
		return -EINVAL;
	clock = ctl.clock == UT_CLOCK_TSC ? UT_CLOCK_TSC : UT_CLOCK_MONO;
	return clock;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* a hash of the names, sizes and times of the session's maps.* files; 0 if none */
static uint64_t maps_signature(const char *session)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct dirent *de;
	DIR *d = opendir(session);
	int n = 0;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX + 256];
		struct stat st;

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", session, de->d_name);
		if (stat(path, &st) < 0)
			continue;
		/* the order of readdir: sum the hashes of the entries */
		h += fnv(fnv(fnv(0xcbf29ce484222325ull, de->d_name, strlen(de->d_name)),
			     &st.st_size, sizeof(st.st_size)), &st.st_mtim, sizeof(st.st_mtim));
		n++;
	}
	if (d)
		closedir(d);
	return n ? h : 0;
}

/* copy the maps snapshots into the cache and rebuild the symbol tables */
static void cache_symbols(struct live_cache *c)
{
	uint64_t sig = maps_signature(c->session);
	struct dirent *de;
	DIR *d;

	if (sig == c->maps_sig || !c->dir[0])
		return;
	/*
	 * The session removed (usertrace umount, while a pump or a reader
	 * still runs): the symbols read so far stay, nothing to say
	 */
	d = opendir(c->session);
	if (!d || access(c->dir, F_OK) != 0) {
		if (d)
			closedir(d);
		return;
	}
	while ((de = readdir(d))) {
		char from[PATH_MAX + 256], to[PATH_MAX + 256];

		if (strncmp(de->d_name, "maps.", 5))
			continue;
		snprintf(from, sizeof(from), "%s/%s", c->session, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", c->dir, de->d_name);
		ut_copy_file(from, to, 0600);
	}
	closedir(d);
	if (c->cal.symtab)
		ut_symtab_free(c->cal.symtab);
	c->cal.symtab = NULL;
	if (ut_symtab_save(c->dir) == 0) {
		c->cal.symtab = ut_symtab_load(c->dir);
		ut_symtab_set_clock(c->cal.symtab, ut_data_ns_of, &c->cal);
	}
	c->maps_sig = sig;
}

/* the session's event registry, read-only; NULL if it has none */
static const struct ut_evreg *map_evreg(const char *session)
{
	char path[PATH_MAX + 16];
	struct stat st;
	void *m;
	int fd;

	snprintf(path, sizeof(path), "%s/" UT_EVREG_FILE, session);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct ut_evreg)) {
		close(fd);
		return NULL;
	}
	m = mmap(NULL, sizeof(struct ut_evreg), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (memcmp(((const struct ut_evreg *)m)->magic, UT_EVREG_MAGIC, 8) ||
	    ((const struct ut_evreg *)m)->version != UT_EVREG_VERSION) {
		munmap(m, sizeof(struct ut_evreg));
		return NULL;
	}
	return m;
}

struct live_cache *live_cache_get(const char *session, int *err)
{
	struct live_cache *c;
	char path[PATH_MAX + 16];
	uint64_t tsc0 = 0, mono0 = 0, tsc1 = 0, mono1 = 0;
	int clock;
	FILE *f;

	for (c = caches; c; c = c->next)
		if (!strcmp(c->session, session))
			goto found;
	clock = live_session_clock(session);
	if (clock < 0) {
		*err = clock;
		return NULL;
	}
	c = xcalloc(1, sizeof(*c));
	snprintf(c->session, sizeof(c->session), "%s", session);
	snprintf(c->dir, sizeof(c->dir), "%s/.live.XXXXXX", session);
	if (!mkdtemp(c->dir)) {
		*err = -errno;
		free(c);
		return NULL;
	}
	if (clock == UT_CLOCK_TSC) {
		ut_calibrate(&tsc0, &mono0);
		do
			usleep(200);
		while (ut_mono_ns() - mono0 < 2000000ull);
		ut_calibrate(&tsc1, &mono1);
	}
	snprintf(path, sizeof(path), "%s/info", c->dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "# usertrace live session %s\nversion=1\ntracer=" UT_TRACER_DEFAULT "\n"
			"clock=%s\ntsc0=%" PRIu64 "\nmono0=%" PRIu64 "\ntsc1=%" PRIu64
			"\nmono1=%" PRIu64 "\nnr_cpus=%ld\n", session,
			clock == UT_CLOCK_TSC ? "tsc" : "mono", tsc0, mono0, tsc1, mono1,
			sysconf(_SC_NPROCESSORS_CONF));
		if (fclose(f))
			f = NULL;
	}
	if (!f || ut_data_open(&c->cal, c->dir) < 0) {
		*err = -EIO;
		remove_tree(c->dir);
		free(c);
		return NULL;
	}
	/* a live session's events come long after its calibration: no time bound */
	c->cal.raw_lo = 0;
	c->cal.raw_span = UINT64_MAX;
	c->next = caches;
	caches = c;
	if (!atexit_done && atexit(live_cleanup) == 0)
		atexit_done = 1;
found:
	cache_symbols(c);
	if (!c->evreg)
		c->evreg = map_evreg(session);
	return c;
}

/*
 * The events the programs registered, for printing them: their formats,
 * made from the registry's descriptors.  NULL if the session has no
 * registry.  live_lock held.
 */
struct ut_evtab *live_cache_events(struct live_cache *c)
{
	struct ut_evtab *t;
	uint32_t nr;

	if (!c->evreg || !(t = ut_evtab_new()))
		return NULL;
	ut_evtab_set_symtab(t, c->cal.symtab);
	/* the ftrace system's entries (print, hw_branch, ...), as a recording's events/ has them */
	for (unsigned i = 0; i < ut_ftrace_nr_events; i++)
		ut_evtab_add_desc(t, &ut_ftrace_events[i]);
	nr = __atomic_load_n(&c->evreg->nr, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < nr && i < UT_EVREG_SLOTS; i++) {
		struct ut_event_desc *d = ut_evreg_desc(c->evreg, i);

		/* one that libtraceevent cannot read prints its bytes */
		if (d)
			ut_evtab_add_desc(t, d);
		free(d);
	}
	return t;
}

uint64_t live_cache_now(const struct live_cache *c)
{
	return c->cal.clock == UT_CLOCK_TSC ? ut_data_ns(&c->cal, ut_rdtsc()) : ut_mono_ns();
}

uint64_t live_ns(const char *session_dir, uint64_t raw)
{
	struct live_cache *c;
	uint64_t ns;
	int err;

	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &err);
	ns = c ? ut_data_ns(&c->cal, raw) : raw;
	pthread_mutex_unlock(&live_lock);
	return ns;
}

uint64_t live_raw_now(const char *session_dir)
{
	struct live_cache *c;
	int err, tsc;

	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &err);
	tsc = c && c->cal.clock == UT_CLOCK_TSC;
	pthread_mutex_unlock(&live_lock);
	return tsc ? ut_rdtsc() : ut_mono_ns();
}

uint64_t live_now(const char *session_dir)
{
	struct live_cache *c;
	uint64_t now;
	int err;

	pthread_mutex_lock(&live_lock);
	c = live_cache_get(session_dir, &err);
	now = c ? live_cache_now(c) : ut_mono_ns();
	pthread_mutex_unlock(&live_lock);
	return now;
}
