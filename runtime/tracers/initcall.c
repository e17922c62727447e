// SPDX-License-Identifier: MIT
/*
 * initcall.c - the runtime part of the initcall tracer: the constructors
 * of the program and of its libraries (DT_PREINIT_ARRAY, DT_INIT,
 * DT_INIT_ARRAY, where gcc puts .ctors too) and their destructors
 * (DT_FINI_ARRAY, DT_FINI, .dtors), each timed: a record before the call
 * (TRACE_DIR of dir UT_TRACE_DIR_ICALL: the function) and one after
 * (UT_TRACE_DIR_ICRET: the function, its return value: 0, they return
 * nothing, and the call's duration in ns, measured here: the records of
 * what ran before the runtime was up are written later, their times
 * are those of the writing), which output/tracers/initcall.c prints as the kernel's
 * initcall_debug lines.
 *
 * How they are seen.  ld.so calls an object's constructors from
 * l_info[DT_INIT_ARRAY], a pointer into the object's own .dynamic
 * section, read when it calls them (_dl_init; the program's own in
 * __libc_start_main's call_init, glibc 2.34 and later), and its
 * destructors likewise at exit (_dl_fini).  Each object's entries are
 * pointed at a one-entry array of a runner of ours (RUNNERS below: one
 * per object), which calls the object's original functions in order,
 * timed; the .dynamic entry is in the RELRO segment, made writable for
 * the change and read-only again.
 *
 * When.  The libraries the program is linked with run their
 * constructors before any constructor of the preloaded runtime (ld.so
 * initialises dependencies first, and the preloaded object comes first
 * in the search list).  They are relocated before it, though: the
 * runtime changes them from an IFUNC resolver (ut_initcall_resolve),
 * which ld.so calls while relocating the runtime, before any object's
 * constructor.  It uses raw system calls only (libc is not initialised
 * yet): it reads USERTRACE_SESSION from /proc/self/environ and the
 * session's active_tracers from its control file, and changes nothing
 * unless initcall is there.  The link map comes from the executable's
 * DT_DEBUG (r_debug), found through /proc/self/auxv (AT_PHDR).  What
 * runs before the runtime is up is kept in a small table and written
 * when it is (ut_initcall_flush(), from the runtime's second
 * constructor).  Objects loaded later (dlopen) are changed between
 * their mapping and their relocation: the runtime replaces ld.so's
 * _dl_debug_state() (r_debug.r_brk, which ld.so calls with RT_CONSISTENT
 * once the new objects are mapped, the debuggers' breakpoint) by a jump
 * to ut_initcall_brk(), when its code is the one-byte `ret` on its own
 * 16 bytes (glibc on x86-64).
 *
 * What it cannot see: libc's and ld.so's own initialisation (not
 * constructors in their arrays: _dl_init does not run them through
 * DT_INIT_ARRAY, and libc's early init is called directly), the
 * runtime's own constructors, constructors of a program linked against
 * a glibc older than 2.34 (its __libc_csu_init walks __init_array_start
 * directly), objects of other link-map namespaces (dlmopen), and
 * destructors registered with atexit/__cxa_atexit (C++ static objects'
 * destructors: those are calls of the program, not array entries).  A
 * live session that selects initcall after start-up sees the
 * destructors of the objects present then and everything dlopen'ed
 * later.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/tracers.h"

/* initcall's line in tracers.def: its bit in active_tracers */
enum {
#define UT_TRACER(name, needs, help)	IC_ID_##name,
#include "usertrace/tracers.def"
#undef UT_TRACER
};
#define IC_TRACER_ID	IC_ID_initcall

#define IC_OBJS		96	/* objects whose arrays we run */
#define IC_EARLY	256	/* records kept before the runtime is up */

typedef void (*ic_init_t)(int, char **, char **);
typedef void (*ic_fini_t)(void);

struct ic_obj {
	ElfW(Addr) base;
	const ElfW(Dyn) *ld;	/* its .dynamic: the object's identity */
	uintptr_t preinit, init, fini;	/* the original arrays */
	size_t npreinit, ninit, nfini;
	uintptr_t init_fn, fini_fn;	/* DT_INIT, DT_FINI */
	const ElfW(Xword) *mark;	/* an entry we changed, and the value we put */
	ElfW(Xword) mark_val;
};

