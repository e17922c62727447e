// SPDX-License-Identifier: MIT
/*
 * statarea.c - the statistics a process keeps for the tools, each a file
 * SESSION/stat/NAME.<pid>.<img> mapped shared (usertrace/statarea.h).
 *
 * A tracer asks for its area once, off the hot path (its init, or the
 * first time it is needed), and then writes the payload with plain
 * stores.  In a forked child every area is made again for the child, at
 * the same address and zeroed: the child's counts are its own, and the
 * parent's file is left as the parent has it.  Sync hooks copy what a
 * tracer counts in the program's memory into its area; they run on the
 * control thread at each generation (the tracing directory reads a
 * statistic after one) and when the process exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "usertrace/statarea.h"

#define UT_STAT_AREAS	16
#define UT_STAT_SYNCS	16

struct ut_area {
	struct ut_stat_hdr *hdr;	/* NULL: a free slot */
	size_t len;			/* the mapping's bytes */
};

static struct ut_area areas[UT_STAT_AREAS];
static void (*syncs[UT_STAT_SYNCS])(void);
static pthread_mutex_t area_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t area_len(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (sizeof(struct ut_stat_hdr) + size + page - 1) & ~(page - 1);
}

/* the file of @name for this process image, mapped at @at (or anywhere) */
static struct ut_stat_hdr *area_map(const char *name, uint32_t version, size_t size, void *at)
{
	char path[700];
	size_t len = area_len(size);
	struct ut_stat_hdr *h;
	int fd;

	snprintf(path, sizeof(path), "%s/" UT_STAT_DIR, ut_session_dir());
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return NULL;
	snprintf(path, sizeof(path), "%s/" UT_STAT_DIR "/%s.%d.%llu", ut_session_dir(), name,
		 (int)getpid(), (unsigned long long)ut_image_id());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)len) < 0) {
		close(fd);
		unlink(path);
		return NULL;
	}
	h = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
	close(fd);
	if (h == MAP_FAILED) {
		unlink(path);
		return NULL;
	}
	/* the header last: a reader takes a file whose magic is set as whole */
	strncpy(h->name, name, sizeof(h->name) - 1);
	h->version = version;
	h->hdr_size = sizeof(*h);
	h->size = size;
	h->pid = (int32_t)getpid();
	h->img = ut_image_id();
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	__atomic_store_n((uint64_t *)h->magic, *(const uint64_t *)UT_STAT_MAGIC, __ATOMIC_RELEASE);
	return h;
}

void *ut_stat_area(const char *name, uint32_t version, size_t size)
{
	struct ut_stat_hdr *h = NULL;
	int i, err = errno;	/* a program's thread may ask: its errno stays */

	if (!ut_ctl || !name || strlen(name) >= UT_STAT_NAME_MAX || strchr(name, '/') ||
	    strchr(name, '.'))
		return NULL;	/* errno untouched */
	pthread_mutex_lock(&area_lock);
	for (i = 0; i < UT_STAT_AREAS; i++)
		if (areas[i].hdr && !strcmp(areas[i].hdr->name, name))
			break;
	if (i < UT_STAT_AREAS) {
		/* asked again: the same area, if it is the same layout */
		h = areas[i].hdr->version == version && areas[i].hdr->size == size ? areas[i].hdr : NULL;
	} else {
		for (i = 0; i < UT_STAT_AREAS && areas[i].hdr; i++)
			;
		if (i < UT_STAT_AREAS && (h = area_map(name, version, size, NULL))) {
			areas[i].hdr = h;
			areas[i].len = area_len(size);
		}
	}
	pthread_mutex_unlock(&area_lock);
	if (!h)
		ut_session_error("cannot make the statistics file %s: %s", name,
				 i == UT_STAT_AREAS ? "too many" : strerror(errno));
	errno = err;
	return h ? (char *)h + h->hdr_size : NULL;
}

int ut_stat_on_sync(void (*fn)(void))
{
	int ret = -1;

	pthread_mutex_lock(&area_lock);
	for (int i = 0; i < UT_STAT_SYNCS; i++) {
		if (syncs[i] == fn || !syncs[i]) {
			syncs[i] = fn;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&area_lock);
	return ret;
}

void ut_stat_sync(void)
{
	for (int i = 0; i < UT_STAT_SYNCS; i++) {
		void (*fn)(void) = __atomic_load_n(&syncs[i], __ATOMIC_ACQUIRE);

		if (fn)
			fn();
	}
	for (int i = 0; i < UT_STAT_AREAS; i++) {
		struct ut_stat_hdr *h = __atomic_load_n(&areas[i].hdr, __ATOMIC_ACQUIRE);

		if (h) {
			prctl(PR_GET_NAME, h->comm, 0, 0, 0);
			__atomic_add_fetch(&h->syncs, 1, __ATOMIC_RELEASE);
		}
	}
}

/*
 * In the child of a fork (its only thread: no lock needed, and the
 * parent's lock state is not ours to trust): each area becomes a file of
 * its own, zeroed, at the address the tracers know.  One that cannot be
 * made is left unmapped-and-replaced by private zeroes, so that the
 * tracer's stores stay harmless.
 */
void ut_stat_atfork_child(void)
{
	pthread_mutex_init(&area_lock, NULL);
	for (int i = 0; i < UT_STAT_AREAS; i++) {
		struct ut_stat_hdr *h = areas[i].hdr;
		char name[UT_STAT_NAME_MAX];

		if (!h)
			continue;
		memcpy(name, h->name, sizeof(name));
		if (!area_map(name, h->version, h->size, h)) {
			mmap(h, areas[i].len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			areas[i].hdr = NULL;
		}
	}
}
