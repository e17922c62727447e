#!/bin/bash
# t-export-dat.sh - `usertrace dump --dat [v6:|v7:]FILE` (export/export_dat.c):
# a function_graph and a function recording of a small program, with a
# trace_printk() (an ftrace print entry), written as trace-cmd .dat files
# of version 7 (zstd) and 6, read by the real `trace-cmd report` and
# `trace-cmd dump`: the function names (from the kallsyms section), the
# COMM-PID column (saved_cmdlines), the graph's nesting and leaves, the
# print's text, the header's version and compression, a stacktrace
# trigger's stack (kernel_stack) and sysprof samples (user_stack).  Bad input: no data
# directory, a corrupt info file, a garbage thread file, an unwritable
# output path.
SUITE=export-dat
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

cat > "$W/p.c" <<'C'
#include <usertrace/tracing.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { trace_printk("hello %d", x); return leaf(x) + leaf(x + 1); }
int main(void) { volatile int r = mid(4); return r == 29 ? 0 : 1; }
C
gcc -pg -mfentry -O1 -I"$SRC/include" -o "$W/p" "$W/p.c" || { not_ok "cannot build the program"; exit 1; }

expect 0 "" -- "$UT" record -o "$W/g" -- "$W/p"
expect 0 "" -- "$UT" record -o "$W/f" -t function -- "$W/p"
PID=$("$UT" dump -i "$W/g" | awk '/^# thread/ { split($3, a, "."); print a[2]; exit }')
FPID=$("$UT" dump -i "$W/f" | awk '/^# thread/ { split($3, a, "."); print a[2]; exit }')

for v in v7 v6; do
	expect 0 "" -- "$UT" dump -i "$W/g" --dat "$v:$W/g-$v.dat"
	expect 0 "" -- "$UT" dump -i "$W/f" --dat "$v:$W/f-$v.dat"
done
expect 0 "" -- "$UT" dump -i "$W/g" --dat "$W/g-default.dat"
cmp -s "$W/g-default.dat" "$W/g-v7.dat" && ok "--dat FILE is version 7" ||
	not_ok "--dat FILE differs from --dat v7:FILE"

if ! command -v trace-cmd > /dev/null; then
	ok "trace-cmd report # SKIP trace-cmd is not installed (tests/deps.sh installs it as root)"
	exit 0
fi

# the report without its time columns: "COMM-PID: EVENT: TEXT", blanks
# before the graph's '|' made one, durations (and their +, ! marks) as D
norm() {
	sed -E 's/^ +//; s/ +\[[0-9]+\] +[0-9]+\.[0-9]+: /: /; s/ +([-+!#*@$] +)?[0-9]+\.[0-9]+ us +\|/ D us |/' |
		awk -F'|' -v OFS='|' '{ gsub(/  +/, " ", $1); print }'
}
report() { # FILE: its report in $W/rep, stderr in $W/rerr
	trace-cmd report "$1" > "$W/rep.raw" 2> "$W/rerr"
	local st=$?
	grep -v '^cpus=' "$W/rep.raw" | norm > "$W/rep"
	return $st
}

for v in v7 v6; do
	cat > "$W/want" <<T
p-$PID: funcgraph_entry: |  main() {
p-$PID: funcgraph_entry: |    mid() {
p-$PID: print: mid: hello 4
p-$PID: funcgraph_entry: D us |      leaf();
p-$PID: funcgraph_entry: D us |      leaf();
p-$PID: funcgraph_exit: D us |    }
p-$PID: funcgraph_exit: D us |  }
T
	if report "$W/g-$v.dat" && diff "$W/want" "$W/rep" > "$W/diff" && ! [ -s "$W/rerr" ]; then
		ok "$v function_graph: trace-cmd report prints the graph, names, nesting, print"
	else
		not_ok "$v function_graph: trace-cmd report"; sed 's/^/# /' "$W/diff" "$W/rerr" "$W/rep.raw"
	fi
	cat > "$W/want" <<T
