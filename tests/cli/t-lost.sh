#!/bin/bash
# description: a real run that loses records (--drop, tiny buffers): replay and report stay right
#
# Where the losses fall is up to the machine, so this checks what must
# hold wherever they fall: the calls keep their callers and depths, main
# keeps its exact duration in report and replay, no function gets a total
# of 0 for calls whose time was lost, and every lost record is counted.
# tests/unit/test_lost.c checks the exact output of chosen losses.
SUITE=lost
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void mid(int x) { for (int i = 0; i < 10; i++) leaf(x + i); }
noinline void outer(int x) { for (int i = 0; i < 100; i++) mid(x + i); }
noinline void work(void) { for (int i = 0; i < 300; i++) outer(i); }
int main(void)
{
	work();
	usleep(200000);		/* the recorder catches up: main's return is kept */
	return 0;
}
C

for flags in "-pg -mfentry" "-finstrument-functions"; do
	id=${flags%% *}
	gcc $flags -O2 -o "$W/p" "$W/p.c" || { not_ok "$id: does not compile"; continue; }
	rm -rf "$W/d"
	"$UT" record --drop -b 8K -o "$W/d" -- "$W/p" > /dev/null 2> "$W/err"
	"$UT" dump -i "$W/d" > "$W/dump"
	lost=$(awk '/^# thread/ { for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) s += substr($i, 6) } END { print s + 0 }' "$W/dump")
	if [ "$lost" -gt 0 ]; then ok "$id: $lost records lost"; else not_ok "$id: nothing lost with -b 8K --drop"; fi

	# every loss is marked, in replay and in report
	"$UT" replay -i "$W/d" > "$W/graph" 2> "$W/err"
	shown=$(sed -n 's/^CPU:[0-9]* \[LOST \([0-9]*\) EVENTS\]$/\1/p' "$W/graph" | awk '{ s += $1 } END { print s + 0 }')
	"$UT" report -i "$W/d" > "$W/rep" 2>> "$W/err"
	said=$(sed -n 's/^# lost: \([0-9]*\) events in .*/\1/p' "$W/rep")
	if [ "$shown" = "$lost" ] && [ "$said" = "$lost" ] && [ ! -s "$W/err" ]; then
		ok "$id: replay marks $shown lost, report counts $said"
	else
		not_ok "$id: lost $lost, replay marks $shown, report says '$said'"; sed 's/^/# /' "$W/err"
	fi

	# the calls keep their callers across the losses: the ones that began
	# while records were dropped are put back by name (the function tracer
	# shows each call's caller, function_graph its depth)
	"$UT" replay -i "$W/d" -t function -O nocontext-info > "$W/fn"
	bad=$(grep -cvE '^(#|CPU:|main <-|work <-main$|outer <-work$|mid <-outer$|leaf <-mid$)' "$W/fn")
	if [ "$bad" = 0 ]; then ok "$id: every call under its own caller"; else
		not_ok "$id: $bad calls under another caller"; grep -vE '^(#|CPU:|main <-|work <-main$|outer <-work$|mid <-outer$|leaf <-mid$)' "$W/fn" | head -5 | sed 's/^/# /'; fi
	bad=$(awk -F'[|]' '/^ *[0-9]+\)/ { f = $2; n = match(f, /[^ ]/) - 3; sub(/^ */, "", f); sub(/[ ({;].*/, "", f);
		d = n / 2; w = (f == "main" ? 0 : f == "work" ? 1 : f == "outer" ? 2 : f == "mid" ? 3 : f == "leaf" ? 4 : -1);
		if (f != "}" && d != w) print }' "$W/graph" | wc -l)
	if [ "$bad" = 0 ]; then ok "$id: every call at its depth"; else not_ok "$id: $bad calls at another depth"; fi

	# main spans all the losses: its time is its own, the same in report and replay
	main_ns=$(awk '$4 == "entry" && $6 == "main" { t0 = $3 } $4 == "exit" && $6 == "main" { print $3 - t0 }' "$W/dump")
	"$UT" report -i "$W/d" --stat > "$W/stat"
	stat_ns=$(awk '$1 == "main" { split($3, a, "."); print a[1] * 1000 + a[2]; exit }' "$W/stat")
	last=$(tail -1 "$W/graph")
	graph_us=$(echo "$last" | sed -n 's/^ *[0-9]*) *[-+!#*@$ ]*\([0-9.]*\) us *|  }$/\1/p')
	# the graph shows 7 digits: a prefix of the exact time
	graph_ok=$(awk -v g="$graph_us" -v n="$main_ns" 'BEGIN { d = index(g, ".") ? length(g) - index(g, ".") : 0;
		f = 10 ^ d; print (g != "" && int(n / 1000 * f) == int(g * f + 0.5)) ? 1 : 0 }')
	if [ -n "$main_ns" ] && [ "$stat_ns" = "$main_ns" ] && [ "$graph_ok" = 1 ] &&
	   grep -qE '^ +[0-9.]+ [mu ]s +[0-9.]+ [mun ]s +1 +(0 +)?[0-9.]+ [mun]s .* main$' "$W/rep"; then
		ok "$id: main lasts $main_ns ns in dump, report and replay ($graph_us us)"
	else
		not_ok "$id: main: dump '$main_ns' ns, report --stat '$stat_ns', replay '$last'"
		grep -E ' main$|^  main ' "$W/rep" "$W/stat" | sed 's/^/# /'
	fi

	# no total of 0 for calls whose time was lost: unknown is "-"
	if awk '/^ +[0-9.]+ [mun ]?s/ && $1 == "0.000" { bad = 1 } END { exit bad }' "$W/rep" &&
	   grep -q '^# untimed: ' "$W/rep"; then
		ok "$id: no total of 0, untimed calls counted apart"
	else
		not_ok "$id: report"; sed 's/^/# /' "$W/rep"
	fi
	# and --stat: every function's hits add up, untimed ones in their column
	hits=$(awk '$1 == "leaf" { print $2 }' "$W/stat")
	calls=$(awk '$NF == "leaf" { print $5 }' "$W/rep")
	[ -n "$hits" ] && [ "$hits" = "$calls" ] && ok "$id: report and --stat count $hits leaf calls" ||
		not_ok "$id: leaf: --stat $hits hits, report $calls calls"
done

# live: the same pipeline, to the end of main
gcc -pg -mfentry -O2 -o "$W/p" "$W/p.c"
"$UT" live --drop -b 8K -- "$W/p" > "$W/out" 2> "$W/err"
if grep -q '^CPU:[0-9]* \[LOST [0-9]* EVENTS\]$' "$W/out" && tail -1 "$W/out" | grep -qE '^ *[0-9]+\) .*[0-9] us +\|  }$'; then
	ok "live: losses marked, main closes with its duration"
else
	not_ok "live with losses"; tail -3 "$W/out" | sed 's/^/# /'; sed 's/^/# /' "$W/err"
fi

echo "# $SUITE: $n tests"
