#!/bin/bash
# description: the max stack tracer and the function profiler on recordings (record --stack-trace --func-profile, report --stack / --profile): the deepest chain of s-prof.c by name, with each frame's size (its arrays) and Depth = the next Depth + Size, for -pg, -pg -mfentry, -finstrument-functions and patched nops; exact Hit columns; a thread's and a fork child's own maxima and tables; graph-time off; bad input
SUITE=prof
. "$(dirname "$0")/lib.sh"
S=$(cd "$(dirname "$0")/../e2e/src" && pwd)

# the table of report --stack's first process: "NAME SIZE DEPTH" per row
rows() {
	awk '/^ *[0-9]+\) / { loc = $4; sub(/\+0x.*/, "", loc); print loc, $3, $2 } /^$/ { exit }' "$1"
}
# check_chain FILE NAMES...: the rows' names, Depth[i] = Depth[i+1] + Size[i], the last Size = its Depth
check_chain() {
	local f=$1; shift
	local names
	names=$(rows "$f" | awk '{ printf "%s%s", s, $1; s = " " }')
	[ "$names" = "$*" ] || { echo "# names: '$names', expected '$*'"; return 1; }
	rows "$f" | awk '{ n[NR] = $1; sz[NR] = $2; d[NR] = $3 }
		END { for (i = 1; i < NR; i++) if (d[i] != d[i + 1] + sz[i]) { print "# row " i - 1 ": " d[i] " != " d[i + 1] " + " sz[i]; exit 1 }
		      if (sz[NR] != d[NR]) { print "# last row: size " sz[NR] " != depth " d[NR]; exit 1 } }'
}
# size FILE NAME: the Size of NAME's row
size() { rows "$1" | awk -v n="$2" '$1 == n { print $2; exit }'; }
# hits FILE SECTION NAME: the Hit column of NAME in the table after the line SECTION
hits() { awk -v s="$2" -v n="$3" 'index($0, s) == 1 { on = 1; next } on && /^$/ { exit } on && $1 == n { print $2; exit }' "$1"; }
# t FILE SECTION NAME: the Time column (us) of NAME
tim() { awk -v s="$2" -v n="$3" 'index($0, s) == 1 { on = 1; next } on && /^$/ { exit } on && $1 == n { print $3; exit }' "$1"; }
inside() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v < hi) }'; }

for flag in "-pg" "-pg -mfentry" "-finstrument-functions" "-fpatchable-function-entry=5"; do
	for opt in -O0 -O2; do
		tag="$flag $opt"
		gcc $flag $opt -fno-inline -fno-optimize-sibling-calls -o "$W/p" "$S/s-prof.c" -lpthread ||
			{ not_ok "$tag: cannot build s-prof.c"; continue; }
		rm -rf "$W/d"
		if ! "$UT" record -o "$W/d" --stack-trace --func-profile -- "$W/p" > /dev/null 2> "$W/err"; then
			not_ok "$tag: record"; sed 's/^/# /' "$W/err"; continue
		fi
		"$UT" report -i "$W/d" --stack > "$W/stack" 2> "$W/err"
		if check_chain "$W/stack" deep_c deep_b deep_a run main &&
		   inside "$(size "$W/stack" deep_b)" 8192 8448 && inside "$(size "$W/stack" deep_a)" 4096 4352 &&
		   grep -q '^# thread [0-9]*: [0-9]* bytes$' "$W/stack"; then
			ok "$tag: report --stack: deep_c deep_b deep_a run main, deep_b's frame $(size "$W/stack" deep_b) bytes, deep_a's $(size "$W/stack" deep_a)"
		else
			not_ok "$tag: report --stack"; sed 's/^/# /' "$W/stack" "$W/err"
		fi
		"$UT" report -i "$W/d" --profile > "$W/prof" 2> "$W/err"
		h="$(hits "$W/prof" "# all" leaf) $(hits "$W/prof" "# all" tick) $(hits "$W/prof" "# all" loop) $(hits "$W/prof" "# all" deep_a) $(hits "$W/prof" "# all" main)"
		if [ "$h" = "1000 7 1 1 1" ] && [ "$(sed -n 2p "$W/prof")" = "  Function                               Hit    Time            Avg             s^2" ]; then
			ok "$tag: report --profile: the Hit column (leaf 1000, tick 7, loop, deep_a, main 1)"
		else
			not_ok "$tag: report --profile: hits '$h'"; sed 's/^/# /' "$W/prof" "$W/err"
		fi
	done
