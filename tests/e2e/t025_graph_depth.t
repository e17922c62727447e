# description: record -G -D: the graph function's own depth
src=s-filters.c
ropts="-G top -D 2"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
top() {
  mid();
}
top() {
  mid();
}
