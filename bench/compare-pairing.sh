#!/bin/bash
# compare-pairing.sh - the outputs that pair calls with their returns
# (replay, report in each mode, dump's exports), old build against new,
# on the same recordings: issue 27's "one per-thread call stack" must not
# change a byte.
#
#   bash bench/compare-pairing.sh record OLD_BUILD WORK   # once, with the old build
#                                     (LUA_SRC=/path/to/lua/src: a Lua run too)
#   bash bench/compare-pairing.sh outputs BUILD WORK OUT  # outputs of BUILD in OUT
#   bash bench/compare-pairing.sh compare OLD NEW WORK    # both, then diff
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
E2E=$HERE/tests/e2e/src

record() {
	local ut=$1/usertrace w=$2
	mkdir -p "$w/bin" "$w/rec"
	# the e2e programs with longjmp, exceptions, contexts, threads, forks, recursion
	for s in s-abc.c s-longjmp.c s-exception.cc s-rethrow.cc s-context.c s-coro.c \
		 s-threads.c s-thread.c s-fork.c s-fib.c s-signal.c s-pthread-exit.c s-exec.c; do
		local n=${s%.*} cc=gcc
		[ "${s##*.}" = cc ] && cc=g++
		$cc -pg -mfentry -O0 -g -I"$HERE/include" -I"$E2E" -o "$w/bin/$n" "$E2E/$s" -lpthread -ldl || continue
		"$ut" record -o "$w/rec/$n" -- "$w/bin/$n" > /dev/null 2>&1
	done
	# recursion deeper than the shadow stack (t017)
	gcc -pg -mfentry -O0 -g -o "$w/bin/s-deep" "$E2E/s-deep.c" &&
		"$ut" record -o "$w/rec/s-deep" -- "$w/bin/s-deep" > /dev/null 2>&1
	# tracing_thresh: whole calls recorded at their return (t028), alone and with a depth limit
	gcc -pg -mfentry -O0 -g -o "$w/bin/s-filters" "$E2E/s-filters.c" &&
		"$ut" record --thresh 1ms -o "$w/rec/thresh" -- "$w/bin/s-filters" > /dev/null 2>&1
	"$ut" record --thresh 500ns -o "$w/rec/thresh-fib" -- "$w/bin/s-fib" > /dev/null 2>&1
	# flight recorder: the trace starts inside calls
	"$ut" record --overwrite -b 8K -o "$w/rec/overwrite" -- "$w/bin/s-fib" > /dev/null 2>&1
	# lost records (tests/cli/t-lost.sh's program)
	cat > "$w/bin/lost.c" <<'C'
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void mid(int x) { for (int i = 0; i < 10; i++) leaf(x + i); }
noinline void outer(int x) { for (int i = 0; i < 100; i++) mid(x + i); }
noinline void work(void) { for (int i = 0; i < 300; i++) outer(i); }
int main(void)
{
	work();
	usleep(200000);
	return 0;
}
C
	gcc -pg -mfentry -O2 -o "$w/bin/lost-fentry" "$w/bin/lost.c"
	gcc -finstrument-functions -O2 -o "$w/bin/lost-cyg" "$w/bin/lost.c"
	for i in 1 2; do
		"$ut" record --drop -b 8K -o "$w/rec/lost-fentry-$i" -- "$w/bin/lost-fentry" > /dev/null 2>&1
		"$ut" record --drop -b 8K -o "$w/rec/lost-cyg-$i" -- "$w/bin/lost-cyg" > /dev/null 2>&1
	done
	# whole calls (RETURN) and lost records together
	for i in 1 2 3; do
		"$ut" record --thresh 200ns --drop -b 8K -o "$w/rec/thresh-lost-$i" -- "$w/bin/lost-fentry" > /dev/null 2>&1
	done
	# samples, for report --folded and the sample flame graph
	"$ut" record -t sysprof -o "$w/rec/sysprof" -- "$w/bin/lost-fentry" > /dev/null 2>&1
	gcc -pg -mfentry -O0 -g -o "$w/bin/hello" "$HERE/examples/hello.c" &&
		"$ut" record -o "$w/rec/hello" -- "$w/bin/hello" > /dev/null 2>&1
	# a real program: Lua (bench/lua.mk) if LUA_SRC names its sources
	if [ -n "${LUA_SRC:-}" ] && make -s -f "$HERE/bench/lua.mk" SRC="$LUA_SRC" OUT="$w/lua" \
		FLAGS='-pg -mfentry' > /dev/null 2>&1; then
		local prog='local t = {} for i = 1, 3000 do t[#t + 1] = string.format("%d", i) end
			table.sort(t) local ok = pcall(error, "x") print(#t, ok)'
		"$ut" record -o "$w/rec/lua" -- "$w/lua/lua" -e "$prog" > /dev/null 2>&1
		"$ut" record --drop -b 16K -o "$w/rec/lua-lost" -- "$w/lua/lua" -e "$prog" > /dev/null 2>&1
	fi
	# latency tracers: their windows print calls with trace_fn_print_line
	gcc -pg -mfentry -O2 -g -I"$HERE/include" -o "$w/bin/s-irqsoff" "$E2E/s-irqsoff.c" -lpthread &&
	for t in irqsoff preemptoff preemptirqsoff; do
		"$ut" record -t $t -o "$w/rec/$t" -- "$w/bin/s-irqsoff" > /dev/null 2>&1
	done
	gcc -pg -O2 -g -I"$HERE/include" -o "$w/bin/s-wakeup" "$E2E/s-wakeup.c" -lpthread &&
		"$ut" record -t wakeup -o "$w/rec/wakeup" -- "$w/bin/s-wakeup" 2 8 5 12 3 1 > /dev/null 2>&1
	# depth limit, triggers (calls cut by traceoff/traceon)
	"$ut" record -D 2 -G top -G main -N slow -o "$w/rec/maxdepth" -- "$w/bin/s-filters" > /dev/null 2>&1
	"$ut" record -T off:traceoff -T on:traceon -o "$w/rec/trigger" -- "$w/bin/s-filters" > /dev/null 2>&1
}

outputs() {
	local ut=$1/usertrace w=$2 o=$3
	mkdir -p "$o"
	for r in "$w"/rec/*; do
		local n=$(basename "$r")
		"$ut" replay -i "$r" > "$o/$n.replay" 2>&1
		"$ut" replay -i "$r" -O funcgraph-tail -O funcgraph-proc -O funcgraph-abstime > "$o/$n.replay-opts" 2>&1
		"$ut" replay -i "$r" -t function > "$o/$n.replay-function" 2>&1
		"$ut" replay -i "$r" -t function_graph > "$o/$n.replay-graph" 2>&1
		"$ut" report -i "$r" > "$o/$n.report" 2>&1
		for k in self calls name untimed; do
			"$ut" report -i "$r" -s $k > "$o/$n.report-s-$k" 2>&1
		done
		"$ut" report -i "$r" --stat > "$o/$n.report-stat" 2>&1
		"$ut" report -i "$r" --folded > "$o/$n.report-folded" 2>&1
		"$ut" report -i "$r" --diff "$w/rec/s-fib" > "$o/$n.report-diff" 2>&1
		"$ut" dump -i "$r" > "$o/$n.dump" 2>&1
		"$ut" dump -i "$r" --chrome > "$o/$n.chrome" 2>&1
		"$ut" dump -i "$r" --perfetto > "$o/$n.perfetto" 2>&1
		"$ut" dump -i "$r" --flame-graph > "$o/$n.flame" 2>&1
		"$ut" dump -i "$r" --flame-graph=svg > "$o/$n.flame-svg" 2>&1
	done
}

case $1 in
record) record "$2" "$3" ;;
outputs) outputs "$2" "$3" "$4" ;;
compare)
	rm -rf "$4/old" "$4/new"
	outputs "$2" "$4" "$4/old"
	outputs "$3" "$4" "$4/new"
	n=$(find "$4/old" -type f | wc -l)
	if diff -r "$4/old" "$4/new" > "$4/diff"; then
		echo "same: $n files of $(ls "$4/rec" | wc -l) recordings"
	else
		echo "DIFFERENT ($n files):"; grep -E '^(diff|Only|Binary)' "$4/diff" | head -40; exit 1
	fi ;;
*) echo "usage: $0 record OLD_BUILD WORK | outputs BUILD WORK OUT | compare OLD NEW WORK" >&2; exit 2 ;;
esac
