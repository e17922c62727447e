// SPDX-License-Identifier: MIT
/*
 * dynamic.c - dynamic ftrace in user space: call sites recorded by the
 * compiler, patched at run time for the selected functions only.
 *
 *   cc -fpatchable-function-entry=5            5 bytes of nops at each
 *                                              function entry, listed in
 *                                              __patchable_function_entries
 *   cc -pg -mfentry -mnop-mcount -mrecord-mcount
 *                                              a 5-byte nop where the call
 *                                              to __fentry__ would be,
 *                                              listed in __mcount_loc
 *
 * At start-up and after every dlopen, ut_dyn_scan() walks the loaded
 * objects, reads those sections and each object's function symbols (with
 * libelf), and keeps one table of records (the user-space dyn_ftrace):
 * site address, function name, module.  The records that pass the filters
 * (set_ftrace_filter / set_ftrace_notrace, given by the recorder in
 * USERTRACE_FILTER and USERTRACE_NOTRACE) are patched into
 *
 *     call <stub>        stub: jmp *__fentry__   (a page within reach)
 *
 * so that a patched site behaves exactly as -pg -mfentry code.  The other
 * sites keep (or get) a single 5-byte nop: the program runs them at full
 * speed.
 *
 * Patching happens while the program may have other threads running the
 * code (dlopen).  The kernel's breakpoint method is used: the first byte
 * becomes int3, every thread is made to see it (membarrier SYNC_CORE), the
 * last four bytes are written, then the first byte; a thread that hits
 * the int3 meanwhile skips the site (the SIGTRAP handler moves it past
 * the 5 bytes), losing that one call.  See doc/design/dynamic-ftrace.md.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "lib/funclist/funclist.h"
#include "runtime/runtime.h"
#include "runtime/tracer.h"
#include "usertrace/tracers.h"

static const unsigned char nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const unsigned char nop1x5[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

/* nopl disp8(%rax,%rax,1): gcc writes disp 0, clang 8 */
static int is_nop5(const unsigned char *p)
{
	return !memcmp(p, nop5, 4);
}

struct ut_dyn_rec {
	uintptr_t site;
	const char *name;	/* function */
	const char *module;	/* basename of the object */
	uint32_t mod;		/* index in mods[] */
	uint32_t enabled;
};

struct ut_dyn_mod {
	uintptr_t base;		/* load bias */
	char *path;
	uintptr_t lo, hi;	/* its code */
	uintptr_t stub;		/* jmp *__fentry__, within reach of the module */
	int gone;		/* unloaded (dlclose) */
};

static struct ut_dyn_rec *recs;
static size_t nr_recs, cap_recs;
static struct ut_dyn_mod *mods;
static size_t nr_mods;
static int have_sync_core;
/*
 * Sites patched lately.  A thread that hit a site's int3 gets its SIGTRAP
 * possibly after the patch is complete, so the handler recognises the
 * site among the last few patched, not only the one in progress.
 */
#define RECENT_SITES	64
static volatile uintptr_t recent_sites[RECENT_SITES];
static unsigned int recent_next;
/*
 * Serialises patching, scanning and forgetting objects.  Recursive: the
 * constructors and destructors that dlopen/dlclose run under it may load
 * or unload objects themselves.
 */
static pthread_mutex_t patch_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct sigaction prev_trap;
static int trap_installed;

extern void __fentry__(void);

