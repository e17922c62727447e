# description: recursion, with the report of the same data
src=s-fib.c
args=4
opts=-O0
cmd="report -s calls"
filter='s/^ *[0-9.]* [a-z]* *[0-9.]* [a-z]* *\([0-9]*\) .* \([a-z_]*\)$/\1 \2/'
---
  Total time   Self time       Calls     Average         Min         Max  Function
  ==========  ==========  ==========  ==========  ==========  ==========  ====================
9 fib
1 main
