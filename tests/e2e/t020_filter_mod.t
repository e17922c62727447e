# description: record -F ':mod:LIB' selects the call sites of one (dlopen'ed) library
src=s-dlopen.c
lib=lib-foo.c
link=0
flags="pfe pg cyg"
args='$LIBDIR/libfoo.so'
# a function of a library not loaded at start-up is named with its library
ropts="-F ':mod:libfoo.so' -N 'foo_inner:mod:libfoo.so'"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
foo();
