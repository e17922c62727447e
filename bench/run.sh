#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/run.sh - usertrace's cost against uftrace's: in-thread overhead per
# traced call, whole-run wall time, bytes per call and lost events, for small
# programs, many threads and (when its source is given) a real program, Lua;
# replay and report throughput; for dynamic ftrace
# (-fpatchable-function-entry) builds also the cost of the untraced nop sites
# (callgrind instructions, ns per call).
# What is measured and how to read the output: bench/README.md.
#
#   make bench                    or    O=build CC=cc bash bench/run.sh
#   BENCH_LUA_SRC=/path/to/lua make bench      with the Lua case
#
# Environment:
#   BENCH_ROUNDS=5            recording rounds of loop and fib (medians)
#   BENCH_MT_ROUNDS=3         recording rounds of the many-threads cases
#   BENCH_LUA_ROUNDS=3        recording rounds of the Lua case
#   BENCH_REPLAY_ROUNDS=3     replay/report rounds
#   BENCH_LOOP_N=10000000     calls of empty() in the loop program
#   BENCH_FIB_N=30            the fib program computes fib(N)
#   BENCH_MT_THREADS="16 64"  one many-threads case per thread count
#   BENCH_MT_CALLS=9600000    traced calls (about) of each many-threads run
#   BENCH_LUA_SRC=            Lua's C sources (a clone of github.com/lua/lua
#                             or a release's src/); unset: no Lua case
#   BENCH_LUA_ARGS="27 200000" arguments of bench/src/bench.lua
#   BENCH_OFF_N=100000000     calls of empty() for the tracing-off timing
#   BENCH_CG_N=1000000        calls of empty() under callgrind
#   BENCH_DIR=/var/tmp        where the recordings go (removed at the end);
#                             a disk, not a tmpfs: the wall time includes
#                             writing the data
#   BENCH_STRICT=1            exit 1 when a bar is not met, too
#   UFTRACE=uftrace           the uftrace to compare with
#
# Exit status: 0, or 1 if a build or a run failed (or, with BENCH_STRICT=1,
# a bar is not met).  The log of every run's stderr is $O/bench/log.

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
MT_ROUNDS=${BENCH_MT_ROUNDS:-3}
LUA_ROUNDS=${BENCH_LUA_ROUNDS:-3}
REPLAY_ROUNDS=${BENCH_REPLAY_ROUNDS:-3}
LOOP_N=${BENCH_LOOP_N:-10000000}
FIB_N=${BENCH_FIB_N:-30}
MT_THREADS=${BENCH_MT_THREADS:-16 64}
MT_CALLS=${BENCH_MT_CALLS:-9600000}
LUA_SRC=${BENCH_LUA_SRC:-}
LUA_ARGS=${BENCH_LUA_ARGS:-27 200000}
OFF_N=${BENCH_OFF_N:-100000000}
CG_N=${BENCH_CG_N:-1000000}
DATA_DIR=${BENCH_DIR:-/var/tmp}
BIN=$O/bench
LOG=$BIN/log

FLAGS=("-pg" "-pg -mfentry" "-finstrument-functions" "-fpatchable-function-entry=5")
TAGS=(pg fentry cyg pfe)	# binary suffix of each entry of FLAGS
# pfe, a "dynamic ftrace" build: nops at each function entry, patched into
# calls at run time by the usertrace runtime and at load time by uftrace -P .
declare -A UF_OPTS=([pfe]="-P .")	# uftrace's extra options per tag
TOOLS=(native usertrace uftrace)
REPLAY_SET=fib.fentry		# the recordings replay and report read

# the bars (issue "Trust"): usertrace / uftrace at most
BAR_CPU=0.35			# in-thread overhead per call
BAR_WALL=0.4			# whole-run wall time
BAR_BYTES=0.1			# bytes on disk of the Lua run

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

