#!/bin/bash
# description: make install into a scratch DESTDIR/PREFIX: every header the docs name and every header marked installed is there, usertrace.pc gives the include directory, each installed header compiles alone; the man page's tracepoint example, extracted as man prints it, builds with its own command against the installed tree only (and the kernel's TRACE_INCLUDE_PATH forms too), and runs under the installed usertrace
SUITE=install
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
P=/opt/ut
D=$W/dest
R=$D$P

if ! command -v pkg-config > /dev/null || ! command -v groff > /dev/null; then
	echo "# SKIP: pkg-config or groff missing"
	exit 0
fi
# the build under test is up to date: install only copies it (make asan's
# too); not the flags of a make that runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL
san=
[ "${B##*/}" = build-san ] && san=SAN=1
make -s --no-print-directory -C "$SRC" $san O="$B" DESTDIR="$D" PREFIX=$P install > "$W/out" 2>&1 &&
	ok "make install DESTDIR=... PREFIX=$P" ||
	{ not_ok "make install DESTDIR=... PREFIX=$P"; sed 's/^/# /' "$W/out"; exit 1; }

# what must be there: the binary, the runtime where the binary looks, the
# .pc, every man page of doc/, every header marked installed and every
# header the docs send users to
want=$(
	echo bin/usertrace lib/usertrace/libusertrace.so lib/pkgconfig/usertrace.pc
	for m in "$SRC"/doc/*.[1-8]; do echo "share/man/man${m##*.}/${m##*/}"; done
	for h in "$SRC"/include/usertrace/*.h; do
		head -8 "$h" | grep -q installed && echo "include/usertrace/${h##*/}"
	done
	cat "$SRC"/README.md "$SRC"/doc/*.md "$SRC"/doc/design/*.md "$SRC"/doc/*.[1-8] |
		grep -oE '<usertrace/[a-z_]+\.h>' | sed 's/^<\(.*\)>$/include\/\1/'
)
missing=
for f in $(printf "%s\n" $want | sort -u); do [ -f "$R/$f" ] || missing="$missing $f"; done
[ -z "$missing" ] && ok "installed: $(echo $want | wc -w) files named by the tree and the docs" ||
	not_ok "not installed:$missing"
for h in irqflags preempt mmio; do
	[ -f "$R/include/usertrace/$h.h" ] && ok "<usertrace/$h.h> installed" || not_ok "<usertrace/$h.h> installed"
done
[ -x "$R/bin/usertrace" ] && [ "$(stat -c %a "$R/lib/usertrace/libusertrace.so")" = 755 ] &&
	[ "$(stat -c %a "$R/include/usertrace/tracepoint.h")" = 644 ] &&
	ok "modes: 755 binary and runtime, 644 headers" || not_ok "modes"

# README's list of what make install puts under PREFIX is the installed tree's
readme=$(sed -n '/^`make install` puts under PREFIX/,/^$/p' "$SRC/README.md" | tr '\n' ' ')
got_h=$(cd "$R/include/usertrace" && ls *.h | sort | tr '\n' ' ')
doc_h=$(grep -oE '`[a-z_]+\.h`' <<< "$readme" | tr -d '`' | sort | tr '\n' ' ')
if [ -n "$doc_h" ] && [ "$doc_h" = "$got_h" ] && grep -q 'bin/usertrace' <<< "$readme" &&
	grep -q 'lib/usertrace/libusertrace.so' <<< "$readme" && grep -q 'lib/pkgconfig/usertrace.pc' <<< "$readme"; then
	ok "README's list of installed files is what make install installs"
else
	not_ok "README's list of installed files: headers '$doc_h', installed '$got_h'"
fi
# make example ends naming the binary it built and make install
make -n --no-print-directory -C "$SRC" $san O="$B" example 2> /dev/null | grep -qF "usertrace is $B/usertrace" &&
	ok "make example names $B/usertrace at its end" || not_ok "make example names the binary at its end"

# pkg-config: the .pc names PREFIX; with the sysroot it points into DESTDIR
grep -qx "prefix=$P" "$R/lib/pkgconfig/usertrace.pc" && ok "usertrace.pc: prefix=$P" ||
	{ not_ok "usertrace.pc: prefix=$P"; sed 's/^/# /' "$R/lib/pkgconfig/usertrace.pc"; }
export PKG_CONFIG_PATH=$R/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_LIBDIR=/nonexistent
cflags=$(pkg-config --cflags usertrace 2> "$W/err")
cflags=${cflags% }
[ "$cflags" = "-I$R/include" ] && ok "pkg-config --cflags usertrace: -I<prefix>/include" ||
	{ not_ok "pkg-config --cflags usertrace: '$cflags'"; sed 's/^/# /' "$W/err"; }

# uses CC ARGS...: compile, and every <usertrace/...> read comes from the installed tree
uses_installed() {
	local cc=$1
	shift
	"$cc" -M "$@" > "$W/deps" 2> "$W/err" || return 1
	! tr ' \\' '\n\n' < "$W/deps" | grep 'usertrace/' | grep -v "^$R/include/usertrace/" | grep -q .
}

# each installed header alone, in C, and in C++ where it says so
bad=
for h in "$R"/include/usertrace/*.h; do
	hn=${h##*/}
	printf '#include <usertrace/%s>\nint main(void) { return 0; }\n' "$hn" > "$W/h.c"
	gcc -std=gnu11 -Wall -Wextra -Werror $cflags -c "$W/h.c" -o "$W/h.o" 2> "$W/err" &&
		uses_installed gcc $cflags "$W/h.c" || { bad="$bad $hn(C)"; sed 's/^/# /' "$W/err" | head -5; }
	if head -8 "$h" | grep -q 'C++'; then
		g++ -std=c++11 -Wall -Wextra -Werror $cflags -x c++ -c "$W/h.c" -o "$W/h.o" 2> "$W/err" ||
			{ bad="$bad $hn(C++)"; sed 's/^/# /' "$W/err" | head -5; }
	fi
