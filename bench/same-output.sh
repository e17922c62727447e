#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/same-output.sh - do two builds of usertrace read the same
# recordings into the same bytes?  For a change that must not change what
# the user sees (a redesign, a move of files): replay, report, dump and
# every export, each run by the old build and by the new one on the same
# recordings, compared byte for byte.
#
#   bash bench/same-output.sh OLD_BUILD NEW_BUILD [WORK_DIR]
#
# OLD_BUILD and NEW_BUILD are build directories (their usertrace and
# libusertrace.so).  The recordings are made once, by OLD_BUILD, in
# WORK_DIR/rec (default /var/tmp/usertrace-same): the bench programs and
# the e2e programs that exercise the decoder's hard cases (longjmp, C++
# exceptions, coroutines, signals, fork, threads), with the tracers that
# record something else than calls.  A WORK_DIR that has them already is
# read again as it is (a recording made by the old build stays the input:
# make it before the change).  LUA=/path/to/lua adds a Lua interpreter
# built with -pg running bench/src/bench.lua.
#
# A command whose output differs between two runs of OLD_BUILD itself
# (a time of day, a random id) is reported as unstable and not compared.
# Prints one line per command: "same", "DIFFERS" (with the first lines of
# the diff) or "unstable"; exit status 1 if anything differs.
set -u
[ $# -ge 2 ] || { sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
OLD=$(cd "$1" && pwd) || exit 2
NEW=$(cd "$2" && pwd) || exit 2
W=${3:-/var/tmp/usertrace-same}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/bench/src
E=$ROOT/tests/e2e/src
mkdir -p "$W/rec" "$W/bin" || exit 2
T=$(mktemp -d /tmp/usertrace-same.XXXXXX)
trap 'rm -rf "$T"' EXIT
export USERTRACE_DEBUG_DIR=

die() { echo "same-output: $*" >&2; exit 2; }

# rec NAME SOURCE "CFLAGS" "RECORD OPTIONS" [ARGS...]: the recording
# $W/rec/NAME, made by the old build unless it is there
rec() {
	local name=$1 src=$2 cflags=$3 ropts=$4 cc=gcc
	shift 4
	[ -d "$W/rec/$name" ] && return 0
	case $src in *.cc) cc=g++ ;; esac
	$cc -O1 -g $cflags -I"$ROOT/include" -I"$E" -I"$B" -o "$W/bin/$name" "$src" -lpthread -ldl ||
		die "cannot build $src"
	# shellcheck disable=SC2086
	(cd "$W/bin" && "$OLD/usertrace" record $ropts -o "$W/rec/$name" -- "$W/bin/$name" "$@") \
		> /dev/null 2> "$T/rec.err" || {
		rm -rf "$W/rec/$name"
		echo "# $name: record failed: $(tail -n 2 "$T/rec.err" | tr '\n' ' ')"
		return 1
	}
}

PG="-pg"
rec fib "$B/fib.c" "$PG" "" 18
rec fib-function "$B/fib.c" "$PG" "-t function" 15
rec threads "$B/threads.c" "$PG" "" 4 2000
rec longjmp "$E/s-longjmp.c" "$PG" ""
rec exception "$E/s-exception.cc" "$PG" ""
rec rethrow "$E/s-rethrow.cc" "$PG" ""
rec coro "$E/s-coro.c" "$PG" ""
rec context "$E/s-context.c" "$PG" ""
rec signal "$E/s-signal.c" "$PG" ""
rec fork "$E/s-fork.c" "$PG" ""
rec deep "$E/s-deep.c" "$PG" "-D 5"
rec thresh "$B/fib.c" "$PG" "--thresh 5us" 15
rec lost "$B/fib.c" "$PG" "-b 64K --drop" 22
rec prof "$E/s-prof.c" "$PG" "--stack-trace --func-profile"
rec events "$E/s-events.c" "$PG" "-e sample -e sched:sched_process_* -e task:*"
rec kmem "$E/s-kmemtrace.c" "$PG" "-t kmemtrace"
rec irqsoff "$E/s-irqsoff.c" "$PG" "-t irqsoff"
rec branch "$E/s-branch.c" "$PG -DUSERTRACE_PROFILE_BRANCHES" "-t branch"
rec sched "$E/s-sched.c" "$PG" "-t sched_switch"
rec sysprof "$B/fib.c" "$PG" "-t sysprof" 30
rec cyg "$B/fib.c" "-finstrument-functions" "" 15
rec pfe "$B/fib.c" "-fpatchable-function-entry=5" "" 15
if [ -n "${LUA:-}" ] && [ ! -d "$W/rec/lua" ]; then
	(cd "$ROOT/bench/src" && "$OLD/usertrace" record -o "$W/rec/lua" -- "$LUA" bench.lua 20 2000) \
		> /dev/null 2>&1 || echo "# lua: record failed"
