#!/bin/sh
# run.sh - run one libFuzzer target (see doc/fuzzing.md).
#   fuzz/run.sh FUZZ_BUILD_DIR TARGET SECONDS [JOBS [LIBFUZZER_FLAGS...]]
# SECONDS = 0: run each input of fuzz/corpus/TARGET once and stop (a
# regression run).  Otherwise fuzz for SECONDS, starting from the kept
# corpus; new inputs go to FUZZ_BUILD_DIR/corpus/TARGET, findings
# (crash-*, leak-*, timeout-*, oom-*) to FUZZ_BUILD_DIR/findings/TARGET/.
set -u
fz=$1 t=$2 secs=$3 jobs=${4:-1}
shift 4 2>/dev/null || shift $#
bin=$fz/fuzz_$t
src=$(dirname "$0")
seeds=$src/corpus/$t
dict=
[ -f "$src/$t.dict" ] && dict=-dict=$src/$t.dict

if [ "$secs" = 0 ]; then
	# every kept input once: crashes the fixes were for must stay fixed
	n=$(ls "$seeds" | wc -l)
	if "$bin" -close_fd_mask=3 "$seeds"/* > "$fz/smoke-$t.log" 2>&1; then
		echo "ok - fuzz_$t: $n inputs of $seeds"
		exit 0
	fi
	echo "not ok - fuzz_$t: an input of $seeds fails:"
	tail -40 "$fz/smoke-$t.log"
	exit 1
fi

mkdir -p "$fz/corpus/$t" "$fz/findings/$t"
par=
[ "$jobs" -gt 1 ] && par=-fork=$jobs
echo "fuzz_$t: $secs s, corpus $seeds (+ $fz/corpus/$t), findings in $fz/findings/$t/"
"$bin" $dict $par -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
	-print_final_stats=1 -artifact_prefix="$fz/findings/$t/" "$@" "$fz/corpus/$t" "$seeds"
st=$?
if [ $st != 0 ]; then
	echo "fuzz_$t: found a problem (status $st): see $fz/findings/$t/" >&2
	exit 1
fi
