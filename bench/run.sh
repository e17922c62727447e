#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/run.sh - usertrace's cost against uftrace's: recording overhead per
# traced call, bytes per call, lost events, replay and report throughput;
# for dynamic ftrace (-fpatchable-function-entry) builds also the cost of the
# untraced nop sites (callgrind instructions, ns per call).
# What is measured and how to read the output: bench/README.md.
#
#   make bench                    or    O=build CC=cc bash bench/run.sh
#
# Environment:
#   BENCH_ROUNDS=5            recording rounds; each number is a median
#   BENCH_REPLAY_ROUNDS=3     replay/report rounds
#   BENCH_LOOP_N=10000000     calls of empty() in the loop program
#   BENCH_FIB_N=30            the fib program computes fib(N)
#   BENCH_OFF_N=100000000     calls of empty() for the tracing-off timing
#   BENCH_CG_N=1000000        calls of empty() under callgrind
#   BENCH_DIR=${TMPDIR:-/tmp} where the recordings go (removed at the end)
#   BENCH_STRICT=1            exit 1 when the bar is not met, too
#   UFTRACE=uftrace           the uftrace to compare with
#
# Exit status: 0, or 1 if a build or a run failed (or, with BENCH_STRICT=1,
# the bar is not met).  The log of every run's stderr is $O/bench/log.

