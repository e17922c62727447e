// SPDX-License-Identifier: MIT
/*
 * mmiotrace.c - the mmiotrace tracer's runtime part: accesses to device
 * memory mapped into the program, caught by page protection and
 * single-stepping, written as the mmiotrace:mmiotrace_rw and
 * mmiotrace_map events (usertrace/events/mmiotrace.h).
 *
 * The regions: registered by the program (usertrace/mmio.h:
 * usertrace_mmio_register()), or mapped by mmap() from /dev/mem, a
 * /dev/uioN or a VFIO device fd (registered here, unregistered by
 * munmap).  While the tracer runs, their pages are PROT_NONE; the
 * regions registered before it starts are protected at its start and
 * given back their protection when it stops.
 *
 * An access to a protected page faults (SIGSEGV, SEGV_ACCERR).  Our
 * handler decodes the instruction with capstone (a decoder made at the
 * tracer's start, cs_disasm_iter into a buffer of its own: nothing is
 * allocated in the handler), takes what a write stores (its source
 * register or immediate), opens the region's pages, and returns with the
 * trap flag set: the instruction runs once, then SIGTRAP (TRAP_TRACE).
 * There the handler takes what a read loaded (its destination register;
 * the device is never read a second time), writes the event, protects
 * the pages again and clears the trap flag.  An instruction whose
 * operands are not a plain register or immediate (string moves, SSE,
 * read-modify-write) is written as UT_MMIO_UNKNOWN_OP with its first
 * three bytes, as the kernel's mmiotrace does.
 *
 * The program's own handlers: the faults and traps that are not ours
 * (another address, another si_code, no step of ours under way) go to
 * the handler that was installed before ours (signal.c's, which calls
 * the program's), or to one the program installs later
 * (ut_mmio_sigaction(), called by signal.c's sigaction()); with none,
 * the default action is restored and the fault happens again.
 *
 * Threads: the step state is per thread.  While one thread steps, the
 * region's pages are open to all: an access by another thread in that
 * window is not seen (the pages close when the last step ends).  This
 * is the limit of doing it in user space without stopping the others.
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/events/mmiotrace.h"

#define MMIO_MAX	64
#define EFLAGS_TF	0x100

struct region {
	uintptr_t start, end;	/* the registered bytes */
	uintptr_t pstart, pend;	/* their pages */
	uint64_t phys;
	int prot;		/* what the pages had */
	int id;
	int used;		/* 1 while registered (read by the handlers) */
	int auto_;		/* mapped through mmap (unregistered by munmap) */
	int told;		/* its MAP line is written (since the tracer's start) */
};

static struct region regions[MMIO_MAX];
static pthread_mutex_t mmio_lock = PTHREAD_MUTEX_INITIALIZER;
static int next_id;
static int running;		/* the tracer runs: the pages are protected */
static int steppers;		/* threads in a step: the pages stay open */

static csh cs;
static int cs_ok;
/* the decoder's output: one per thread would be better; the lock below serialises it */
static cs_insn *cs_buf;
static int cs_busy;

static struct sigaction prev_segv, prev_trap;
static int handlers_in;
static __typeof__(sigaction) *real_sigaction;

struct step {
	int active;
	struct region *r;
	uintptr_t addr, pc;
	unsigned width;
	int op;			/* UT_MMIO_READ, _WRITE, _UNKNOWN_OP */
	unsigned long value;	/* a write's; an unknown's bytes */
	int dst;		/* a read's destination register (capstone), 0: none */
};

static __thread struct step step __attribute__((tls_model("initial-exec")));

static long page_size(void)
{
	static long pg;

	if (!pg)
		pg = sysconf(_SC_PAGESIZE);
	return pg;
}

static void protect(struct region *r, int on)
{
	mprotect((void *)r->pstart, r->pend - r->pstart, on ? PROT_NONE : r->prot);
}

/* the region whose pages hold @a: its bytes first, then its pages only */
static struct region *region_of(uintptr_t a, int *in_bytes)
{
	struct region *page = NULL;

	for (int i = 0; i < MMIO_MAX; i++) {
		struct region *r = &regions[i];

		if (!__atomic_load_n(&r->used, __ATOMIC_ACQUIRE))
			continue;
		if (a >= r->start && a < r->end) {
			*in_bytes = 1;
			return r;
		}
		if (a >= r->pstart && a < r->pend && !page)
			page = r;
	}
	*in_bytes = 0;
	return page;
}

