/* kmemtrace: C++ new and delete, their sites the program's */
#include <new>
#include <cstdlib>

struct alignas(64) Big { char c[64]; };

static void *volatile sink;
static volatile int after;

__attribute__((noinline)) void one(void)
{
	int *p = new int(7);

	sink = p;
	delete p;
	after = 1;
}

__attribute__((noinline)) void array(void)
{
	char *a = new char[50];

	sink = a;
	delete[] a;
	after = 1;
}

__attribute__((noinline)) void nothrow(void)
{
	long *p = new (std::nothrow) long[3];

	sink = p;
	delete[] p;
	after = 1;
}

__attribute__((noinline)) void aligned(void)
{
	Big *b = new Big;

	sink = b;
	delete b;
	after = 1;
}

__attribute__((noinline)) void kept(void)
{
	sink = new double[2];
	after = 1;
}

__attribute__((noinline)) void huge(void)
{
	try {
		sink = new char[(size_t)1 << 62];
	} catch (const std::bad_alloc &) {
		after = 2;
	}
}

int main(void)
{
	one();
	array();
	nothrow();
	aligned();
	kept();
	huge();
	sink = malloc(8);	/* the quiet section ended with the exception */
	return 0;
}
