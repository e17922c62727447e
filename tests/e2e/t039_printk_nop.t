# description: trace_printk lines name the calling function, as the kernel's print event
src=s-printk.c
flags="pg pfe"
ropts="-t nop"
cmd="replay -O nocontext-info"
---
# tracer: nop
#
step: step x=0
step: step x=1
main: done
