#!/bin/bash
# description: what a new user is told: no instrumentation, a crash, help, bad options, options a tracer ignores
SUITE=messages
. "$(dirname "$0")/lib.sh"
# strsignal()'s texts
export LC_ALL=C

cat > "$W/app.c" <<'C'
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void run(int x) { sink += x; }
noinline void other(int x) { run(x); }
int main(int argc, char **argv)
{
	run(1);
	other(2);
	if (argc > 1 && argv[1][0] == 's')
		raise(SIGSEGV);
	if (argc > 2)
		execl(argv[2], argv[2], (char *)0);
	return argc > 1 ? atoi(argv[1]) : 0;
}
C
gcc -O2 -o "$W/plain" "$W/app.c" && cp "$W/plain" "$W/plain2" || exit 1
gcc -pg -mfentry -O2 -o "$W/pg" "$W/app.c" || exit 1
gcc -finstrument-functions -O2 -o "$W/cyg" "$W/app.c" || exit 1
gcc -fpatchable-function-entry=5 -O2 -o "$W/pfe" "$W/app.c" || exit 1
# nops and __mcount_loc alone: no call to any hook
gcc -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie -O2 -o "$W/nopmcount" "$W/app.c" || exit 1

# 1. no instrumentation: which programs, why, and the flags that give it
noinstr() {
	echo "usertrace: warning: no function was traced: nothing in $1 or the libraries ${2:-it} loaded is instrumented
  (no calls to mcount, __fentry__ or __cyg_profile_func_enter, no __mcount_loc or __patchable_function_entries)
  build ${3:-it} with -pg, -pg -mfentry, -finstrument-functions or -fpatchable-function-entry=5; events need none (-e, -t sched_switch)"
}
exact 0 "$(noinstr plain)" -- "$UT" record -o "$W/d" -- "$W/plain"
exact 0 "$(noinstr plain)" -- "$UT" live -- "$W/plain"
printf '%s\n' '# tracer: function_graph' '#' '# CPU  DURATION                  FUNCTION CALLS' \
	'# |     |   |                     |   |   |   |' > "$W/want"
if diff -u "$W/want" "$W/out" > "$W/diff"; then ok "live: the bare header"; else not_ok "live: the bare header"; sed 's/^/# /' "$W/diff"; fi
exact 0 "$(noinstr plain)" -- "$UT" record -o "$W/d" -t function -- "$W/plain"
# read later, the empty table says why again
exact 0 "usertrace: warning: $W/d has no function call: nothing in plain or the libraries it loaded is instrumented (build with -pg, -pg -mfentry, -finstrument-functions or -fpatchable-function-entry=5)" -- "$UT" report -i "$W/d"
exact 0 "usertrace: warning: $W/d has no function call: nothing in plain or the libraries it loaded is instrumented (build with -pg, -pg -mfentry, -finstrument-functions or -fpatchable-function-entry=5)" -- "$UT" report -i "$W/d" --stat
"$UT" record -o "$W/d" -- "$W/pg" 2> /dev/null
exact 0 "" -- "$UT" report -i "$W/d"
# a -O the tracer does not have: a usage error, and where the right ones are
exact 2 "usertrace: unknown option 'funcgraph-proc,funcgraph-abstime' for the function_graph tracer (see usertrace replay -h)" -- "$UT" replay -i "$W/d" -O funcgraph-proc,funcgraph-abstime
# a thread that is not in the recording: those that are
tid=$("$UT" dump -i "$W/d" | sed -n 's/^# thread [0-9]*\.\([0-9]*\) .*/\1/p')
exact 1 "usertrace: $W/d: no thread 999999999 in the recording (its thread: $tid)" -- "$UT" replay -i "$W/d" --tid 999999999
exact 0 "$(noinstr plain)" -- "$UT" record -o "$W/d" -t irqsoff -- "$W/plain"
exact 0 "$(noinstr plain)" -- "$UT" record -o "$W/d" -t nop --func-profile -- "$W/plain"
# two programs: both named
exact 0 "$(noinstr 'plain, plain2' they them)" -- "$UT" record -o "$W/d" -- "$W/plain" 0 "$W/plain2"
# a static program: the runtime is not loaded at all
if gcc -static -pg -O2 -o "$W/static" "$W/app.c" 2> /dev/null; then
	exact 0 "usertrace: warning: no function was traced: the runtime was loaded into no process of $W/static; a statically linked (or set-user-ID) program cannot be traced: LD_PRELOAD does not apply to it" -- "$UT" record -o "$W/d" -- "$W/static"
