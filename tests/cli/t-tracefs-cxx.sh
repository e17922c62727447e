#!/bin/bash
# description: C++ names in the function lists of the tracing directory: the
# mangled names of available_filter_functions select the calls shown demangled,
# at the top and in an instance
SUITE=tracefs-cxx
. "$(dirname "$0")/lib.sh"

cat > "$W/p.cc" <<'C'
#include <time.h>
#include <unistd.h>
namespace ns {
__attribute__((noinline)) int foo(int x) { return x + 1; }
__attribute__((noinline)) int bar(int x) { return foo(x) * 2; }
}
volatile int sink;
int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };

	while (argc > 1 && access(argv[1], F_OK) != 0) {
		sink += ns::bar(1);
		nanosleep(&ms, 0);
	}
	return 0;
}
C
g++ -O2 -pg -mfentry -o "$W/p" "$W/p.cc" || { not_ok "cannot build p.cc"; echo "0 passed, 1 failed"; exit 1; }
mkdir "$W/mnt"
"$UT" mount "$W/mnt" -- "$W/p" "$W/stop" > "$W/d.out" 2> "$W/d.err" &
D=$!
trap 'touch "$W/stop"; "$UT" umount "$W/mnt" >/dev/null 2>&1; kill $D 2>/dev/null; wait $D 2>/dev/null; rm -rf "$W"' EXIT
ctl() { "$UT" ctl -p $D "$@"; }
wait_for() {	# FILE PATTERN
	for _ in $(seq 100); do ctl read "$1" 2>/dev/null | grep -qE -e "$2" && return 0; sleep 0.05; done
	return 1
}

if wait_for available_filter_functions '^_ZN2ns3fooEi$'; then
	ok "available_filter_functions lists the mangled names"
else
	not_ok "available_filter_functions"; ctl read available_filter_functions 2>&1 | head -5 | sed 's/^/# /'
fi
ctl mkdir instances/f
ctl write instances/f/set_ftrace_filter _ZN2ns3fooEi
ctl write instances/f/current_tracer function
if wait_for instances/f/trace 'ns::foo <-ns::bar' && ! ctl read instances/f/trace | grep -q 'ns::bar <-'; then
	ok "an instance's mangled filter selects ns::foo"
else
	not_ok "instance filter"; ctl read instances/f/trace 2>&1 | tail -5 | sed 's/^/# /'
fi
ctl write instances/f/set_ftrace_filter ''
ctl write instances/f/set_ftrace_notrace _ZN2ns3fooEi
ctl write instances/f/trace ''
if wait_for instances/f/trace 'ns::bar <-main' && ! ctl read instances/f/trace | grep -q 'ns::foo'; then
	ok "an instance's mangled notrace leaves ns::foo out"
else
	not_ok "instance notrace"; ctl read instances/f/trace 2>&1 | tail -5 | sed 's/^/# /'
fi
ctl write set_ftrace_filter '_ZN2ns3b*'
ctl write current_tracer function
if wait_for trace 'ns::bar <-main' && ! ctl read trace | grep -q 'ns::foo'; then
	ok "the top's glob on mangled names selects ns::bar"
else
	not_ok "top filter"; ctl read trace 2>&1 | tail -5 | sed 's/^/# /'
fi
ctl rmdir instances/f
kill -0 "$(pgrep -P $D -f "$W/p" | head -1)" 2>/dev/null && ok "the program runs on" || not_ok "the program is gone"
