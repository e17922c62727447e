#!/bin/bash
# description: the tracing directory mounted with FUSE by usertrace mount
SUITE=tracefs-fuse
. "$(dirname "$0")/lib.sh"

if [ ! -c /dev/fuse ] || ! command -v fusermount3 > /dev/null; then
	ok "# SKIP no /dev/fuse or no fusermount3"
	exit 0
fi
start_session 5
M=$W/mnt
for i in $(seq 100); do [ -e "$M/current_tracer" ] && break; grep -q "cannot mount" "$W/d.err" && break; sleep 0.1; done
if [ ! -e "$M/current_tracer" ]; then
	# e.g. a container without the right to mount
	ok "# SKIP FUSE mount not possible here: $(grep -m1 'cannot mount' "$W/d.err")"
	exit 0
fi

[ "$(stat -c %a "$M")" = 700 ] && ok "directory mode 700" || not_ok "directory mode $(stat -c %a "$M")"
[ "$(stat -c %a "$M/trace_pipe")" = 440 ] && [ "$(stat -c %a "$M/current_tracer")" = 640 ] \
	&& ok "file modes as tracefs" || not_ok "modes: $(stat -c '%n %a' "$M/trace_pipe" "$M/current_tracer")"
[ "$(cat "$M/tracing_on")" = 1 ] && ok "tracing_on 1" || not_ok "tracing_on: $(cat "$M/tracing_on")"
[ "$(cat "$M/current_tracer")" = nop ] && ok "current_tracer nop" || not_ok "current_tracer: $(cat "$M/current_tracer")"
grep -qw function_graph "$M/available_tracers" && grep -qw function "$M/available_tracers" \
	&& ok "available_tracers" || not_ok "available_tracers: $(cat "$M/available_tracers")"

( echo bogus > "$M/current_tracer" ) 2> "$W/e"; st=$?
[ $st = 1 ] && grep -q "Invalid argument" "$W/e" && ok "bad tracer: Invalid argument" \
	|| { not_ok "bad tracer: status $st"; sed 's/^/# /' "$W/e"; }
expect 1 "current_tracer: Invalid argument" -- "$UT" ctl -m "$M" write current_tracer bogus

echo 0 > "$M/tracing_on" && [ "$(cat "$M/tracing_on")" = 0 ] && ok "echo 0 > tracing_on" || not_ok "tracing_on 0"
echo 1 > "$M/tracing_on" && [ "$("$UT" ctl -p $D read tracing_on)" = 1 ] && ok "echo 1 > tracing_on, seen by ctl" \
	|| not_ok "tracing_on 1"

echo function_graph > "$M/current_tracer" && [ "$(cat "$M/current_tracer")" = function_graph ] \
	&& ok "current_tracer switched" || not_ok "current_tracer switch"
for i in $(seq 50); do grep -q 'leaf();' "$M/trace" 2>/dev/null && break; sleep 0.1; done
if head -1 "$M/trace" | grep -q '^# tracer: function_graph' && grep -qE '\|  work\(\) \{' "$M/trace"; then
	ok "trace shows function_graph lines"
else
	not_ok "trace"; head -10 "$M/trace" | sed 's/^/# /'
fi
# a reader blocked in trace_pipe does not block the other files
timeout 3 cat "$M/trace_pipe" > "$W/pipe" 2>/dev/null &
C=$!
sleep 0.3
[ "$(timeout 2 cat "$M/current_tracer")" = function_graph ] && ok "other files served while trace_pipe is read" \
	|| not_ok "blocked by trace_pipe"
wait $C
grep -q 'leaf();' "$W/pipe" && ok "trace_pipe" || not_ok "trace_pipe empty"

echo 0 > "$M/tracing_on"
echo > "$M/trace"
grep -q 'work()' "$M/trace" && not_ok "echo > trace did not clear" || ok "echo > trace clears"
echo 1 > "$M/tracing_on"
ls "$M" > "$W/ls"
grep -qx trace_pipe "$W/ls" && grep -qx options "$W/ls" && ok "ls" || not_ok "ls"

touch "$W/stop"
expect 0 "" -- "$UT" umount "$M"
for i in $(seq 50); do kill -0 $D 2>/dev/null || break; sleep 0.1; done
if kill -0 $D 2>/dev/null; then
	not_ok "daemon still running after umount"
else
	wait $D; st=$?
	[ $st = 5 ] && ok "umount ends the daemon with the program's status" || not_ok "daemon status $st, expected 5"
fi
grep -q " $M " /proc/mounts && not_ok "still mounted" || ok "unmounted"

# fusermount3 -u also ends it
rm -f "$W/stop"
"$UT" mount "$M" -- "$W/loop" "$W/stop" 2> "$W/d.err" &
D=$!
for i in $(seq 100); do [ -e "$M/current_tracer" ] && break; sleep 0.1; done
touch "$W/stop"
sleep 0.3
fusermount3 -u "$M" 2>/dev/null || umount "$M"
for i in $(seq 50); do kill -0 $D 2>/dev/null || break; sleep 0.1; done
kill -0 $D 2>/dev/null && not_ok "daemon survives fusermount3 -u" || ok "fusermount3 -u ends the daemon"
expect 1 "No such process" -- "$UT" ctl -p $D read trace
