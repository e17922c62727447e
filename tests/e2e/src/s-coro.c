/*
 * s-coro.c - a small coroutine scheduler on makecontext/swapcontext: two
 * coroutines taking turns with the main context, one handing over to the
 * other directly, a generator, setcontext to leave a finished coroutine,
 * and a getcontext/setcontext loop on one stack.
 */
#include <ucontext.h>
#define noinline __attribute__((noinline))

struct coro {
	ucontext_t ctx;
	void (*fn)(void);
	int done;
	char stack[64 * 1024];
};

static ucontext_t sched_ctx;
static struct coro ping_co, pong_co, gen_co;
static struct coro *volatile current;
static volatile int gen_value;
volatile int sink;

noinline void work(int x) { sink += x; }

/* back to the scheduler; returns when resumed */
noinline void coro_yield(void)
{
	struct coro *c = current;

	swapcontext(&c->ctx, &sched_ctx);
	sink++;
}

/* straight to another coroutine, without the scheduler */
noinline void coro_transfer(struct coro *to)
{
	struct coro *c = current;

	current = to;
	swapcontext(&c->ctx, &to->ctx);
	sink++;
}

/* every coroutine starts here and leaves with setcontext */
noinline void coro_main(void)
{
	current->fn();
	current->done = 1;
	setcontext(&sched_ctx);
}

noinline void coro_init(struct coro *c, void (*fn)(void))
{
	getcontext(&c->ctx);
	c->ctx.uc_stack.ss_sp = c->stack;
	c->ctx.uc_stack.ss_size = sizeof(c->stack);
	c->ctx.uc_link = 0;
	c->fn = fn;
	makecontext(&c->ctx, coro_main, 0);
}

noinline int coro_resume(struct coro *c)
{
	if (c->done)
		return 0;
	current = c;
	swapcontext(&sched_ctx, &c->ctx);
	return !c->done;
}

noinline void ping(void)
{
	work(1);
	coro_yield();
	work(2);
	coro_transfer(&pong_co);
	work(3);
}

noinline void pong(void)
{
	work(10);
	coro_yield();
	work(20);
	coro_yield();
}

noinline void gen_body(void)
{
	for (int i = 1; i <= 2; i++) {
		gen_value = i;
		coro_yield();
	}
}

noinline int gen_next(void)
{
	return coro_resume(&gen_co) ? gen_value : -1;
}

noinline void schedule(void)
{
	int more;

	do {
		more = coro_resume(&ping_co);
		more |= coro_resume(&pong_co);
	} while (more);
}

noinline void consume(void)
{
	int v;

	while ((v = gen_next()) >= 0)
		work(v);
}

/* setcontext back to a getcontext on the same stack: a loop */
noinline void again(void)
{
	ucontext_t uc;
	volatile int n = 0;

	getcontext(&uc);
	work(n);
	if (++n < 3)
		setcontext(&uc);
	sink++;
}

int main(void)
{
	coro_init(&ping_co, ping);
	coro_init(&pong_co, pong);
	coro_init(&gen_co, gen_body);
	schedule();
	consume();
	again();
	return 0;
}
