#!/bin/bash
# description: bad commands, options and data give a message and a non-zero status, never a crash
SUITE=bad-input
. "$(dirname "$0")/lib.sh"

expect 2 'usage' -- "$UT"
expect 2 "unknown command 'frobnicate'" -- "$UT" frobnicate
expect 2 'no program to run' -- "$UT" record
expect 2 'no program to run' -- "$UT" record -o "$W/d" --
expect 2 "invalid buffer size 'lots'" -- "$UT" record -b lots -- true
expect 2 "invalid buffer size '1'" -- "$UT" record -b 1 -- true
expect 2 "unknown tracer 'bogus' \\(available: function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace nop\\)" -- env USERTRACE_HW_BRANCH=off "$UT" record -t bogus -- true
# a tracer this machine cannot run: the reason (USERTRACE_HW_BRANCH=off stands for a machine without branch records)
expect 2 "tracer 'hw-branch' is not available on this machine: turned off by USERTRACE_HW_BRANCH=off" -- env USERTRACE_HW_BRANCH=off "$UT" record -t hw-branch -- touch "$W/ran"
[ ! -e "$W/ran" ] && ok "record -t hw-branch: the program not run" || not_ok "record -t hw-branch ran the program"
# a machine without them (no intel_bts, intel_pt, nor cpu PMU: the development VMs): what was checked
D=/sys/bus/event_source/devices
if [ ! -e $D/intel_bts ] && [ ! -e $D/intel_pt ] && [ ! -e $D/cpu ]; then
	expect 2 "tracer 'hw-branch' is not available on this machine: no intel_bts or intel_pt PMU, and perf_event_open of branch-stack sampling \\(LBR, BRS\\) fails: the CPU offers no hardware branch event \\(ENOENT\\)" -- "$UT" record -t hw-branch -- true
fi
# record -f: a bad filter fails before the program runs, with the kernel's text
expect 2 "no -e before it" -- "$UT" record -o "$W/d" -f 'id == 1' -- touch "$W/ran"
expect 2 "has a filter already" -- "$UT" record -o "$W/d" -e a:b -f 'id == 1' -f 'id == 2' -- touch "$W/ran"
expect 2 'does not parse' -- "$UT" record -o "$W/d" -e sample:request -f 'id == abc' -- touch "$W/ran"
printf '%s\n' "usertrace: -f: the filter of -e 'sample:request' does not parse:" 'id == abc' \
	'       ^' 'parse_error: Invalid value (did you forget quotes)?' > "$W/want"
if diff -u "$W/want" "$W/err" > "$W/diff" && [ ! -e "$W/ran" ]; then
	ok "record -f: the kernel's error text, the program not run"
else
	not_ok "record -f: the kernel's error text, the program not run"; sed 's/^/# /' "$W/diff"
fi
expect 2 "Too many '\('" -- "$UT" record -o "$W/d" -e 'sample:*' -f '(common_pid == 1' -- true
expect 1 "cannot run '/nonexistent/prog': No such file or directory" -- "$UT" record -o "$W/d" -- /nonexistent/prog
expect 1 "cannot run '$W': Permission denied" -- "$UT" record -o "$W/d2" -- "$W"
expect 1 'cannot open data directory' -- "$UT" replay -i "$W/none"
expect 1 'cannot open data directory' -- "$UT" report -i "$W/none"
mkdir -p "$W/empty"
expect 1 'not a usertrace data directory' -- "$UT" replay -i "$W/empty"
echo hello > "$W/file"
expect 1 '' -- "$UT" replay -i "$W/file"
printf 'x' > "$W/notdir"
expect 1 'is not a usertrace data directory' -- "$UT" record -o "$W/notdir" -- true

