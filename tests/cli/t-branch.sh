#!/bin/bash
# description: the branch profilers beyond the e2e texts: sites of a linked
# library and of a dlopen'ed one (kept after its dlclose), a profiled
# program without usertrace, no cost without the defines, and bad input:
# report --branch on a recording without branch data, corrupt statistics
# files (a warning, never a crash)
SUITE=branch
. "$(dirname "$0")/lib.sh"
INC=$(cd "$(dirname "$0")/../../include" && pwd)

cat > "$W/lib.c" <<'C'
#include <usertrace/branch.h>
int lib_pos(int x) { return likely(x > 0); }
C
cat > "$W/dl.c" <<'C'
#include <usertrace/branch.h>
int dl_odd(int x) { return unlikely(x & 1); }
C
cat > "$W/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <usertrace/branch.h>
int lib_pos(int x);
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*odd)(int) = h ? (int (*)(int))dlsym(h, "dl_odd") : NULL;
	int s = 0;

	if (!odd)
		return 3;
	for (int i = 0; i < 4; i++)
		s += lib_pos(i) + odd(i) + likely(i < 3);
	dlclose(h);
	printf("%d\n", s);
	return 0;
}
C
D=-DUSERTRACE_PROFILE_BRANCHES
gcc -O2 -fPIC -shared $D -I"$INC" -o "$W/liblp.so" "$W/lib.c" &&
gcc -O2 -fPIC -shared $D -I"$INC" -o "$W/libdl.so" "$W/dl.c" &&
gcc -O2 $D -I"$INC" -o "$W/m" "$W/main.c" "$W/liblp.so" -Wl,-rpath,"$W" -ldl || exit 1

# without usertrace: it runs as built
[ "$("$W/m" "$W/libdl.so")" = 8 ] && ok "a profiled program runs without usertrace" ||
	not_ok "a profiled program runs without usertrace"

expect 0 '' -- "$UT" record -o "$W/d" -- "$W/m" "$W/libdl.so"
"$UT" report --branch -i "$W/d" > "$W/got" 2> "$W/err"
# equal rows: the later one read first (the kernel's order); objects are read
# in load order: the executable, its library, the dlopen'ed one
cat > "$W/want" <<'T'
 correct incorrect  %        Function                  File              Line
 ------- ---------  -        --------                  ----              ----
       2        2  50 dl_odd                         dl.c                 2
       3        1  25 lib_pos                        lib.c                2
       3        1  25 main                           main.c               14
T
if diff -u "$W/want" "$W/got" > "$W/diff" && [ ! -s "$W/err" ]; then
	ok "the executable's, a linked library's and a dlclose'd library's sites"
else
	not_ok "the sites of every object"; sed 's/^/# /' "$W/diff" "$W/err"
fi

# --gc-sections keeps the tracer's slot (no code refers to its section);
# clang keeps the if sites whole (no field but the counts is read in the
# program): gcc and clang
for cc in gcc clang; do
	command -v $cc > /dev/null || continue
	$cc -O2 -ffunction-sections -fdata-sections -Wl,--gc-sections -DUSERTRACE_PROFILE_ALL_BRANCHES \
		-I"$INC" -o "$W/gc" -x c - <<'C'
#include <usertrace/branch.h>
volatile int v = 1;
int main(void) { if (v) return likely(v) ? 0 : 1; return 2; }
C
	"$UT" record -t branch -o "$W/gc.d" -- "$W/gc" > /dev/null 2>&1
	"$UT" replay -i "$W/gc.d" 2> /dev/null | grep -q '\[  ok  \] main:<stdin>:3$' &&
		ok "$cc --gc-sections: the branch tracer's lines" ||
		not_ok "$cc --gc-sections: no branch tracer lines"
	"$UT" report --branch -i "$W/gc.d" 2> /dev/null | sed -n '/branch_all/,$p' |
		grep -Eq '^ +0 +1 100 main +<stdin> +3$' &&
		ok "$cc: the if site in branch_all" || not_ok "$cc: no if site in branch_all"
	rm -rf "$W/gc.d"