[ -x "$UT" ] || die "$UT not found: run make first"
command -v "$UFTRACE" >/dev/null || die "uftrace not found (set UFTRACE=/path/to/uftrace)"
[ -d "$DATA_DIR" ] || die "BENCH_DIR $DATA_DIR is not a directory"
DATA_FS=$(stat -f -c %T "$DATA_DIR" 2>/dev/null)
case $DATA_FS in
tmpfs|ramfs) note "BENCH_DIR $DATA_DIR is a $DATA_FS: the wall times do not include writing to a disk" ;;
esac

# ---- the cases --------------------------------------------------------------

# CASES: what is recorded.  EXE: which program; ARGS: its arguments; CALLS:
# traced calls per run (main included), empty when only the recordings can
# tell (Lua: then it is the median of usertrace's records / 2 per flag: with
# -finstrument-functions the inlined functions make calls too); NR: rounds.
declare -A EXE ARGS CALLS NR
CASES=(loop fib)
EXE[loop]=loop ARGS[loop]=$LOOP_N CALLS[loop]=$((LOOP_N + 1)) NR[loop]=$ROUNDS
fa=1 fb=1
for ((i = 2; i < FIB_N; i++)); do ((t = fa + fb, fa = fb, fb = t)); done
# fib(n) makes 2 * fib(n) - 1 calls (n >= 1)
EXE[fib]=fib ARGS[fib]=$FIB_N CALLS[fib]=$((2 * fb - 1 + 1)) NR[fib]=$ROUNDS
for nt in $MT_THREADS; do
	[[ $nt =~ ^[1-9][0-9]*$ ]] || die "BENCH_MT_THREADS: $nt is not a thread count"
	c=threads$nt
	it=$((MT_CALLS / (3 * nt)))
	CASES+=("$c")
	# main, and in each thread worker() and 3 calls per iteration
	EXE[$c]=threads ARGS[$c]="$nt $it" CALLS[$c]=$((1 + nt * (1 + 3 * it))) NR[$c]=$MT_ROUNDS
done
LUA_NOTE=""
if [ -z "$LUA_SRC" ]; then
	LUA_NOTE="no Lua case: BENCH_LUA_SRC is not set (see bench/README.md)"
elif [ ! -f "$LUA_SRC/lua.c" ] || [ ! -f "$LUA_SRC/lvm.c" ]; then
	LUA_NOTE="no Lua case: no Lua sources (lua.c, lvm.c) in BENCH_LUA_SRC=$LUA_SRC"
else
	LUA_SRC=$(cd "$LUA_SRC" && pwd)
	CASES+=(lua)
	EXE[lua]=lua ARGS[lua]="$ROOT/bench/src/bench.lua $LUA_ARGS" CALLS[lua]="" NR[lua]=$LUA_ROUNDS
fi
[ -n "$LUA_NOTE" ] && note "$LUA_NOTE"

# bin_of CASE TAG: the binary (TAG plain: the uninstrumented build)
bin_of() {
	if [ "${EXE[$1]}" = lua ]; then
		echo "$BIN/lua.$2/lua"
	else
		echo "$BIN/${EXE[$1]}.$2"
	fi
}

# ---- build ----------------------------------------------------------------

mkdir -p "$BIN" || exit 1
: >"$LOG"
for prog in loop fib threads; do
	$CC -O2 -pthread -o "$BIN/$prog.plain" "bench/src/$prog.c" || die "cannot build $prog"
	for i in "${!FLAGS[@]}"; do
		# shellcheck disable=SC2086 # the flags are words
		$CC -O2 -pthread ${FLAGS[i]} -o "$BIN/$prog.${TAGS[i]}" "bench/src/$prog.c" ||
			die "cannot build $prog with ${FLAGS[i]}"
	done
