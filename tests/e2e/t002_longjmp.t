# description: longjmp leaves two frames; the next call is at the right depth
src=s-longjmp.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  middle() {
    deep();
  }
  after();
}
