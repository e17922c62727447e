# description: record -F/-N patch only the selected call sites (globs, !, notrace wins)
src=s-abc.c
flags="pg fentry cyg pfe nopmcount recmcount"
ropts="-F 'ma*' -F '[ac]' -F b -F '!b' -N main"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
a() {
  c();
}
