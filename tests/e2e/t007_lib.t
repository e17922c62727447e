# description: calls into an instrumented shared library
src=s-lib.c
lib=lib-foo.c
flags="pg fentry cyg fentry-nopie"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  local() {
    foo() {
      foo_inner();
    }
  }
}
