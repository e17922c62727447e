/* lib-two.c - the same layout as lib-one.c, loaded where it was */
#define noinline __attribute__((noinline))

noinline int two_inner(int x) { return x * 2; }
noinline int two_fn(int x) { return two_inner(x) + 1; }
