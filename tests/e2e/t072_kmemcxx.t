# description: kmemtrace: C++ new, new[], nothrow and aligned new, delete and delete[] as kmalloc/kfree from the program's sites, not libstdc++'s; a new that throws bad_alloc writes nothing and ends the quiet section (the malloc after it is seen)
src=s-kmemcxx.cc
flags="pg fentry"
opts="-O2"
ropts="-t kmemtrace"
cmd="replay -O nocontext-info"
filter='s/+0x[0-9a-f]*//; s/ptr=0x[0-9a-f]*/ptr=P/'
---
# tracer: kmemtrace
#
kmalloc: call_site=one ptr=P bytes_req=4 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=one ptr=P
kmalloc: call_site=array ptr=P bytes_req=50 bytes_alloc=56 gfp_flags=none node=-1 accounted=false
kfree: call_site=array ptr=P
kmalloc: call_site=nothrow ptr=P bytes_req=24 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=nothrow ptr=P
kmalloc: call_site=aligned ptr=P bytes_req=64 bytes_alloc=72 gfp_flags=none node=-1 accounted=false
kfree: call_site=aligned ptr=P
kmalloc: call_site=kept ptr=P bytes_req=16 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=main ptr=P
kmalloc: call_site=main ptr=P bytes_req=8 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
