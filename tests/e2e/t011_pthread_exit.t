# description: pthread_exit from a nested call closes the thread's calls
src=s-pthread-exit.c
---
# tracer: function_graph
#
#  TASK/PID                      FUNCTION CALLS
#   |    |                       |   |   |   |
s-pthre-T1 | main() {
s-pthre-T2 | worker() {
s-pthre-T2 |   leave();
s-pthre-T2 | }
s-pthre-T1 |   after();
s-pthre-T1 | }
