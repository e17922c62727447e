#!/bin/bash
# description: live, the function tracer, flight-recorder mode, lost-event accounting
SUITE=modes
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <stdlib.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void loop(long n) { for (long i = 0; i < n; i++) leaf((int)i); }
int main(int argc, char **argv)
{
	loop(argc > 1 ? atol(argv[1]) : 3);
	return 0;
}
C
gcc -pg -mfentry -O2 -o "$W/p" "$W/p.c"

# live: the call graph on stdout, or in a file; the program's output stays its own
"$UT" live -- "$W/p" 2 > "$W/out" 2> "$W/err"
cat > "$W/want" <<'X'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
main() {
  loop() {
    leaf();
    leaf();
  }
}
X
sed -E 's/^ *[0-9]+\) +([+!#*@$] )?[0-9. ]*(us)? *\|  //; s/^ *[0-9]+\) +\|  //' "$W/out" > "$W/got"
if diff -u "$W/want" "$W/got" > "$W/diff"; then ok "live prints the call graph"; else not_ok "live output"; sed 's/^/# /' "$W/diff"; fi
"$UT" live -o "$W/live.txt" -- "$W/p" 2 > "$W/out" 2>&1
if [ ! -s "$W/out" ] && grep -q 'leaf();' "$W/live.txt"; then ok "live -o FILE"; else not_ok "live -o FILE"; fi
# live's temporary directory is in $TMPDIR (here one of this test's own, so
# that no other run's leftovers count), and gone when live is
mkdir "$W/tmp"
TMPDIR=$W/tmp "$UT" live -o "$W/live.txt" -- sh -c 'ls "$TMPDIR"' > "$W/out" 2>&1
if grep -qx 'usertrace-live\.......' "$W/out"; then ok "live's temporary directory is in \$TMPDIR"
else not_ok "live's temporary directory not in \$TMPDIR"; sed 's/^/# /' "$W/out"; fi
ls -A "$W/tmp" | grep -q . && { not_ok "live left its temporary directory"; ls -A "$W/tmp" | sed 's/^/# /'; } ||
	ok "live cleans up"

# the function tracer records entries with their caller
"$UT" record -t function -o "$W/fn" -- "$W/p" 2 > /dev/null 2>&1
"$UT" replay -i "$W/fn" -O nocontext-info > "$W/out" 2> "$W/err"
printf '# tracer: function\n#\nmain <-%s\nloop <-main\nleaf <-loop\nleaf <-loop\n' X > "$W/want"
sed 's/^main <-.*/main <-X/' "$W/out" > "$W/got"
if diff -u "$W/want" "$W/got" > "$W/diff"; then ok "function tracer"; else not_ok "function tracer"; sed 's/^/# /' "$W/diff" "$W/err"; fi
expect 1 'recorded with the function tracer' -- "$UT" replay -i "$W/fn" -t function_graph
# entries-in-buffer/entries-written in the function header
"$UT" replay -i "$W/fn" > "$W/out"
grep -q '^# entries-in-buffer/entries-written: 4/4   #P:' "$W/out" && ok "function header counts" || { not_ok "function header counts"; head -4 "$W/out" | sed 's/^/# /'; }

# a flight recorder keeps the end of a long run and counts what it overwrote
"$UT" record --overwrite -b 16K -o "$W/ow" -- "$W/p" 100000 > /dev/null 2>&1
"$UT" dump -i "$W/ow" > "$W/out"
over=$(sed -n 's/^# thread .* overrun=\([0-9]*\)$/\1/p' "$W/out" | head -1)
entries=$(sed -n 's/^# thread .* entries=\([0-9]*\) .*/\1/p' "$W/out" | head -1)
if [ "${over:-0}" -gt 100000 ] && [ $((over + entries)) = 200004 ]; then
	ok "overwrite: $entries kept + $over overwritten = 200004 written"
else
	not_ok "overwrite accounting: entries=$entries overrun=$over"
fi
"$UT" replay -i "$W/ow" -O nofuncgraph-cpu -O nofuncgraph-duration | tail -3 > "$W/got"
printf '    leaf();\n  }\n}\n' > "$W/want"
diff -u "$W/want" "$W/got" > "$W/diff" && ok "overwrite: the end of the run is there" || { not_ok "overwrite end"; sed 's/^/# /' "$W/diff"; }

# a tiny buffer and a slow reader: lost records are counted and shown
"$UT" record --drop -b 8K -o "$W/lost" -- "$W/p" 2000000 > /dev/null 2>&1
"$UT" dump -i "$W/lost" > "$W/out"
lost=$(sed -n 's/^# thread .* lost=\([0-9]*\) .*/\1/p' "$W/out" | head -1)
entries=$(sed -n 's/^# thread .* entries=\([0-9]*\) .*/\1/p' "$W/out" | head -1)
shown=$(awk '$4 == "lost" { s += $6 } END { print s + 0 }' "$W/out")
if [ -n "$lost" ] && [ "$shown" = "$lost" ] && [ $((lost + entries)) = 4000004 ]; then
	ok "lost: $lost dropped, all marked, $entries + $lost = 4000004"
else
	not_ok "lost accounting: lost=$lost marked=$shown entries=$entries"
fi
"$UT" replay -i "$W/lost" > "$W/out" 2>&1
if [ "${lost:-0}" = 0 ]; then
	ok "nothing lost this time: no LOST EVENTS line expected"
else
	grep -q 'LOST [0-9]* EVENTS' "$W/out" && ok "replay shows LOST EVENTS" || not_ok "no LOST EVENTS line"
fi
