# description: children exec'd or spawned with an environment of their own (or none) are traced
src=s-spawnenv.c
cmd="replay -O nofuncgraph-cpu -O nofuncgraph-duration -O funcgraph-proc"
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-spawn-T1 | main() {
s-spawn-T1 |   run();
s-spawn-T2 | main() {
s-spawn-T2 |   child_work();
s-spawn-T2 | }
s-spawn-T1 |   run();
s-spawn-T3 | main() {
s-spawn-T3 |   child_work();
s-spawn-T3 | }
s-spawn-T1 |   run();
s-spawn-T4 | main() {
s-spawn-T4 |   child_work();
s-spawn-T4 | }
s-spawn-T1 |   run();
s-spawn-T5 | main() {
s-spawn-T5 |   child_work();
s-spawn-T5 | }
s-spawn-T1 |   run();
s-spawn-T6 | main() {
s-spawn-T6 |   child_work();
s-spawn-T6 | }
s-spawn-T1 | }
