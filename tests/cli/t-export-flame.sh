#!/bin/bash
# description: dump --flame-graph[=svg]: the folded stacks of a known call
# graph (exact stacks, self times that add up to each call's inclusive time
# in the dump), sysprof samples as report --folded gives them, a well-formed
# SVG that headless Chromium renders and whose script hovers, zooms and
# searches, bad input.
SUITE=export-flame
. "$(dirname "$0")/lib.sh"

# main calls a() twice and b() once, a calls c(): each burns a little
cat > "$W/prog.c" <<'C'
#include <stdlib.h>
#define noinline __attribute__((noinline))
volatile unsigned long sink;
static inline __attribute__((always_inline)) void burn(int n) { for (int i = 0; i < n; i++) sink += i; }
noinline void c(void) { burn(20000); }
noinline void a(void) { burn(5000); c(); }
noinline void b(void) { burn(30000); }
int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < loops; i++) {
		a();
		a();
		b();
	}
	return 0;
}
C
gcc -pg -mfentry -O1 -o "$W/prog" "$W/prog.c" || { not_ok "cannot build prog"; exit 1; }
"$UT" record --compress=none -o "$W/d" -- "$W/prog" > /dev/null 2>&1 || { not_ok "record"; exit 1; }

# 1. the folded stacks: exactly these, sorted, each with N > 0
"$UT" dump -i "$W/d" --flame-graph > "$W/folded" 2> "$W/err"
printf '%s\n' main 'main;a' 'main;a;c' 'main;b' > "$W/want"
cut -d' ' -f1 "$W/folded" > "$W/stacks"
if [ $? = 0 ] && diff -u "$W/want" "$W/stacks" > "$W/diff" &&
   awk 'NF != 2 || $2 !~ /^[0-9]+$/ || $2 == 0 { exit 1 }' "$W/folded"; then
	ok "folded: main, main;a, main;a;c, main;b, sorted, self ns > 0"
else
	not_ok "folded stacks"; sed 's/^/# /' "$W/diff" "$W/folded" "$W/err"
fi
"$UT" dump -i "$W/d" --flame-graph=folded > "$W/folded2"
cmp -s "$W/folded" "$W/folded2" && ok "--flame-graph=folded is the default" || not_ok "=folded differs"

# 2. the self times of a stack and of those above it add up to the inclusive
# time of its calls, as the dump's entries and exits give it (exactly)
"$UT" dump -i "$W/d" | awk '
	$4 == "entry" { at[$5] = $3; fn[$5] = $6 }
	$4 == "exit" { inc[fn[$5]] += $3 - at[$5] }
	END { for (f in inc) print f, inc[f] }' | sort > "$W/incl"
for f in main a c b; do
	case $f in main) p=main ;; a) p='main;a' ;; c) p='main;a;c' ;; b) p='main;b' ;; esac
	sum=$(awk -v p="$p" '$1 == p || index($1, p ";") == 1 { s += $2 } END { print s + 0 }' "$W/folded")
	want=$(awk -v f="$f" '$1 == f { print $2 }' "$W/incl")
	[ -n "$want" ] && [ "$sum" = "$want" ] && ok "$p: self times add up to $f's inclusive $want ns" ||
		not_ok "$p: $sum ns, the dump says $want"
done

# 3. the SVG: well-formed, every function named, one frame each plus "all"
"$UT" dump -i "$W/d" --flame-graph=svg > "$W/out.svg" 2> "$W/err"
expect_svg() {
	python3 - "$1" <<'P'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = root.findall(".//s:g[@class='f']", ns)
names = sorted(g.get("data-n") for g in frames)
titles = [g.find("s:title", ns).text for g in frames]
assert names == ["a", "all", "b", "c", "main"], names
assert all(g.find("s:rect", ns) is not None for g in frames)
assert root.find(".//s:script", ns) is not None
for t in titles:
    assert t.split(" (")[0] in names and t.endswith("%)"), t
P
}
if xmllint --noout "$W/out.svg" 2> "$W/xerr" && expect_svg "$W/out.svg" 2> "$W/perr"; then
	ok "SVG: well-formed (xmllint, xml.etree), frames all, main, a, b, c with titles"
else
	not_ok "SVG"; sed 's/^/# /' "$W/xerr" "$W/perr" "$W/err"
fi

# 4. a real consumer: headless Chromium runs the script, then its DOM
total=$(awk '{ s += $2 } END { print s }' "$W/folded")
cself=$(awk '$1 == "main;a;c" { print $2 }' "$W/folded")
CHROME=$(command -v chromium || command -v chromium-browser)
chrome() {
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$W/chrome" "$@" 2> /dev/null
}
if [ -z "$CHROME" ]; then
	for t in "DOM after the script" "search" "zoom" "screenshot"; do
		echo "ok $((n += 1)) - $SUITE: chromium: $t # SKIP chromium not installed (tests/deps.sh)"
	done
