# description: record -D: at most N levels; with -G counted from the graph function
src=s-filters.c
ropts="-D 2 -G top -G main -N slow"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  top();
  quiet();
  off();
  top();
  on();
  mid();
}
