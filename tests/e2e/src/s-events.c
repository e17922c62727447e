/*
 * tracepoints in the executable and in a dlopen'ed library: argv[1] is
 * the library; it is loaded, called, closed and loaded again
 */
#include <dlfcn.h>
#include <stdio.h>

#define CREATE_TRACE_POINTS
#include "ev_trace.h"

static int __attribute__((noinline)) serve(int id, const char *path)
{
	trace_request(id, path);
	return id + 1;
}

static int call_lib(const char *lib, int v)
{
	void *h = dlopen(lib, RTLD_NOW);
	int (*hit)(int);
	int r;

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	hit = (int (*)(int))dlsym(h, "evlib_hit");
	r = hit(v);
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	int s = 0;

	s += serve(7, "/api/x");
	trace_tick(1);
	s += serve(8, "/a/very/long/path");
	if (argc > 1) {
		s += call_lib(argv[1], 41);
		s += call_lib(argv[1], 42);
	}
	trace_tick(2);
	printf("s=%d enabled=%d\n", s, trace_request_enabled());
	return 0;
}
