/* trace_printk, trace_puts and tracing_off from the program (usertrace/tracing.h) */
#include <stdio.h>
#include <usertrace/tracing.h>

static int __attribute__((noinline)) step(int x)
{
	trace_printk("step x=%d\n", x);
	return x * 2;
}

int main(void)
{
	int s = 0;

	for (int i = 0; i < 2; i++)
		s += step(i);
	trace_puts("done\n");
	tracing_off();
	trace_printk("not recorded %d\n", s);
	step(5);	/* not recorded either */
	printf("on=%d s=%d\n", tracing_is_on(), s);
	return 0;
}