else
	ok "static program # SKIP no static C library"
fi
# instrumented builds, and tracers that need none: not a word
for b in pg cyg pfe nopmcount; do
	exact 0 "" -- "$UT" record -o "$W/d" -- "$W/$b"
done
exact 0 "" -- "$UT" record -o "$W/d" -t kmemtrace -- "$W/plain"
exact 0 "" -- "$UT" record -o "$W/d" -t initcall -- "$W/plain"
exact 0 "" -- "$UT" record -o "$W/d" -t irqsoff -O nofunction-trace -- "$W/plain"
exact 0 "" -- "$UT" record -o "$W/d" -e 'dl:*' -- "$W/plain"
# an uninstrumented program that dlopens an instrumented library: its calls are traced
dl_sources "$W" in_lib
gcc -pg -mfentry -O2 -fPIC -shared -o "$W/libin.so" "$W/plug.c" && gcc -O2 -o "$W/host" "$W/host.c" -ldl || exit 1
exact 0 "" -- "$UT" record -o "$W/d" -- "$W/host" "$W/libin.so"

# 9. a program killed by a signal is said, as a shell says it; the status is the program's
crash() { (ulimit -c 0; "$@"); }
exact 139 "usertrace: program killed by signal 11 (Segmentation fault), data saved" -- crash "$UT" record -o "$W/d" -- "$W/pg" s
if "$UT" replay -i "$W/d" 2>/dev/null | grep -q 'other()'; then ok "crash: the trace saved"; else not_ok "crash: the trace saved"; fi
exact 139 "usertrace: program killed by signal 11 (Segmentation fault)" -- crash "$UT" live -- "$W/pg" s
if grep -q 'other()' "$W/out"; then ok "crash: live printed the trace"; else not_ok "crash: live printed the trace"; fi
exact 3 "" -- "$UT" record -o "$W/d" -- "$W/pg" 3
exact 3 "" -- "$UT" live -o "$W/live.txt" -- "$W/pg" 3
# the mount daemon says it when it happens, and serves on
mkdir "$W/mnt"
(ulimit -c 0; exec "$UT" mount "$W/mnt" -- "$W/pg" s) > "$W/m.out" 2> "$W/m.err" &
M=$!
for i in $(seq 100); do grep -q 'killed' "$W/m.err" && break; sleep 0.1; done
"$UT" umount "$W/mnt" > /dev/null 2>&1
wait $M
st=$?
if [ $st = 139 ] && grep -qx "usertrace: program killed by signal 11 (Segmentation fault)\(; $W/mnt serves its trace until usertrace umount\)\?" "$W/m.err"; then
	ok "mount: the crash said, status 139"
else
	not_ok "mount: the crash said, status 139 (got $st)"; sed 's/^/# /' "$W/m.err"
fi

# 11. help: each command its own; a bad option is one line and where to look
"$UT" live -h > "$W/out" 2> "$W/err"; st=$?
if [ $st = 0 ] && head -1 "$W/out" | grep -q '^usage: usertrace live \[-o FILE\]' && grep -q 'print the trace to FILE' "$W/out" && [ ! -s "$W/err" ]; then
	ok "live -h: live's usage"
else
	not_ok "live -h: live's usage (status $st)"; head -3 "$W/out" "$W/err" | sed 's/^/# /'
fi
"$UT" dump -h > "$W/out" 2> "$W/err"; st=$?
if [ $st = 0 ] && head -1 "$W/out" | grep -q '^usage: usertrace dump' && grep -q -- '--chrome' "$W/out" && [ ! -s "$W/err" ]; then
	ok "dump -h: dump's usage"
else
	not_ok "dump -h: dump's usage (status $st)"; head -3 "$W/out" "$W/err" | sed 's/^/# /'