static int fsym_cmp(const void *a, const void *b)
{
	const struct ut_fsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* a page for `jmp *__fentry__` within +-2 GB of [lo, hi) */
static uintptr_t make_stub(uintptr_t lo, uintptr_t hi)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (uintptr_t hint = (lo & ~(uintptr_t)(pg - 1)) - (uintptr_t)pg * 16;
	     hint > (uintptr_t)pg && lo - hint < (1ul << 30); hint -= (uintptr_t)pg * 256) {
		unsigned char *p = mmap((void *)hint, (size_t)pg, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		uintptr_t fn = (uintptr_t)__fentry__;

		if (p == MAP_FAILED)
			continue;
		/* a call at any site of the module must reach the stub */
		if (hi - (uintptr_t)p >= (1ul << 31) - 64) {
			munmap(p, (size_t)pg);
			continue;
		}
		/* jmp *0(%rip); .quad __fentry__ */
		p[0] = 0xff;
		p[1] = 0x25;
		memset(p + 2, 0, 4);
		memcpy(p + 6, &fn, 8);
		mprotect(p, (size_t)pg, PROT_READ | PROT_EXEC);
		return (uintptr_t)p;
	}
	return 0;
}

static void sync_core(void)
{
	if (have_sync_core)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

static int text_writable(uintptr_t site, int on)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = site & ~(uintptr_t)(pg - 1);
	size_t len = (site + 5 - start + (size_t)pg - 1) & ~(size_t)(pg - 1);

	return mprotect((void *)start, len, on ? PROT_READ | PROT_WRITE | PROT_EXEC
					       : PROT_READ | PROT_EXEC);
}

/* a thread ran into a site while it was being patched: skip the site */
static void trap_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uintptr_t ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	for (unsigned int i = 0; i < RECENT_SITES; i++) {
		uintptr_t site = recent_sites[i];

		if (site && ip == site + 1) {
			/* the site is a nop or a call being written: skip it */
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(site + 5);
			return;
		}
	}
	if (prev_trap.sa_flags & SA_SIGINFO && prev_trap.sa_sigaction)
		prev_trap.sa_sigaction(sig, si, uc_);
	else if (prev_trap.sa_handler != SIG_DFL && prev_trap.sa_handler != SIG_IGN)
		prev_trap.sa_handler(sig);
	else {
		/* the default action: give the signal back to the kernel */
		trap_installed = 0;
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	}
}

/* write the 5 bytes at @site safely while other threads may run it */
static void patch_site(uintptr_t site, const unsigned char *insn)
{
	unsigned char *p = (unsigned char *)site;

	if (!memcmp(p, insn, 5) || text_writable(site, 1) < 0)
		return;
	recent_sites[recent_next++ % RECENT_SITES] = site;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*(volatile unsigned char *)p = 0xcc;
	sync_core();
	memcpy(p + 1, insn + 1, 4);
	sync_core();
	*(volatile unsigned char *)p = insn[0];
	sync_core();
	text_writable(site, 0);
}

static void set_record(struct ut_dyn_rec *r, uintptr_t stub, int on)
{
	unsigned char call[5];
	int32_t rel;

	if (on && stub) {
		rel = (int32_t)(stub - (r->site + 5));
		call[0] = 0xe8;
		memcpy(call + 1, &rel, 4);
		patch_site(r->site, call);
	} else {
		patch_site(r->site, nop5);
	}
	r->enabled = on && stub;
}

static int known_module(uintptr_t base, const char *path)
{
	for (size_t i = 0; i < nr_mods; i++)
		if (!mods[i].gone && mods[i].base == base && !strcmp(mods[i].path, path))
			return 1;
	return 0;
}

/*
 * Does the file have a call-site section?  Read with pread only: most
 * objects (libc...) have none, and libelf's allocations must not reach a
 * program that replaced malloc with a traced one unless there is work.
 */
static int has_sites(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(sh) ||
	    eh.e_shstrndx >= eh.e_shnum)
		return 0;
	if (pread(fd, &strsh, sizeof(strsh), (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof(sh))) != sizeof(strsh))
		return 0;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		char name[32];

		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + i * sizeof(sh))) != sizeof(sh) ||
		    sh.sh_name >= strsh.sh_size)
			continue;
		if (pread(fd, name, sizeof(name), (off_t)(strsh.sh_offset + sh.sh_name)) <= 0)
			continue;
		name[sizeof(name) - 1] = 0;
		if (!strcmp(name, "__patchable_function_entries") || !strcmp(name, "__mcount_loc"))
			return 1;
	}
	return 0;
}

/* does the object call the hooks itself (-pg, -finstrument-functions)? */
static int calls_hooks(Elf *e)
{
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__",
					     "__cyg_profile_func_enter" };
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			for (size_t k = 0; n && k < sizeof(hooks) / sizeof(hooks[0]); k++)
				if (!strcmp(n, hooks[k]))
					return 1;
		}
	}
	return 0;
}