static struct ic_obj ic_objs[IC_OBJS];
static int ic_nobjs;
static volatile int ic_armed;	/* the runners record (the tracer runs, or start-up) */
static volatile int ic_ready;	/* the runtime is up: records go to the buffer */

/* what the runners saw before the runtime was up */
static struct {
	uintptr_t fn;
	uint64_t tsc, mono, ns;
	int ret;
	int finish;
} ic_early[IC_EARLY];
static unsigned ic_nearly;

/* ---- string helpers without libc (no PLT call before ld.so has bound it) ---- */

#define NOLIB __attribute__((optimize("no-tree-loop-distribute-patterns"), noinline))

static NOLIB size_t ic_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static NOLIB int ic_prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return 0;
	return 1;
}

static NOLIB void ic_copy(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((volatile char *)d)[i] = s[i];
}

/* ---- raw system calls (the IFUNC resolver runs before libc is set up) ---- */

static long rsys6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ __volatile__("syscall" : "=a"(ret)
			     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

static long rsys(long n, long a, long b, long c, long d)
{
	return rsys6(n, a, b, c, d, 0, 0);
}

static long rread_file(const char *path, void *buf, long size)
{
	long fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0), n, got = 0;

	if (fd < 0)
		return -1;
	while (got < size && (n = rsys(SYS_read, fd, (long)buf + got, size - got, 0)) > 0)
		got += n;
	rsys(SYS_close, fd, 0, 0, 0);
	return got;
}

