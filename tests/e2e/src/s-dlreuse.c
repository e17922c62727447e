/*
 * s-dlreuse.c - dlopen a library, call it, dlclose it; dlopen another one
 * of the same size, which the kernel maps at the same address, call it.
 * Exits 3 if the second was not mapped where the first was (the test then
 * proves nothing).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#define noinline __attribute__((noinline))

noinline int call(int (*fn)(int), int x) { int r = fn(x); return r + 1; }

/* load @path, call @sym in it, unload it; its base address, 0 on failure */
noinline unsigned long use(const char *dir, const char *lib, const char *sym)
{
	struct link_map *lm;
	unsigned long base = 0;
	char path[4096];
	void *h;
	int (*fn)(int);

	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	if (!(h = dlopen(path, RTLD_NOW)))
		return 0;
	fn = (int (*)(int))dlsym(h, sym);
	if (fn && call(fn, 1) == 4 && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0)
		base = lm->l_addr;
	dlclose(h);
	return base;
}

int main(int argc, char **argv)
{
	unsigned long a, b;

	if (argc < 2)
		return 2;
	a = use(argv[1], "libone.so", "one_fn");
	b = use(argv[1], "libtwo.so", "two_fn");
	if (!a || !b)
		return 1;
	return a == b ? 0 : 3;
}