/* the hooks an object may call, by name */
static int is_hook_name(const char *n)
{
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__",
					     "__cyg_profile_func_enter" };

	for (size_t k = 0; n && k < sizeof(hooks) / sizeof(hooks[0]); k++)
		if (!strcmp(n, hooks[k]))
			return 1;
	return 0;
}

struct hook_refs {
	uintptr_t got[8], plt[8];	/* the hooks' GOT slots and PLT entries */
	int ngot, nplt;
};

static int in_list(const uintptr_t *v, int n, uintptr_t a)
{
	for (int i = 0; i < n; i++)
		if (v[i] == a)
			return 1;
	return 0;
}

/*
 * Where the object's code calls the hooks through: the GOT slots that
 * its relocations bind to a hook (JUMP_SLOT, or GLOB_DAT under -fno-plt),
 * and the PLT entries (.plt, .plt.sec) that jump through one of them.
 */
static void find_hook_refs(Elf *e, size_t shstrndx, uintptr_t base, uintptr_t lo, uintptr_t hi,
			   struct hook_refs *h)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *d, *symd;
		Elf_Scn *symscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(e, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh))
			continue;
		d = elf_getdata(scn, NULL);
		symd = elf_getdata(symscn, NULL);
		for (size_t i = 0; d && symd && i < sh.sh_size / sh.sh_entsize && h->ngot < 8; i++) {
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(d, (int)i, &r) || !GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			if (is_hook_name(elf_strptr(e, symsh.sh_link, sym.st_name)))
				h->got[h->ngot++] = base + r.r_offset;
		}
	}
	/* jmp *disp32(%rip): ff 25, in 16-byte entries (after endbr64 in .plt.sec) */
	while (h->ngot && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sn;
		uintptr_t start;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sn || strncmp(sn, ".plt", 4))
			continue;
		start = base + sh.sh_addr;
		if (start < lo || start + sh.sh_size > hi)
			continue;
		for (uintptr_t p = start; p + 6 <= start + sh.sh_size && h->nplt < 8; p++) {
			const unsigned char *c = (const unsigned char *)p;
			int32_t disp;

			if (c[0] != 0xff || c[1] != 0x25)
				continue;
			memcpy(&disp, c + 2, 4);
			if (in_list(h->got, h->ngot, p + 6 + (intptr_t)disp))
				h->plt[h->nplt++] = start + ((p - start) & ~(uintptr_t)15);
		}
	}
}

/* does [@p, @end) hold a call of a hook: call rel32 to its PLT entry, or call *GOT(%rip)? */
static int calls_hook_in(const struct hook_refs *h, uintptr_t p, uintptr_t end)
{
	for (; p + 5 <= end; p++) {
		const unsigned char *c = (const unsigned char *)p;
		int32_t disp;

		if (c[0] == 0xe8) {
			memcpy(&disp, c + 1, 4);
			if (in_list(h->plt, h->nplt, p + 5 + (intptr_t)disp))
				return 1;
		} else if (c[0] == 0xff && c[1] == 0x15 && p + 6 <= end) {
			memcpy(&disp, c + 2, 4);
			if (in_list(h->got, h->ngot, p + 6 + (intptr_t)disp))
				return 1;
		}
	}
	return 0;
}

/* the function of @syms (sorted) that holds @site */
static struct ut_fsym *fsym_at(struct ut_fsym *syms, size_t nsyms, uintptr_t site)
{
	size_t a = 0, b = nsyms;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (syms[mid].addr <= site)
			a = mid + 1;
		else
			b = mid;
	}
	if (a && site < syms[a - 1].addr + (syms[a - 1].size ? syms[a - 1].size : 16))
		return &syms[a - 1];
	return NULL;
}

/*
 * The records of one loaded object, and its functions for the filters'
 * table when filters are set and it has call sites or calls the hooks.
 */
