# description: -finstrument-functions: an inlined callee nests under its caller (same stack frame)
src=s-inline.c
flags="cyg cyg-nopie"
opts="-O0 -O1 -O2 -O3"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  g() {
    f() {
      sq();
    }
    f() {
      sq();
    }
  }
}
