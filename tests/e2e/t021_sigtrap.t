# description: the program's own SIGTRAP handler gets its traps (dynamic ftrace keeps one of its own)
src=s-trap.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  work() {
    on_trap();
  }
  work() {
    on_trap();
  }
}