static void scan_object(const char *path, uintptr_t base, uintptr_t lo, uintptr_t hi)
{
	size_t shstrndx, nsyms = 0, capsyms = 0;
	struct ut_fsym *syms = NULL;
	const char *modname = NULL;
	Elf_Scn *scn = NULL;
	struct ut_dyn_mod *m;
	uintptr_t stub = 0;
	int fd, found = 0, sites, hooked = 0;
	Elf *e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	sites = has_sites(fd);
	if (!sites && !ut_filter_need_table()) {
		close(fd);
		return;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
		goto out;
	/*
	 * Code that calls the hooks itself (-pg, -finstrument-functions, or
	 * -mrecord-mcount without -mnop-mcount: its sites are real calls) is
	 * filtered in the hooks.
	 */
	if (ut_filter_need_table() && calls_hooks(e)) {
		ut_filter_hooked();
		hooked = 1;
	} else if (!sites) {
		goto out;
	}
	modname = strdup(base_name(path));
	/* function symbols, to name the sites */
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (!n || !*n)
				continue;
			if (nsyms == capsyms) {
				struct ut_fsym *ns = realloc(syms, (capsyms = capsyms ? 2 * capsyms : 256) * sizeof(*ns));

				if (!ns)
					goto out;
				syms = ns;
			}
			syms[nsyms++] = (struct ut_fsym){ base + s.st_value, s.st_size, strdup(n), 0 };
		}
	}
	if (nsyms)
		qsort(syms, nsyms, sizeof(*syms), fsym_cmp);
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sn;
		const uintptr_t *sites;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sn || (strcmp(sn, "__patchable_function_entries") && strcmp(sn, "__mcount_loc")))
			continue;
		/* the section is loaded and relocated: read it from memory */
		sites = (const uintptr_t *)(base + sh.sh_addr);
		for (size_t i = 0; i < sh.sh_size / 8; i++) {
			uintptr_t site = sites[i];
			struct ut_dyn_rec *r;
			struct ut_fsym *fs;

			if (site < lo || site + 5 > hi)
				continue;
			/* a site, patchable or a call of a hook (-mrecord-mcount alone) */
			if ((fs = fsym_at(syms, nsyms, site)))
				fs->listed = 1;
			if (!is_nop5((const unsigned char *)site) && memcmp((void *)site, nop1x5, 5))
				continue;
			if (!found && !stub) {
				stub = make_stub(lo, hi);
				found = 1;
			}
			if (nr_recs == cap_recs) {
				struct ut_dyn_rec *nr = realloc(recs, (cap_recs = cap_recs ? 2 * cap_recs : 1024) * sizeof(*nr));

				if (!nr)
					goto out;
				recs = nr;
			}
			r = &recs[nr_recs++];
			r->site = site;
			r->module = modname ? modname : "?";
			r->mod = (uint32_t)nr_mods;
			r->name = "?";
			if (fs)
				r->name = fs->name;
			r->enabled = 0;
			/* 5 one-byte nops cannot be patched while a thread runs them: one nop */
			if (!memcmp((void *)site, nop1x5, 5) && text_writable(site, 1) == 0) {
				memcpy((void *)site, nop5, 5);
				text_writable(site, 0);
			}
			if (ut_filter_patch(r->name, r->module, ut_patch_mode()))
				set_record(r, stub, 1);
		}
	}
	if (hooked) {
		struct hook_refs h = { .ngot = 0 };
		size_t listed = 0;

		find_hook_refs(e, shstrndx, base, lo, hi, &h);
		for (size_t i = 0; i < nsyms; i++) {
			uintptr_t end = syms[i].addr + syms[i].size;

			if (!syms[i].listed && syms[i].addr >= lo && end <= hi &&
			    calls_hook_in(&h, syms[i].addr, end))
				syms[i].listed = 1;
			listed += syms[i].listed;
		}
		/* calls of the hooks we cannot find: list every function, as before */
		for (size_t i = 0; !listed && i < nsyms; i++)
			syms[i].listed = 1;
	}
	if (ut_filter_need_table())
		ut_ftab_add(syms, nsyms, modname ? modname : "?");
	m = realloc(mods, (nr_mods + 1) * sizeof(*mods));
	if (m) {
		mods = m;
		mods[nr_mods++] = (struct ut_dyn_mod){ base, strdup(path), lo, hi, stub, 0 };
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	/* names stay referenced by the records; the array itself can go */
	free(syms);
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *path = info->dlpi_name;
	char exe[4096];
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	(void)size;
	(void)arg;
	if (!path || !*path) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n <= 0)
			return 0;
		exe[n] = 0;
		path = exe;
	}
	if (strstr(path, "linux-vdso") || strstr(path, "libusertrace.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo < hi && !known_module(info->dlpi_addr, path))
		scan_object(path, info->dlpi_addr, lo, hi);
	ut_events_scan_object(info, path);
	return 0;
}

/*
 * Run @fn under the patch lock, with the calls it makes into the program
 * (libelf's malloc, which the program may have replaced) not traced.
 */
static void ut_dyn_locked(void (*fn)(void))
{
	uint32_t saved = ut_self.state;

	if (saved != UT_TS_DISABLED)
		ut_self.state = UT_TS_INTERNAL;
	pthread_mutex_lock(&patch_lock);
	fn();
	pthread_mutex_unlock(&patch_lock);
	ut_self.state = saved;
}

static void scan_loaded(void)
{
	dl_iterate_phdr(phdr_cb, NULL);
	ut_control_functions_changed();
}

static int still_loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	const struct ut_dyn_mod *m = arg;

	(void)size;
	return info->dlpi_addr == m->base &&
	       (!info->dlpi_name || !*info->dlpi_name || !strcmp(info->dlpi_name, m->path));
}

