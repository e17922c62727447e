/* s-irqsoff.c - sections of known length for the latency tracers: signals
 * blocked (nested, and a handler held back until the end), a handler's
 * run, local_irq_save/restore, preempt_disable nested, a spin lock, and a
 * thread whose section is the longest of all (at nice 5: the latency
 * header's task line). */
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <usertrace/irqflags.h>
#include <usertrace/preempt.h>

#define noinline __attribute__((noinline))

static void spin(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

noinline void work(long us) { spin(us); }
static void handler(int sig) { (void)sig; work(300); }

/* SIGUSR1, then SIGUSR2 too, both unblocked at once: one section */
noinline void nested(long us)
{
	sigset_t a, b, old;

	sigemptyset(&a);
	sigaddset(&a, SIGUSR1);
	sigemptyset(&b);
	sigaddset(&b, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &a, &old);
	sigprocmask(SIG_BLOCK, &b, NULL);
	work(us);
	raise(SIGUSR1);		/* pending: it waits for the end (need-resched) */
	sigprocmask(SIG_SETMASK, &old, NULL);
}

noinline void cli(long us)
{
	unsigned long f;

	local_irq_save(f);
	work(us);
	local_irq_restore(f);
}

noinline void nopreempt(long us)
{
	pthread_spinlock_t l;

	pthread_spin_init(&l, 0);
	preempt_disable();
	pthread_spin_lock(&l);
	work(us);
	pthread_spin_unlock(&l);
	preempt_enable();
}

static void *thread(void *arg)
{
	(void)arg;
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5);
	cli(9000);
	return 0;
}

int main(void)
{
	pthread_t t;

	signal(SIGUSR1, handler);
	nested(2000);
	cli(1000);
	nopreempt(4000);
	raise(SIGUSR1);
	pthread_create(&t, 0, thread, 0);
	pthread_join(t, 0);
	return irqs_disabled() + preempt_count();
}