fi
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace record -h)" -- "$UT" record --frobnicate -- "$W/pg"
exact 2 "usertrace: unknown option '-x' (see usertrace record -h)" -- "$UT" record -x -- "$W/pg"
exact 2 "usertrace: option '-b' needs an argument (see usertrace record -h)" -- "$UT" record -b
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace live -h)" -- "$UT" live --frobnicate -- "$W/pg"
exact 2 "usertrace: option '-o' needs a file name (see usertrace live -h)" -- "$UT" live -o
exact 2 "usertrace: no program to run: usertrace live [options] -- PROG [ARGS...]" -- "$UT" live
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace dump -h)" -- "$UT" dump --frobnicate
exact 2 "usertrace: unknown option '-q' (see usertrace dump -h)" -- "$UT" dump -q
exact 2 "usertrace: option '--dat' needs an argument (see usertrace dump -h)" -- "$UT" dump --dat
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace report -h)" -- "$UT" report --frobnicate
exact 2 "usertrace: unexpected argument 'x' (see usertrace report -h)" -- "$UT" report x
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace replay -h)" -- "$UT" replay --frobnicate
exact 2 "usertrace: option '--tid' needs an argument (see usertrace replay -h)" -- "$UT" replay --tid
# no recording where the user is: where record writes it, how to read another
mkdir -p "$W/elsewhere"
for c in replay report dump; do
	exact 1 "usertrace: cannot open data directory usertrace.data: No such file or directory (usertrace record -- PROG writes it in the current directory; -i DIR reads another)" -- env -C "$W/elsewhere" "$UT" $c
done
exact 1 "usertrace: cannot open data directory $W/nowhere: No such file or directory" -- "$UT" replay -i "$W/nowhere"
# an unknown command, or an option before any: one line and where to look, not the whole usage
exact 2 "usertrace: unknown command 'frobnicate' (see usertrace -h)" -- "$UT" frobnicate
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace -h)" -- "$UT" --frobnicate
# umount takes no option: one is not a directory to look for a session in
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace umount -h)" -- "$UT" umount --frobnicate
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace ctl -h)" -- "$UT" ctl --frobnicate
exact 2 "usertrace: unknown option '--frobnicate' (see usertrace mount -h)" -- "$UT" mount --frobnicate

# a -f that applies to none of the built-in events of its -e: refused before the program runs
exact 2 "usertrace: -f: the filter does not apply to sched:sched_switch (-e 'sched:sched_switch'):
nosuch == 1
       ^
parse_error: Field not found" -- "$UT" record -o "$W/d" -e sched:sched_switch -f 'nosuch == 1' -- touch "$W/ran"
exact 2 "usertrace: -f: the filter applies to none of the 2 events -e 'kmem' selects; for kmem:kmalloc:
prev_pid == 1
         ^
parse_error: Field not found" -- "$UT" record -o "$W/d" -e kmem -f 'prev_pid == 1' -- touch "$W/ran"
if [ -e "$W/ran" ]; then not_ok "-f: the program ran"; else ok "-f: the program did not run"; fi
# one event of those it selects has the field: accepted, the others left out
exact 0 "usertrace: warning: event kmem:kfree was not recorded: its filter (-f) does not apply to it:
bytes_req > 100000
          ^
parse_error: Field not found" -- "$UT" record -o "$W/d" -e 'kmem' -f 'bytes_req > 100000' -- "$W/pg"

# graph options under a tracer that ignores them, as the kernel's function tracer does
graph_ign="(set_graph_function, set_graph_notrace and max_graph_depth are function_graph's; -t function_graph)"
exact 0 "usertrace: warning: -G, -D: the function tracer ignores them $graph_ign" -- "$UT" record -o "$W/d" -t function -G run -D 1 -- "$W/pg"
exact 0 "usertrace: warning: --graph-notrace: the function tracer ignores it $graph_ign" -- "$UT" record -o "$W/d" -t function --graph-notrace run -- "$W/pg"
exact 0 "usertrace: warning: --thresh: the function tracer ignores it (tracing_thresh is function_graph's and the latency tracers')" -- "$UT" record -o "$W/d" -t function --thresh 10 -- "$W/pg"
exact 0 "" -- "$UT" record -o "$W/d" -t function_graph -G run -D 1 --thresh 1 -- "$W/pg"
exact 0 "" -- "$UT" record -o "$W/d" -t irqsoff --thresh 10 -- "$W/pg"

echo "# $SUITE: $n tests"
