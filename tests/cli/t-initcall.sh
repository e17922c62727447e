#!/bin/bash
# t-initcall.sh - the initcall tracer (runtime/tracers/initcall.c): the
# constructors and destructors of a program (.preinit_array, priorities,
# .ctors), of a library it links and of one it dlopens, in ld.so's order,
# as the kernel's initcall_debug lines, each duration at least the sleep
# inside; children (fork, exec) are traced as well; the program's output
# and status are kept.
SUITE=initcall
. "$(dirname "$0")/lib.sh"

cat > "$W/lib.c" <<'C'
#include <unistd.h>
__attribute__((constructor(200))) void lib_ctor_a(void) { usleep(3000); }
__attribute__((constructor(300))) void lib_ctor_b(void) { usleep(1000); }
__attribute__((destructor)) void lib_dtor(void) { usleep(2000); }
int lib_value(void) { return 7; }
C
cat > "$W/dl.c" <<'C'
#include <unistd.h>
__attribute__((constructor)) void dl_ctor(void) { usleep(4000); }
__attribute__((destructor)) void dl_dtor(void) { usleep(1000); }
C
cat > "$W/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int lib_value(void);
static void pre(int c, char **v, char **e) { (void)c; (void)v; (void)e; usleep(1000); }
__attribute__((section(".preinit_array"), used)) static void (*pre_p)(int, char **, char **) = pre;
static void old_ctor(void) { usleep(1000); }
__attribute__((section(".ctors"), used)) static void (*old_p)(void) = old_ctor;
__attribute__((constructor(101))) void main_ctor_first(void) { usleep(2000); }
__attribute__((constructor(102))) void main_ctor_second(void) { usleep(1000); }
__attribute__((destructor)) void main_dtor(void) { usleep(1000); }
int main(int argc, char **argv)
{
	void *h;

	if (argc > 2 && !strcmp(argv[2], "exec"))
		execl(argv[0], argv[0], argv[1], (char *)NULL);
	h = dlopen(argv[1], RTLD_NOW);
	printf("main %d %s\n", lib_value(), h ? "loaded" : dlerror());
	fflush(stdout);
	if (h)
		dlclose(h);
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t c = fork();
		int st;

		if (c == 0)
			return 0;	/* the child's destructors */
		waitpid(c, &st, 0);
	}
	return 3;
}
C
gcc -shared -fPIC -O2 -o "$W/libic.so" "$W/lib.c" && gcc -shared -fPIC -O2 -o "$W/libdl.so" "$W/dl.c" &&
gcc -O2 -o "$W/main" "$W/main.c" -L"$W" -lic -Wl,-rpath,"$W" -ldl || { not_ok "cannot build"; exit 1; }

FUNCS='pre|old_ctor|main_ctor_first|main_ctor_second|main_dtor|lib_ctor_a|lib_ctor_b|lib_dtor|dl_ctor|dl_dtor'
# the lines of the test's own functions, durations and pids made X
ours() {
	grep -E "^(calling  |initcall )($FUNCS)\+" "$1" |
		sed -E 's/after [0-9]+ usecs/after X usecs/; s/@ [0-9]+$/@ X/'
}

"$UT" record -t initcall -o "$W/d" -- "$W/main" "$W/libdl.so" > "$W/out" 2> "$W/err"
st=$?
[ "$st" = 3 ] && grep -qx 'main 7 loaded' "$W/out" && ok "the program runs (status 3, its output)" ||
	{ not_ok "status $st, output $(cat "$W/out")"; sed 's/^/# /' "$W/err"; }
"$UT" replay -i "$W/d" -O nocontext-info > "$W/replay"
ours "$W/replay" > "$W/got"
# ld.so's order: the executable's preinit first, the library's
# constructors, the executable's (the linker puts .ctors after the
# prioritised .init_array entries), the
# dlopen'ed object's; at exit in reverse: dlclose, then the executable's
# destructors and the library's
cat > "$W/want" <<'E'
calling  pre+0x0/0xa @ X
initcall pre+0x0/0xa returned 0 after X usecs
calling  lib_ctor_a+0x0/0xa @ X
initcall lib_ctor_a+0x0/0xa returned 0 after X usecs
calling  lib_ctor_b+0x0/0xa @ X
initcall lib_ctor_b+0x0/0xa returned 0 after X usecs
calling  main_ctor_first+0x0/0xa @ X
initcall main_ctor_first+0x0/0xa returned 0 after X usecs
calling  main_ctor_second+0x0/0xa @ X
initcall main_ctor_second+0x0/0xa returned 0 after X usecs
calling  old_ctor+0x0/0xa @ X
initcall old_ctor+0x0/0xa returned 0 after X usecs
calling  dl_ctor+0x0/0xa @ X
initcall dl_ctor+0x0/0xa returned 0 after X usecs
calling  dl_dtor+0x0/0xa @ X
initcall dl_dtor+0x0/0xa returned 0 after X usecs
calling  main_dtor+0x0/0xa @ X
initcall main_dtor+0x0/0xa returned 0 after X usecs
calling  lib_dtor+0x0/0xa @ X
initcall lib_dtor+0x0/0xa returned 0 after X usecs
E
if diff -u "$W/want" "$W/got" > "$W/diff"; then
	ok "calling/returned lines of every constructor and destructor, in order"
