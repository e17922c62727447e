# description: one event name with two layouts (program and library) gets two ids; both print by their own format
src=s-events.c
lib=lib-evlayout.c
link=0
flags="pg pfe"
args='$LIBDIR/libevlayout.so'
ropts="-e sample:request"
cmd="replay -O nocontext-info"
---
# tracer: nop
#
request: id=7 path=/api/x
request: id=8 path=/a/very/long/path
request: id=41000 (v2)
request: id=42000 (v2)
