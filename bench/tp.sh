#!/bin/bash
# tp.sh - the cost of a tracepoint with one int field, usertrace's
# (usertrace/tracepoint.h) side by side with LTTng-UST's on the same loop
# (bench/src/tp.c), in one run:
#
#   enabled   ns per event while recorded: usertrace record -e against an
#             LTTng session with the event enabled; the program times its
#             loop; minus the empty loop.  Bar: usertrace <= 0.5 x LTTng.
#   disabled  instructions per call site (callgrind) over the empty loop,
#             with no session.  Bar: at most 3 (a load and a branch).
#
#   O=build bash bench/tp.sh        (make bench-tp)
#
# Rounds alternate the tools; the ratio is the median of each round's
# own ratio (bench/README.md).  Needs liblttng-ust-dev, lttng-tools and
# valgrind (tests/deps.sh bench installs them); without LTTng only
# usertrace's numbers are printed.
set -u
O=${O:-build}
CC=${CC:-gcc}
N=${TP_N:-2000000}
ROUNDS=${TP_ROUNDS:-5}
UT=$(cd "$O" && pwd)/usertrace
SRC=$(cd "$(dirname "$0")/src" && pwd)
INC=$(cd "$(dirname "$0")/../include" && pwd)
W=$(mktemp -d /tmp/usertrace-tp.XXXXXX)
trap 'lttng destroy tpbench >/dev/null 2>&1; rm -rf "$W"' EXIT

die() { echo "bench-tp: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ns_of() { sed -n 's/^ns\/call //p' "$1"; }

$CC -O2 -g -o "$W/tp_plain" "$SRC/tp.c" || die "cannot build the empty loop"
$CC -O2 -g -I"$INC" -I"$SRC" -DTP_USERTRACE -o "$W/tp_ut" "$SRC/tp.c" || die "cannot build tp.c"
have_lttng=0
if command -v lttng >/dev/null && $CC -O2 -g -I"$SRC" -DTP_LTTNG -o "$W/tp_lt" "$SRC/tp.c" \
	-llttng-ust -ldl 2>/dev/null; then
	pgrep -x lttng-sessiond >/dev/null || lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1
	lttng list -u >/dev/null 2>&1 && have_lttng=1
fi
[ $have_lttng = 1 ] || echo "bench-tp: no LTTng-UST (liblttng-ust-dev, lttng-tools): usertrace only" >&2

: > "$W/ut"; : > "$W/lt"; : > "$W/ratio"
for r in $(seq "$ROUNDS"); do
	"$W/tp_plain" "$N" 2> "$W/o"; base=$(ns_of "$W/o")
	rm -rf "$W/d"
	"$UT" record -e bench:tp_int -o "$W/d" "$W/tp_ut" "$N" 2> "$W/o" >/dev/null ||
		die "usertrace record failed: $(cat "$W/o")"
	ut=$(awk -v a="$(ns_of "$W/o")" -v b="$base" 'BEGIN { print a - b }')
	echo "$ut" >> "$W/ut"
	if [ $have_lttng = 1 ]; then
		rm -rf "$W/lt.d"
		lttng create tpbench --output="$W/lt.d" >/dev/null &&
		lttng enable-event -u bench_lttng:tp_int >/dev/null &&
		lttng start >/dev/null || die "lttng session failed"
		"$W/tp_lt" "$N" 2> "$W/o"
		lttng stop >/dev/null; lttng destroy tpbench >/dev/null
		lt=$(awk -v a="$(ns_of "$W/o")" -v b="$base" 'BEGIN { print a - b }')
		echo "$lt" >> "$W/lt"
		awk -v a="$ut" -v b="$lt" 'BEGIN { if (b > 0) print a / b }' >> "$W/ratio"
	fi
done
# usertrace recorded every event?
ev=$("$UT" dump -i "$W/d" 2>/dev/null | grep -c ' event ')
lost=$("$UT" dump -i "$W/d" 2>/dev/null | awk '/^# thread/ { for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) { sub("lost=", "", $i); s += $i } } END { print s + 0 }')

# disabled: instructions per call site, no session
insns() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 | sed -n 's/.*Collected : //p'; }
dis=
if command -v valgrind >/dev/null; then
	a=$(insns "$W/tp_ut" 1000000); b=$(insns "$W/tp_plain" 1000000)
	dis=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (a - b) / 1000000 }')
fi

printf '%-28s %12s %12s %8s\n' "tracepoint, one int field" usertrace lttng-ust ratio
printf '%-28s %12.1f %12s %8s\n' "enabled, ns/event" "$(median < "$W/ut")" \
	"$([ $have_lttng = 1 ] && printf %.1f "$(median < "$W/lt")" || echo n/a)" \
	"$([ $have_lttng = 1 ] && printf %.2f "$(median < "$W/ratio")" || echo n/a)"
printf '%-28s %12s\n' "disabled, insns/call site" "${dis:-n/a}"
echo "usertrace recorded $ev of $N events in the last round, $lost lost"
verdict=PASS
if [ $have_lttng = 1 ]; then
	ok=$(awk -v r="$(median < "$W/ratio")" 'BEGIN { print (r <= 0.5) }')
	echo "bar: enabled <= 0.5 x LTTng-UST: $([ "$ok" = 1 ] && echo PASS || echo FAIL)"
	[ "$ok" = 1 ] || verdict=FAIL
fi
if [ -n "$dis" ]; then
	ok=$(awk -v d="$dis" 'BEGIN { print (d <= 3.05) }')
	echo "bar: disabled <= 3 instructions: $([ "$ok" = 1 ] && echo PASS || echo FAIL)"
	[ "$ok" = 1 ] || verdict=FAIL
fi
echo "bench-tp: $verdict"
[ "${BENCH_STRICT:-0}" = 1 ] && [ $verdict != PASS ] && exit 1
exit 0
