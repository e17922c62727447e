# description: record -e with -f: only the events the filter selects are recorded (strings, globs, numbers, !, &&, ||)
src=s-events.c
flags="pg pfe"
ropts="-e sample:request -f 'path ~ \"/a/*\" && !(id < 8) || id == 9' -e sample:tick -f 'n > 1 && common_pid != 0'"
cmd="replay -O nocontext-info"
---
# tracer: nop
#
request: id=8 path=/a/very/long/path
tick: n=2
