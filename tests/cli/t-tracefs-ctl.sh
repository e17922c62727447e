#!/bin/bash
# description: usertrace mount's session daemon, driven through usertrace ctl
SUITE=tracefs-ctl
. "$(dirname "$0")/lib.sh"

start_session 3

ctl() { "$UT" ctl -p $D "$@"; }
for i in $(seq 100); do ctl read tracing_on > /dev/null 2>&1 && break; sleep 0.1; done

[ "$(ctl read tracing_on 2>&1)" = 1 ] && ok "tracing_on is 1 at start" || not_ok "tracing_on: $(ctl read tracing_on 2>&1)"
[ "$(ctl read current_tracer 2>&1)" = nop ] && ok "current_tracer is nop at start" \
	|| not_ok "current_tracer: $(ctl read current_tracer 2>&1)"
av=$(ctl read available_tracers 2>&1)
case " $av " in *" function_graph "*) case " $av " in *" function "*) ok "available_tracers: $av" ;; *) not_ok "available_tracers: $av" ;; esac ;;
	*) not_ok "available_tracers: $av" ;; esac
# the docs show the list as it is (hw-branch only where the CPU gives branch records)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
for doc in README.md doc/tracing-files.md; do
	shown=$(grep -A1 -x '\$ cat available_tracers' "$SRC/$doc" | sed -n 2p)
	[ "$shown" = "$(echo "$av" | sed 's/ hw-branch / /')" ] && ok "$doc shows available_tracers as it is" ||
		{ not_ok "$doc shows available_tracers as '$shown', it is '$av'"; }
done
ctl ls > "$W/ls" 2>&1
grep -qx trace_pipe "$W/ls" && grep -qx current_tracer "$W/ls" && ok "ls lists trace_pipe and current_tracer" \
	|| { not_ok "ls"; sed 's/^/# /' "$W/ls"; }

# the program's pid finds the session too
P=$(pgrep -P $D -f "$W/loop" | head -1)
if [ -n "$P" ] && [ "$("$UT" ctl -p "$P" read current_tracer 2>&1)" = nop ]; then
	ok "ctl -p <traced pid> finds the session"
else
	not_ok "ctl -p <traced pid ${P:-?}>"
fi

expect 1 "current_tracer: Invalid argument" -- "$UT" ctl -p $D write current_tracer bogus
expect 1 "no_such_file: No such file or directory" -- "$UT" ctl -p $D read no_such_file
[ "$(ctl read current_tracer 2>&1)" = nop ] && ok "a bad tracer changes nothing" || not_ok "bad tracer changed current_tracer"

ctl write tracing_on 0 && [ "$(ctl read tracing_on)" = 0 ] && ok "tracing_on 0" || not_ok "tracing_on 0"
ctl write tracing_on 1 && [ "$(ctl read tracing_on)" = 1 ] && ok "tracing_on 1" || not_ok "tracing_on 1"

ctl write current_tracer function_graph && [ "$(ctl read current_tracer)" = function_graph ] \
	&& ok "current_tracer switched to function_graph" || not_ok "switch to function_graph"
for i in $(seq 50); do ctl read trace 2>/dev/null | grep -q 'leaf();' && break; sleep 0.1; done
ctl read trace > "$W/trace" 2>&1
if head -1 "$W/trace" | grep -q '^# tracer: function_graph' && grep -qE '\|  work\(\) \{' "$W/trace" \
	&& grep -qE '[0-9]+\.[0-9]+ us +\|    leaf\(\);' "$W/trace"; then
	ok "trace shows function_graph lines"
else
	not_ok "trace after switching"; head -20 "$W/trace" | sed 's/^/# /'
fi
# read until the first call comes (not for a fixed time, which a busy
# machine may spend before the reader starts); the timeout only fails it
timeout 30 "$UT" ctl -p $D read trace_pipe 2>&1 | grep -m1 -A0 'leaf();' > "$W/pipe"
grep -q 'leaf();' "$W/pipe" && ok "trace_pipe streams" || { not_ok "trace_pipe"; head -5 "$W/pipe" | sed 's/^/# /'; }

# echo > trace clears it: the work() calls made before are gone
ctl write tracing_on 0
ctl write trace && ctl read trace > "$W/trace2" 2>&1
if grep -q '^#' "$W/trace2" && ! grep -q 'work()' "$W/trace2"; then
	ok "echo > trace clears"
else
	not_ok "trace not cleared"; head -10 "$W/trace2" | sed 's/^/# /'
fi
ctl write tracing_on 1
ctl write current_tracer nop
ctl read trace > "$W/trace3" 2>&1
head -1 "$W/trace3" | grep -q '^# tracer: nop' && ok "trace of nop has its header" \
	|| { not_ok "trace with nop"; head -3 "$W/trace3" | sed 's/^/# /'; }
ctl append set_ftrace_filter work >/dev/null 2>&1; ctl write set_ftrace_filter >/dev/null 2>&1
ctl read set_ftrace_filter > "$W/filt" 2>&1; st=$?
[ $st = 0 ] && ! grep -q '^work$' "$W/filt" && ok "write truncates a list" || not_ok "write set_ftrace_filter"

# the program ends; the daemon keeps serving until umount
touch "$W/stop"
for i in $(seq 50); do [ -z "$(pgrep -P $D -f "$W/loop")" ] && break; sleep 0.1; done
[ "$(ctl read current_tracer 2>&1)" = nop ] && ok "post-mortem reading" || not_ok "post-mortem: $(ctl read current_tracer 2>&1)"
S=$(ls -d /dev/shm/usertrace.* 2>/dev/null | while read s; do [ "$(cat "$s/daemon" 2>/dev/null)" = $D ] && echo "$s"; done)
expect 0 "" -- "$UT" umount "$W/mnt"
for i in $(seq 50); do kill -0 $D 2>/dev/null || break; sleep 0.1; done
if kill -0 $D 2>/dev/null; then
	not_ok "daemon still running after umount"
else
	wait $D; st=$?
	[ $st = 3 ] && ok "umount ends the daemon with the program's status 3" || not_ok "daemon status $st, expected 3"
fi
[ -n "$S" ] && [ ! -e "$S" ] && ok "session directory removed" || not_ok "session directory ${S:-?} left"
expect 1 "process $D: No such process" -- "$UT" ctl -p $D read trace
expect 1 "is not traced by usertrace" -- "$UT" ctl -p $$ read trace
expect 1 "no usertrace session is mounted" -- "$UT" umount "$W/mnt"
expect 2 "which session" -- "$UT" ctl read trace