static uint64_t ic_mono(void)
{
	struct timespec ts;

	rsys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ic_tsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* ---- the records ---- */

static void ic_write(uintptr_t fn, int ret, int finish, uint64_t ts, uint64_t ns)
{
	struct ut_thread *t = &ut_self;
	uintptr_t ips[3] = { fn, (uintptr_t)(uint32_t)ret, (uintptr_t)(ns & 0xffffffffffffull) };

	if (t->state == UT_TS_NEW && ut_thread_setup(t))
		return;
	if (t->state != UT_TS_READY || (ut_rec_filter && !ut_rec_allowed(t)))
		return;
	ut_write_trace_dir(t, ips, finish ? 3 : 1, ts,
			   finish ? UT_TRACE_DIR_ICRET : UT_TRACE_DIR_ICALL);
}

/* @ns: a return's duration (monotonic clock), measured by the caller */
static void ic_record(uintptr_t fn, int ret, int finish, uint64_t ns)
{
	if (!ic_armed)
		return;
	if (ic_ready) {
		ic_write(fn, ret, finish, ut_clock(), ns);
		return;
	}
	if (ic_nearly < IC_EARLY) {
		ic_early[ic_nearly].fn = fn;
		ic_early[ic_nearly].tsc = ic_tsc();
		ic_early[ic_nearly].mono = ic_mono();
		ic_early[ic_nearly].ns = ns;
		ic_early[ic_nearly].ret = ret;
		ic_early[ic_nearly].finish = finish;
		ic_nearly++;
	}
}

static void ic_call_init(uintptr_t fn, int argc, char **argv, char **env)
{
	if (!fn || fn == (uintptr_t)-1)
		return;		/* .ctors' end markers */
	uint64_t t0;

	ic_record(fn, 0, 0, 0);
	t0 = ic_mono();
	((ic_init_t)fn)(argc, argv, env);
	ic_record(fn, 0, 1, ic_mono() - t0);
}

static void ic_call_fini(uintptr_t fn)
{
	if (!fn || fn == (uintptr_t)-1)
		return;
	uint64_t t0;

	ic_record(fn, 0, 0, 0);
	t0 = ic_mono();
	((ic_fini_t)fn)();
	ic_record(fn, 0, 1, ic_mono() - t0);
}

static void ic_run_preinit(int k, int argc, char **argv, char **env)
{
	const uintptr_t *a = (const uintptr_t *)ic_objs[k].preinit;

	for (size_t i = 0; i < ic_objs[k].npreinit; i++)
		ic_call_init(a[i], argc, argv, env);
}

static void ic_run_init(int k, int argc, char **argv, char **env)
{
	const uintptr_t *a = (const uintptr_t *)ic_objs[k].init;

	for (size_t i = 0; i < ic_objs[k].ninit; i++)
		ic_call_init(a[i], argc, argv, env);
}

static void ic_run_init_fn(int k, int argc, char **argv, char **env)
{
	ic_call_init(ic_objs[k].init_fn, argc, argv, env);
}

/* _dl_fini's order: the array backwards */
static void ic_run_fini(int k)
{
	const uintptr_t *a = (const uintptr_t *)ic_objs[k].fini;

	for (size_t i = ic_objs[k].nfini; i-- > 0;)
		ic_call_fini(a[i]);
}

static void ic_run_fini_fn(int k)
{
	ic_call_fini(ic_objs[k].fini_fn);
}

/* one runner of each kind per object slot: slot b * 8 + i is named _b_i */
#define RUNNER(b, i)								\
	static void ic_preinit_##b##_##i(int c, char **v, char **e) { ic_run_preinit(b * 8 + i, c, v, e); } \
	static void ic_init_##b##_##i(int c, char **v, char **e) { ic_run_init(b * 8 + i, c, v, e); } \
	static void ic_initfn_##b##_##i(int c, char **v, char **e) { ic_run_init_fn(b * 8 + i, c, v, e); } \
	static void ic_fini_##b##_##i(void) { ic_run_fini(b * 8 + i); }	\
	static void ic_finifn_##b##_##i(void) { ic_run_fini_fn(b * 8 + i); }
#define RUNNERS8(b)	RUNNER(b, 0) RUNNER(b, 1) RUNNER(b, 2) RUNNER(b, 3) \
			RUNNER(b, 4) RUNNER(b, 5) RUNNER(b, 6) RUNNER(b, 7)
#define ENTRY(b, i)	{ ic_preinit_##b##_##i, ic_init_##b##_##i, ic_initfn_##b##_##i, \
			  ic_fini_##b##_##i, ic_finifn_##b##_##i },
#define ENTRIES8(b)	ENTRY(b, 0) ENTRY(b, 1) ENTRY(b, 2) ENTRY(b, 3) \
			ENTRY(b, 4) ENTRY(b, 5) ENTRY(b, 6) ENTRY(b, 7)

RUNNERS8(0) RUNNERS8(1) RUNNERS8(2) RUNNERS8(3) RUNNERS8(4) RUNNERS8(5)
RUNNERS8(6) RUNNERS8(7) RUNNERS8(8) RUNNERS8(9) RUNNERS8(10) RUNNERS8(11)

static const struct {
	ic_init_t preinit, init, initfn;
	ic_fini_t fini, finifn;
} ic_runners[IC_OBJS] = {
	ENTRIES8(0) ENTRIES8(1) ENTRIES8(2) ENTRIES8(3) ENTRIES8(4) ENTRIES8(5)
	ENTRIES8(6) ENTRIES8(7) ENTRIES8(8) ENTRIES8(9) ENTRIES8(10) ENTRIES8(11)
};

/* the one-entry arrays the changed .dynamic entries point at */
static uintptr_t ic_tab_preinit[IC_OBJS], ic_tab_init[IC_OBJS], ic_tab_fini[IC_OBJS];

/* ---- changing an object's .dynamic ---- */

/* the executable's program headers (auxv), for a non-PIE one whose ELF header is not at base 0 */
static const ElfW(Phdr) *ic_exe_ph;
static size_t ic_exe_phnum;

/* the PT_GNU_RELRO range of the object at @base (0 when none) */
static void relro_of(ElfW(Addr) base, int exe, uintptr_t *lo, uintptr_t *hi)
{
	const ElfW(Phdr) *ph;
	size_t phnum;

	*lo = *hi = 0;
	if (exe) {
		ph = ic_exe_ph;
		phnum = ic_exe_phnum;
	} else {
		const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;

		if (!base || !ic_prefix((const char *)eh->e_ident, ELFMAG))
			return;
		ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
		phnum = eh->e_phnum;
	}
	for (size_t i = 0; ph && i < phnum; i++) {
		if (ph[i].p_type == PT_GNU_RELRO) {
			*lo = base + ph[i].p_vaddr;
			*hi = *lo + ph[i].p_memsz;
		}
	}
}

/* can @p be written now?  (process_vm_writev honours the page's protection) */
static int writable(const void *p)
{
	uint64_t v = *(const volatile uint64_t *)p;
	struct iovec local = { &v, 8 }, remote = { (void *)p, 8 };
	long pid = rsys(SYS_getpid, 0, 0, 0, 0);

	return rsys6(SYS_process_vm_writev, pid, (long)&local, 1, (long)&remote, 1, 0) == 8;
}

/*
 * Point the constructor and destructor entries of the object (@base,
 * @ld) at our runners.  Context: the IFUNC resolver (raw calls only),
 * or ut_initcall_brk() under ld.so's lock.
 */
static void take_object(ElfW(Addr) base, ElfW(Dyn) *ld, int exe)
{
	ElfW(Dyn) *d, *e_pre = NULL, *e_init = NULL, *e_fini = NULL, *e_ifn = NULL, *e_ffn = NULL;
	ElfW(Dyn) *z_pre = NULL, *z_init = NULL, *z_fini = NULL;
	uintptr_t rlo, rhi, plo, phi;
	struct ic_obj *o;
	int k, ro;

	if (!ld || (uintptr_t)ld == (uintptr_t)_DYNAMIC)
		return;		/* the runtime itself */
	for (k = 0; k < ic_nobjs; k++)
		if (ic_objs[k].ld == ld)
			break;
	if (k < ic_nobjs && ic_objs[k].mark && *ic_objs[k].mark == ic_objs[k].mark_val)
		return;		/* taken, and still so */
	if (k == ic_nobjs && ic_nobjs == IC_OBJS)
		return;
	for (d = ld; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_PREINIT_ARRAY: e_pre = d; break;
		case DT_PREINIT_ARRAYSZ: z_pre = d; break;
		case DT_INIT_ARRAY: e_init = d; break;
		case DT_INIT_ARRAYSZ: z_init = d; break;
		case DT_FINI_ARRAY: e_fini = d; break;
		case DT_FINI_ARRAYSZ: z_fini = d; break;
		case DT_INIT: e_ifn = d; break;
		case DT_FINI: e_ffn = d; break;
		default: break;
		}
	}
	if (!((e_pre && z_pre) || (e_init && z_init) || (e_fini && z_fini) || e_ifn || e_ffn))
		return;
	/* a new object, or a closed one's slot for the object mapped in its place */
	if (k == ic_nobjs)
		ic_nobjs++;
	o = &ic_objs[k];
	*o = (struct ic_obj){ 0 };
	o->base = base;
	o->ld = ld;
	/*
	 * Already relocated, its RELRO is read-only: made writable for the
	 * change, then read-only again.  Not yet (the executable, objects
	 * preloaded before the runtime): ld.so writes there still, left so.
	 */
	relro_of(base, exe, &rlo, &rhi);
	plo = (uintptr_t)ld & ~(uintptr_t)0xfff;
	phi = ((uintptr_t)d + sizeof(*d) + 0xfff) & ~(uintptr_t)0xfff;
	ro = !writable(ld) || !writable(d);
	if (ro && (!rhi || (uintptr_t)ld < rlo || (uintptr_t)ld >= rhi ||
		   rsys(SYS_mprotect, (long)plo, (long)(phi - plo), PROT_READ | PROT_WRITE, 0))) {
		if (k == ic_nobjs - 1)
			ic_nobjs--;
		return;
	}
	if (e_pre && z_pre) {
		o->preinit = base + e_pre->d_un.d_ptr;
		o->npreinit = z_pre->d_un.d_val / sizeof(uintptr_t);
		ic_tab_preinit[k] = (uintptr_t)ic_runners[k].preinit;
		e_pre->d_un.d_ptr = (uintptr_t)&ic_tab_preinit[k] - base;
		z_pre->d_un.d_val = sizeof(uintptr_t);
	}
	if (e_init && z_init) {
		o->init = base + e_init->d_un.d_ptr;
		o->ninit = z_init->d_un.d_val / sizeof(uintptr_t);
		ic_tab_init[k] = (uintptr_t)ic_runners[k].init;
		e_init->d_un.d_ptr = (uintptr_t)&ic_tab_init[k] - base;
		z_init->d_un.d_val = sizeof(uintptr_t);
	}
	if (e_fini && z_fini) {
		o->fini = base + e_fini->d_un.d_ptr;
		o->nfini = z_fini->d_un.d_val / sizeof(uintptr_t);
		ic_tab_fini[k] = (uintptr_t)ic_runners[k].fini;
		e_fini->d_un.d_ptr = (uintptr_t)&ic_tab_fini[k] - base;
		z_fini->d_un.d_val = sizeof(uintptr_t);
	}
	if (e_ifn) {
		o->init_fn = base + e_ifn->d_un.d_ptr;
		e_ifn->d_un.d_ptr = (uintptr_t)ic_runners[k].initfn - base;
	}
	if (e_ffn) {
		o->fini_fn = base + e_ffn->d_un.d_ptr;
		e_ffn->d_un.d_ptr = (uintptr_t)ic_runners[k].finifn - base;
	}
	/* an entry of ours: the object is taken while it stays there */
	o->mark = e_init ? &e_init->d_un.d_val : e_fini ? &e_fini->d_un.d_val :
		  e_ifn ? &e_ifn->d_un.d_val : e_ffn ? &e_ffn->d_un.d_val : &e_pre->d_un.d_val;
	o->mark_val = *o->mark;
	if (ro)
		rsys(SYS_mprotect, (long)plo, (long)(phi - plo), PROT_READ, 0);
}

