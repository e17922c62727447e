#!/bin/bash
# t-events.sh - record -e and the built-in events: ftrace:print needs no
# registration (trace_printk is always recorded, as the kernel's print);
# a pattern that selects nothing is warned about; the built-in events come
# from the runtime, so a program built without any instrumentation
# (/bin/true) has them too.
SUITE=events
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <usertrace/tracing.h>
int main(void)
{
	trace_printk("x=%d\n", 5);
	return 0;
}
C
gcc -O2 -I"$(dirname "$0")/../../include" -o "$W/p" "$W/p.c" || { not_ok "cannot build"; exit 1; }

"$UT" record -e ftrace:print -o "$W/d" -- "$W/p" > /dev/null 2> "$W/err"
if [ ! -s "$W/err" ] && "$UT" replay -O nocontext-info -i "$W/d" | grep -qx 'main: x=5'; then
	ok "-e ftrace:print: no warning, the print recorded"
else
	not_ok "-e ftrace:print"; sed 's/^/# /' "$W/err"
fi

expect 0 "-e 'nosuch:x': the program registered no such event" -- \
	"$UT" record -e nosuch:x -o "$W/d" -- "$W/p"

T=$(type -P true)
"$UT" record -e sched:sched_process_exec -e 'sched:sched_process_exit' -o "$W/d" -- "$T" > /dev/null 2> "$W/err"
got=$("$UT" replay -O nocontext-info -i "$W/d" 2> /dev/null | grep -v '^#' | sed 's/pid=[0-9]*/pid=N/g')
want="sched_process_exec: filename=$T pid=N old_pid=N
sched_process_exit: comm=true pid=N prio=120 group_dead=true"
if [ "$got" = "$want" ]; then
	ok "built-in events of an uninstrumented program ($T)"
else
	not_ok "built-in events of $T: '$got'"; sed 's/^/# /' "$W/err"
fi
