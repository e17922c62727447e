# description: replay -t function: one line per call with its parent
src=s-abc.c
cmd="replay -t function -O nocontext-info"
# libc is stripped: its local symbols have no names
filter='s/<-0x[0-9a-f]*$/<-ADDR/'
---
# tracer: function
#
main <-ADDR
a <-main
b <-a
c <-b