static struct r_debug *ic_rdebug;

/*
 * every object of the base namespace not taken yet; the lock: the
 * control thread's init and a dlopen in another thread (ld.so's lock
 * held: it only spins while the other walks)
 */
static void take_all(void)
{
	static volatile int lock;

	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
	for (struct link_map *l = ic_rdebug ? ic_rdebug->r_map : NULL; l; l = l->l_next)
		take_object(l->l_addr, l->l_ld, l == ic_rdebug->r_map);
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* ---- at relocation: the IFUNC resolver ---- */

static char ic_buf[65536];

/* is initcall among the session's active tracers?  Raw calls only. */
static int initcall_wanted(void)
{
	static const char key[] = UT_SESSION_ENV "=";
	char path[700];
	uint32_t active = 0;
	long n = rread_file("/proc/self/environ", ic_buf, sizeof(ic_buf) - 1), fd;
	const char *s = NULL;
	size_t len;

	if (n <= 0)
		return 0;
	ic_buf[n] = 0;
	for (long i = 0; i < n; i += (long)ic_strlen(ic_buf + i) + 1)
		if (ic_prefix(ic_buf + i, key))
			s = ic_buf + i + sizeof(key) - 1;
	if (!s || (len = ic_strlen(s)) == 0 || len + sizeof("/control") > sizeof(path))
		return 0;
	ic_copy(path, s, len);
	ic_copy(path + len, "/control", sizeof("/control"));
	fd = rsys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	n = rsys(SYS_pread64, fd, (long)&active, sizeof(active),
		 (long)offsetof(struct ut_session_ctl, active_tracers));
	rsys(SYS_close, fd, 0, 0, 0);
	return n == sizeof(active) && (active >> IC_TRACER_ID) & 1;
}

/* r_debug, from the executable's DT_DEBUG (ld.so has set it by now) */
static struct r_debug *find_rdebug(void)
{
	ElfW(auxv_t) *av = (ElfW(auxv_t) *)ic_buf;
	const ElfW(Phdr) *ph = NULL, *dyn = NULL;
	long n = rread_file("/proc/self/auxv", ic_buf, sizeof(ic_buf));
	size_t phnum = 0;
	ElfW(Addr) bias = 0;

	for (long i = 0; n > 0 && (i + 1) * (long)sizeof(*av) <= n && av[i].a_type != AT_NULL; i++) {
		if (av[i].a_type == AT_PHDR)
			ph = (const ElfW(Phdr) *)av[i].a_un.a_val;
		else if (av[i].a_type == AT_PHNUM)
			phnum = av[i].a_un.a_val;
	}
	if (!ph)
		return NULL;
	ic_exe_ph = ph;
	ic_exe_phnum = phnum;
	for (size_t i = 0; i < phnum; i++) {
		if (ph[i].p_type == PT_PHDR)
			bias = (ElfW(Addr))ph - ph[i].p_vaddr;
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = &ph[i];
	}
	if (!dyn)
		return NULL;
	for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(bias + dyn->p_vaddr); d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_DEBUG)
			return (struct r_debug *)d->d_un.d_ptr;
	return NULL;
}

