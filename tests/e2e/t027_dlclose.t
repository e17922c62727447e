# description: dlclose forgets a library's call sites; loaded again, it is patched again
src=s-dlclose.c
lib=lib-foo.c
link=0
args='$LIBDIR/libfoo.so'
flags="pg fentry cyg pfe"
ropts="-F ':mod:libfoo.so' -F call"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
call() {
  foo() {
    foo_inner();
  }
}
call() {
  foo() {
    foo_inner();
  }
}
