# description: recursion deeper than the shadow stack: the program runs, the depth stays right after it
src=s-deep.c
opts="-O0"
cmd="report -s name"
filter='s/^ *[0-9.]* [a-z]* *[0-9.]* [a-z]* *\([0-9]*\) .* \([a-z_]*\)$/\1 \2/'
---
  Total time   Self time       Calls     Average         Min         Max  Function
  ==========  ==========  ==========  ==========  ==========  ==========  ====================
1 after
4095 down
1 main
