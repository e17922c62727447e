#!/bin/bash
# description: the fuzzers' kept inputs (fuzz/corpus/), each replayed once
# through its target built without libFuzzer (fuzz/replay.c): the inputs
# of every fixed crash must stay harmless.  make asan replays them under
# the sanitizers.
SUITE=fuzz-corpus
. "$(dirname "$0")/lib.sh"
C=$(cd "$(dirname "$0")/../../fuzz/corpus" && pwd)

for t in data filter tracefs; do
	bin=$B/tests/fuzz-replay-$t
	if [ ! -x "$bin" ]; then
		not_ok "$bin: not built"
		continue
	fi
	# each input prints "# FILE" before and "ok - TARGET: FILE" after it
	timeout 120 "$bin" "$C/$t"/* > "$W/out" 2> "$W/err"
	st=$?
	while read -r line; do
		case $line in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) not_ok "${line#not ok * - }" ;;
		esac
	done < "$W/out"
	if [ $st != 0 ]; then
		last=$(grep '^# ' "$W/out" | tail -1)
		not_ok "fuzz-replay-$t failed (status $st) on ${last#\# }"
		grep -E 'ERROR|SUMMARY|runtime error|live_stub|^ +#[0-9] ' "$W/err" | head -20 | sed 's/^/# /'
	fi
done
