# description: a C++ exception unwinds two traced frames
src=s-exception.cc
filter=/operator\|__cxa\|_GLOBAL__\|std::/d
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  catcher() {
    middle() {
      thrower();
    }
  }
  after();
}
