# description: kmem:* (built-in): malloc, calloc, realloc (kfree then kmalloc), free, posix_memalign, aligned_alloc as kmalloc/kfree with the caller as call_site; free(NULL) writes nothing
src=s-kmem.c
flags="pg"
opts="-O0"	# -O2 drops malloc/free pairs and makes free a tail call
ropts="-e 'kmem:*'"
cmd="replay -O nocontext-info"
filter='s/+0x[0-9a-f]*//; s/ptr=0x[0-9a-f]*/ptr=P/; s/bytes_alloc=[0-9]*/bytes_alloc=N/'
---
# tracer: nop
#
kmalloc: call_site=work ptr=P bytes_req=10 bytes_alloc=N gfp_flags=none node=-1 accounted=false
kmalloc: call_site=work ptr=P bytes_req=32 bytes_alloc=N gfp_flags=none node=-1 accounted=false
kfree: call_site=work ptr=P
kmalloc: call_site=work ptr=P bytes_req=100 bytes_alloc=N gfp_flags=none node=-1 accounted=false
kfree: call_site=work ptr=P
kmalloc: call_site=work ptr=P bytes_req=48 bytes_alloc=N gfp_flags=none node=-1 accounted=false
kmalloc: call_site=work ptr=P bytes_req=64 bytes_alloc=N gfp_flags=none node=-1 accounted=false
kfree: call_site=work ptr=P
kfree: call_site=work ptr=P
kfree: call_site=work ptr=P
