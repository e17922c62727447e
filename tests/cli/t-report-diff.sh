#!/bin/bash
# description: report --diff OLD_DIR: two recordings of one program run
# with 10 and 20 loops, the exact call counts and their changes, the order
# (largest change of total time first, or of the -s column); report -s and
# report --stat -s on each column they show; bad keys and directories.
SUITE=report-diff
. "$(dirname "$0")/lib.sh"

cat > "$W/prog.c" <<'C'
#include <stdlib.h>
#define noinline __attribute__((noinline))
volatile unsigned long sink;
static inline __attribute__((always_inline)) void burn(int n) { for (int i = 0; i < n; i++) sink += i; }
noinline void c(void) { burn(2000); }
noinline void a(void) { burn(500); c(); }
noinline void b(void) { burn(3000); }
noinline void only_new(void) { burn(10); }
int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < loops; i++) {
		a();
		a();
		b();
	}
	if (loops > 15)
		only_new();
	return 0;
}
C
gcc -pg -mfentry -O1 -o "$W/prog" "$W/prog.c" || { not_ok "cannot build prog"; exit 1; }
"$UT" record --compress=none -o "$W/d10" -- "$W/prog" 10 > /dev/null 2>&1 &&
"$UT" record -o "$W/d20" -- "$W/prog" 20 > /dev/null 2>&1 || { not_ok "record"; exit 1; }

# the rows of a report (after the ==== line)
rows() { sed '1,/====/d' "$1"; }

# 1. the call counts of both and their changes, exactly
expect 0 '' -- "$UT" report -i "$W/d20" --diff "$W/d10"
cp "$W/out" "$W/diff"
rows "$W/diff" | awk '{ print $NF, $(NF-4), $(NF-3), $(NF-2), $(NF-1) }' | sort > "$W/calls"
printf '%s\n' 'a 20 40 +20 +100.00%' 'b 10 20 +10 +100.00%' 'c 20 40 +20 +100.00%' \
	'main 1 1 +0 +0.00%' 'only_new 0 1 +1 -' > "$W/want"
diff -u "$W/want" "$W/calls" > "$W/d" && ok "--diff: calls old, new, change and % of each function" ||
	{ not_ok "--diff calls"; sed 's/^/# /' "$W/d" "$W/diff"; }
if grep -qx "# old: $W/d10 ($W/prog 10)" "$W/diff" && grep -qx "# new: $W/d20 ($W/prog 20)" "$W/diff"; then
	ok "--diff: the two recordings named"
else
	not_ok "--diff header"; head -3 "$W/diff" | sed 's/^/# /'
fi

# the values of a column of a report's rows, in ns when it is a time:
# column FILE FIELD [UNIT-FIELD]
column() {
	rows "$1" | awk -v f="$2" -v u="${3:-0}" '
		BEGIN { m["ns"] = 1; m["us"] = 1e3; m["ms"] = 1e6; m["s"] = 1e9 }
		{ v = $f; sub(/^\+/, "", v); sub(/%$/, "", v); if (u) v *= m[$u]; if (v < 0) v = -v; printf "%.3f\n", v }'
}
# largest first
ordered() { sort -g -r -c <(column "$@") 2> /dev/null && [ "$(column "$@" | wc -l)" -ge 5 ]; }
by_name() { rows "$1" | awk '{ print $NF }' | LC_ALL=C sort -c; }

# 2. --diff order: total change (default), -s self, -s calls, -s name.
# Which function's time changed most is the machine's to decide (a busy
# machine made b faster in the longer run, and a's change outgrew main's):
# the check is that the rows follow the changes they print, whatever they are
ordered "$W/diff" 5 6 && ok "--diff: largest change of total time first" ||
	{ not_ok "--diff order"; sed 's/^/# /' "$W/diff"; }
"$UT" report -i "$W/d20" --diff "$W/d10" -s self > "$W/ds"
ordered "$W/ds" 12 13 && ok "--diff -s self: largest change of self time first" || not_ok "--diff -s self"
"$UT" report -i "$W/d20" --diff "$W/d10" -s calls > "$W/dc"
rows "$W/dc" | awk '{ print ($(NF-2) < 0 ? -$(NF-2) : +$(NF-2)) }' | sort -g -r -c &&
	ok "--diff -s calls: largest change of calls first" || not_ok "--diff -s calls order"
