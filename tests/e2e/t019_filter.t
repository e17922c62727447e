# description: record -F/-N patch only the selected call sites (globs, !, notrace wins)
src=s-abc.c
ropts="-F 'ma*' -F '[ac]' -F b -F '!b' -N main"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
a() {
  c();
}
