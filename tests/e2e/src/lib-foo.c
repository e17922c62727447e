/* lib-foo.c - an instrumented shared library */
#define noinline __attribute__((noinline))

noinline int foo_inner(int x) { return x * 2; }
noinline int foo(int x) { return foo_inner(x) + 1; }
