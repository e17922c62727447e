#!/bin/bash
# runtest.sh - end-to-end tests: build each s-*.c program with every
# instrumentation flag at -O0 and -O2, trace it, and compare the replay
# with the expected output kept in the test file.
#
#   tests/e2e/runtest.sh BUILD_DIR [PATTERN]
#
# A test file tNNN_name.t holds shell assignments, a line "---", then the
# expected output:
#   src=s-abc.c            program (in tests/e2e/src)
#   args="1 2"             its arguments
#   status=0               its expected exit status
#                          (a program that exits 77 lacks a privilege: the case is skipped)
#   flags="pg fentry cyg"  instrumentation (default: pg fentry cyg pfe
#                          nopmcount; *-nopie: the same in a non-PIE
#                          executable; pfe and nopmcount are patched at run
#                          time by the runtime's dynamic ftrace; recmcount:
#                          __mcount_loc listing real calls, filtered in
#                          the hooks)
#   ropts="-F foo"         options of usertrace record
#   opts="-O0 -O2"         optimisation levels (default both)
#   cflags="-DX"           more compiler options (the program's and its libraries')
#   cmd="replay -O ..."    usertrace command run on the data (default: the
#                          call graph without the cpu and duration columns)
#   filter=sed-expression  applied to the output before comparing
#   lib=lib-foo.c          shared libraries (one or more) built with the
#                          same flags as $LIBDIR/libfoo.so; linked when
#                          link=1 (default), else only built (for dlopen;
#                          $LIBDIR in args)
# Thread ids in the output are replaced by T1, T2, ... in order of
# appearance, process ids by P1, P2, ...
#
# Prints "ok N - ..." / "not ok N - ..." lines and a summary.

B=$(cd "$1" && pwd) || exit 2
PAT=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
UT=$B/usertrace
# no system debug files (libc6-dbg would name libc's inner functions, which
# the expected outputs leave as addresses: machines differ in having them)
export USERTRACE_DEBUG_DIR=
WORK=$(mktemp -d /tmp/usertrace-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

declare -A FLAG=([pg]="-pg" [fentry]="-pg -mfentry" [cyg]="-finstrument-functions"
	[pg-nopie]="-pg -fno-pie -no-pie" [fentry-nopie]="-pg -mfentry -fno-pie -no-pie"
	[cyg-nopie]="-finstrument-functions -fno-pie -no-pie"
	[pfe]="-fpatchable-function-entry=5"
	[nopmcount]="-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie"
	[recmcount]="-pg -mfentry -mrecord-mcount")
pass=0 fail=0 n=0

normalize() {
	perl "$HERE/normalize.pl"
}

for t in "$HERE"/t*.t; do
	name=$(basename "$t" .t)
	[ -n "$PAT" ] && [[ $name != *$PAT* ]] && continue
	src= args= status=0 flags="pg fentry cyg pfe nopmcount" opts="-O0 -O2" filter= cmd= lib= link=1 ropts= cflags=
	eval "$(sed '/^---$/,$d' "$t")"
	[ -n "$cmd" ] || cmd="replay -O nofuncgraph-cpu -O nofuncgraph-duration"
	sed '1,/^---$/d' "$t" > "$WORK/expect"
	for f in $flags; do
		for o in $opts; do
			n=$((n + 1))
			id="$name $f $o"
			mkdir -p "$WORK/$f$o"
			exe=$WORK/$f$o/${src%.*}
			case $src in
			*.cc) cc=${CXX:-g++} ;;
			*) cc=${CC:-gcc} ;;
			esac
			libflags=
			LIBDIR=$WORK/lib-$f$o
			: > "$WORK/cc.err"
			for l in $lib; do
				mkdir -p "$LIBDIR"
				soname=$(basename "$l" .c); soname=lib${soname#lib-}.so
				$cc ${FLAG[$f]} $o $cflags -g -I"$HERE/../../include" -I"$HERE/src" -fPIC -shared -o "$LIBDIR/$soname" "$HERE/src/$l" 2>> "$WORK/cc.err"
				[ "$link" = 1 ] && libflags="$libflags $LIBDIR/$soname -Wl,-rpath,$LIBDIR"
			done
			if ! $cc ${FLAG[$f]} $o $cflags -g -I"$HERE/../../include" -I"$HERE/src" -o "$exe" "$HERE/src/$src" $libflags -lpthread -ldl 2>> "$WORK/cc.err"; then
				echo "not ok $n - $id: does not compile"; sed 's/^/# /' "$WORK/cc.err"
				fail=$((fail + 1)); continue
			fi
			rm -rf "$WORK/data"
			(cd "$WORK" && eval "\"$UT\" record $ropts -o \"$WORK/data\" -- \"$exe\" $args") > "$WORK/prog.out" 2> "$WORK/prog.err"
			got=$?
			if [ "$got" = 77 ] && [ "$status" != 77 ]; then
				# the program's own verdict: it lacks a privilege it needs
				echo "ok $n - $id # SKIP $(tail -n 1 "$WORK/prog.err")"
				pass=$((pass + 1)); continue
			fi
			if [ "$got" != "$status" ]; then
				echo "not ok $n - $id: exit status $got, expected $status"; sed 's/^/# /' "$WORK/prog.err"
				fail=$((fail + 1)); continue
			fi
			eval "\"$UT\" $cmd -i \"$WORK/data\"" 2> "$WORK/err" | normalize > "$WORK/out"
			if [ -n "$filter" ]; then
				sed -e "$filter" "$WORK/out" > "$WORK/out.f" && mv "$WORK/out.f" "$WORK/out"
			fi
			if diff -u "$WORK/expect" "$WORK/out" > "$WORK/diff"; then
				echo "ok $n - $id"
				pass=$((pass + 1))
			else
				echo "not ok $n - $id"; sed 's/^/# /' "$WORK/diff" "$WORK/err"
				fail=$((fail + 1))
			fi
		done
	done
done
echo "# e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
