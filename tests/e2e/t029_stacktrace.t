# description: record -T func:stacktrace:N: the traced callers, N times
src=s-filters.c
ropts="-T leaf:stacktrace:2 -G top"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
top() {
  mid() {
    /* <stack trace>
 => leaf
 => mid
 => top */
    leaf();
    /* <stack trace>
 => leaf
 => mid
 => top */
    leaf();
  }
}
top() {
  mid() {
    leaf();
    leaf();
  }
}
