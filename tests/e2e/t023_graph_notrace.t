# description: record --graph-notrace: neither the function nor its callees
src=s-filters.c
ropts="--graph-notrace mid --graph-notrace quiet"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  top();
  off();
  top();
  on();
  slow();
}