done
$CC -O2 -std=gnu11 -Iinclude -o "$BIN/utstat" bench/src/utstat.c || die "cannot build utstat"
if [ -n "${EXE[lua]:-}" ]; then
	note "building Lua from $LUA_SRC (plain and ${#FLAGS[@]} flags; once, then only what changed)"
	for tag in plain "${TAGS[@]}"; do
		flags=""
		for i in "${!TAGS[@]}"; do [ "${TAGS[i]}" = "$tag" ] && flags=${FLAGS[i]}; done
		make -s -j2 -f bench/lua.mk SRC="$LUA_SRC" OUT="$BIN/lua.$tag" CC="$CC" \
			FLAGS="$flags" >>"$LOG" 2>&1 || die "cannot build Lua with '$flags', see $LOG"
	done
fi

# ---- helpers --------------------------------------------------------------

WORK=$(mktemp -d "$DATA_DIR/usertrace-bench.XXXXXX") || die "cannot create a work directory"
trap 'rm -rf "$WORK"' EXIT
# -pg binaries write gmon.out into the current directory
cd "$WORK" || exit 1

FAILED=0

# children_cpu: CCPU = the CPU time (user + system, ms) of this shell's
# finished children, from the `times` builtin ("0m1.234s 0m0.056s" on its
# 2nd line).  Not in a subshell ($(...), a pipe): there it would count the
# subshell's children.
children_cpu() {
	times >"$WORK/times"
	read -r CCPU < <(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); ms += (a[1] * 60 + a[2]) * 1000 }
		printf "%d\n", ms + 0.5 }' "$WORK/times")
}

# timed CMD...: run CMD, its stdout to $WORK/out, its stderr to $WORK/err
# (and the log); T = wall time in microseconds, C = CPU time of CMD and its
# children, all processes and threads, in milliseconds
timed() {
	local t0 t1 c0 rc
	# the writes of earlier runs reach the disk first, untimed: a run
	# must not pay for the previous one's (uftrace's 1.4 GB of Lua)
	[ -n "${SYNC_DIR:-}" ] && sync
	children_cpu
	c0=$CCPU
	t0=${EPOCHREALTIME/./}
	"$@" >"$WORK/out" 2>"$WORK/err"
	rc=$?
	# "data on disk": a recording is done when its files are, so each
	# tool pays for its own writes
	[ -n "${SYNC_DIR:-}" ] && sync -f "$SYNC_DIR"
	t1=${EPOCHREALTIME/./}
	children_cpu
	T=$((t1 - t0)) C=$((CCPU - c0))
	cat "$WORK/err" >>"$LOG"
	return $rc
}

