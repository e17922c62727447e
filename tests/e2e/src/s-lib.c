/* s-lib.c - calls into an instrumented shared library */
#define noinline __attribute__((noinline))

int foo(int x);

noinline int local(int x) { return foo(x) + 1; }

int main(void)
{
	return local(1) == 4 ? 0 : 1;
}
