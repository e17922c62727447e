# description: two threads, each with its own call tree
src=s-thread.c
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-threa-T1 | main() {
s-threa-T2 | worker() {
s-threa-T2 |   leaf();
s-threa-T2 | }
s-threa-T1 |   leaf();
s-threa-T1 | }