done

gcc -pg -mfentry -O2 -o "$W/p" "$S/s-prof.c" -lpthread

# a thread: its own maximum and its own table
rm -rf "$W/d"
"$UT" record -o "$W/d" --stack-trace --func-profile -- "$W/p" thread > /dev/null 2> "$W/err"
"$UT" report -i "$W/d" --stack > "$W/stack" 2>> "$W/err"
"$UT" report -i "$W/d" --profile > "$W/prof" 2>> "$W/err"
pid=$(sed -n 's/^# pid \([0-9]*\) .*/\1/p' "$W/stack" | head -1)
who=$(sed -n 's/^# pid [0-9]* (p): deepest stack [0-9]* bytes, in thread \([0-9]*\)$/\1/p' "$W/stack")
if [ -n "$who" ] && [ "$who" != "$pid" ] && check_chain "$W/stack" deep_c deep_b deep_a deeper run thread_fn &&
   inside "$(size "$W/stack" deeper)" 16384 16640 && [ "$(grep -c '^# thread [0-9]*: [0-9]* bytes$' "$W/stack")" = 2 ]; then
	ok "threads: the deepest stack is the second thread's ($who), deeper's frame $(size "$W/stack" deeper) bytes; a line per thread"
else
	not_ok "threads: report --stack"; sed 's/^/# /' "$W/stack" "$W/err"
