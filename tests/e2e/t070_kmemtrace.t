# description: kmemtrace: the kmem events of malloc, calloc, realloc, free and anonymous mmap/munmap with the caller as call_site and bytes_alloc as malloc_usable_size (a mapping's pages); a file's mapping writes nothing
src=s-kmemtrace.c
flags="pg fentry"
ropts="-t kmemtrace"
cmd="replay -O nocontext-info"
filter='s/+0x[0-9a-f]*//; s/ptr=0x[0-9a-f]*/ptr=P/'
---
# tracer: kmemtrace
#
kmalloc: call_site=small ptr=P bytes_req=10 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=small ptr=P
kmalloc: call_site=small ptr=P bytes_req=10 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=small ptr=P
kmalloc: call_site=small ptr=P bytes_req=10 bytes_alloc=24 gfp_flags=none node=-1 accounted=false
kfree: call_site=small ptr=P
kmalloc: call_site=zeroed ptr=P bytes_req=32 bytes_alloc=40 gfp_flags=none node=-1 accounted=false
kfree: call_site=zeroed ptr=P
kmalloc: call_site=leak ptr=P bytes_req=100 bytes_alloc=104 gfp_flags=none node=-1 accounted=false
kmalloc: call_site=grow ptr=P bytes_req=40 bytes_alloc=40 gfp_flags=none node=-1 accounted=false
kfree: call_site=grow ptr=P
kmalloc: call_site=grow ptr=P bytes_req=200 bytes_alloc=200 gfp_flags=none node=-1 accounted=false
kfree: call_site=grow ptr=P
kmalloc: call_site=anon ptr=P bytes_req=10000 bytes_alloc=12288 gfp_flags=none node=-1 accounted=false
kfree: call_site=anon ptr=P
kmalloc: call_site=anon ptr=P bytes_req=5000 bytes_alloc=8192 gfp_flags=none node=-1 accounted=false
