#!/bin/bash
# tracers.sh - what each tracer costs the traced program (issue 12), in
# one run, as ratios to the same program untraced, with uftrace's for
# scale (bench/README.md):
#
#   calls   fib(N) built with -pg (bench/src/fib.c): a deep tree of small
#           calls.  Rows: off (record -t nop: the runtime loaded, no call
#           recorded), then every tracer of available_tracers, the max
#           stack tracer and the function profiler, and uftrace record.
#   branch  bench/src/branchwork.c: branches at a known rate.  Rows: the
#           profiling builds untraced (the counters' own cost), off and
#           the branch tracer on.
#   kmem    bench/src/malloc.c: malloc/free pairs.  Rows: off (the
#           interposition), kmemtrace, uftrace (malloc as a library call).
#   wq      bench/src/workqueue.c: tiny works queued to 2 workers of a
#           <usertrace/workqueue.h> queue.  Rows: off (counted in
#           trace_stat/workqueue whatever the tracer), the workqueue events.
#
#   O=build bash bench/tracers.sh        (make bench-tracers)
#
# Each ratio is the median of the rounds' own ratios: every round runs
# the untraced program, then each row, so a noisy moment touches one
# round.  The time is the program's own wall time from its main on
# (bench/src/clock.h: start-up and the recorder's exit are not in it; the
# process CPU clock of these VMs moves at ticks, too coarse here).
# Not a test: it prints tables.
set -u
O=${O:-build}
CC=${CC:-gcc}
ROUNDS=${TR_ROUNDS:-5}
FIB_N=${TR_FIB_N:-30}
BR_N=${TR_BRANCH_N:-5000000}
KM_N=${TR_KMEM_N:-1000000}
WQ_N=${TR_WQ_N:-200000}
UT=$(cd "$O" && pwd)/usertrace
SRC=$(cd "$(dirname "$0")/src" && pwd)
INC=$(cd "$(dirname "$0")/../include" && pwd)
W=$(mktemp -d /tmp/usertrace-tracers.XXXXXX)
trap 'rm -rf "$W"' EXIT

