# description: record -T func:traceoff / func:traceon: tracing switched by function hits
src=s-filters.c
ropts="-T off:traceoff -T on:traceon -N slow"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  top() {
    mid() {
      leaf();
      leaf();
    }
  }
  quiet() {
    leaf();
  }
  on();
  mid() {
    leaf();
    leaf();
  }
}