p-$FPID: function: main
p-$FPID: function: mid
p-$FPID: print: mid: hello 4
p-$FPID: function: leaf
p-$FPID: function: leaf
T
	if report "$W/f-$v.dat" && diff "$W/want" "$W/rep" > "$W/diff" && ! [ -s "$W/rerr" ]; then
		ok "$v function: trace-cmd report prints each call by name"
	else
		not_ok "$v function: trace-cmd report"; sed 's/^/# /' "$W/diff" "$W/rerr" "$W/rep.raw"
	fi
	trace-cmd dump --summary "$W/g-$v.dat" > "$W/sum" 2>&1
	want=${v#v}
	if grep -qE "^[[:space:]]+$want[[:space:]]+\[Version\]" "$W/sum" &&
	   grep -qE "^[[:space:]]+8[[:space:]]+\[Bytes in a long\]" "$W/sum" &&
	   grep -qE "^[[:space:]]+4096[[:space:]]+\[Page size, bytes\]" "$W/sum" &&
	   grep -qE "\[Ftrace format, [0-9]+ events\]" "$W/sum"; then
		ok "$v: trace-cmd dump --summary: version $want, 8-byte longs, 4096-byte pages, formats"
	else
		not_ok "$v: trace-cmd dump --summary"; sed 's/^/# /' "$W/sum"
	fi
	trace-cmd dump --cmd-lines "$W/g-$v.dat" 2>&1 | grep -qx "$PID p" &&
		ok "$v: saved_cmdlines has '$PID p'" || not_ok "$v: saved_cmdlines lacks '$PID p'"
done
grep -qE "^[[:space:]]+zstd[[:space:]]+\[Compression algorithm\]" \
	<(trace-cmd dump --summary "$W/g-v7.dat" 2>&1) && ok "v7 is compressed with zstd" ||
	not_ok "v7: no zstd compression in the summary"
trace-cmd dump --kallsyms "$W/g-v7.dat" 2>&1 | grep -qE "^[0-9a-f]{16} t main$" &&
	ok "kallsyms: main's line" || not_ok "kallsyms: no line for main"

# a stacktrace trigger's stack (the kernel's kernel_stack, as long as the
# stack) and sysprof samples (user_stack, 8 frames): trace-cmd prints them
expect 0 "" -- "$UT" record -T leaf:stacktrace:1 -o "$W/st" -- "$W/p"
expect 0 "" -- "$UT" dump -i "$W/st" --dat "$W/st.dat"
SPID=$("$UT" dump -i "$W/st" | awk '/^# thread/ { split($3, a, "."); print a[2]; exit }')
cat > "$W/want" <<T
p-$SPID: funcgraph_entry: |  main() {
p-$SPID: funcgraph_entry: |    mid() {
p-$SPID: print: mid: hello 4
p-$SPID: kernel_stack: <stack trace >
=> leaf (ADDR)
=> mid (ADDR)
=> main (ADDR)
p-$SPID: funcgraph_entry: D us |      leaf();
T
if report "$W/st.dat" && sed -E 's/\([0-9a-f]+\)$/(ADDR)/' "$W/rep" | head -8 | diff "$W/want" - > "$W/diff" &&
   ! [ -s "$W/rerr" ]; then
	ok "a stacktrace trigger's stack: trace-cmd report prints <stack trace > and each frame"
else
	not_ok "stacktrace: trace-cmd report"; sed 's/^/# /' "$W/diff" "$W/rerr" "$W/rep.raw"
fi
cat > "$W/b.c" <<'C'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void burn(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 50000000L);
}
int main(void) { burn(); return 0; }
C
gcc -O1 -fno-omit-frame-pointer -o "$W/b" "$W/b.c" &&
	"$UT" record -t sysprof -o "$W/sp" -- "$W/b" > /dev/null 2>&1 &&
	"$UT" dump -i "$W/sp" --dat "$W/sp.dat" > /dev/null 2>&1
nsamp=$("$UT" replay -i "$W/sp" 2> /dev/null | grep -c '<user stack trace>')
if report "$W/sp.dat" && [ "$nsamp" -gt 0 ] &&
   [ "$(grep -c 'user_stack:' "$W/rep")" = "$nsamp" ] &&
   [ "$(grep -cxE '\s*=> main' "$W/rep")" -ge $((nsamp / 2)) ] &&
   [ "$(grep -cE 'user_stack: +\s=> burn$' "$W/rep")" -ge $((nsamp / 2)) ]; then
	ok "sysprof: trace-cmd report prints each of the $nsamp samples as a user_stack"
else
	not_ok "sysprof: trace-cmd report ($nsamp samples)"; sed 's/^/# /' "$W/rerr"; head -30 "$W/rep.raw" | sed 's/^/# /'
fi

# 300 ms between two calls: past a header's 27-bit delta, a time extend record
cat > "$W/q.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
int main(void) { volatile int r = leaf(1); usleep(300000); r += leaf(2); return 0; }
C
gcc -pg -mfentry -O1 -o "$W/q" "$W/q.c" && "$UT" record -o "$W/q.d" -t function -- "$W/q" 2> /dev/null &&
	"$UT" dump -i "$W/q.d" --dat "$W/q.dat" && trace-cmd report "$W/q.dat" > "$W/rep.raw" 2> "$W/rerr"
gap=$(awk '$NF == "leaf" { sub(":", "", $3); t[n++] = $3 } END { if (n == 2) printf "%.3f", t[1] - t[0] }' "$W/rep.raw")
case $gap in
0.[3-9]*) ok "a 300 ms gap reads as $gap s (time extend)" ;;
*) not_ok "the gap between the two calls reads as '$gap' s"; sed 's/^/# /' "$W/rep.raw" "$W/rerr" ;;
esac