fi
if [ "$(hits "$W/prof" "# all" leaf)" = 2000 ] && [ "$(hits "$W/prof" "# thread $pid " leaf)" = 1000 ] &&
   [ "$(hits "$W/prof" "# thread $who " leaf)" = 1000 ] && [ "$(hits "$W/prof" "# thread $who " deeper)" = 1 ] &&
   [ -z "$(hits "$W/prof" "# thread $pid " deeper)" ]; then
	ok "threads: report --profile: 2000 leaf calls, 1000 in each thread's table, deeper in the thread's alone"
else
	not_ok "threads: report --profile"; sed 's/^/# /' "$W/prof" "$W/err"
fi

# fork: each process its own file
rm -rf "$W/d"
"$UT" record -o "$W/d" --stack-trace --func-profile -- "$W/p" fork > /dev/null 2> "$W/err"
"$UT" report -i "$W/d" --stack > "$W/stack" 2>> "$W/err"
"$UT" report -i "$W/d" --profile > "$W/prof" 2>> "$W/err"
awk '/^# pid / { n++ } n == 2' "$W/stack" > "$W/child"
if [ "$(grep -c '^# pid ' "$W/stack")" = 2 ] && check_chain "$W/stack" deep_c deep_b deep_a run main &&
   check_chain "$W/child" deep_c deep_b deep_a deeper run main; then
	ok "fork: the parent's chain and the child's, deeper"
else
	not_ok "fork: report --stack"; sed 's/^/# /' "$W/stack" "$W/err"
fi
if [ "$(hits "$W/prof" "# all" leaf)" = 2000 ] && [ "$(grep -c '^# thread ' "$W/prof")" = 2 ]; then
	ok "fork: 2000 leaf calls, a table per process"
else
	not_ok "fork: report --profile"; sed 's/^/# /' "$W/prof" "$W/err"
fi

# graph-time: a function's time with its callees (default) or without (-O nograph-time)
rm -rf "$W/d"
"$UT" record -o "$W/d" --func-profile -- "$W/p" > /dev/null 2> "$W/err"
"$UT" report -i "$W/d" --profile > "$W/prof" 2>> "$W/err"
m=$(tim "$W/prof" "# all" main) r=$(tim "$W/prof" "# all" run) l=$(tim "$W/prof" "# all" loop) f=$(tim "$W/prof" "# all" leaf)
if awk -v m="$m" -v r="$r" -v l="$l" -v f="$f" 'BEGIN { exit !(m != "" && m + 0 >= r && r + 0 >= l && l + 0 >= f) }'; then
	ok "graph-time: main $m >= run $r >= loop $l >= leaf $f us"
else
	not_ok "graph-time: main $m run $r loop $l leaf $f"; sed 's/^/# /' "$W/prof" "$W/err"
fi
# the times come from the recording's clock calibration (info): the same
# output each time it is read, and a calibration twice as fast halves them
"$UT" report -i "$W/d" --profile > "$W/prof2" 2>> "$W/err"
if cmp -s "$W/prof" "$W/prof2"; then
	ok "report --profile twice: the same output"
else
	not_ok "report --profile twice: the outputs differ"; diff "$W/prof" "$W/prof2" | sed 's/^/# /'
fi
awk -F= '$1 == "tsc0" { t0 = $2 } $1 == "tsc1" { $0 = sprintf("tsc1=%.0f", t0 + 2 * ($2 - t0)) } { print }' \
	"$W/d/info" > "$W/info" && cp "$W/info" "$W/d/info"
"$UT" report -i "$W/d" --profile > "$W/prof2" 2>> "$W/err"
m2=$(tim "$W/prof2" "# all" main)
if awk -v m="$m" -v h="$m2" 'BEGIN { d = m - 2 * h; exit !(h != "" && d <= 0.004 && d >= -0.004) }'; then
	ok "report --profile: the recording's calibration, twice as fast: main $m2 us, half of $m"
else
	not_ok "report --profile with the calibration doubled: main $m2 us, was $m"; sed 's/^/# /' "$W/prof2" "$W/err"
fi
rm -rf "$W/d"
"$UT" record -o "$W/d" --func-profile -O nograph-time -- "$W/p" > /dev/null 2> "$W/err"
"$UT" report -i "$W/d" --profile > "$W/prof" 2>> "$W/err"
m=$(tim "$W/prof" "# all" main)
sum=$(awk 'index($0, "# all") == 1 { on = 1; next } on && /^$/ { exit } on && $4 == "us" { s += $3 } END { print s }' "$W/prof")
if grep -q '^# all threads (graph-time off' "$W/prof" && awk -v m="$m" -v s="$sum" 'BEGIN { exit !(m != "" && m * 2 < s) }'; then
	ok "nograph-time: main's own time $m us, less than half of all the functions' $sum us"
else
	not_ok "nograph-time: main $m, all $sum"; sed 's/^/# /' "$W/prof" "$W/err"
fi

# a graph filter that records main alone (-D 1) leaves the profilers whole:
# the calls below it are timed and their frames walked
rm -rf "$W/d"
"$UT" record -o "$W/d" -D 1 --func-profile --stack-trace -- "$W/p" > /dev/null 2> "$W/err"
"$UT" report -i "$W/d" --profile > "$W/prof" 2>> "$W/err"
"$UT" report -i "$W/d" --stack > "$W/stack" 2>> "$W/err"
f=$(tim "$W/prof" "# all" leaf) r=$(tim "$W/prof" "# all" run)
if awk -v f="$f" -v r="$r" 'BEGIN { exit !(f != "" && f + 0 > 0 && r + 0 >= f + 0) }' &&
   [ "$(hits "$W/prof" "# all" leaf)" = 1000 ] && check_chain "$W/stack" deep_c deep_b deep_a run main; then
	ok "-D 1: leaf still timed ($f us, 1000 hits), the whole chain walked"
else
	not_ok "-D 1: leaf $f us, run $r us"; sed 's/^/# /' "$W/prof" "$W/stack" "$W/err" | head -40
fi

# bad input
rm -rf "$W/d"
"$UT" record -o "$W/d" -- "$W/p" > /dev/null 2>&1
expect 1 "has no stack statistics \(record with --stack-trace\)" -- "$UT" report -i "$W/d" --stack
expect 1 "has no function profile \(record with --func-profile\)" -- "$UT" report -i "$W/d" --profile
expect 1 "cannot read $W/none" -- "$UT" report -i "$W/none" --stack
expect 2 "unknown record option 'graph-times'" -- "$UT" record -o "$W/d2" -O graph-times -- "$W/p"
# a broken statistics file: a warning, no crash
rm -rf "$W/d"
"$UT" record -o "$W/d" --stack-trace --func-profile -- "$W/p" > /dev/null 2>&1
for f in "$W"/d/stat/*; do head -c 100 "$f" > "$f.cut" && mv "$f.cut" "$f"; done
expect 1 "has no stack statistics" -- "$UT" report -i "$W/d" --stack
expect 1 "has no function profile" -- "$UT" report -i "$W/d" --profile