/* ---- the registers of a decoded instruction ---- */

/* the gregs slot of a capstone register, its width and shift (ah: 8) */
static int reg_slot(unsigned reg, unsigned *bytes, unsigned *shift)
{
	static const struct {
		unsigned r64, r32, r16, r8, r8h;
		int slot;
	} map[] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH, REG_RAX },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH, REG_RBX },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH, REG_RCX },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH, REG_RDX },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0, REG_RSI },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0, REG_RDI },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0, REG_RBP },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0, REG_RSP },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0, REG_R8 },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0, REG_R9 },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0, REG_R10 },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0, REG_R11 },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0, REG_R12 },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0, REG_R13 },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0, REG_R14 },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0, REG_R15 },
	};

	*shift = 0;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (reg == map[i].r64)
			*bytes = 8;
		else if (reg == map[i].r32)
			*bytes = 4;
		else if (reg == map[i].r16)
			*bytes = 2;
		else if (reg == map[i].r8)
			*bytes = 1;
		else if (map[i].r8h && reg == map[i].r8h) {
			*bytes = 1;
			*shift = 8;
		} else
			continue;
		return map[i].slot;
	}
	return -1;
}

static unsigned long mask(unsigned long v, unsigned width)
{
	return width >= 8 ? v : v & ((1ul << (8 * width)) - 1);
}

/* the value of register @reg in @uc, @width bytes of it; 0 if not a GPR */
static int reg_value(const ucontext_t *uc, unsigned reg, unsigned width, unsigned long *v)
{
	unsigned bytes, shift;
	int slot = reg_slot(reg, &bytes, &shift);

	if (slot < 0)
		return 0;
	*v = mask((unsigned long)uc->uc_mcontext.gregs[slot] >> shift, width < bytes ? width : bytes);
	return 1;
}

/*
 * Decode the instruction at @pc into @st: which access, how wide, a
 * write's value.  Context: the SIGSEGV handler.
 */
static void decode(struct step *st, const ucontext_t *uc, uintptr_t pc)
{
	const uint8_t *code = (const uint8_t *)pc;
	size_t size = 16;
	uint64_t address = pc;
	const cs_x86 *x;
	int mem = -1;

	st->op = UT_MMIO_UNKNOWN_OP;
	st->width = 0;
	st->value = ((unsigned long)code[0] << 16) | ((unsigned long)code[1] << 8) | code[2];
	st->dst = 0;
	if (!cs_ok || __atomic_exchange_n(&cs_busy, 1, __ATOMIC_ACQUIRE))
		return;
	if (!cs_disasm_iter(cs, &code, &size, &address, cs_buf) || !cs_buf->detail)
		goto out;
	x = &cs_buf->detail->x86;
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM) {
			mem = i;
			break;
		}
	if (mem < 0)
		goto out;
	st->width = x->operands[mem].size;
	switch (cs_buf->id) {
	case X86_INS_MOV:
	case X86_INS_MOVZX:
	case X86_INS_MOVSX:
	case X86_INS_MOVSXD:
		if (x->op_count != 2)
			break;
		if (mem == 1 && x->operands[0].type == X86_OP_REG) {
			st->op = UT_MMIO_READ;
			st->dst = x->operands[0].reg;
		} else if (mem == 0 && x->operands[1].type == X86_OP_IMM) {
			st->op = UT_MMIO_WRITE;
			st->value = mask((unsigned long)x->operands[1].imm, st->width);
		} else if (mem == 0 && x->operands[1].type == X86_OP_REG &&
			   reg_value(uc, x->operands[1].reg, st->width, &st->value))
			st->op = UT_MMIO_WRITE;
		break;
	default:
		break;
	}
out:
	__atomic_store_n(&cs_busy, 0, __ATOMIC_RELEASE);
}

/* ---- the handlers ---- */

static void map_tell(struct region *r);

/* give @sig to the handler before ours: the program's, or the default */
static void chain(struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
	if (prev->sa_flags & SA_SIGINFO && prev->sa_sigaction)
		prev->sa_sigaction(sig, si, uc);
	else if (prev->sa_handler == SIG_IGN && sig != SIGSEGV)
		return;
	else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN)
		prev->sa_handler(sig);
	else {
		/* the default: the kernel's, when the instruction faults again (or now) */
		struct sigaction dfl = { 0 };

		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		real_sigaction(sig, &dfl, NULL);
		if (sig == SIGTRAP)
			raise(SIGTRAP);
	}
}

