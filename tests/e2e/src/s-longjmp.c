/* s-longjmp.c - longjmp out of two traced frames */
#include <setjmp.h>
#define noinline __attribute__((noinline))

static jmp_buf env;

noinline void deep(void) { longjmp(env, 1); }
noinline void middle(void) { deep(); }
noinline int after(int x) { return x + 1; }

int main(void)
{
	if (setjmp(env) == 0)
		middle();
	return after(1) == 2 ? 0 : 1;
}