else
	not_ok "calling/returned lines"; sed 's/^/# /' "$W/diff"; sed 's/^/# /' "$W/replay" | head -80
fi
# each duration: at least the sleep inside, at most 500 ms more
bad=$(grep -E "^initcall ($FUNCS)\+" "$W/replay" | awk '
	BEGIN { s["pre"] = 1000; s["old_ctor"] = 1000; s["main_ctor_first"] = 2000; s["main_ctor_second"] = 1000
		s["main_dtor"] = 1000; s["lib_ctor_a"] = 3000; s["lib_ctor_b"] = 1000; s["lib_dtor"] = 2000
		s["dl_ctor"] = 4000; s["dl_dtor"] = 1000 }
	{ f = $2; sub(/\+.*/, "", f); us = $(NF - 1); if (us < s[f] || us > s[f] + 500000) print f "=" us }')
[ -z "$bad" ] && ok "durations at least the sleeps" || not_ok "durations out of range: $bad"
# the pid is the thread's
pid=$(grep -m1 -E '^calling  pre\+' "$W/replay" | sed 's/.*@ //')
"$UT" replay -i "$W/d" > "$W/ctx"
grep -qE "^ +main-$pid +\[[0-9]{3}\] \.\.\.\.\. +[0-9.]+: calling  pre\+0x0/0xa @ $pid$" "$W/ctx" &&
	ok "context columns and @ PID (the thread's id)" || { not_ok "context line"; grep -m3 pre "$W/ctx" | sed 's/^/# /'; }

# a forked child's destructors, an exec'd image's constructors
"$UT" record -t initcall -o "$W/f" -- "$W/main" "$W/libdl.so" fork > /dev/null 2>&1
"$UT" replay -i "$W/f" -O nocontext-info > "$W/replay"
c=$(grep -cE '^initcall main_dtor\+' "$W/replay")
[ "$c" = 2 ] && ok "fork: the parent's and the child's destructors" || { not_ok "fork: $c main_dtor"; }
"$UT" record -t initcall -o "$W/e" -- "$W/main" "$W/libdl.so" exec > /dev/null 2>&1
"$UT" replay -i "$W/e" -O nocontext-info > "$W/replay"
c=$(grep -cE '^initcall (pre|lib_ctor_a)\+' "$W/replay")
[ "$c" = 4 ] && ok "exec: the new image's constructors too" || { not_ok "exec: $c"; sed 's/^/# /' "$W/replay" | head -40; }

# a stripped library: its DT_INIT and DT_FINI are _init and _fini (the
# dynamic section names them), in its symbol file and on its lines
cp "$W/libic.so" "$W/libst.so" && strip -s "$W/libst.so" &&
gcc -O2 -o "$W/stmain" "$W/main.c" -L"$W" -lst -Wl,-rpath,"$W" -ldl || not_ok "cannot build stripped"
init=$(readelf -d "$W/libst.so" | awk '$2 == "(INIT)" { sub(/^0x0*/, "", $3); print $3 }')
fini=$(readelf -d "$W/libst.so" | awk '$2 == "(FINI)" { sub(/^0x0*/, "", $3); print $3 }')
isz=$(readelf -SW "$W/libst.so" | awk '{ for (i = 1; i < NF; i++) if ($i == ".init") { v = $(i + 4); sub(/^0*/, "", v); print v } }')
"$UT" record -t initcall -o "$W/st" -- "$W/stmain" "$W/libdl.so" > /dev/null 2>&1
symf=$(grep -l "^# path $W/libst.so\$" "$W"/st/sym/*.sym)
if [ -n "$init" ] && [ -n "$fini" ] && grep -qx "$init $isz _init" $symf && grep -qE "^$fini [0-9a-f]+ _fini\$" $symf; then
	ok "stripped library: _init at DT_INIT ($init), _fini at DT_FINI ($fini)"
else
	not_ok "stripped library: no _init/_fini at $init/$fini"; grep -v '^#' $symf | head -5 | sed 's/^/# /'
fi
"$UT" replay -i "$W/st" -O nocontext-info > "$W/replay"
grep -qx "calling  _init+0x0/0x$isz @ [0-9]*" "$W/replay" && ok "stripped library: calling  _init+0x0/0x$isz" ||
	{ not_ok "stripped library: no calling _init line"; grep calling "$W/replay" | sed 's/^/# /'; }

# another tracer: the arrays are left alone, nothing is recorded
"$UT" record -t nop -o "$W/n" -- "$W/main" "$W/libdl.so" > "$W/out" 2>&1
[ $? = 3 ] && ! "$UT" replay -i "$W/n" -t initcall -O nocontext-info | grep -q calling &&
	ok "nop: no initcall lines" || not_ok "nop"

echo "# $SUITE: $n tests"
