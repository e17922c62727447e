/* s-dlclose.c - a library loaded, unloaded and loaded again */
#include <dlfcn.h>
#define noinline __attribute__((noinline))

noinline int call(int (*fn)(int), int x) { int r = fn(x); return r + 1; }

static int round_trip(const char *path, int x)
{
	void *h = dlopen(path, RTLD_NOW);
	int r;

	if (!h)
		return -1;
	r = call((int (*)(int))dlsym(h, "foo"), x);
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	/* the second load may land where the first was: its sites are new */
	return round_trip(argv[1], 1) == 4 && round_trip(argv[1], 2) == 6 ? 0 : 1;
}
