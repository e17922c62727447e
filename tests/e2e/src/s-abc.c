/* s-abc.c - a simple call chain */
#define noinline __attribute__((noinline))

noinline int c(int x) { return x + 1; }
noinline int b(int x) { return c(x) * 2; }
noinline int a(int x) { return b(x) + 3; }

int main(void)
{
	return a(1) == 7 ? 0 : 1;
}