static void ic_hook(void)
{
}

/*
 * ld.so relocates the runtime (before any constructor runs) and calls
 * this to resolve ut_initcall_hook: the moment to take the objects.
 */
static void (*ut_initcall_resolve(void))(void)
{
	static int done;

	if (!done) {
		done = 1;
		if (initcall_wanted() && (ic_rdebug = find_rdebug())) {
			ic_armed = 1;
			take_all();
		}
	}
	return ic_hook;
}

EXPORT void ut_initcall_hook(void) __attribute__((ifunc("ut_initcall_resolve")));
/* a reference through the GOT, so that ld.so resolves it at relocation (-z now) */
void (*volatile ut_initcall_hook_ref)(void) = ut_initcall_hook;

/* ---- dlopen: ld.so's _dl_debug_state() ---- */

/*
 * ld.so says the link map changed (r_brk).  RT_CONSISTENT: new objects
 * are mapped and not yet relocated or initialised.  Context: under
 * ld.so's lock, in the thread that dlopens.
 */
static void ut_initcall_brk(void)
{
	if (ic_armed && ic_rdebug && ic_rdebug->r_state == RT_CONSISTENT)
		take_all();
}

/* `ret` on its own 16 bytes becomes `movabs $ut_initcall_brk, %rax; jmp *%rax` */
static int patch_brk(void)
{
	static int patched;
	unsigned char *p;
	uintptr_t page;
	uint64_t a = (uint64_t)(uintptr_t)ut_initcall_brk;

	if (patched || !ic_rdebug || !ic_rdebug->r_brk)
		return patched ? 0 : -1;
	p = (unsigned char *)ic_rdebug->r_brk;
	if (((uintptr_t)p & 15) || p[0] != 0xc3)
		return -1;
	page = (uintptr_t)p & ~(uintptr_t)0xfff;
	if (mprotect((void *)page, ((uintptr_t)p + 12 - page + 0xfff) & ~(uintptr_t)0xfff,
		     PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	/* the jump first, the ret it replaces last: no thread runs it now (start-up) */
	p[1] = 0xb8;
	memcpy(p + 2, &a, 8);
	p[10] = 0xff;
	p[11] = 0xe0;
	__atomic_store_n(p, 0x48, __ATOMIC_RELEASE);
	mprotect((void *)page, ((uintptr_t)p + 12 - page + 0xfff) & ~(uintptr_t)0xfff,
		 PROT_READ | PROT_EXEC);
	patched = 1;
	return 0;
}

/**
 * ut_initcall_flush - the runtime is up: what ran before goes to the buffer
 *
 * Context: the runtime's start-up, after ut_runtime_init().
 */
static void __attribute__((constructor(102))) ut_initcall_flush(void)
{
	if (!ut_ctl) {
		ic_armed = 0;
		return;
	}
	ic_ready = 1;
	if (!ic_armed)
		return;
	for (unsigned i = 0; i < ic_nearly; i++)
		ic_write(ic_early[i].fn, ic_early[i].ret, ic_early[i].finish,
			 ut_use_tsc ? ic_early[i].tsc : ic_early[i].mono, ic_early[i].ns);
	ic_nearly = 0;
}

static int initcall_init(void)
{
	if (!ic_rdebug) {
		ic_rdebug = find_rdebug();
		if (!ic_rdebug)
			return -1;
	}
	if (patch_brk())
		ut_log("initcall: ld.so's _dl_debug_state is not as expected: "
		       "constructors of dlopen'ed objects are not seen");
	/* objects already there: their destructors at least */
	take_all();
	ic_armed = 1;
	return 0;
}

static void initcall_reset(void)
{
	/* the runners stay (ld.so calls them): they record nothing more */
	ic_armed = 0;
}

const struct ut_rt_tracer ut_rt_tracer_initcall = {
	.name = "initcall",
	.init = initcall_init,
	.reset = initcall_reset,
};