median() {
	# shellcheck disable=SC2086 # a list of numbers
	printf '%s\n' $1 | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# paired A B [N]: the median over the rounds of (a_i - n_i) / (b_i - n_i),
# the i-th values of the lists A, B and N (N: zeros when not given).  The
# three runs of a round are next to each other in time, so a slow spell of
# a shared machine weighs on both sides of each round's ratio; the ratio
# of two medians mixes rounds run at different speeds.  Empty when the
# lists differ in length (a failed run), or a denominator is not positive.
paired() {
	local r
	r=$(awk -v a="$1" -v b="$2" -v n="${3:-}" 'BEGIN {
		na = split(a, A); nb = split(b, B); nn = split(n, N)
		if (na == 0 || na != nb || (nn && nn != na)) exit
		for (i = 1; i <= na; i++) {
			d = B[i] - (nn ? N[i] : 0)
			if (d <= 0) exit
			R[i] = (A[i] - (nn ? N[i] : 0)) / d
		}
		for (i = 1; i <= na; i++)
			print R[i]
	}')
	if [ -n "$r" ]; then median "$r"; fi
}

# calc EXPR: floating-point arithmetic
calc() { awk "BEGIN { print ($1) }"; }

# max A B
max() { (($1 > $2)) && echo "$1" || echo "$2"; }

# TIMES: whole-run wall times (us), RCPU: whole-run CPU times (ms), CPU:
# the programs' own CPU times (ns), per CASE.TAG.TOOL; the rest per CASE.TAG
declare -A TIMES CPU RCPU UT_BYTES UT_LOST UF_BYTES UF_LOST UTN_BYTES UTN_TIMES UTN_CPU WARN MCALLS UF_CALLS

# record CASE TAG TOOL: one timed run; sizes and lost events of the
# recording.  TOOL utnone: usertrace with --compress=none.
record() {
	local c=$1 tag=$2 tool=$3 dir=$WORK/$1.$2.$3 bin cpu
	local bytes recs lost calls=${CALLS[$1]}

	bin=$(bin_of "$c" "$tag")
	rm -rf "$dir"
	echo "== $c $tag $tool" >>"$LOG"
	# shellcheck disable=SC2086 # the arguments and options are words
	case $tool in
	native)    timed "$(bin_of "$c" plain)" ${ARGS[$c]} ;;
	usertrace) SYNC_DIR=$WORK timed "$UT" record -o "$dir" -- "$bin" ${ARGS[$c]} ;;
	utnone)    SYNC_DIR=$WORK timed "$UT" record --compress=none -o "$dir" -- "$bin" ${ARGS[$c]} ;;
	uftrace)   SYNC_DIR=$WORK timed "$UFTRACE" record ${UF_OPTS[$tag]:-} --no-libcall -d "$dir" "$bin" ${ARGS[$c]} ;;
	esac || {
		note "$tool failed on $c ${tag} (exit $?), see $LOG"
		FAILED=1
		WARN[$c.$tag]+="$tool failed; "
		rm -rf "$dir"
		return
	}
	cpu=$(awk '$1 == "cpu_ns" { v = $2 } END { print v }' "$WORK/out")
	if [ -z "$cpu" ]; then
		note "$tool on $c $tag: no cpu_ns line in the program's output"
		FAILED=1
		WARN[$c.$tag]+="$tool: no cpu_ns; "
		rm -rf "$dir"
		return
	fi
	case $tool in
	utnone)
		read -r bytes _ < <("$BIN/utstat" "$dir")
		UTN_BYTES[$c.$tag]=${bytes:-0}
		UTN_TIMES[$c.$tag]+="$T "
		UTN_CPU[$c.$tag]+="$C "
		rm -rf "$dir"
		return
		;;
	esac
	TIMES[$c.$tag.$tool]+="$T "
	RCPU[$c.$tag.$tool]+="$C "
	CPU[$c.$tag.$tool]+="$cpu "
	case $tool in
	usertrace)
		read -r bytes recs lost _ < <("$BIN/utstat" "$dir")
		UT_BYTES[$c.$tag]=${bytes:-0}
		UT_LOST[$c.$tag]=$(max "${lost:-0}" "${UT_LOST[$c.$tag]:-0}")
		if [ -z "$calls" ]; then
			MCALLS[$c.$tag]+="$((${recs:-0} / 2)) "
		elif [ "${recs:-0}" != $((2 * calls)) ]; then
			# every call is one entry and one exit record
			WARN[$c.$tag]+="usertrace: ${recs:-0} records, expected $((2 * calls)); "
		fi
		;;
	uftrace)
		UF_BYTES[$c.$tag]=$(find "$dir" -name '*.dat' -printf '%s\n' |
				    awk '{ s += $1 } END { print s + 0 }')
		# a task's file holds 16-byte records (no arguments recorded);
		# uftrace says "LOST N records" at the end of a lossy recording
		recs=$(find "$dir" -name '[0-9]*.dat' -printf '%s\n' |
		       awk '{ s += $1 } END { print int(s / 16) }')
		lost=$(sed -n 's/.*LOST \([0-9][0-9]*\) records.*/\1/p' "$WORK/err" |
		       awk '{ s += $1 } END { print s + 0 }')
		if [ -n "$calls" ] && ((recs < 2 * calls)); then
			lost=$(max "$lost" $((2 * calls - recs)))
		fi
		UF_LOST[$c.$tag]=$(max "$lost" "${UF_LOST[$c.$tag]:-0}")
		UF_CALLS[$c.$tag]=$((recs / 2))
		;;
	esac
	[ "$c.$tag" = "$REPLAY_SET" ] || rm -rf "$dir"
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