done
[ -z "$bad" ] && ok "every installed header compiles alone against the installed tree" ||
	not_ok "installed headers that do not compile alone:$bad"

# ---- the man page's example, as man prints it ----
# blocks FILE: each .nf block of the page rendered alone by groff -man, its
# indentation removed, into $W/blk.N
blocks() {
	awk -v out="$W/blk" '
		/^\.nf$/ { inb = 1; n++; f = out "." n; print ".TH X 1\n.SH X\n.nf\nBEGIN-BLOCK" > f; next }
		/^\.fi$/ && inb { inb = 0; print "END-BLOCK\n.fi" > f; close(f); next }
		inb { print > f }
		END { print n + 0 > (out ".n") }' "$1"
	for ((i = 1; i <= $(cat "$W/blk.n"); i++)); do
		groff -man -Tutf8 -P-cbou "$W/blk.$i" 2> /dev/null |
			sed -n '/^ *BEGIN-BLOCK$/,/^ *END-BLOCK$/p' | sed '1d;$d' | sed 's/^       //' > "$W/blk.$i.txt"
	done
}
blocks "$SRC/doc/usertrace-tracepoint.3"
mkdir -p "$W/ex"
cmd= run=
for ((i = 1; i <= $(cat "$W/blk.n"); i++)); do
	t=$W/blk.$i.txt
	name=$(sed -n '1s|^/\* \([a-z_.]*\) \*/$|\1|p' "$t")
	[ -n "$name" ] && cp "$t" "$W/ex/$name"
	grep -q '^\$ cc ' "$t" && cmd=$(sed -n 's/^\$ \(cc .*\)$/\1/p' "$t") && run=$(sed -n 's/^\$ \(usertrace .*\)$/\1/p' "$t") &&
		grep -E 'main: start|request: ' "$t" | sed -E 's/^ +[a-z]+-[0-9]+ +\[[0-9]+\] [.]+ +[0-9.]+: //' > "$W/ex.want"
done
if [ -f "$W/ex/myapp_trace.h" ] && [ -f "$W/ex/myapp.c" ] && [ -n "$cmd" ] && [ -n "$run" ]; then
	ok "usertrace-tracepoint(3): myapp_trace.h, myapp.c and the commands '$cmd', '$run'"
else
	not_ok "usertrace-tracepoint(3): no myapp_trace.h, myapp.c or commands in its examples"
	exit 1
fi
if LC_ALL=C grep -q '[^ -~	]' "$W/ex/myapp_trace.h" "$W/ex/myapp.c" <<< "$cmd"; then
	not_ok "the example as printed has non-ASCII characters (a roff '-' not written '\\-'?)"
fi

