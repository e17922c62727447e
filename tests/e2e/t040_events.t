# description: tracepoints of the executable and of a dlopen'ed library, loaded twice, recorded with -e
src=s-events.c
lib=lib-evlib.c
link=0
flags="pg fentry cyg pfe"
args='$LIBDIR/libevlib.so'
ropts="-e 'sample:request' -e 'evlib:*'"
cmd="replay -O nocontext-info"
---
# tracer: nop
#
request: id=7 path=/api/x
request: id=8 path=/a/very/long/path
hit: v=41
hit: v=42
