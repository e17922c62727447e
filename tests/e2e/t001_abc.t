# description: a simple call chain
src=s-abc.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  a() {
    b() {
      c();
    }
  }
}
