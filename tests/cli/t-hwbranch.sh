#!/bin/bash
# t-hwbranch.sh - the hw-branch tracer's recorder side (recorder/hwbranch_source.c)
# without a PMU: USERTRACE_HW_BRANCH_RECORDS names a file of perf sample
# records (branch stacks, made here by gen.c), which record decodes and
# writes as ftrace:hw_branch entries of the program's thread; replay
# prints the kernel's hw-branch lines, oldest branch first, FUNCTION the
# symbol of FROM in the (non-PIE) program.  A cut file, a missing file,
# the tracer turned off.  Where the machine has branch-stack sampling,
# a real recording of the program has lines of that shape.
SUITE=hwbranch
. "$(dirname "$0")/lib.sh"

cat > "$W/gen.c" <<'C'
/* gen OUT [cut] CPU N FROM TO... [CPU N FROM TO...]: one perf sample
 * record (TID|TIME|CPU|BRANCH_STACK, pid, tid and time 0) per group,
 * its N branches given oldest first and written newest first, each
 * followed by a COMM record but the last; cut: the last 8 bytes of
 * the last sample left out */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	static uint64_t w[65536];
	size_t n = 0, end = 0;
	int a = 2, cut = 0;
	FILE *f = fopen(argv[1], "wb");

	if (!f)
		return 1;
	if (a < argc && !strcmp(argv[a], "cut"))
		cut = 1, a++;
	while (a + 1 < argc) {
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
		uint64_t cpu = strtoull(argv[a], 0, 0), nr = strtoull(argv[a + 1], 0, 0);
		size_t start = n++;

		w[n++] = 0;
		w[n++] = 0;
		w[n++] = cpu;
		w[n++] = nr;
		for (uint64_t k = nr; k-- > 0;) {
			w[n++] = strtoull(argv[a + 2 + 2 * k], 0, 0);
			w[n++] = strtoull(argv[a + 3 + 2 * k], 0, 0);
			w[n++] = 0;
		}
		h.size = (uint16_t)((n - start) * 8);
		memcpy(&w[start], &h, 8);
		a += 2 + 2 * (int)nr;
		end = n;
		h.type = PERF_RECORD_COMM;
		h.size = 24;
		memcpy(&w[n++], &h, 8);
		w[n++] = 0;
		memcpy(&w[n++], "prog\0\0\0", 8);
	}
	fwrite(w, 8, end - (size_t)cut, f);
	return fclose(f) ? 1 : 0;
}
C
cat > "$W/p.c" <<'C'
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
int main(void) { volatile int r = mid(4); return r == 29 ? 0 : 1; }
C
gcc -O2 -Wall -o "$W/gen" "$W/gen.c" && gcc -O1 -no-pie -fno-pie -o "$W/p" "$W/p.c" ||
	{ not_ok "cannot build the programs"; exit 1; }
addr() { printf '0x%x' $((0x$(nm "$W/p" | awk -v s="$1" '$3 == s { print $1 }') + $2)); }
MAIN=$(addr main 0) MID=$(addr mid 0) LEAF=$(addr leaf 0)
hex16() { printf '0x%016x' "$1"; }

# two samples: on CPU 1 main -> mid -> leaf, on CPU 0 mid's return into main
"$W/gen" "$W/recs" 1 2 "$(addr main 4)" "$MID" "$(addr mid 5)" "$LEAF" 0 1 "$(addr mid 9)" "$(addr main 9)"
expect 0 "hw-branch from the perf records of USERTRACE_HW_BRANCH_RECORDS" -- \
	env USERTRACE_HW_BRANCH_RECORDS="$W/recs" "$UT" record -o "$W/d" -t hw-branch -- "$W/p"
"$UT" replay -i "$W/d" > "$W/got" 2> "$W/rerr"
{
	echo "# tracer: hw-branch"
	echo "#"
	echo "# CPU#        FROM                   TO         FUNCTION"
	echo "#  |           |                     |             |"
	echo "   1  $(hex16 $(addr main 4)) -> $(hex16 "$MID") main"
	echo "   1  $(hex16 $(addr mid 5)) -> $(hex16 "$LEAF") mid"
	echo "   0  $(hex16 $(addr mid 9)) -> $(hex16 $(addr main 9)) mid"
} > "$W/want"
if diff -u "$W/want" "$W/got" > "$W/diff"; then
	ok "replay: the kernel's hw-branch lines, oldest first, CPU and FUNCTION of each branch"
else
	not_ok "replay lines"; sed 's/^/# /' "$W/diff" "$W/rerr"
fi
# sym-offset and the generic event printer (-t nop) see the same entries
"$UT" replay -i "$W/d" -O sym-offset 2>&1 | grep -v '^#' | awk '{ print $NF }' > "$W/got"
# the symbols' sizes are the program's: read them from nm
sz() { printf '0x%x' $((0x$(nm -S "$W/p" | awk -v s="$1" '$4 == s { print $2 }'))); }
printf '%s\n' "main+0x4/$(sz main)" "mid+0x5/$(sz mid)" "mid+0x9/$(sz mid)" > "$W/want"
diff -u "$W/want" "$W/got" > "$W/diff" && ok "replay -O sym-offset: FUNCTION as sym+off/size" ||
	{ not_ok "sym-offset"; sed 's/^/# /' "$W/diff"; }
