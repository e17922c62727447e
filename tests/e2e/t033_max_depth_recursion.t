# description: record -D on recursion: calls beyond the depth are not traced, and every exit still pairs with its entry
src=s-fib.c
args=4
opts=-O0
ropts="-D 3"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  fib() {
    fib();
    fib();
  }
}