# lost records (--drop, a tiny buffer): an exit whose entry was lost has no
# entry time, and must not take that of an earlier call at its depth (it
# read as a call spanning the whole loss); every exit's duration is the
# one replay prints, 0 where replay has none
cat > "$W/l.c" <<'C'
#include <unistd.h>
volatile int sink;
__attribute__((noinline)) void leaf(int x) { sink += x; }
__attribute__((noinline)) void mid(int x) { for (int i = 0; i < 10; i++) leaf(x + i); }
__attribute__((noinline)) void outer(int x) { for (int i = 0; i < 100; i++) mid(x + i); }
int main(void) { for (int i = 0; i < 100; i++) outer(i); usleep(100000); return 0; }
C
gcc -pg -mfentry -O2 -o "$W/l" "$W/l.c" &&
	"$UT" record --drop -b 8K -o "$W/l.d" -- "$W/l" > /dev/null 2>&1 &&
	"$UT" dump -i "$W/l.d" --dat "$W/l.dat" && trace-cmd report "$W/l.dat" > "$W/rep.raw" 2> "$W/rerr"
"$UT" replay -i "$W/l.d" -O funcgraph-proc > "$W/replay" 2>&1
lost=$("$UT" dump -i "$W/l.d" | awk '/^# thread/ { for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) s += substr($i, 6) } END { print s + 0 }')
# each "}" line's duration: trace-cmd's, then replay's ("-" when it has none;
# it rounds to 6 digits)
awk '/funcgraph_exit/ { for (i = 1; i <= NF; i++) if ($i == "us") print $(i - 1) }' "$W/rep.raw" > "$W/ex.tc"
grep -E '^ *[0-9]+\) ' "$W/replay" | awk -F'|' '$3 ~ /^ *}/ { d = $2; gsub(/[^0-9.]/, "", d); print d == "" ? "-" : d }' > "$W/ex.rp"
bad=$(paste "$W/ex.tc" "$W/ex.rp" | awk '$2 == "-" ? $1 != "0.000" : ($1 - $2) ^ 2 > ($2 / 1e4 + 0.001) ^ 2' | wc -l)
if [ "$lost" -gt 0 ] && [ -s "$W/ex.tc" ] && [ "$(wc -l < "$W/ex.tc")" = "$(wc -l < "$W/ex.rp")" ] && [ "$bad" = 0 ]; then
	ok "lost records ($lost): each exit's duration is replay's, 0 when its entry was lost"
else
	not_ok "lost records ($lost): $bad exits with another duration than replay's"
	paste "$W/ex.tc" "$W/ex.rp" | awk '$2 == "-" ? $1 != "0.000" : ($1 - $2) ^ 2 > ($2 / 1e4 + 0.001) ^ 2' | head -5 | sed 's/^/# /'
fi

# bad input
expect 1 "cannot open data directory" -- "$UT" dump -i "$W/none" --dat "$W/x.dat"
[ -e "$W/x.dat" ] && not_ok "a missing data directory left $W/x.dat" || ok "no output for a missing directory"
cp -r "$W/g" "$W/bad"
echo "version=99" > "$W/bad/info"
expect 1 "unsupported data version" -- "$UT" dump -i "$W/bad" --dat "$W/x.dat"
rm -rf "$W/bad" && cp -r "$W/g" "$W/bad"
for f in "$W"/bad/*.dat; do echo garbage > "$f"; done
expect 1 "truncated to 8 bytes, inside its header page \\(bytes 0-4095\\): no events left" -- "$UT" dump -i "$W/bad" --dat "$W/empty.dat"
trace-cmd report "$W/empty.dat" > "$W/rep.raw" 2> "$W/rerr" && ! grep -qv '^cpus=' "$W/rep.raw" &&
	ok "a directory without events: trace-cmd reads an empty trace" ||
	{ not_ok "trace-cmd on the empty trace"; sed 's/^/# /' "$W/rerr" "$W/rep.raw"; }
expect 1 "dump --dat: cannot create '$W/no/such/dir/x.dat'" -- \
	"$UT" dump -i "$W/g" --dat "$W/no/such/dir/x.dat"
expect 1 "dump --dat: no output file" -- "$UT" dump -i "$W/g" --dat "v6:"
