/* lib-one.c - loaded, called and unloaded before lib-two.c takes its place */
#define noinline __attribute__((noinline))

noinline int one_inner(int x) { return x * 2; }
noinline int one_fn(int x) { return one_inner(x) + 1; }
