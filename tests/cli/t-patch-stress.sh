#!/bin/bash
# description: 16 threads run patched call sites while the main thread switches them on and off 3000 times; the recording must decode whole (report reads every record: replay would print some 80 million lines, most of the suite's time)
SUITE=patch-stress
. "$(dirname "$0")/lib.sh"

T=$(cd "$(dirname "$0")/.." && pwd)
for flags in "-O2 -fpatchable-function-entry=5" "-O2 -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie"; do
	gcc $flags -o "$W/p" "$T/e2e/src/s-patch-stress.c" -lpthread -ldl
	# make asan (UT_SANITIZED): one run each; the runtime is the same
	# unsanitized one, and the sanitized report of some 80 million
	# records takes a minute
	runs=2
	[ -n "${UT_SANITIZED:-}" ] && runs=1
	for run in $(seq $runs); do
		"$UT" record -b 64M -o "$W/d" -- "$W/p" > "$W/out" 2> "$W/err"
		st=$?
		"$UT" report -i "$W/d" > /dev/null 2>> "$W/err"
		rst=$?
		if [ "$st" = 0 ] && [ "$(cat "$W/out")" = "3000 switches" ] && [ "$rst" = 0 ] && [ ! -s "$W/err" ]; then
			ok "$flags, run $run: no crash, no stray trap, trace readable"
		else
			not_ok "$flags, run $run: status $st, replay $rst"; sed 's/^/# /' "$W/out" "$W/err"
		fi
	done
done
