# description: daemon(): the grandchild is followed and recorded
src=s-daemon.c
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-daemo-T1 | main() {
s-daemo-T2 |   in_daemon();
s-daemo-T2 | } /* main */