MAXR=0
for c in "${CASES[@]}"; do ((NR[$c] > MAXR)) && MAXR=${NR[$c]}; done
desc=""
for c in "${CASES[@]}"; do desc+="$c x${NR[$c]}, "; done
note "recording: ${desc%, } rounds; ${#FLAGS[@]} flags x (native, usertrace, uftrace) each;" \
     "+ loop plain/pfe untraced x$ROUNDS; data in $DATA_DIR ($DATA_FS)"
for ((r = 0; r < MAXR; r++)); do
	note "round $((r + 1))/$MAXR"
	# tracing off: plain vs pfe, the order alternating
	if ((r < ROUNDS)); then
		if ((r % 2)); then off_run pfe; off_run plain; else off_run plain; off_run pfe; fi
	fi
	for c in "${CASES[@]}"; do
		((r < NR[$c])) || continue
		for tag in "${TAGS[@]}"; do
			# rotate the order, so no tool always runs after the same one
			for ((k = 0; k < 3; k++)); do
				record "$c" "$tag" "${TOOLS[(r + k) % 3]}"
			done
		done
	done
done
note "usertrace --compress=none: once per case and flag, for the bytes"
for c in "${CASES[@]}"; do
	for tag in "${TAGS[@]}"; do record "$c" "$tag" utnone; done
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
}

# calls_of CASE TAG: the traced calls of one run
calls_of() {
	if [ -n "${CALLS[$1]}" ]; then
		echo "${CALLS[$1]}"
	else
		median "${MCALLS[$1.$2]:-}"
	fi
}

# native_of CASE: the median CPU time (ns) of all of CASE's native runs
native_of() {
	local tag all=""
	for tag in "${TAGS[@]}"; do all+="${CPU[$1.$tag.native]:-} "; done
	median "$all"
}

# fmt_ratio R: a ratio, or n/a
fmt_ratio() { [ -z "$1" ] || [ "$1" = -1 ] && echo n/a || printf %.2f "$1"; }

# bar_check NAME VALUE LIMIT WHERE: keep the worst VALUE of bar NAME and
# note where it is over LIMIT (VALUE -1 or empty: no result)
declare -A WORST WORST_AT OVER
bar_check() {
	local name=$1 v=$2 lim=$3 at=$4
	if [ -z "$v" ] || [ "$v" = -1 ]; then
		OVER[$name]+="no result ($at); "
		return
	fi
	if [ -z "${WORST[$name]:-}" ] || [ "$(calc "$v > ${WORST[$name]}")" = 1 ]; then
		WORST[$name]=$v WORST_AT[$name]=$at
	fi
	[ "$(calc "$v > $lim")" = 1 ] && OVER[$name]+="$(printf %.2f "$v") ($at); "
	return 0
}

echo
echo "usertrace vs uftrace $("$UFTRACE" --version 2>/dev/null | awk '{ print $2 }'), $(nproc) cpus," \
     "load $(cut -d' ' -f1-3 /proc/loadavg); medians of alternated runs"
echo "uftrace records with --no-libcall (both tracers then trace only the instrumented"
echo "functions); usertrace records with its defaults.  native = the uninstrumented -O2 build."
for c in "${CASES[@]}"; do
	printf '  %-10s %-7s %s x%d rounds\n' "$c" "${EXE[$c]}" "${ARGS[$c]//"$ROOT/"/}" "${NR[$c]}"
done
[ -n "$LUA_NOTE" ] && echo "  ($LUA_NOTE)"