# build DIR: the man page's command in DIR; the installed usertrace runs the result as the man page does
build() {
	(cd "$1" && sh -c "$cmd") > "$W/out" 2>&1
}
check_run() {
	local what=$1 dir=$2
	(cd "$dir" && PATH=$R/bin:$PATH sh -c "$run") > "$W/out" 2>&1
	local rc=$?
	grep -E 'main: start|request: ' "$W/out" | sed -E 's/^ +[a-z]+-[0-9]+ +\[[0-9]+\] [.]+ +[0-9.]+: //' > "$W/got"
	if [ $rc = 0 ] && [ -s "$W/ex.want" ] && cmp -s "$W/got" "$W/ex.want"; then
		ok "$what: '$run' prints the man page's events"
	else
		not_ok "$what: '$run' (status $rc)"
		sed 's/^/# /' "$W/out" | tail -5
	fi
}
if build "$W/ex" && (cd "$W/ex" && uses_installed gcc $cflags -I. myapp.c); then
	ok "the man page's example builds verbatim against the installed tree"
	check_run "the man page's example" "$W/ex"
else
	not_ok "the man page's example builds verbatim: $cmd"
	sed 's/^/# /' "$W/out" "$W/err" | head -20
fi
(cd "$W/ex" && g++ -std=c++11 -Wall -Wextra $cflags -I. -x c++ -c myapp.c -o myapp.o) > "$W/out" 2>&1 &&
	ok "the man page's example builds as C++11" ||
	{ not_ok "the man page's example builds as C++11"; sed 's/^/# /' "$W/out" | head; }

# without -I.: the header is not searched in its own directory, as the kernel's; the message says so
sed 's/ -I\. / /' <<< "$cmd" > "$W/cmd.noI"
(cd "$W/ex" && sh "$W/cmd.noI") > "$W/out" 2>&1
if [ $? != 0 ] && grep -q 'usertrace: <myapp_trace.h> not found' "$W/out" && grep -q 'add -I and its directory' "$W/out"; then
	ok "without -I.: 'usertrace: <myapp_trace.h> not found' and the hint"
else
	not_ok "without -I.: the message"
	sed 's/^/# /' "$W/out" | head
fi

# the kernel's way: TRACE_INCLUDE_PATH ., with the header of doc/design/framework.md
mkdir -p "$W/k"
awk '/^```c$/ { inb = 1; n = 0; next } /^```$/ { inb = 0; if (keep) exit; next }
     inb && !n++ { keep = ($0 == "/* myapp_trace.h */") } inb && keep' \
	"$SRC/doc/design/framework.md" > "$W/k/myapp_trace.h"
cp "$W/ex/myapp.c" "$W/k/"
if grep -q '^#define TRACE_INCLUDE_PATH \.$' "$W/k/myapp_trace.h" && build "$W/k"; then
	ok "framework.md's header (TRACE_INCLUDE_PATH .) builds with the man page's command"
	check_run "TRACE_INCLUDE_PATH ." "$W/k"
else
	not_ok "framework.md's header (TRACE_INCLUDE_PATH .) builds with the man page's command"
	sed 's/^/# /' "$W/k/myapp_trace.h" "$W/out" | head -30
fi
(cd "$W/k" && sh "$W/cmd.noI") > "$W/out" 2>&1
[ $? != 0 ] && grep -q 'usertrace: "\./myapp_trace.h" not found' "$W/out" &&
	ok "TRACE_INCLUDE_PATH . without -I.: 'usertrace: \"./myapp_trace.h\" not found'" ||
	{ not_ok "TRACE_INCLUDE_PATH . without -I.: the message"; sed 's/^/# /' "$W/out" | head; }

# a path below an include directory (trace/), and an absolute one
mkdir -p "$W/s/trace"
sed 's|^#define TRACE_INCLUDE_FILE|#define TRACE_INCLUDE_PATH trace\n&|' "$W/ex/myapp_trace.h" > "$W/s/trace/myapp_trace.h"
sed 's|"myapp_trace.h"|"trace/myapp_trace.h"|' "$W/ex/myapp.c" > "$W/s/myapp.c"
build "$W/s" && ok "TRACE_INCLUDE_PATH trace, with -I." ||
	{ not_ok "TRACE_INCLUDE_PATH trace, with -I."; sed 's/^/# /' "$W/out" | head; }
sed -i "s|^#define TRACE_INCLUDE_PATH trace|#define TRACE_INCLUDE_PATH $W/s/trace|" "$W/s/trace/myapp_trace.h"
(cd "$W/s" && sh "$W/cmd.noI") > "$W/out" 2>&1 && ok "TRACE_INCLUDE_PATH an absolute path, without -I." ||
	{ not_ok "TRACE_INCLUDE_PATH an absolute path, without -I."; sed 's/^/# /' "$W/out" | head; }
