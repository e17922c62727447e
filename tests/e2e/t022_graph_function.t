# description: record -G: only the graph function and its callees, wherever it is called from
src=s-filters.c
ropts="-G mid"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
mid() {
  leaf();
  leaf();
}
mid() {
  leaf();
  leaf();
}
mid() {
  leaf();
  leaf();
}
