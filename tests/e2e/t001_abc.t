# description: a simple call chain
src=s-abc.c
flags="pg fentry cyg pg-nopie fentry-nopie cyg-nopie"
opts="-O0 -O1 -O2 -O3"
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
