# description: 16 threads at once: every call of every thread is recorded
src=s-threads.c
cmd="report -s name"
filter='s/^ *[0-9.]* [a-z]* *[0-9.]* [a-z]* *\([0-9]*\) .* \([a-z_]*\)$/\1 \2/'
---
  Total time   Self time       Calls     Average         Min         Max  Function
  ==========  ==========  ==========  ==========  ==========  ==========  ====================
160000 leaf
1 main
16 worker