die() { echo "bench-tracers: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# the tracers this machine offers, from record's own list
tracers=$("$UT" record -t '?' -- true 2>&1 | sed -n "s/.*(available: \(.*\)).*/\1/p" | tr -d ',')
[ -n "$tracers" ] || die "cannot list the tracers"

$CC -O2 -g -pg -I"$SRC" -o "$W/fib" "$SRC/fib.c" || die "cannot build fib.c"
$CC -O2 -g -I"$SRC" -I"$INC" -o "$W/br.plain" "$SRC/branchwork.c" || die "cannot build branchwork.c"
$CC -O2 -g -I"$SRC" -I"$INC" -DUSERTRACE_PROFILE_BRANCHES -o "$W/br.ann" "$SRC/branchwork.c" || die "branchwork.c (annotated)"
$CC -O2 -g -I"$SRC" -I"$INC" -DUSERTRACE_PROFILE_ALL_BRANCHES -o "$W/br.all" "$SRC/branchwork.c" || die "branchwork.c (all)"
$CC -O2 -g -pg -I"$SRC" -o "$W/km" "$SRC/malloc.c" || die "cannot build malloc.c"
$CC -O2 -g -I"$SRC" -I"$INC" -o "$W/wq" "$SRC/workqueue.c" -lpthread || die "cannot build workqueue.c"

# the program's wall ns from its main on (its last line, clock.h); KEY names the run
# for its log; the command is the rest
cpu() {
	local key=$1; shift
	rm -rf "$W/d"
	"$@" > "$W/$key.out" 2> "$W/$key.err" || die "$key failed: $(tail -3 "$W/$key.err")"
	sed -n "s/^cpu_ns [0-9]* wall_ns \\([0-9]*\\)/\\1/p" "$W/$key.out" | tail -1
}
rec() { "$UT" record -o "$W/d" "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }' >> "$W/$3.r"; }

calls_rows="off"
for t in $tracers; do
	[ "$t" = nop ] || calls_rows="$calls_rows $t"
done
calls_rows="$calls_rows stack-trace func-profile"
command -v uftrace > /dev/null && calls_rows="$calls_rows uftrace"

for r in $(seq "$ROUNDS"); do
	base=$(cpu fib.plain "$W/fib" "$FIB_N")
	for k in $calls_rows; do
		case $k in
		off) v=$(cpu "fib.$k" rec -t nop -- "$W/fib" "$FIB_N") ;;
		stack-trace) v=$(cpu "fib.$k" rec -t nop --stack-trace -- "$W/fib" "$FIB_N") ;;
		func-profile) v=$(cpu "fib.$k" rec -t nop --func-profile -- "$W/fib" "$FIB_N") ;;
		uftrace) v=$(cpu "fib.$k" uftrace record -d "$W/d" "$W/fib" "$FIB_N") ;;
		*) v=$(cpu "fib.$k" rec -t "$k" -- "$W/fib" "$FIB_N") ;;
		esac
		ratio "$v" "$base" "fib.$k"
	done
	base=$(cpu br.plain "$W/br.plain" "$BR_N")
	ratio "$(cpu br.ann "$W/br.ann" "$BR_N")" "$base" br.ann
	ratio "$(cpu br.all "$W/br.all" "$BR_N")" "$base" br.all
	ratio "$(cpu br.off rec -t nop -- "$W/br.ann" "$BR_N")" "$base" br.off
	ratio "$(cpu br.on rec -t branch -- "$W/br.ann" "$BR_N")" "$base" br.on
	base=$(cpu km.plain "$W/km" "$KM_N")
	ratio "$(cpu km.off rec -t nop -- "$W/km" "$KM_N")" "$base" km.off
	ratio "$(cpu km.on rec -t kmemtrace -- "$W/km" "$KM_N")" "$base" km.on
	command -v uftrace > /dev/null &&
		ratio "$(cpu km.uf uftrace record -d "$W/d" "$W/km" "$KM_N")" "$base" km.uf
	base=$(cpu wq.plain "$W/wq" "$WQ_N")
	ratio "$(cpu wq.off rec -t nop -- "$W/wq" "$WQ_N")" "$base" wq.off
	ratio "$(cpu wq.on rec -t nop -e 'workqueue:*' -- "$W/wq" "$WQ_N")" "$base" wq.on
done

row() { printf "  %-28s %8.2fx\n" "$1" "$(median < "$W/$2.r")"; }
printf "tracers: %s rounds, the program's time as a ratio to its untraced run (median)\n" "$ROUNDS"
printf "calls: fib(%s) built with -pg, %s calls\n" "$FIB_N" "$(awk -v n="$FIB_N" 'BEGIN { a = 1; b = 1; for (i = 3; i <= n; i++) { c = a + b; a = b; b = c } print 2 * b - 1 }')"
for k in $calls_rows; do
	case $k in
	off) row "off (record -t nop)" "fib.$k" ;;
	uftrace) row "uftrace record" "fib.$k" ;;
	stack-trace|func-profile) row "--$k" "fib.$k" ;;
	*) row "-t $k" "fib.$k" ;;
	esac
done
printf "branch: branchwork %s rounds of 4 profiled branches\n" "$BR_N"
row "likely/unlikely profiler" br.ann
row "all-if profiler" br.all
row "profiler, record -t nop" br.off
row "profiler, record -t branch" br.on
printf "kmem: malloc %s malloc/free pairs\n" "$KM_N"
row "off (record -t nop)" km.off
row "-t kmemtrace" km.on
[ -f "$W/km.uf.r" ] && row "uftrace record (libcalls)" km.uf
printf "workqueue: %s works to 2 workers\n" "$WQ_N"
row "off (record -t nop, counted)" wq.off
row "-e 'workqueue:*'" wq.on
exit 0
