/*
 * mmiotrace: a page registered as device memory (usertrace/mmio.h),
 * written and read 1, 2, 4 and 8 bytes at a time, by immediates and by
 * registers, and added to (an instruction mmiotrace does not decode); the program's own SIGSEGV handler still gets its fault (a
 * PROT_NONE page that is not registered), and after the unregistration
 * the page is plain memory again.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <usertrace/mmio.h>
#include <usertrace/tracing.h>

static volatile char *guard;
static volatile int own_faults;

static void own_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)uc;
	if ((volatile char *)si->si_addr == guard) {
		own_faults++;
		mprotect((void *)guard, 4096, PROT_READ | PROT_WRITE);
	}
}

int main(int argc, char **argv)
{
	volatile uint8_t *b;
	volatile uint16_t *h;
	volatile uint32_t *w;
	volatile uint64_t *q;
	uint64_t v = 0x1122334455667788ull + (uint64_t)(argc - 1);
	unsigned long sum = 0;
	struct sigaction sa;
	char *page;
	int id;

	(void)argv;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || guard == MAP_FAILED)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = own_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);

	id = ut_mmio_register(page + 0x100, 0x40, 0xfebf0000ull);
	b = (volatile uint8_t *)(page + 0x100);
	h = (volatile uint16_t *)(page + 0x102);
	w = (volatile uint32_t *)(page + 0x104);
	q = (volatile uint64_t *)(page + 0x108);
	*b = 0xab;			/* W 1, immediate */
	*h = (uint16_t)v;		/* W 2, register */
	*w = 0xcafe0042;		/* W 4, immediate */
	*q = v;				/* W 8, register */
	/* a read-modify-write: UNKNOWN with its first three bytes (83 00 01) */
	__asm__ volatile("addl $1, (%0)" : : "a"(w) : "memory");
	trace_puts("reads\n");		/* a MARK line */
	sum += *b;			/* R 1 */
	sum += *h;			/* R 2 */
	sum += *w;			/* R 4 */
	sum += *q;			/* R 8 */
	page[0x800] = 1;		/* the same page, not the region: no line */
	guard[0] = 7;			/* the program's own fault */
	ut_mmio_unregister(page + 0x100);
	*w = 1;				/* plain memory again */
	printf("id %d own faults %d guard %d sum %lx\n", id, own_faults, guard[0], sum);
	/* traced: registered, every value as written, the program's fault its own */
	return id == 1 && own_faults == 1 && guard[0] == 7 && *w == 1 && *b == 0xab &&
	       sum == 0xab + 0x7788 + 0xcafe0043ul + 0x1122334455667788ul ? 0 : 3;
}