echo
echo "in-thread: the traced program's own CPU time (all threads, from the start of main),"
echo "seconds, medians; ns/call = (traced - native) / calls; ratio = the median over the rounds"
echo "of usertrace's (traced - native) / uftrace's, each with the same round's native run (bar <= $BAR_CPU);"
echo "med r = the ratio of the two ns/call columns (of the medians)"
printf '%-10s %-28s %9s %7s %9s %7s %11s %11s %6s %6s\n' case flag calls native usertrace uftrace \
	"ut ns/call" "uf ns/call" ratio "med r"
for c in "${CASES[@]}"; do
	native=$(native_of "$c")
	for tag in "${TAGS[@]}"; do
		flag=$(flag_of "$tag")
		calls=$(calls_of "$c" "$tag")
		ut=$(median "${CPU[$c.$tag.usertrace]:-}")
		uf=$(median "${CPU[$c.$tag.uftrace]:-}")
		if [ -z "$native" ] || [ -z "$ut" ] || [ -z "$uf" ] || [ -z "$calls" ]; then
			printf '%-10s %-28s  no result: %s\n' "$c" "$flag" "${WARN[$c.$tag]:-}"
			bar_check cpu "" "$BAR_CPU" "$c $flag"
			continue
		fi
		ut_ns=$(calc "($ut - $native) / $calls")
		uf_ns=$(calc "($uf - $native) / $calls")
		m_ratio=$(calc "$uf_ns > 0 ? $ut_ns / $uf_ns : -1")
		ratio=$(paired "${CPU[$c.$tag.usertrace]}" "${CPU[$c.$tag.uftrace]}" \
			"${CPU[$c.$tag.native]:-}")
		[ -n "$ratio" ] || ratio=$m_ratio
		printf '%-10s %-28s %9d %7.3f %9.3f %7.3f %11.1f %11.1f %6s %6s\n' "$c" "$flag" "$calls" \
			"$(calc "$native / 1e9")" "$(calc "$ut / 1e9")" "$(calc "$uf / 1e9")" \
			"$ut_ns" "$uf_ns" "$(fmt_ratio "$ratio")" "$(fmt_ratio "$m_ratio")"
		[ -n "${WARN[$c.$tag]:-}" ] && echo "           ^ ${WARN[$c.$tag]}"
		bar_check cpu "$ratio" "$BAR_CPU" "$c $flag"
	done
done

echo
echo "whole run: 'record' from start to exit, data written to $DATA_DIR; wall time (seconds,"
echo "medians; ratio = the median over the rounds of usertrace / uftrace, bar <= $BAR_WALL; med r ="
echo "the ratio of the medians) and CPU time (seconds, all processes and threads of the run:"
echo "program and recorder; ratio of the medians); none = usertrace --compress=none (one run)"
printf '%-10s %-28s %7s %7s %6s %6s %7s %7s %6s %8s %8s\n' case flag "ut wall" "uf wall" ratio \
	"med r" "ut cpu" "uf cpu" ratio "none wl" "none cpu"
