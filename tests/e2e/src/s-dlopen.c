/* s-dlopen.c - calls into a library loaded with dlopen */
#include <dlfcn.h>
#include <stdio.h>
#define noinline __attribute__((noinline))

noinline int call(int (*fn)(int), int x) { int r = fn(x); return r + 1; }

int main(int argc, char **argv)
{
	void *h;
	int (*fn)(int);
	int r;

	if (argc < 2 || !(h = dlopen(argv[1], RTLD_NOW)))
		return 2;
	fn = (int (*)(int))dlsym(h, "foo");
	r = call(fn, 1);
	dlclose(h);
	return r == 4 ? 0 : 1;
}