done

# no cost without the defines: the same code as without the header
cat > "$W/plain.c" <<'C'
#define likely(x) __builtin_expect(!!(x), 1)
int f(int x) { if (likely(x > 3)) return x * 2; return x; }
C
cat > "$W/hdr.c" <<'C'
#include <usertrace/branch.h>
int f(int x) { if (likely(x > 3)) return x * 2; return x; }
C
gcc -O2 -c -o "$W/plain.o" "$W/plain.c" && gcc -O2 -c -I"$INC" -o "$W/hdr.o" "$W/hdr.c" &&
objcopy -O binary -j .text "$W/plain.o" "$W/plain.bin" && objcopy -O binary -j .text "$W/hdr.o" "$W/hdr.bin"
if cmp -s "$W/plain.bin" "$W/hdr.bin" && ! readelf -S "$W/hdr.o" | grep -q __ut_branch; then
	ok "without the defines: __builtin_expect, no sites"
else
	not_ok "without the defines: the code differs or has sites"
fi
# C++ too
printf '#include <usertrace/branch.h>\nint g(int x) { if (likely(x > 1)) return 1; if (x) return 2; return 0; }\n' > "$W/c.cc"
g++ -O2 -c -Wall -Wextra -DUSERTRACE_PROFILE_ALL_BRANCHES -I"$INC" -o "$W/c.o" "$W/c.cc" 2> "$W/cxx.err" &&
	ok "the header compiles as C++ with the all-if profiler" ||
	{ not_ok "the header in C++"; sed 's/^/# /' "$W/cxx.err"; }

# bad input
gcc -O2 -o "$W/p" -x c - <<'C'
int main(void) { return 0; }
C
"$UT" record -o "$W/none" -- "$W/p" > /dev/null 2>&1
expect 1 'has no branch statistics: build the program with <usertrace/branch.h> and -DUSERTRACE_PROFILE_BRANCHES' -- "$UT" report --branch -i "$W/none"
expect 2 'choose one' -- "$UT" report --branch --stat -i "$W/d"
expect 1 'cannot open data directory' -- "$UT" report --branch -i "$W/nowhere"
f=$(ls "$W"/d/stat/branch_annotated.* | head -1)
# rows past the file's room (nr > cap): the file is skipped, said
cp -r "$W/d" "$W/c1"; g=$W/c1/stat/$(basename "$f")
hs=$(od -An -tu4 -j44 -N4 "$g" | tr -d ' ')		# hdr_size
printf '\377\377\377\000' | dd of="$g" bs=1 seek="$hs" conv=notrunc 2>/dev/null
expect 0 'corrupt branch statistics' -- "$UT" report --branch -i "$W/c1"
# a room larger than the payload
cp -r "$W/d" "$W/c2"; g=$W/c2/stat/$(basename "$f")
printf '\000\000\000\000\377\377\377\177' | dd of="$g" bs=1 seek="$hs" conv=notrunc 2>/dev/null
expect 0 'corrupt branch statistics' -- "$UT" report --branch -i "$W/c2"
# cut short: the header's size is past the file
cp -r "$W/d" "$W/c3"; g=$W/c3/stat/$(basename "$f")
truncate -s 200 "$g"
expect 1 'corrupt statistics file' -- "$UT" report --branch -i "$W/c3"
# not a statistics file at all
cp -r "$W/d" "$W/c4"; g=$W/c4/stat/$(basename "$f")
head -c 4096 /dev/urandom > "$g"
expect 1 'not a statistics file' -- "$UT" report --branch -i "$W/c4"
# random payload under a good header: any text, no crash
cp -r "$W/d" "$W/c5"; g=$W/c5/stat/$(basename "$f")
sz=$(stat -c %s "$g")
head -c $((sz - hs)) /dev/urandom | dd of="$g" bs=1 seek="$hs" conv=notrunc 2>/dev/null
"$UT" report --branch -i "$W/c5" > /dev/null 2>&1
[ $? -lt 128 ] && ok "a random payload: no crash" || not_ok "a random payload crashed"
echo "1..$n"