# a good recording to corrupt
cat > "$W/p.c" <<'C'
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { return f(1) - 2; }
C
gcc -pg -mfentry -O2 -o "$W/p" "$W/p.c"
"$UT" record -o "$W/good" -- "$W/p" > /dev/null 2>&1
expect 2 "unknown tracer 'bogus' \\(available: function_graph wakeup_rt wakeup preemptirqsoff preemptoff irqsoff function sched_switch branch kmemtrace sysprof initcall power mmiotrace hw-branch nop\\)" -- "$UT" replay -i "$W/good" -t bogus
expect 2 "unknown option 'no-such-option'" -- "$UT" replay -i "$W/good" -O no-such-option
expect 2 "invalid thread list 'x1'" -- "$UT" replay -i "$W/good" --tid x1
expect 2 "unknown sort key 'nope'" -- "$UT" report -i "$W/good" -s nope

"$UT" record --compress=none -o "$W/raw" -- "$W/p" > /dev/null 2>&1
cp -r "$W/good" "$W/version" && sed -i 's/^version=2/version=99/' "$W/version/info"
expect 1 'unsupported data version 99' -- "$UT" replay -i "$W/version"
cp -r "$W/good" "$W/noinfo" && rm "$W/noinfo/info"
expect 1 'not a usertrace data directory' -- "$UT" replay -i "$W/noinfo"
# a version 1 directory (no file extension, pages as they are) still reads
"$UT" replay -i "$W/raw" > "$W/want" 2>&1
cp -r "$W/raw" "$W/v1" && sed -i 's/^version=2/version=1/; /^compression=/d' "$W/v1/info"
t=$(ls "$W"/v1/*.dat | head -1) && dd if=/dev/zero of="$t" bs=1 seek=2048 count=2048 conv=notrunc 2>/dev/null
"$UT" replay -i "$W/v1" > "$W/got" 2>&1
diff -q "$W/want" "$W/got" > /dev/null && grep -q 'f();' "$W/got" && ok "a version 1 recording reads as before" ||
	not_ok "version 1 recording"
# the same call graph from compressed and uncompressed pages
"$UT" replay -i "$W/good" > "$W/gotz" 2>&1
sed 's/^.*|//' "$W/want" > "$W/a"; sed 's/^.*|//' "$W/gotz" > "$W/b"
diff -q "$W/a" "$W/b" > /dev/null && ok "zstd and none give the same graph" || not_ok "zstd vs none"
t=$(ls "$W"/raw/*.dat | head -1)
[ "$(stat -c %s "$t")" -gt "$(stat -c %s "$(ls "$W"/good/*.dat | head -1)")" ] &&
	ok "--compress=none keeps the pages as they are (larger)" || not_ok "compress none size"
# corrupt files, compressed (good) and not (raw): a message, never a crash
# (what is kept around the damage: t-damage.sh)
for kind in good raw; do
	cp -r "$W/$kind" "$W/trunc" && t=$(ls "$W"/trunc/*.dat | head -1) && truncate -s 5000 "$t"
	expect 1 'truncated|damaged' -- "$UT" replay -i "$W/trunc"
	cp -r "$W/$kind" "$W/badhdr" && t=$(ls "$W"/badhdr/*.dat | head -1) && printf 'garbage!' | dd of="$t" conv=notrunc 2>/dev/null
	expect 1 'header page \(bytes 0-4095\) damaged \(not a buffer header: its magic or version\)' -- "$UT" replay -i "$W/badhdr"
	# records overwritten with random bytes: an error message, no crash
	for seed in 1 2 3 4 5 6 7 8; do
		rm -rf "$W/rand"; cp -r "$W/$kind" "$W/rand"
		t=$(ls "$W"/rand/*.dat | head -1)
		perl -e 'srand($ARGV[0]); print map { chr(int(rand(256))) } 1..4064' $seed | dd of="$t" bs=1 seek=4128 conv=notrunc 2>/dev/null
		expect 1 'damaged' -- "$UT" replay -i "$W/rand"
		expect 1 '' -- "$UT" report -i "$W/rand"
	done
	rm -rf "$W/trunc" "$W/badhdr" "$W/rand"
done
# a commit count past the page: corrupt page
cp -r "$W/raw" "$W/commit"
t=$(ls "$W"/commit/*.dat | head -1)
printf '\377\377\377\377' | dd of="$t" bs=1 seek=$((4096 + 16)) conv=notrunc 2>/dev/null
expect 1 'page 0 \(bytes 4096-8191\) damaged \(commit 4294967295 past the page\): skipped, 1 page' -- "$UT" replay -i "$W/commit"
# a chunk that claims more pages than a chunk holds: skipped, said
cp -r "$W/good" "$W/chunk"
t=$(ls "$W"/chunk/*.dat | head -1)
printf '\377\000\000\000' | dd of="$t" bs=1 seek=$((4096 + 8)) conv=notrunc 2>/dev/null
expect 1 'bytes 4096-[0-9]+ damaged \(a chunk header that cannot be read\)' -- "$UT" replay -i "$W/chunk"
# a frame that does not decompress to its pages
cp -r "$W/good" "$W/frame"
t=$(ls "$W"/frame/*.dat | head -1)
printf '\002\000\000\000' | dd of="$t" bs=1 seek=$((4096 + 8)) conv=notrunc 2>/dev/null
expect 1 'bytes 4096-[0-9]+ damaged \(its frame does not decompress: wrong size\)' -- "$UT" replay -i "$W/frame"
expect 2 "invalid compression 'lz4'" -- "$UT" record --compress=lz4 -- "$W/p"
expect 2 "invalid zstd level in 'zstd:99'" -- "$UT" record --compress=zstd:99 -- "$W/p"
expect 2 "invalid zstd level in 'zstd:'" -- "$UT" record --compress=zstd: -- "$W/p"
expect 0 '' -- "$UT" record -o "$W/z19" --compress=zstd:19 -- "$W/p"
grep -q '^compression=zstd:19$' "$W/z19/info" && ok "info names the level" || not_ok "info compression"

# filters: a pattern that selects no call site is refused as the kernel
# refuses it (EINVAL); the program is stopped before its main (status 2;
# more in t-filter-startup.sh)
gcc -fpatchable-function-entry=5 -O2 -o "$W/pfe" "$W/p.c"
expect 2 "set_ftrace_filter: 'nomatch\*': no function matches \(EINVAL\)" -- "$UT" record -o "$W/f1" -F 'nomatch*' -- "$W/pfe"
expect 2 "set_ftrace_notrace: 'zz': no function matches \(EINVAL\)" -- "$UT" record -o "$W/f2" -N zz -- "$W/pfe"
expect 2 'empty filter pattern' -- "$UT" record -o "$W/f3" -F '' -- "$W/pfe"
# functions without a call site (the start-up code) cannot be traced: no
# match, in patched code and in code that calls the hooks
for prog in pfe p; do
	for f in _start _init frame_dummy; do
		expect 2 "set_ftrace_filter: '$f': no function matches \(EINVAL\)" -- \
			"$UT" record -o "$W/fs.$prog.$f" -F $f -- "$W/$prog"
	done
done
# the graph filters and function commands, also filtered in the hooks of -pg code
expect 2 "set_graph_function: 'zz': no function matches \(EINVAL\)" -- "$UT" record -o "$W/f4" -G zz -- "$W/p"
expect 2 "set_graph_notrace: 'g\*': no function matches \(EINVAL\)" -- "$UT" record -o "$W/f5" --graph-notrace 'g*' -- "$W/pfe"
expect 2 "set_ftrace_filter: 'nope:traceoff': no function matches \(EINVAL\)" -- "$UT" record -o "$W/f6" -T nope:traceoff -- "$W/p"
expect 2 "-T 'f:bogus': unknown command 'bogus'" -- "$UT" record -T f:bogus -- "$W/p"
expect 2 "-T 'f': expected FUNC:COMMAND" -- "$UT" record -T f -- "$W/p"
expect 2 "-T 'f:traceon:x': invalid count 'x'" -- "$UT" record -T f:traceon:x -- "$W/p"
expect 2 "invalid depth 'deep'" -- "$UT" record -D deep -- "$W/p"
expect 2 "invalid depth '-1'" -- "$UT" record -D -1 -- "$W/p"
expect 2 "invalid time '5parsecs'" -- "$UT" record --thresh 5parsecs -- "$W/p"