"$UT" replay -i "$W/d" -t nop 2>&1 | grep -c "hw_branch: from: [0-9a-f]* to: [0-9a-f]*$" > "$W/got"
[ "$(cat "$W/got")" = 3 ] && ok "replay -t nop: 3 ftrace hw_branch events in its print fmt" ||
	{ not_ok "replay -t nop: $(cat "$W/got") hw_branch lines"; "$UT" replay -i "$W/d" -t nop 2>&1 | sed 's/^/# /'; }
# the entries are the program's thread's
pid=$(awk -F'[ -]+' '/hw_branch:/ { print $3; exit }' < <("$UT" replay -i "$W/d" -t nop 2>/dev/null))
ls "$W/d" | grep -q "^$pid\.$pid\.3\.dat" && ok "the entries are in the program's thread's buffer" ||
	{ not_ok "no buffer of the program's thread ($pid)"; ls "$W/d" | sed 's/^/# /'; }

# a cut record: the samples before it are written, the rest is said to be dropped
rm -rf "$W/d"
"$W/gen" "$W/cut" cut 1 1 "$(addr main 4)" "$MID" 1 1 "$(addr mid 5)" "$LEAF"
expect 0 "hw-branch: $W/cut: a perf record is cut or inconsistent; the records after it are dropped" -- \
	env USERTRACE_HW_BRANCH_RECORDS="$W/cut" "$UT" record -o "$W/d" -t hw-branch -- "$W/p"
[ "$("$UT" replay -i "$W/d" 2>/dev/null | grep -vc '^#')" = 1 ] && ok "cut file: the whole sample before it" ||
	not_ok "cut file: $("$UT" replay -i "$W/d" 2>&1)"

# a missing file: said, the program runs, nothing recorded
rm -rf "$W/d"
expect 0 "USERTRACE_HW_BRANCH_RECORDS=$W/nosuch: No such file or directory" -- \
	env USERTRACE_HW_BRANCH_RECORDS="$W/nosuch" "$UT" record -o "$W/d" -t hw-branch -- "$W/p"
[ "$("$UT" replay -i "$W/d" 2>/dev/null | grep -vc '^#')" = 0 ] && ok "missing file: no lines" ||
	not_ok "missing file: lines"

# off wins over the file: the tracer is unavailable
rm -rf "$W/d"
expect 2 "tracer 'hw-branch' is not available on this machine: turned off by USERTRACE_HW_BRANCH=off" -- \
	env USERTRACE_HW_BRANCH=off USERTRACE_HW_BRANCH_RECORDS="$W/recs" "$UT" record -o "$W/d" -t hw-branch -- "$W/p"

# the tracing directory: the session daemon runs the source while a
# directory's tracer is hw-branch (the same file, read at each start)
cat > "$W/pw.c" <<'C'
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + leaf(x + 1); }
int main(int argc, char **argv)
{
	volatile int r = 0;

	(void)argc;
	while (access(argv[1], F_OK)) {
		r += mid(4);
		usleep(5000);
	}
	return 0;
}
C
gcc -O1 -no-pie -fno-pie -o "$W/pw" "$W/pw.c" || { not_ok "cannot build pw.c"; exit 1; }
waddr() { printf '0x%x' $((0x$(nm "$W/pw" | awk -v s="$1" '$3 == s { print $1 }') + $2)); }
"$W/gen" "$W/wrecs" 1 2 "$(waddr main 4)" "$(waddr mid 0)" "$(waddr mid 5)" "$(waddr leaf 0)" \
	0 1 "$(waddr mid 9)" "$(waddr main 9)"
{
	echo "# tracer: hw-branch"
	echo "#"
	echo "# CPU#        FROM                   TO         FUNCTION"
	echo "#  |           |                     |             |"
	echo "   1  $(hex16 $(waddr main 4)) -> $(hex16 $(waddr mid 0)) main"
	echo "   1  $(hex16 $(waddr mid 5)) -> $(hex16 $(waddr leaf 0)) mid"
	echo "   0  $(hex16 $(waddr mid 9)) -> $(hex16 $(waddr main 9)) mid"
} > "$W/wwant"
mkdir "$W/mnt"
USERTRACE_HW_BRANCH_RECORDS="$W/wrecs" "$UT" mount "$W/mnt" -- "$W/pw" "$W/wstop" > "$W/d.out" 2> "$W/d.err" &
D=$!
trap 'touch "$W/wstop"; "$UT" umount "$W/mnt" >/dev/null 2>&1; kill $D 2>/dev/null; wait $D 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 100); do
	PID=$(pgrep -n -f "^$W/pw $W/wstop" || true)
	[ -n "$PID" ] && "$UT" ctl -p "$PID" read available_tracers > "$W/avail" 2>/dev/null && break
	sleep 0.05