else
	chrome --dump-dom "file://$W/out.svg" > "$W/dom"
	# the script filled the details line with the root: "all (1,234,567 ns, 100.00%)"
	tot=$(echo "$total" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
	if grep -qF "id=\"details\" x=\"10\" y=\"$(sed -n 's/.*id="details" x="10" y="\([0-9]*\)".*/\1/p' "$W/out.svg")\">all ($tot ns, 100.00%)<" "$W/dom" &&
	   for f in main a b c; do grep -q "<title>$f ([0-9]* ns" "$W/dom" || exit 1; done; then
		ok "chromium: the script ran (details: all ($tot ns, 100.00%)), every function in the DOM"
	else
		not_ok "chromium DOM"; grep -o 'id="details"[^<]*' "$W/dom" | sed 's/^/# /'
	fi
	# out.svg#search=REGEX: c's frame purple, the share it covers
	chrome --dump-dom "file://$W/out.svg#search=%5Ec%24" > "$W/dom"
	got=$(sed -n 's/.*>Matched: \([0-9.]*\)%<.*/\1/p' "$W/dom")
	want=$(awk -v a="$cself" -v t="$total" 'BEGIN { printf "%.2f", 100 * a / t }')
	if [ -n "$got" ] && awk -v g="$got" -v w="$want" 'BEGIN { exit !(g - w <= 0.01 && w - g <= 0.01) }' &&
	   grep -q 'data-n="c"[^>]*><title>[^<]*</title><rect [^>]*fill="rgb(225,0,225)"' "$W/dom"; then
		ok "chromium: search ^c\$ highlights c and matches $got% (folded: $want%)"
	else
		not_ok "chromium search: '$got', want $want"
	fi
	# out.svg#zoom=a: a full width, b (not under a) hidden
	chrome --dump-dom "file://$W/out.svg#zoom=a" > "$W/dom"
	if grep -q 'data-n="a"[^>]*><title>[^<]*</title><rect x="10.00" [^>]*width="1180.00"' "$W/dom" &&
	   grep -q 'data-n="b" style="display: none;"' "$W/dom"; then
		ok "chromium: zoom into a: a is full width, b hidden"
	else
		not_ok "chromium zoom"; grep 'data-n="[ab]"' "$W/dom" | cut -c1-200 | sed 's/^/# /'
	fi
	# a picture to look at: kept in the build directory
	mkdir -p "$B/test-out"
	rm -f "$B/test-out/flame.png"
	chrome --screenshot="$B/test-out/flame.png" --window-size=1200,600 "file://$W/out.svg" > /dev/null
	if [ "$(head -c 4 "$B/test-out/flame.png" 2> /dev/null | tail -c 3)" = PNG ]; then
		ok "chromium: screenshot $B/test-out/flame.png"
	else
		not_ok "chromium: no screenshot"
	fi
fi

# 5. flamegraph.pl reads our folded stacks
FG=$(command -v flamegraph.pl || command -v flamegraph)
if [ -z "$FG" ]; then
	echo "ok $((n += 1)) - $SUITE: flamegraph.pl # SKIP not installed (Debian has no flamegraph package)"
elif "$FG" "$W/folded" > "$W/fg.svg" 2> "$W/err" && xmllint --noout "$W/fg.svg" &&
     grep -q '>main' "$W/fg.svg"; then
	ok "flamegraph.pl: an SVG of our folded stacks"
else
	not_ok "flamegraph.pl"; sed 's/^/# /' "$W/err"
fi

# 6. sysprof samples: the same builder as report --folded, the same lines
if "$UT" record -t sysprof -o "$W/s" -- "$W/prog" 3000 > /dev/null 2>&1; then
	"$UT" dump -i "$W/s" --flame-graph > "$W/sfolded" 2> "$W/err"
	"$UT" report -i "$W/s" --folded > "$W/rfolded" 2>> "$W/err"
	if [ -s "$W/sfolded" ] && cmp -s "$W/sfolded" "$W/rfolded" && grep -q ';main;' "$W/sfolded"; then
		ok "sysprof: $(awk '{ s += $2 } END { print s }' "$W/sfolded") samples, as report --folded gives them"
	else
		not_ok "sysprof folded"; diff "$W/sfolded" "$W/rfolded" | head | sed 's/^/# /'
	fi
	"$UT" dump -i "$W/s" --flame-graph=svg > "$W/s.svg" && xmllint --noout "$W/s.svg" &&
		grep -q 'sysprof samples' "$W/s.svg" && grep -q 'samples, ' "$W/s.svg" &&
		ok "sysprof: SVG in samples" || not_ok "sysprof SVG"
else
	not_ok "record -t sysprof"
fi

# 6b. a --thresh recording (calls recorded at their return, innermost
# first): the same tree, b (under the threshold) in main's own time, the
# self times adding up to main's duration exactly; a main that calls
# exit() (its return never comes): its callees under an [unknown] frame
cat > "$W/th.c" <<'C'
#include <stdlib.h>
#include <time.h>
#define noinline __attribute__((noinline))
static inline __attribute__((always_inline)) void spin(long ns)
{
	struct timespec s, e;

	clock_gettime(CLOCK_MONOTONIC, &s);
	do
		clock_gettime(CLOCK_MONOTONIC, &e);
	while ((e.tv_sec - s.tv_sec) * 1000000000L + e.tv_nsec - s.tv_nsec < ns);
}
noinline void c(void) { spin(1000000); }
noinline void a(void) { spin(500000); c(); }
noinline void b(void) { }
int main(int argc, char **argv)
{
	(void)argv;
	a();
	b();
	a();
	if (argc > 1)
		exit(0);
	return 0;
}
C
gcc -pg -mfentry -O1 -o "$W/th" "$W/th.c" || not_ok "cannot build th.c"
"$UT" record --thresh 200us -o "$W/thd" -- "$W/th" > /dev/null 2>&1 || not_ok "record --thresh"
"$UT" dump -i "$W/thd" --flame-graph > "$W/thf" 2> "$W/err"
main=$("$UT" dump -i "$W/thd" | awk '$4 == "return" && $6 == "main" { sub("dur=", "", $7); print $7 }')
# a and c last 1.5 and 1 ms at least, b nothing: only a machine that
# holds b back 200 us adds main;b, with at least 200 us (not a failure)
if [ "$(awk '$1 != "main;b" { print $1 }' "$W/thf" | tr '\n' ' ')" = "main main;a main;a;c " ] &&
   awk '$1 == "main;b" && $2 < 200000 { exit 1 }' "$W/thf" &&
   [ "$(awk '{ s += $2 } END { print s }' "$W/thf")" = "$main" ]; then
	ok "--thresh: main, main;a, main;a;c; the self times add up to main's $main ns"
else
	not_ok "--thresh folded (main $main)"; sed 's/^/# /' "$W/thf" "$W/err"
fi
"$UT" record --thresh 200us -o "$W/thx" -- "$W/th" x > /dev/null 2>&1
"$UT" dump -i "$W/thx" --flame-graph > "$W/thf" 2> "$W/err"
[ "$(awk '$1 != "[unknown];b" { print $1 }' "$W/thf" | tr '\n' ' ')" = "[unknown];a [unknown];a;c " ] &&
awk '$1 == "[unknown];b" && $2 < 200000 { exit 1 }' "$W/thf" &&
	ok "--thresh, main never returns: its callees under [unknown]" ||
	{ not_ok "--thresh exit()"; sed 's/^/# /' "$W/thf" "$W/err"; }

# 7. bad input: a message and status 1, never a crash
expect 1 'the formats are folded \(the default\) and svg' -- "$UT" dump -i "$W/d" --flame-graph=png
expect 1 'cannot open data directory' -- "$UT" dump -i "$W/none" --flame-graph
expect 1 'cannot open data directory' -- "$UT" dump -i "$W/none" --flame-graph=svg
"$UT" record -t nop -o "$W/nop" -- "$W/prog" > /dev/null 2>&1
expect 0 'no function_graph calls or sysprof samples' -- "$UT" dump -i "$W/nop" --flame-graph
[ -s "$W/out" ] && not_ok "folded lines without calls" || ok "no folded lines without calls"
expect 0 'the flame graph is empty' -- "$UT" dump -i "$W/nop" --flame-graph=svg
xmllint --noout "$W/out" 2> /dev/null && ok "an empty graph is still a well-formed SVG" || not_ok "empty SVG"
# a command line that is not UTF-8 (a Latin-1 argument) and has XML's
# specials: the title holds U+FFFD for the bad byte, the file stays
# well-formed (it was not: browsers showed a parse error, no graph)
"$UT" record --compress=none -o "$W/l1" -- "$W/prog" 1 $'\xe9t\xe9<&"' > /dev/null 2>&1
"$UT" dump -i "$W/l1" --flame-graph=svg > "$W/l1.svg" 2> "$W/err"
if xmllint --noout "$W/l1.svg" 2> "$W/xerr" &&
   grep -qF "Flame Graph: $W/prog 1 "$'\xef\xbf\xbd'"t"$'\xef\xbf\xbd'"&lt;&amp;&quot;</text>" "$W/l1.svg"; then
	ok "SVG of a Latin-1 command line: U+FFFD for its bytes, well-formed"
else
	not_ok "SVG of a Latin-1 command line"; sed 's/^/# /' "$W/xerr"; grep 'id="title"' "$W/l1.svg" | sed 's/^/# /'
fi
for seed in 1 2 3; do
	rm -rf "$W/rand"; cp -r "$W/d" "$W/rand"
	t=$(ls "$W"/rand/*.dat | head -1)
	perl -e 'srand($ARGV[0]); print map { chr(int(rand(256))) } 1..4064' $seed |
		dd of="$t" bs=1 seek=4128 conv=notrunc 2> /dev/null
	expect 1 '' -- "$UT" dump -i "$W/rand" --flame-graph=svg
done

echo "# $SUITE: $n tests"
