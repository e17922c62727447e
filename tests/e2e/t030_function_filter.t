# description: record -t function with -F/-N/-T: filters and commands for the function tracer too
src=s-filters.c
ropts="-t function -F '*' -N 'main' -N slow -T off:traceoff:1 -T on:traceon"
cmd="replay -t function -O nocontext-info"
---
# tracer: function
#
top <-main
mid <-top
leaf <-mid
leaf <-mid
quiet <-main
leaf <-quiet
on <-main
mid <-main
leaf <-mid
leaf <-mid