static void segv_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t a = (uintptr_t)si->si_addr;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	struct region *r;
	int in_bytes, err = errno;

	if (si->si_code != SEGV_ACCERR || !(r = region_of(a, &in_bytes))) {
		chain(&prev_segv, sig, si, uc_);
		return;
	}
	if (step.active) {
		/* another thread closed the pages in the middle of our step: open them */
		protect(r, 0);
		errno = err;
		return;
	}
	memset(&step, 0, sizeof(step));
	if (in_bytes)
		decode(&step, uc, pc);
	step.r = in_bytes ? r : NULL;	/* the page's other bytes: stepped, not written */
	step.addr = a;
	step.pc = pc;
	step.active = 1;
	__atomic_fetch_add(&steppers, 1, __ATOMIC_ACQ_REL);
	protect(r, 0);
	uc->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
	errno = err;
}

static void trap_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	int err = errno;

	if (!step.active || si->si_code != TRAP_TRACE) {
		chain(&prev_trap, sig, si, uc_);
		return;
	}
	uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
	step.active = 0;
	if (step.r) {
		map_tell(step.r);
		if (step.op == UT_MMIO_READ && !reg_value(uc, step.dst, step.width, &step.value))
			step.op = UT_MMIO_UNKNOWN_OP;
		trace_mmiotrace_rw(step.r->phys + (step.addr - step.r->start), step.value, step.pc,
				   step.r->id, (unsigned char)step.op, (unsigned char)step.width);
	}
	/*
	 * the last step over: every region closes again, not only this
	 * step's (another thread's step, or an instruction that touched a
	 * second region, opened others)
	 */
	if (__atomic_sub_fetch(&steppers, 1, __ATOMIC_ACQ_REL) == 0 &&
	    __atomic_load_n(&running, __ATOMIC_ACQUIRE))
		for (int i = 0; i < MMIO_MAX; i++)
			if (__atomic_load_n(&regions[i].used, __ATOMIC_ACQUIRE))
				protect(&regions[i], 1);
	errno = err;
}

static int handlers_install(void)
{
	struct sigaction sa = { 0 };

	if (handlers_in)
		return 0;
	if (!real_sigaction)
		real_sigaction = (__typeof__(sigaction) *)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		return -1;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = segv_handler;
	if (real_sigaction(SIGSEGV, &sa, &prev_segv) < 0)
		return -1;
	sa.sa_sigaction = trap_handler;
	if (real_sigaction(SIGTRAP, &sa, &prev_trap) < 0) {
		real_sigaction(SIGSEGV, &prev_segv, NULL);
		return -1;
	}
	handlers_in = 1;
	return 0;
}

int ut_mmio_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction *prev;

	if ((sig != SIGSEGV && sig != SIGTRAP) || !__atomic_load_n(&handlers_in, __ATOMIC_ACQUIRE))
		return 0;
	prev = sig == SIGSEGV ? &prev_segv : &prev_trap;
	pthread_mutex_lock(&mmio_lock);
	if (old)
		*old = *prev;
	if (act)
		*prev = *act;
	pthread_mutex_unlock(&mmio_lock);
	return 1;
}

/* ---- the regions ---- */

static void map_event(const struct region *r, int op)
{
	trace_mmiotrace_map(r->phys, r->start, r->end - r->start, r->id, (unsigned char)op);
}

/*
 * The MAP line of @r, once.  The tracer starts before its events are on
 * (the runtime applies the tracers, then the events): a region known at
 * the start is told at its first access if not then.
 */
static void map_tell(struct region *r)
{
	if (trace_mmiotrace_map_enabled() && !__atomic_exchange_n(&r->told, 1, __ATOMIC_ACQ_REL))
		map_event(r, UT_MMIO_PROBE);
}

/* regions mapped through mmap: while none, munmap needs no look */
static int mmio_nauto;

