# description: record -F ':mod:EXE' selects the executable's functions; a list of removals only is no filter
src=s-abc.c
ropts="-F ':mod:s-abc' -N '!c'"
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
