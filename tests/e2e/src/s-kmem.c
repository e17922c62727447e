/* the kmem events (usertrace/events/kmem.h): the malloc family */
#include <stdlib.h>
#include <string.h>

static void *volatile keep;

static void __attribute__((noinline)) work(void)
{
	char *a = malloc(10), *b = calloc(4, 8), *c;
	void *d = NULL;

	a = realloc(a, 100);
	free(b);
	free(NULL);		/* no event */
	if (posix_memalign(&d, 64, 48))
		d = NULL;
	c = aligned_alloc(32, 64);
	keep = a;
	free(a);
	free(c);
	free(d);
}

int main(void)
{
	work();
	return keep == NULL;
}