done
C=(ctl -p "$PID")
grep -qw hw-branch "$W/avail" && ok "tracing directory: hw-branch in available_tracers (the file source)" ||
	not_ok "tracing directory: available_tracers: $(cat "$W/avail")"
expect 0 "" -- "$UT" "${C[@]}" write current_tracer hw-branch
"$UT" "${C[@]}" read trace > "$W/got" 2>&1
diff -u "$W/wwant" "$W/got" > "$W/diff" && ok "tracing directory: trace has the kernel's hw-branch lines" ||
	{ not_ok "tracing directory: trace"; sed 's/^/# /' "$W/diff" "$W/d.err"; }
"$UT" "${C[@]}" write options/sym-offset 1
"$UT" "${C[@]}" read trace | grep -v '^#' | awk '{ print $NF }' > "$W/got"
"$UT" "${C[@]}" write options/sym-offset 0
wsz() { printf '0x%x' $((0x$(nm -S "$W/pw" | awk -v s="$1" '$4 == s { print $2 }'))); }
printf '%s\n' "main+0x4/$(wsz main)" "mid+0x5/$(wsz mid)" "mid+0x9/$(wsz mid)" > "$W/want"
diff -u "$W/want" "$W/got" > "$W/diff" && ok "tracing directory: options/sym-offset" ||
	{ not_ok "tracing directory: sym-offset"; sed 's/^/# /' "$W/diff"; }
# another tracer: the buffer is reset, and nop shows no hw_branch entry
"$UT" "${C[@]}" write current_tracer nop
sleep 0.1
[ "$("$UT" "${C[@]}" read trace | grep -c 'hw_branch\|->')" = 0 ] &&
	ok "tracing directory: back to nop, no branch lines" ||
	not_ok "tracing directory: nop: $("$UT" "${C[@]}" read trace | grep -v '^#' | head -3)"
# tracing_on 0: the source writes nothing
"$UT" "${C[@]}" write tracing_on 0
"$UT" "${C[@]}" write current_tracer hw-branch
[ "$("$UT" "${C[@]}" read trace | grep -vc '^#')" = 0 ] && ok "tracing directory: tracing_on 0, no lines" ||
	not_ok "tracing directory: tracing_on 0: $("$UT" "${C[@]}" read trace | grep -v '^#' | head -3)"
"$UT" "${C[@]}" write current_tracer nop
"$UT" "${C[@]}" write tracing_on 1
# an instance's tracer: its lines are its own; the top (nop) shows none
"$UT" "${C[@]}" mkdir instances/hwb
"$UT" "${C[@]}" write instances/hwb/current_tracer hw-branch
"$UT" "${C[@]}" read instances/hwb/trace > "$W/got" 2>&1
diff -u "$W/wwant" "$W/got" > "$W/diff" && ok "tracing directory: an instance's hw-branch lines" ||
	{ not_ok "tracing directory: instance trace"; sed 's/^/# /' "$W/diff"; }
[ "$("$UT" "${C[@]}" read trace | grep -vc '^#')" = 0 ] && ok "tracing directory: the top (nop) shows none of them" ||
	not_ok "tracing directory: the top shows: $("$UT" "${C[@]}" read trace | grep -v '^#' | head -3)"
# the program ends: the instance's lines stay (post-mortem reading)
touch "$W/wstop"
for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
"$UT" ctl -m "$W/mnt" read instances/hwb/trace > "$W/got" 2>&1
diff -u "$W/wwant" "$W/got" > "$W/diff" && ok "tracing directory: the lines stay after the program ends" ||
	{ not_ok "tracing directory: post-mortem"; sed 's/^/# /' "$W/diff"; }
"$UT" umount "$W/mnt" > /dev/null 2>&1
wait $D 2>/dev/null
grep -q . "$W/d.err" && { not_ok "the daemon said: $(head -3 "$W/d.err")"; } || ok "the daemon said nothing"

# a machine with branch-stack sampling: the program's own branches, in the same lines
rm -rf "$W/d"
if "$UT" record -o "$W/d" -t hw-branch -- "$W/p" > /dev/null 2> "$W/err"; then
	if grep -q "perf_event_open branch-stack sampling" "$W/err"; then
		bad=$("$UT" replay -i "$W/d" | grep -v '^#' | grep -cvE '^ +[0-9]+  0x[0-9a-f]{16} -> 0x[0-9a-f]{16} ')
		[ "$bad" = 0 ] && ok "branch-stack sampling: every line in the kernel's shape" ||
			not_ok "branch-stack sampling: $bad lines of another shape"
	else
		not_ok "record -t hw-branch ran without saying its source"; sed 's/^/# /' "$W/err"
	fi
else
	echo "ok $((n += 1)) - $SUITE: real branches # SKIP $(grep -o 'not available on this machine: .*' "$W/err" | head -1)"
fi