/* drop the records and functions of objects no longer loaded */
static void forget_unloaded(void)
{
	for (size_t i = 0; i < nr_mods; i++) {
		struct ut_dyn_mod *m = &mods[i];
		size_t k = 0;

		if (m->gone || dl_iterate_phdr(still_loaded_cb, m))
			continue;
		m->gone = 1;
		for (size_t j = 0; j < nr_recs; j++)
			if (recs[j].mod != i)
				recs[k++] = recs[j];
		nr_recs = k;
		ut_ftab_remove(m->lo, m->hi);
	}
	ut_events_forget();
	ut_control_functions_changed();
}

/* the settings changed: patch and unpatch for the new tracers and filters */
static void apply_settings(void)
{
	int mode = (int)ut_needs_mode(ut_tracers_needs(ut_tracers_set(ut_ctl->active_tracers)));

	/*
	 * Recording stops first; it starts, or goes on in another mode, only
	 * once the new filters are published (see ut_filter_update())
	 */
	if (mode == UT_MODE_NONE)
		ut_rec_mode = mode;
	ut_filter_load();
	ut_ftab_reflag();
	ut_extra_apply();
	ut_filter_update(mode);
	ut_rec_mode = mode;
	for (size_t i = 0; i < nr_recs; i++) {
		struct ut_dyn_rec *r = &recs[i];
		/* the stack tracer and the profiler hook the functions of the lists too */
		int on = ut_filter_patch(r->name, r->module, ut_patch_mode());

		if (on != (int)r->enabled && r->mod < nr_mods)
			set_record(r, mods[r->mod].stub, on);
	}
	ut_events_apply();
	ut_control_functions_changed();
}

/**
 * ut_dyn_apply - take the control page's tracer and filters (control thread)
 */
void ut_dyn_apply(void)
{
	ut_dyn_locked(apply_settings);
}

/* the sites, sorted, while the function list is written */
static uintptr_t *sorted_sites;	/* site << 1 | enabled */

static int site_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a >> 1, y = *(const uintptr_t *)b >> 1;

	return x < y ? -1 : x > y;
}

static int site_state(uintptr_t start, uintptr_t end)
{
	size_t a = 0, b = nr_recs;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if ((sorted_sites[mid] >> 1) < start)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == nr_recs || (sorted_sites[a] >> 1) >= end)
		return 0;
	return sorted_sites[a] & 1 ? 2 : 1;
}

