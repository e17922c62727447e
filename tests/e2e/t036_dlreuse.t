# description: a library loaded where an unloaded one was: each call is named by the library mapped at its time
src=s-dlreuse.c
lib="lib-one.c lib-two.c"
link=0
args='$LIBDIR'
# -mnop-mcount cannot build a shared library
flags="pg fentry cyg pfe recmcount"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  use() {
    call() {
      one_fn() {
        one_inner();
      }
    }
  }
  use() {
    call() {
      two_fn() {
        two_inner();
      }
    }
  }
}
