/* s-context.c - swapcontext between two stacks */
#include <ucontext.h>
#define noinline __attribute__((noinline))

static ucontext_t main_ctx, co_ctx;
static char co_stack[64 * 1024];
volatile int sink;

noinline int co_leaf(int x) { sink += x; return x + 1; }
noinline void co_body(void) { co_leaf(1); swapcontext(&co_ctx, &main_ctx); co_leaf(2); sink++; }
noinline int main_leaf(int x) { sink += x; return x * 2; }

noinline void run(void)
{
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_body, 0);
	swapcontext(&main_ctx, &co_ctx);
	main_leaf(1);
	swapcontext(&main_ctx, &co_ctx);
	main_leaf(2);
}

int main(void)
{
	run();
	return 0;
}
