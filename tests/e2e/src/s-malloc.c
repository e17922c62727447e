/* s-malloc.c - the program replaces malloc and free with traced ones */
#include <stddef.h>
#include <string.h>
#define noinline __attribute__((noinline))

static char arena[1 << 20];
static size_t used;
volatile int sink;
char *volatile keep;

noinline void *malloc(size_t n)
{
	void *p = arena + used;

	used += (n + 15) & ~(size_t)15;
	return used <= sizeof(arena) ? p : NULL;
}
noinline void free(void *p) { sink += p != NULL; }
/* zeroed by hand: gcc turns malloc + memset into a call to calloc itself */
noinline void *calloc(size_t n, size_t m)
{
	volatile char *p = malloc(n * m);

	for (size_t i = 0; p && i < n * m; i++)
		p[i] = 0;
	return (void *)p;
}
noinline void *realloc(void *old, size_t n) { void *p = malloc(n); if (p && old) memcpy(p, old, n); return p; }

noinline int use(void)
{
	char *p = malloc(32);

	int ok;

	keep = p;
	strcpy(p, "abc");
	ok = p[0] == 'a';
	free(p);
	return ok;
}

int main(void)
{
	return use() ? 0 : 1;
}
