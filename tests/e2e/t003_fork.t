# description: the forked child continues at its parent's depth
src=s-fork.c
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-fork-T1 | main() {
s-fork-T1 |   split() {
s-fork-T2 |     work();
s-fork-T1 |     work();
s-fork-T1 |   }
s-fork-T1 | }
