/* the dl events (usertrace/events/dl.h): a library loaded and unloaded, a load that fails */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;

	if (argc < 2)
		return 2;
	if (dlopen("/nonexistent/libnone.so", RTLD_LAZY))
		return 1;
	h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h)
		return 1;
	return dlclose(h);
}
