# description: vfork+exec and posix_spawn children are traced from their start
src=s-exec.c
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-exec-T1 | main() {
s-exec-T1 |   run();
s-exec-T2 | main() {
s-exec-T2 |   child_work();
s-exec-T2 | }
s-exec-T1 |   run();
s-exec-T3 | main() {
s-exec-T3 |   child_work();
s-exec-T3 | }
s-exec-T1 | }
