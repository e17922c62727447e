#!/bin/bash
# lat.sh - what the latency tracers cost the traced program (issue 11):
# a sigprocmask pair (SIG_BLOCK then SIG_SETMASK back) and a
# preempt_disable/preempt_enable pair, and a wake pair (pthread_cond_signal,
# sem_post, sem_wait, none blocking: the wakeup tracers' wrappers)
# (bench/src/lat.c), each as a ratio to the same pair untraced, in one run:
#
#   off        usertrace record -t nop: the runtime loaded, no latency
#              tracer (the wrappers' load and branch, then the real call)
#   irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt
#              the tracer on: sections opened and closed, records written
#              (wakeup: every wake noted in the table)
#   uftrace    uftrace record of the same program (-pg): it traces the
#              sigprocmask calls as library calls (PLT hooks), for scale
#
#   O=build bash bench/lat.sh        (make bench-lat)
#
# Rounds alternate the runs; each ratio is the median of the rounds' own
# ratios (bench/README.md).  Not a test: it prints a table.
set -u
O=${O:-build}
CC=${CC:-gcc}
N=${LAT_N:-300000}
ROUNDS=${LAT_ROUNDS:-5}
UT=$(cd "$O" && pwd)/usertrace
SRC=$(cd "$(dirname "$0")/src" && pwd)
INC=$(cd "$(dirname "$0")/../include" && pwd)
W=$(mktemp -d /tmp/usertrace-lat.XXXXXX)
trap 'rm -rf "$W"' EXIT

die() { echo "bench-lat: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

$CC -O2 -g -pg -I"$INC" -I"$SRC" -o "$W/lat" "$SRC/lat.c" -lpthread || die "cannot build lat.c"
runs="off irqsoff preemptoff preemptirqsoff wakeup_rt wakeup"
command -v uftrace >/dev/null && runs="$runs uftrace"

# one run: "SIG PREEMPT WAKE" ns per pair
one() {
	rm -rf "$W/d"
	case $1 in
	plain) "$W/lat" "$N" 2> "$W/o" ;;
	off) "$UT" record -t nop -o "$W/d" "$W/lat" "$N" 2> "$W/o" ;;
	uftrace) uftrace record -d "$W/d" "$W/lat" "$N" 2> "$W/o" ;;
	*) "$UT" record -t "$1" -o "$W/d" "$W/lat" "$N" 2> "$W/o" ;;
	esac || die "$1 failed: $(cat "$W/o")"
	echo "$(sed -n 's/^sig ns\/pair //p' "$W/o") $(sed -n 's/^preempt ns\/pair //p' "$W/o") $(sed -n 's/^wake ns\/pair //p' "$W/o")"
}

for r in $(seq "$ROUNDS"); do
	read -r bs bp bw < <(one plain)
	for k in $runs; do
		read -r s p w < <(one "$k")
		awk -v a="$w" -v b="$bw" 'BEGIN { print a / b }' >> "$W/$k.wake"
		awk -v a="$s" -v b="$bs" 'BEGIN { print a / b }' >> "$W/$k.sig"
		awk -v a="$p" -v b="$bp" 'BEGIN { if (b > 0) print a / b; else print 0 }' >> "$W/$k.pre"
	done
	echo "$bs" >> "$W/plain.sig"
	echo "$bp" >> "$W/plain.pre"
	echo "$bw" >> "$W/plain.wake"
done

printf "latency tracers: N=%s pairs, %s rounds, ratios to the untraced pair (median)\n" "$N" "$ROUNDS"
printf "  untraced: sigprocmask pair %.1f ns, preempt pair %.1f ns, wake pair %.1f ns\n" \
	"$(median < "$W/plain.sig")" "$(median < "$W/plain.pre")" "$(median < "$W/plain.wake")"
printf "  %-16s %14s %14s %14s\n" run "sigprocmask" "preempt" "wake"
for k in $runs; do
	printf "  %-16s %13.2fx %13.2fx %13.2fx\n" "$k" "$(median < "$W/$k.sig")" "$(median < "$W/$k.pre")" \
		"$(median < "$W/$k.wake")"
done
echo "  (preempt pairs untraced are a load and a branch each; their ratio is large by nature)"