static void emit_function(void *ctx, const char *name, const char *module, int site)
{
	dprintf(*(int *)ctx, "%s\t%s\t%s\n", name, module, site == 2 ? "pe" : site ? "p" : "-");
}

/**
 * ut_dyn_write_functions - the functions known, for the tracing directory
 *
 * One line per function: name, module, and 'p' (a patchable site) and
 * 'e' (enabled).  Context: under the patch lock or before threads.
 */
void ut_dyn_write_functions(int fd)
{
	sorted_sites = malloc((nr_recs + 1) * sizeof(*sorted_sites));
	if (!sorted_sites)
		return;
	for (size_t i = 0; i < nr_recs; i++)
		sorted_sites[i] = recs[i].site << 1 | recs[i].enabled;
	qsort(sorted_sites, nr_recs, sizeof(*sorted_sites), site_cmp);
	ut_ftab_list(emit_function, site_state, &fd);
	free(sorted_sites);
	sorted_sites = NULL;
}

/*
 * dlopen and dlclose run under the patch lock (interpose.c), so that the
 * control thread never patches an object being unloaded, and an object
 * mapped again where another was is scanned after the old one is
 * forgotten.  fork takes it too: a child must not inherit it held.
 */
void ut_dyn_lock(void)
{
	pthread_mutex_lock(&patch_lock);
}

void ut_dyn_unlock(void)
{
	pthread_mutex_unlock(&patch_lock);
}

static void atfork_child(void)
{
	pthread_mutex_t fresh = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	/* the only thread of the child: start from an unlocked mutex */
	patch_lock = fresh;
}

void ut_dyn_atfork(void)
{
	pthread_atfork(ut_dyn_lock, ut_dyn_unlock, atfork_child);
}

/**
 * ut_dyn_forget - after a dlclose: forget what was unloaded
 *
 * The stub page of an unloaded object stays mapped: a thread could still
 * be between a patched call and the stub's jump.
 */
void ut_dyn_forget(void)
{
	ut_dyn_locked(forget_unloaded);
}

/**
 * ut_dyn_scan - find the call sites of every object loaded since last time
 *
 * Called at start-up and after each dlopen.
 */
void ut_dyn_scan(void)
{
	static int once;

	if (!once) {
		struct sigaction sa = { 0 };

		once = 1;
		elf_version(EV_CURRENT);
		have_sync_core = syscall(SYS_membarrier,
					 MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
		sa.sa_sigaction = trap_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGTRAP, &sa, &prev_trap) == 0)
			trap_installed = 1;
	}
	ut_dyn_locked(scan_loaded);
}

/**
 * ut_dyn_sigaction - the program sets or asks for its SIGTRAP handler
 *
 * Ours stays installed (a site hit while it is being patched must never
 * reach the program); the program's becomes the one ours passes other
 * traps to.  Returns 1 if handled here, 0 if the real sigaction should.
 */
int ut_dyn_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (sig != SIGTRAP || !trap_installed)
		return 0;
	pthread_mutex_lock(&patch_lock);
	if (old)
		*old = prev_trap;
	if (act)
		prev_trap = *act;
	pthread_mutex_unlock(&patch_lock);
	return 1;
}

/**
 * usertrace_ftrace_set - patch the call sites @filter selects, minus @notrace
 *
 * The program's own switch, with the syntax of -F and -N.  Returns the
 * number of enabled sites.  Calls from several threads are serialised.
 */
__attribute__((visibility("default"))) int usertrace_ftrace_set(const char *filter, const char *notrace)
{
	size_t enabled = 0;

	pthread_mutex_lock(&patch_lock);
	for (size_t i = 0; i < nr_recs; i++) {
		struct ut_dyn_rec *r = &recs[i];
		int on = ut_funclist_match(filter, r->name, r->module) != 0 &&
			 ut_funclist_match(notrace, r->name, r->module) != 1;

		if (on != (int)r->enabled && r->mod < nr_mods)
			set_record(r, mods[r->mod].stub, on);
		enabled += r->enabled;
	}
	pthread_mutex_unlock(&patch_lock);
	return (int)enabled;
}