for c in "${CASES[@]}"; do
	for tag in "${TAGS[@]}"; do
		flag=$(flag_of "$tag")
		ut=$(median "${TIMES[$c.$tag.usertrace]:-}")
		uf=$(median "${TIMES[$c.$tag.uftrace]:-}")
		ut_c=$(median "${RCPU[$c.$tag.usertrace]:-}")
		uf_c=$(median "${RCPU[$c.$tag.uftrace]:-}")
		if [ -z "$ut" ] || [ -z "$uf" ]; then
			printf '%-10s %-28s  no result: %s\n' "$c" "$flag" "${WARN[$c.$tag]:-}"
			bar_check wall "" "$BAR_WALL" "$c $flag"
			continue
		fi
		m_ratio=$(calc "$ut / $uf")
		ratio=$(paired "${TIMES[$c.$tag.usertrace]}" "${TIMES[$c.$tag.uftrace]}")
		[ -n "$ratio" ] || ratio=$m_ratio
		c_ratio=$(calc "$uf_c > 0 ? $ut_c / $uf_c : -1")
		utn=$(median "${UTN_TIMES[$c.$tag]:-}")
		utn_c=$(median "${UTN_CPU[$c.$tag]:-}")
		printf '%-10s %-28s %7.3f %7.3f %6.2f %6.2f %7.3f %7.3f %6s %8s %8s\n' "$c" "$flag" \
			"$(calc "$ut / 1e6")" "$(calc "$uf / 1e6")" "$ratio" "$m_ratio" \
			"$(calc "$ut_c / 1e3")" "$(calc "$uf_c / 1e3")" "$(fmt_ratio "$c_ratio")" \
			"$([ -n "$utn" ] && printf %.3f "$(calc "$utn / 1e6")" || echo -)" \
			"$([ -n "$utn_c" ] && printf %.3f "$(calc "$utn_c / 1e3")" || echo -)"
		bar_check wall "$ratio" "$BAR_WALL" "$c $flag"
	done
done

echo
echo "data: lost events (bar: 0 for usertrace); bytes of the *.dat files per call, ratio ="
echo "usertrace / uftrace (bar for lua <= $BAR_BYTES); none = usertrace --compress=none"
printf '%-10s %-28s %8s %8s %10s %10s %7s %10s\n' case flag "ut lost" "uf lost" "ut B/call" \
	"uf B/call" ratio "none B/c"
for c in "${CASES[@]}"; do
	for tag in "${TAGS[@]}"; do
		flag=$(flag_of "$tag")
		calls=$(calls_of "$c" "$tag")
		if [ -z "${TIMES[$c.$tag.usertrace]:-}" ] || [ -z "${TIMES[$c.$tag.uftrace]:-}" ] ||
		   [ -z "$calls" ]; then
			printf '%-10s %-28s  no result: %s\n' "$c" "$flag" "${WARN[$c.$tag]:-}"
			bar_check lost "" 0 "$c $flag"
			[ "$c" = lua ] && bar_check bytes "" "$BAR_BYTES" "$c $flag"
			continue
		fi
		ut_b=$(calc "${UT_BYTES[$c.$tag]:-0} / $calls")
		uf_b=$(calc "${UF_BYTES[$c.$tag]:-0} / $calls")
		b_ratio=$(calc "$uf_b > 0 ? $ut_b / $uf_b : -1")
		printf '%-10s %-28s %8s %8s %10.3f %10.2f %7s %10s\n' "$c" "$flag" \
			"${UT_LOST[$c.$tag]:-?}" "${UF_LOST[$c.$tag]:-?}" "$ut_b" "$uf_b" \
			"$(fmt_ratio "$b_ratio")" \
			"$([ -n "${UTN_BYTES[$c.$tag]:-}" ] && printf %.2f "$(calc "${UTN_BYTES[$c.$tag]} / $calls")" || echo -)"
		if [ -z "${CALLS[$c]}" ] && [ -n "${UF_CALLS[$c.$tag]:-}" ] &&
		   [ "$(calc "(${UF_CALLS[$c.$tag]} - $calls)^2 > ($calls / 100)^2")" = 1 ]; then
			echo "           ^ uftrace recorded ${UF_CALLS[$c.$tag]} calls, usertrace $calls"
		fi
		bar_check lost "${UT_LOST[$c.$tag]:-0}" 0 "$c $flag"
		[ "$c" = lua ] && bar_check bytes "$b_ratio" "$BAR_BYTES" "$c $flag"
	done
done

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

# ---- dynamic ftrace (nop-site) builds, tracing off --------------------------

