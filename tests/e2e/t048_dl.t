# description: dl:* (built-in): dlopen with its file, flags and handle (0 when it fails), dlclose with its result
src=s-dlev.c
lib=lib-one.c
link=0
args='$LIBDIR/libone.so'
flags="pg"
ropts="-e 'dl:*'"
cmd="replay -O nocontext-info"
filter='s/filename=[^ ]*\//filename=/; s/handle=0x[0-9a-f]*/handle=H/'
---
# tracer: nop
#
dlopen: filename=libnone.so flags=0x1 handle=(nil)
dlopen: filename=libone.so flags=0x102 handle=H
dlclose: handle=H ret=0