set -u
export LC_ALL=C			# EPOCHREALTIME and printf with a '.'

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
O=${O:-build}
case $O in /*) ;; *) O=$ROOT/$O ;; esac
CC=${CC:-cc}
UT=$O/usertrace
UFTRACE=${UFTRACE:-uftrace}
ROUNDS=${BENCH_ROUNDS:-5}
REPLAY_ROUNDS=${BENCH_REPLAY_ROUNDS:-3}
LOOP_N=${BENCH_LOOP_N:-10000000}
FIB_N=${BENCH_FIB_N:-30}
OFF_N=${BENCH_OFF_N:-100000000}
CG_N=${BENCH_CG_N:-1000000}
BIN=$O/bench
LOG=$BIN/log

PROGS=(loop fib)
FLAGS=("-pg" "-pg -mfentry" "-finstrument-functions")
TAGS=(pg fentry cyg)		# binary suffix of each entry of FLAGS
TOOLS=(native usertrace uftrace)
# dynamic ftrace builds: nops at each function entry, patched into calls at
# run time by the usertrace runtime and at load time by uftrace -P .
DYN_FLAGS=("-fpatchable-function-entry=5")
DYN_TAGS=(pfe)
declare -A UF_OPTS=([pfe]="-P .")	# uftrace's extra options per tag
REPLAY_SET=fib.fentry		# the recordings replay and report read

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

[ -x "$UT" ] || die "$UT not found: run make first"
command -v "$UFTRACE" >/dev/null || die "uftrace not found (set UFTRACE=/path/to/uftrace)"

# ---- build ----------------------------------------------------------------

mkdir -p "$BIN" || exit 1
: >"$LOG"
for prog in "${PROGS[@]}"; do
	$CC -O2 -o "$BIN/$prog.plain" "bench/src/$prog.c" || die "cannot build $prog"
	for i in "${!FLAGS[@]}"; do
		# shellcheck disable=SC2086 # the flags are words
		$CC -O2 ${FLAGS[i]} -o "$BIN/$prog.${TAGS[i]}" "bench/src/$prog.c" ||
			die "cannot build $prog with ${FLAGS[i]}"
	done
	for i in "${!DYN_FLAGS[@]}"; do
		# shellcheck disable=SC2086 # the flags are words
		$CC -O2 ${DYN_FLAGS[i]} -o "$BIN/$prog.${DYN_TAGS[i]}" "bench/src/$prog.c" ||
			die "cannot build $prog with ${DYN_FLAGS[i]}"
	done
done
$CC -O2 -std=gnu11 -Iinclude -o "$BIN/utstat" bench/src/utstat.c || die "cannot build utstat"

# arguments and traced calls per run of each program (main is traced too)
declare -A ARGS CALLS
ARGS[loop]=$LOOP_N
CALLS[loop]=$((LOOP_N + 1))
ARGS[fib]=$FIB_N
fa=1 fb=1
for ((i = 2; i < FIB_N; i++)); do ((t = fa + fb, fa = fb, fb = t)); done
CALLS[fib]=$((2 * fb - 1 + 1))	# fib(n) makes 2 * fib(n) - 1 calls (n >= 1)

# ---- helpers --------------------------------------------------------------

WORK=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/usertrace-bench.XXXXXX") ||
	die "cannot create a work directory"
trap 'rm -rf "$WORK"' EXIT
# -pg binaries write gmon.out into the current directory
cd "$WORK" || exit 1

FAILED=0

# timed CMD...: run CMD, its stdout to /dev/null; T = wall time in microseconds
timed() {
	local t0 t1 rc
	t0=${EPOCHREALTIME/./}
	"$@" >/dev/null 2>>"$LOG"
	rc=$?
	t1=${EPOCHREALTIME/./}
	T=$((t1 - t0))
	return $rc
}

median() {
	# shellcheck disable=SC2086 # a list of numbers
	printf '%s\n' $1 | sort -n |
		awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# calc EXPR: floating-point arithmetic
calc() { awk "BEGIN { print ($1) }"; }

declare -A TIMES UT_BYTES UT_LOST UF_BYTES WARN

# record PROG TAG TOOL: one timed run; sizes and lost events of the recording
record() {
	local prog=$1 tag=$2 tool=$3 dir=$WORK/$1.$2.$3 bin=$BIN/$1.$2
	local bytes recs lost

	rm -rf "$dir"
	echo "== $prog $tag $tool" >>"$LOG"
	case $tool in
	native)    timed "$BIN/$prog.plain" "${ARGS[$prog]}" ;;
	usertrace) timed "$UT" record -o "$dir" -- "$bin" "${ARGS[$prog]}" ;;
	uftrace)   # shellcheck disable=SC2086 # the options are words
		   timed "$UFTRACE" record ${UF_OPTS[$tag]:-} --no-libcall -d "$dir" "$bin" "${ARGS[$prog]}" ;;
	esac || {
		note "$tool failed on $prog ${tag} (exit $?), see $LOG"
		FAILED=1
		WARN[$prog.$tag]+="$tool failed; "
		return
	}
	TIMES[$prog.$tag.$tool]+="$T "
	case $tool in
	usertrace)
		read -r bytes recs lost _ < <("$BIN/utstat" "$dir")
		UT_BYTES[$prog.$tag]=${bytes:-0}
		((${lost:-0} > ${UT_LOST[$prog.$tag]:-0})) && UT_LOST[$prog.$tag]=$lost
		: "${UT_LOST[$prog.$tag]:=0}"
		# every call is one entry and one exit record
		if [ "${recs:-0}" != $((2 * CALLS[$prog])) ]; then
			WARN[$prog.$tag]+="usertrace: ${recs:-0} records, expected $((2 * CALLS[$prog])); "
		fi
		;;
	uftrace)
		UF_BYTES[$prog.$tag]=$(find "$dir" -name '*.dat' -printf '%s\n' |
				       awk '{ s += $1 } END { print s + 0 }')
		;;
	esac
	[ "$prog.$tag" = "$REPLAY_SET" ] || rm -rf "$dir"
}

# off_run BUILD: one timed untraced run of loop.BUILD with OFF_N calls
declare -A OFF_TIMES
off_run() {
	echo "== loop.$1 $OFF_N (tracing off)" >>"$LOG"
	if timed "$BIN/loop.$1" "$OFF_N"; then
		OFF_TIMES[$1]+="$T "
	else
		note "loop.$1 failed (exit $?), see $LOG"
		FAILED=1
	fi
}

# ---- tracing off: instructions per call -----------------------------------

# instructions the nop sites add to a call: the instructions of empty() in
# the pfe build minus those in the plain build (gcc: 5 one-byte nops)
insns_of_empty() {
	objdump -d "$1" 2>/dev/null | awk '/<empty>:$/ { f = 1; next } f && !NF { exit } f { n++ } END { print n + 0 }'
}
NOPS=$(($(insns_of_empty "$BIN/loop.pfe") - $(insns_of_empty "$BIN/loop.plain")))
((NOPS > 0)) || NOPS=5		# no objdump: gcc's five 1-byte nops

declare -A IR
if command -v valgrind >/dev/null; then
	note "callgrind: loop plain and pfe, $CG_N calls"
	for b in plain pfe; do
		echo "== callgrind loop.$b $CG_N" >>"$LOG"
		valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$b" \
			"$BIN/loop.$b" "$CG_N" >/dev/null 2>>"$LOG" || {
			note "callgrind failed on loop.$b, see $LOG"
			FAILED=1
			continue
		}
		IR[$b]=$(awk '/^summary:/ { print $2 }' "$WORK/cg.$b")
	done
else
	note "valgrind not found: no instruction counts"
fi

# ---- recording ------------------------------------------------------------

note "$ROUNDS rounds of ${#PROGS[@]} programs x $((${#FLAGS[@]} + ${#DYN_FLAGS[@]})) flags x (native, usertrace, uftrace)" \
     "+ loop plain/pfe untraced"
for ((r = 0; r < ROUNDS; r++)); do
	note "round $((r + 1))/$ROUNDS"
	# tracing off: plain vs pfe, the order alternating
	if ((r % 2)); then off_run pfe; off_run plain; else off_run plain; off_run pfe; fi
	for prog in "${PROGS[@]}"; do
		for tag in "${TAGS[@]}" "${DYN_TAGS[@]}"; do
			# rotate the order, so no tool always runs after the same one
			for ((k = 0; k < 3; k++)); do
				record "$prog" "$tag" "${TOOLS[(r + k) % 3]}"
			done
		done
	done
done

# ---- replay and report ----------------------------------------------------

declare -A RTIMES
note "$REPLAY_ROUNDS rounds of replay and report on ${REPLAY_SET/./ }"
for ((r = 0; r < REPLAY_ROUNDS; r++)); do
	for cmd in replay report; do
		echo "== usertrace $cmd" >>"$LOG"
		if timed "$UT" "$cmd" -i "$WORK/$REPLAY_SET.usertrace"; then
			RTIMES[$cmd.usertrace]+="$T "
		else
			note "usertrace $cmd failed (exit $?), see $LOG"
			FAILED=1
		fi
		echo "== uftrace $cmd" >>"$LOG"
		if timed "$UFTRACE" "$cmd" -d "$WORK/$REPLAY_SET.uftrace"; then
			RTIMES[$cmd.uftrace]+="$T "
		else
			note "uftrace $cmd failed (exit $?), see $LOG"
			FAILED=1
		fi
	done
done

# ---- results --------------------------------------------------------------

flag_of() { # tag -> flags
	local i
	for i in "${!TAGS[@]}"; do [ "${TAGS[i]}" = "$1" ] && echo "${FLAGS[i]}"; done
	for i in "${!DYN_TAGS[@]}"; do [ "${DYN_TAGS[i]}" = "$1" ] && echo "${DYN_FLAGS[i]}"; done
}

HEADER=$(printf '%-8s %-28s %8s %10s %9s %11s %11s %6s %10s %10s %8s' program flag native \
	 usertrace uftrace "ut ns/call" "uf ns/call" ratio "ut B/call" "uf B/call" "ut lost")

# row PROG TAG NATIVE: print one row of a table; RATIO (-1: uftrace cost
# nothing, empty: no result), UT_B and LOST for the bar
row() {
	local prog=$1 tag=$2 native=$3 flag ut uf calls ut_ns uf_ns uf_b
	flag=$(flag_of "$tag")
	ut=$(median "${TIMES[$prog.$tag.usertrace]:-}")
	uf=$(median "${TIMES[$prog.$tag.uftrace]:-}")
	RATIO="" UT_B="" LOST=""
	if [ -z "$native" ] || [ -z "$ut" ] || [ -z "$uf" ]; then
		printf '%-8s %-28s  no result: %s\n' "$prog" "$flag" "${WARN[$prog.$tag]:-}"
		return
	fi
	calls=${CALLS[$prog]}
	ut_ns=$(calc "($ut - $native) * 1000 / $calls")
	uf_ns=$(calc "($uf - $native) * 1000 / $calls")
	RATIO=$(calc "$uf_ns > 0 ? $ut_ns / $uf_ns : -1")
	UT_B=$(calc "${UT_BYTES[$prog.$tag]:-0} / $calls")
	uf_b=$(calc "${UF_BYTES[$prog.$tag]:-0} / $calls")
	LOST=${UT_LOST[$prog.$tag]:-0}
	printf '%-8s %-28s %8.3f %10.3f %9.3f %11.1f %11.1f %6s %10.2f %10.2f %8s\n' \
		"$prog" "$flag" "$(calc "$native / 1e6")" "$(calc "$ut / 1e6")" \
		"$(calc "$uf / 1e6")" "$ut_ns" "$uf_ns" \
		"$([ "$RATIO" = -1 ] && echo n/a || printf %.2f "$RATIO")" "$UT_B" "$uf_b" "$LOST"
	[ -n "${WARN[$prog.$tag]:-}" ] && echo "         ^ ${WARN[$prog.$tag]}"
	return 0
}

# native_of PROG: the median of all of PROG's native runs
native_of() {
	local tag all=""
	for tag in "${TAGS[@]}" "${DYN_TAGS[@]}"; do all+="${TIMES[$1.$tag.native]:-} "; done
	median "$all"
}

echo
echo "usertrace vs uftrace $("$UFTRACE" --version 2>/dev/null | awk '{ print $2 }'), $(nproc) cpus," \
     "median of $ROUNDS alternated runs; wall times in seconds"
echo "uftrace records with --no-libcall (both tracers then trace only the instrumented"
echo "functions); usertrace records with its defaults.  native = the uninstrumented -O2 build."
echo "loop: ${CALLS[loop]} calls, fib: ${CALLS[fib]} calls per run (main included)"
echo
echo "$HEADER"

# one table of rows, checked against the bar: sets WORST, WORST_AT and
# appends to FAIL (prefix $1 on each reason); $2 = 1 to check bytes/call
check_rows() {
	local pre=$1 bytes=$2 prog tag flag native
	shift 2
	for prog in "${PROGS[@]}"; do
		native=$(native_of "$prog")
		for tag in "$@"; do
			flag=$(flag_of "$tag")
			row "$prog" "$tag" "$native"
			if [ -z "$RATIO" ]; then
				FAIL+="$pre$prog $flag failed; "
				continue
			fi
			if [ "$RATIO" = -1 ]; then
				FAIL+="${pre}no uftrace overhead measured ($prog $flag); "
			elif [ "$(calc "$RATIO > $WORST")" = 1 ]; then
				WORST=$RATIO WORST_AT="$prog $flag"
			fi
			[ "$(calc "$RATIO > 0.5")" = 1 ] &&
				FAIL+="${pre}ratio $(printf %.2f "$RATIO") > 0.5 ($prog $flag); "
			[ "$bytes" = 1 ] && [ "$(calc "$UT_B > 16")" = 1 ] &&
				FAIL+="$pre$(printf %.2f "$UT_B") B/call > 16 ($prog $flag); "
			[ "$LOST" != 0 ] && FAIL+="$pre$LOST lost ($prog $flag); "
		done
	done
}

WORST=0 WORST_AT="" FAIL=""
check_rows "" 1 "${TAGS[@]}"
worst=$WORST worst_at=$WORST_AT bar_fail=$FAIL

echo
for cmd in replay report; do
	ut=$(median "${RTIMES[$cmd.usertrace]:-}")
	uf=$(median "${RTIMES[$cmd.uftrace]:-}")
	if [ -z "$ut" ] || [ -z "$uf" ]; then
		printf '%-8s %-28s  no result\n' "$cmd" "${REPLAY_SET/./ }"
		continue
	fi
	calls=${CALLS[${REPLAY_SET%%.*}]}
	ut_rate=$(calc "$calls / $ut")	# calls per microsecond = Mcalls/s
	uf_rate=$(calc "$calls / $uf")
	printf '%-8s %-28s usertrace %6.2f Mcalls/s (%.2fs)  uftrace %6.2f Mcalls/s (%.2fs)  ratio %.2f\n' \
		"$cmd" "${REPLAY_SET%%.*} $(flag_of "${REPLAY_SET#*.}")" "$ut_rate" "$(calc "$ut / 1e6")" \
		"$uf_rate" "$(calc "$uf / 1e6")" "$(calc "$ut_rate / $uf_rate")"
done

# ---- dynamic ftrace (nop-site) builds ---------------------------------------

echo
echo "dynamic ftrace builds (nops at each function entry; usertrace patches them at run"
echo "time, uftrace at load time with -P .; same binary for both)"
dyn_fail=""
# (a) tracing off
ir_plain=${IR[plain]:-} ir_pfe=${IR[pfe]:-}
if [ -n "$ir_plain" ] && [ -n "$ir_pfe" ]; then
	ir_d=$((ir_pfe - ir_plain))
	extra=$(calc "$ir_d / $CG_N")
	printf '(a) off: instructions (callgrind, %d calls of empty): plain %d, pfe %d, +%d = +%.6f per call\n' \
		"$CG_N" "$ir_plain" "$ir_pfe" "$ir_d" "$extra"
	printf '         (%d nops x %d calls, main included, = %d; %+d outside the calls)\n' \
		"$NOPS" "$((CG_N + 1))" "$((NOPS * (CG_N + 1)))" "$((ir_d - NOPS * (CG_N + 1)))"
	# the nops only: what is left besides the nops of the N + 1 calls is a
	# fixed start-up difference (the dynamic linker; tens of instructions),
	# not a per-call one, which would be N or more
	rest=$((ir_d - NOPS * (CG_N + 1)))
	((rest < 1000 && rest > -1000)) ||
		dyn_fail+="(a) +$(printf %.6f "$extra") instructions per call, not $NOPS nops; "
	extra=$(printf %.6f "$extra")
else
	echo "(a) off: no instruction counts (valgrind missing or failed)"
	dyn_fail+="(a) no instruction counts; "
	extra=n/a
fi
off_plain=$(median "${OFF_TIMES[plain]:-}")
off_pfe=$(median "${OFF_TIMES[pfe]:-}")
if [ -n "$off_plain" ] && [ -n "$off_pfe" ]; then
	printf '    off: native ns/call (median of %d, %d calls of empty): plain %.3f, pfe %.3f, %+.3f\n' \
		"$ROUNDS" "$OFF_N" "$(calc "$off_plain * 1000 / $OFF_N")" \
		"$(calc "$off_pfe * 1000 / $OFF_N")" "$(calc "($off_pfe - $off_plain) * 1000 / $OFF_N")"
else
	echo "    off: no native timing"
	dyn_fail+="(a) no native timing; "
fi
# (b) tracing on
echo "(b) on:"
echo "$HEADER"
WORST=0 WORST_AT="" FAIL=""
check_rows "(b) " 0 "${DYN_TAGS[@]}"
dworst=$WORST dworst_at=$WORST_AT dyn_fail+=$FAIL

echo
if [ -z "$bar_fail" ]; then
	verdict="MET"
else
	verdict="NOT MET: ${bar_fail%; }"
fi
printf 'summary: worst overhead ratio usertrace/uftrace %.2f (%s); bar (ratio <= 0.5 for every flag, <= 16 B/call, 0 lost): %s\n' \
	"$worst" "$worst_at" "$verdict"
if [ -z "$dyn_fail" ]; then
	verdict="MET"
else
	verdict="NOT MET: ${dyn_fail%; }"
fi
printf 'dynamic: (a) tracing off +%s instructions per call, %d nops; (b) worst ratio %.2f (%s); bar ((a) = the nops only, (b) ratio <= 0.5, 0 lost): %s\n' \
	"$extra" "$NOPS" "$dworst" "$dworst_at" "$verdict"
bar_fail+=$dyn_fail		# for BENCH_STRICT

[ "$FAILED" = 0 ] || exit 1
[ "${BENCH_STRICT:-0}" = 1 ] && [ -n "$bar_fail" ] && exit 1
exit 0
