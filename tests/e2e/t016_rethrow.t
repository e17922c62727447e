# description: an exception caught, rethrown and caught again: each frame closes once
src=s-rethrow.cc
filter=/operator\|__cxa\|_GLOBAL__\|std::/d
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  outer() {
    middle() {
      thrower();
    }
  }
  after();
}
