/* lib.c - a library that fuzz/seed/prog.c loads with dlopen (maps "# time" lines) */
#define noinline __attribute__((noinline))

static volatile int sink;

noinline static void lib_leaf(void)
{
	sink++;
}

noinline void lib_fn(void)
{
	lib_leaf();
}