echo
echo "dynamic ftrace builds (nops at each function entry), tracing off: loop plain vs loop pfe"
dyn_fail=""
ir_plain=${IR[plain]:-} ir_pfe=${IR[pfe]:-}
if [ -n "$ir_plain" ] && [ -n "$ir_pfe" ]; then
	ir_d=$((ir_pfe - ir_plain))
	extra=$(calc "$ir_d / $CG_N")
	printf 'instructions (callgrind, %d calls of empty): plain %d, pfe %d, +%d = +%.6f per call\n' \
		"$CG_N" "$ir_plain" "$ir_pfe" "$ir_d" "$extra"
	printf '    (%d nops x %d calls, main included, = %d; %+d outside the calls)\n' \
		"$NOPS" "$((CG_N + 1))" "$((NOPS * (CG_N + 1)))" "$((ir_d - NOPS * (CG_N + 1)))"
	# the nops only: what is left besides the nops of the N + 1 calls is a
	# fixed start-up difference (the dynamic linker; tens of instructions),
	# not a per-call one, which would be N or more
	rest=$((ir_d - NOPS * (CG_N + 1)))
	((rest < 1000 && rest > -1000)) ||
		dyn_fail+="+$(printf %.6f "$extra") instructions per call, not $NOPS nops; "
	extra=$(printf %.6f "$extra")
else
	echo "no instruction counts (valgrind missing or failed)"
	dyn_fail+="no instruction counts; "
	extra=n/a
fi
off_plain=$(median "${OFF_TIMES[plain]:-}")
off_pfe=$(median "${OFF_TIMES[pfe]:-}")
if [ -n "$off_plain" ] && [ -n "$off_pfe" ]; then
	printf 'native ns/call (median of %d, %d calls of empty): plain %.3f, pfe %.3f, %+.3f\n' \
		"$ROUNDS" "$OFF_N" "$(calc "$off_plain * 1000 / $OFF_N")" \
		"$(calc "$off_pfe * 1000 / $OFF_N")" "$(calc "($off_pfe - $off_plain) * 1000 / $OFF_N")"
else
	echo "no native timing"
	dyn_fail+="no native timing; "
fi

# ---- the bars ---------------------------------------------------------------

echo
bar_fail=""
# verdict NAME TEXT: one bar's line
verdict() {
	local name=$1 text=$2 worst=${WORST[$1]:-} v
	if [ -n "${OVER[$name]:-}" ]; then
		v="FAIL: ${OVER[$name]%; }"
		bar_fail+="$name; "
	else
		v=PASS
	fi
	if [ "$name" = lost ]; then
		printf 'bar %-6s %-44s most %s (%s): %s\n' "$name" "$text" "${worst:-?}" \
			"${WORST_AT[$name]:-}" "$v"
	else
		printf 'bar %-6s %-44s worst %s (%s): %s\n' "$name" "$text" "$(fmt_ratio "$worst")" \
			"${WORST_AT[$name]:-}" "$v"
	fi
}
verdict lost "0 events lost by usertrace, every case"
verdict cpu "in-thread ns/call ut/uf <= $BAR_CPU, every case"
verdict wall "whole-run wall time ut/uf <= $BAR_WALL, every case"
if [ -n "${EXE[lua]:-}" ]; then
	verdict bytes "lua bytes on disk ut/uf <= $BAR_BYTES"
else
	printf 'bar %-6s %-44s SKIP (no Lua case)\n' bytes "lua bytes on disk ut/uf <= $BAR_BYTES"
fi
if [ -z "$dyn_fail" ]; then
	v=PASS
else
	v="FAIL: ${dyn_fail%; }"
	bar_fail+="nops; "
fi
printf 'bar %-6s %-44s +%s per call, %d nops: %s\n' nops "tracing off adds the nops only (pfe)" \
	"$extra" "$NOPS" "$v"

[ "$FAILED" = 0 ] || exit 1
[ "${BENCH_STRICT:-0}" = 1 ] && [ -n "$bar_fail" ] && exit 1
exit 0