static int do_register(void *addr, size_t len, uint64_t phys, int prot, int auto_)
{
	uintptr_t a = (uintptr_t)addr;
	long pg = page_size();
	struct region *r = NULL;
	int id;

	if (!addr || !len || a + len < a)
		return -EINVAL;
	pthread_mutex_lock(&mmio_lock);
	for (int i = 0; i < MMIO_MAX; i++) {
		if (regions[i].used && a < regions[i].end && a + len > regions[i].start) {
			pthread_mutex_unlock(&mmio_lock);
			return -EEXIST;
		}
		if (!regions[i].used && !r)
			r = &regions[i];
	}
	if (!r) {
		pthread_mutex_unlock(&mmio_lock);
		return -ENOSPC;
	}
	r->start = a;
	r->end = a + len;
	r->pstart = a & ~(uintptr_t)(pg - 1);
	r->pend = (a + len + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
	r->phys = phys;
	r->prot = prot;
	r->auto_ = auto_;
	if (auto_)
		__atomic_add_fetch(&mmio_nauto, 1, __ATOMIC_RELAXED);
	r->id = id = ++next_id;
	r->told = 0;
	__atomic_store_n(&r->used, 1, __ATOMIC_RELEASE);
	if (running) {
		map_tell(r);
		protect(r, 1);
	}
	pthread_mutex_unlock(&mmio_lock);
	return id;
}

static int do_unregister(uintptr_t a, int auto_only)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&mmio_lock);
	for (int i = 0; i < MMIO_MAX; i++) {
		struct region *r = &regions[i];

		if (!r->used || r->start != a || (auto_only && !r->auto_))
			continue;
		if (running) {
			protect(r, 0);
			map_event(r, UT_MMIO_UNPROBE);
		}
		if (r->auto_)
			__atomic_sub_fetch(&mmio_nauto, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->used, 0, __ATOMIC_RELEASE);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&mmio_lock);
	return ret;
}

/* usertrace/mmio.h */
EXPORT int usertrace_mmio_register(void *addr, size_t len, unsigned long long phys)
{
	return do_register(addr, len, phys, PROT_READ | PROT_WRITE, 0);
}

EXPORT int usertrace_mmio_unregister(void *addr)
{
	return do_unregister((uintptr_t)addr, 0);
}

/* ---- device mappings ---- */

/*
 * Is @fd a device whose mappings are device memory: /dev/mem (char 1:1),
 * a UIO device (/dev/uioN), a VFIO device (an anon inode named
 * [vfio-device])?  The physical address of @off in it: /dev/mem's offset
 * is one; UIO's and VFIO's encode a region index, shown as it is.
 */
static int device_fd(int fd)
{
	char path[64], link[64];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 1)
		return 1;
	/* a UIO device is a character device, a VFIO one an anonymous inode: not a file */
	if (!S_ISCHR(st.st_mode) && (st.st_mode & S_IFMT))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = 0;
	return !strncmp(link, "/dev/uio", 8) || !strcmp(link, "anon_inode:[vfio-device]");
}

void ut_mmio_mmapped(void *p, size_t len, int prot, int flags, int fd, long off)
{
	int err = errno;	/* the mmap succeeded: its caller's errno stays */

	if (p != MAP_FAILED && len && !(flags & MAP_ANONYMOUS) && device_fd(fd))
		do_register(p, len, (uint64_t)off, prot, 1);
	errno = err;
}

void ut_mmio_munmapped(void *p)
{
	if (__atomic_load_n(&mmio_nauto, __ATOMIC_RELAXED))
		do_unregister((uintptr_t)p, 1);
}

/* ---- the tracer ---- */

static int mmio_init(void)
{
	pthread_mutex_lock(&mmio_lock);
	if (!cs_ok && cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK) {
		cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		cs_buf = cs_malloc(cs);
		cs_ok = cs_buf != NULL;
	}
	if (!cs_ok || handlers_install() < 0) {
		pthread_mutex_unlock(&mmio_lock);
		ut_log("mmiotrace: %s", cs_ok ? "cannot install the SIGSEGV/SIGTRAP handlers"
					       : "capstone's x86 decoder does not open");
		return -1;
	}
	__atomic_store_n(&running, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < MMIO_MAX; i++)
		if (regions[i].used) {
			regions[i].told = 0;
			map_tell(&regions[i]);
			protect(&regions[i], 1);
		}
	pthread_mutex_unlock(&mmio_lock);
	return 0;
}

static void mmio_reset(void)
{
	pthread_mutex_lock(&mmio_lock);
	__atomic_store_n(&running, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < MMIO_MAX; i++)
		if (regions[i].used)
			protect(&regions[i], 0);
	pthread_mutex_unlock(&mmio_lock);
}

const struct ut_rt_tracer ut_rt_tracer_mmiotrace = {
	.name = "mmiotrace",
	.init = mmio_init,
	.reset = mmio_reset,
};
