// s-rethrow.cc - an exception caught, rethrown, and caught again higher up
#define noinline __attribute__((noinline))

volatile int sink;

noinline void thrower(int x) { if (x) throw x; }
noinline void middle(int x)
{
	try {
		thrower(x);
	} catch (int) {
		sink++;
		throw;
	}
}
noinline int outer(int x)
{
	try {
		middle(x);
	} catch (int e) {
		return e;
	}
	return 0;
}
noinline int after(int x) { return x + 1; }

int main()
{
	return outer(3) == 3 && after(1) == 2 ? 0 : 1;
}
