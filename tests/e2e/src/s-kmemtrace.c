/* kmemtrace: allocations of known sizes from known call sites, one leak of each kind */
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile sink;
static volatile int after;

/* 3 x malloc(10), freed: 3 hits, 30 bytes asked, 72 given (24 each) */
__attribute__((noinline)) void small(void)
{
	for (int i = 0; i < 3; i++) {
		sink = malloc(10);
		free(sink);
		after = i;
	}
}

/* calloc(4, 8): 32 asked, 40 given, freed */
__attribute__((noinline)) void zeroed(void)
{
	sink = calloc(4, 8);
	free(sink);
	after = 1;
}

/* malloc(100), never freed: the leak */
__attribute__((noinline)) void leak(void)
{
	sink = malloc(100);
	after = 1;
}

/* realloc(NULL, 40) then realloc to 200: two hits, the first freed by the second */
__attribute__((noinline)) void grow(void)
{
	void *p = realloc(NULL, 40);

	p = realloc(p, 200);
	sink = p;
	free(p);
	after = 1;
}

/* an anonymous mapping of 10000 bytes (3 pages), unmapped; one of 5000 (2 pages), kept */
__attribute__((noinline)) void anon(void)
{
	void *p = mmap(NULL, 10000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, 10000);
	sink = mmap(NULL, 5000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	after = 1;
}

/* a file's mapping: not counted */
__attribute__((noinline)) void file(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);

	munmap(p, 4096);
	close(fd);
	after = 1;
}

int main(void)
{
	small();
	zeroed();
	leak();
	grow();
	anon();
	file();
	return 0;
}
