#!/bin/bash
# exports.sh - how fast each export of `usertrace dump` writes a trace
# (issue 13), in calls per second, side by side with uftrace's own
# exports of the same program (uftrace dump --chrome, --flame-graph) in
# one run, with the ratio of the times (ours / uftrace's: below 1 is
# faster) and the output sizes.
#
#   O=build bash bench/exports.sh        (make bench-exports)
#
#   EX_FIB_N=27     bench/src/fib.c computes fib(N): 2 * fib(N) - 1 calls
#   EX_ROUNDS=3     rounds of each export (the median time is shown)
#
# Both tools record the same -pg build; the exports read their own
# recordings.  Not a test: it prints a table.
set -u
O=${O:-build}
CC=${CC:-gcc}
N=${EX_FIB_N:-27}
ROUNDS=${EX_ROUNDS:-3}
UT=$(cd "$O" && pwd)/usertrace
SRC=$(cd "$(dirname "$0")/src" && pwd)
W=$(mktemp -d /tmp/usertrace-exports.XXXXXX)
trap 'rm -rf "$W"' EXIT

die() { echo "bench-exports: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

$CC -O2 -g -pg -I"$SRC" -o "$W/fib" "$SRC/fib.c" || die "cannot build fib.c"
"$UT" record -o "$W/ud" -- "$W/fib" "$N" > /dev/null 2> "$W/rec.err" || die "record: $(tail -2 "$W/rec.err")"
# fib's 2 * fib(N) - 1 calls and main's
calls=$(awk -v n="$N" 'BEGIN { a = 1; b = 1; for (i = 3; i <= n; i++) { c = a + b; a = b; b = c } print 2 * b }')
have_uftrace=
if command -v uftrace > /dev/null; then
	uftrace record -d "$W/uf" "$W/fib" "$N" > /dev/null 2>&1 && have_uftrace=1
fi

# ns of a command's run, its output to FILE (a path argument replaces @OUT@)
run_ns() {
	local out=$1; shift
	local t0 t1
	rm -rf "$out"
	t0=$(date +%s%N)
	"$@" > "$out.stdout" 2> "$W/err" || { echo fail; return; }
	t1=$(date +%s%N)
	echo $((t1 - t0))
}
best() {	# NAME OUT CMD...: the median ns over ROUNDS
	local name=$1 out=$2; shift 2
	local r v
	for r in $(seq "$ROUNDS"); do
		v=$(run_ns "$out" "$@")
		[ "$v" = fail ] && { echo fail; return; }
		echo "$v"
	done | median
}
size_of() { du -sb "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

printf '%d calls of fib (fib(%d)), %d rounds, median times\n\n' "$calls" "$N" "$ROUNDS"
printf '%-16s %12s %14s %12s %10s\n' export seconds calls/s bytes "vs uftrace"
row() {	# NAME OUT UFTRACE_NS CMD...
	local name=$1 out=$2 uns=$3; shift 3
	local ns sz ratio
	ns=$(best "$name" "$out" "$@")
	if [ "$ns" = fail ] || [ -z "$ns" ]; then
		printf '%-16s %12s  (%s)\n' "$name" n/a "$(head -1 "$W/err")"
		return
	fi
	sz=$(size_of "$out" "$out.stdout")
	ratio=-
	[ -n "$uns" ] && [ "$uns" != fail ] && ratio=$(awk -v a="$ns" -v b="$uns" 'BEGIN { printf "%.2f", a / b }')
	printf '%-16s %12.3f %14.0f %12d %10s\n' "$name" "$(awk -v n="$ns" 'BEGIN { print n / 1e9 }')" \
		"$(awk -v c="$calls" -v n="$ns" 'BEGIN { print c / (n / 1e9) }')" "$sz" "$ratio"
}
uchrome= uflame=
if [ -n "$have_uftrace" ]; then
	uchrome=$(best uchrome "$W/uc" uftrace dump -d "$W/uf" --chrome)
	uflame=$(best uflame "$W/ufg" uftrace dump -d "$W/uf" --flame-graph)
	row "uftrace chrome" "$W/uc" "" uftrace dump -d "$W/uf" --chrome
	row "uftrace flame" "$W/ufg" "" uftrace dump -d "$W/uf" --flame-graph
fi
row "replay" "$W/rp" "" "$UT" replay -i "$W/ud"
row "chrome" "$W/c" "$uchrome" "$UT" dump -i "$W/ud" --chrome
row "perfetto" "$W/p" "" "$UT" dump -i "$W/ud" --perfetto
row "dat" "$W/t.dat" "" "$UT" dump -i "$W/ud" --dat "$W/t.dat"
row "ctf" "$W/ctf" "" "$UT" dump -i "$W/ud" --ctf "$W/ctf"
row "flame-graph" "$W/f" "$uflame" "$UT" dump -i "$W/ud" --flame-graph
row "flame-graph=svg" "$W/fs" "" "$UT" dump -i "$W/ud" --flame-graph=svg
[ -n "$have_uftrace" ] || echo "(uftrace is not installed: no ratios; make bench-exports installs it as root)"
