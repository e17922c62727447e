# description: record -F '!b': removing from an empty filter leaves it empty, so every function is traced (as the kernel)
src=s-abc.c
ropts="-F '!b'"
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