fi

# the reading commands; @R@ is the recording, @O@ an output path
CMDS=(
	"replay -i @R@"
	"replay -i @R@ -O funcgraph-abstime -O funcgraph-proc -O sym-offset"
	"replay -i @R@ -O latency-format"
	"replay -i @R@ -t function"
	"report -i @R@"
	"report -i @R@ -s self"
	"report -i @R@ -s calls"
	"report -i @R@ --stat"
	"report -i @R@ --stack"
	"report -i @R@ --profile"
	"report -i @R@ --kmem"
	"report -i @R@ --branch"
	"report -i @R@ --folded"
	"report -i @R@ --diff @R@"
	"dump -i @R@"
	"dump -i @R@ --chrome"
	"dump -i @R@ --perfetto @O@"
	"dump -i @R@ --dat @O@"
	"dump -i @R@ --dat v6:@O@"
	"dump -i @R@ --ctf @O@"
	"dump -i @R@ --flame-graph"
	"dump -i @R@ --flame-graph=svg"
)

# run BUILD CMD REC OUT: stdout, stderr, status and the file or directory
# written, all into OUT.*
run() {
	local build=$1 cmd=$2 r=$3 out=$4
	cmd=${cmd//@R@/$r}
	cmd=${cmd//@O@/$T/o}
	rm -rf "$out".* "$T/o"
	# shellcheck disable=SC2086
	(cd "$T" && "$build/usertrace" $cmd > "$out.stdout" 2> "$out.stderr"; echo $? > "$out.status")
	[ -e "$T/o" ] || : > "$T/o"
	# a CTF trace's uuid is random: zeros in its metadata and packet headers
	if [ -f "$T/o/metadata" ]; then
		perl -0777 -i -pe 'BEGIN { open(my $m, "<", "'"$T/o/metadata"'") or die; local $/; my $t = <$m>;
			($u) = $t =~ /uuid = "([0-9a-f-]{36})"/; ($h = $u) =~ s/-//g; $b = pack("H*", $h) }
			s/\Q$u\E/00000000-0000-0000-0000-000000000000/g; s/\Q$b\E/"\0" x 16/ge' "$T"/o/*
	fi
	mv "$T/o" "$out.file"
}

# same A B: the outputs of two runs are the same bytes
same() {
	for k in stdout stderr status; do
		cmp -s "$1.$k" "$2.$k" || return 1
	done
	diff -r "$1.file" "$2.file" > /dev/null 2>&1
}

same_n=0 diff_n=0 unst_n=0
for r in "$W"/rec/*/; do
	r=${r%/}
	name=$(basename "$r")
	for cmd in "${CMDS[@]}"; do
		run "$OLD" "$cmd" "$r" "$T/a"
		run "$OLD" "$cmd" "$r" "$T/b"
		if ! same "$T/a" "$T/b"; then
			echo "unstable  $name: $cmd"; unst_n=$((unst_n + 1))
			continue
		fi
		run "$NEW" "$cmd" "$r" "$T/n"
		if same "$T/a" "$T/n"; then
			echo "same      $name: $cmd"; same_n=$((same_n + 1))
		else
			echo "DIFFERS   $name: $cmd"; diff_n=$((diff_n + 1))
			for k in status stderr stdout; do
				diff "$T/a.$k" "$T/n.$k" 2>/dev/null | head -n 6 | sed "s/^/#   $k: /"
			done
			diff -r "$T/a.file" "$T/n.file" 2>/dev/null | head -n 6 | sed 's/^/#   file: /'
		fi
	done
done
echo "same-output: $same_n same, $diff_n differ, $unst_n unstable"
[ "$diff_n" = 0 ]