"$UT" report -i "$W/d20" --diff "$W/d10" -s name > "$W/dn"
by_name "$W/dn" && ok "--diff -s name: by name" || not_ok "--diff -s name"

# with no durations on one side (the function tracer), only the calls are
# shown: the rows are ordered by their change, not by the hidden times
"$UT" record -t function -o "$W/f10" -- "$W/prog" 10 > /dev/null 2>&1
"$UT" report -i "$W/d20" --diff "$W/f10" > "$W/dfn"
rows "$W/dfn" | awk '{ print $NF, $(NF-2) }' > "$W/calls"
printf '%s\n' 'a +20' 'c +20' 'b +10' 'only_new +1' 'main +0' > "$W/want"
if grep -q '^# no durations in' "$W/dfn" && diff -u "$W/want" "$W/calls" > "$W/d"; then
	ok "--diff with the function tracer on one side: largest change of calls first"
else
	not_ok "--diff function tracer order"; sed 's/^/# /' "$W/d" "$W/dfn"
fi

# 3. report -s on each column it shows, and --stat -s on its own
"$UT" report -i "$W/d20" > "$W/r"
ordered "$W/r" 1 2 && ok "report: total time first by default" || not_ok "report default order"
for k in "total 1 2" "self 3 4" "calls 5" "avg 6 7" "average 6 7" "min 8 9" "max 10 11"; do
	set -- $k
	"$UT" report -i "$W/d20" -s "$1" > "$W/r"
	ordered "$W/r" "$2" "${3:-0}" && ok "report -s $1" || { not_ok "report -s $1"; sed 's/^/# /' "$W/r"; }
done
for k in name function untimed; do
	# no call lacks a duration: untimed is 0 for all, then by name
	"$UT" report -i "$W/d20" -s $k > "$W/r"
	by_name "$W/r" && ok "report -s $k: by name" || { not_ok "report -s $k"; sed 's/^/# /' "$W/r"; }
done
for k in "hit 2" "calls 2" "time 3 4" "avg 5 6" "s^2 7 8" "variance 7 8"; do
	set -- $k
	"$UT" report -i "$W/d20" --stat -s "$1" | sed 's/  ---/ ====/' > "$W/r"
	ordered "$W/r" "$2" "${3:-0}" && ok "report --stat -s $1" || { not_ok "report --stat -s $1"; sed 's/^/# /' "$W/r"; }
done

# 4. bad keys and directories
expect 2 "unknown sort key 'bogus' \(total, self, calls \(hit\), untimed" -- "$UT" report -i "$W/d20" -s bogus
expect 2 "report --diff sorts by total, self, calls or name" -- "$UT" report -i "$W/d20" --diff "$W/d10" -s avg
expect 1 "cannot open data directory $W/none" -- \
	"$UT" report -i "$W/d20" --diff "$W/none"
grep -q "report --diff: $W/none is not a recording to compare $W/d20 with" "$W/err" &&
	ok "--diff with a missing directory: which, and why" || not_ok "--diff missing dir message"
expect 1 'cannot open data directory' -- "$UT" report -i "$W/none" --diff "$W/d10"
expect 2 'choose one' -- "$UT" report -i "$W/d20" --diff "$W/d10" --stat
expect 2 "option '--diff' needs an argument" -- "$UT" report -i "$W/d20" --diff
# a corrupt old recording: a message and status 1, never a crash
for seed in 1 2; do
	rm -rf "$W/rand"; cp -r "$W/d10" "$W/rand"
	t=$(ls "$W"/rand/*.dat | head -1)
	perl -e 'srand($ARGV[0]); print map { chr(int(rand(256))) } 1..4064' $seed |
		dd of="$t" bs=1 seek=4128 conv=notrunc 2> /dev/null
	expect 1 '' -- "$UT" report -i "$W/d20" --diff "$W/rand"
done

echo "# $SUITE: $n tests"
