# description: calls into a library loaded with dlopen
src=s-dlopen.c
lib=lib-foo.c
link=0
args='$LIBDIR/libfoo.so'
flags="pg fentry cyg fentry-nopie"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  call() {
    foo() {
      foo_inner();
    }
  }
}
