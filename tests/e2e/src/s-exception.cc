// s-exception.cc - an exception unwinds through traced frames
#define noinline __attribute__((noinline))

noinline void thrower(int x) { if (x) throw x; }
noinline void middle(int x) { thrower(x); }
noinline int catcher(int x)
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
	return catcher(4) == 4 && after(1) == 2 ? 0 : 1;
}
