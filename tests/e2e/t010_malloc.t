# description: a program that replaces malloc and free is traced without deadlock
src=s-malloc.c
filter=/calloc\|realloc/d
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  use() {
    malloc();
    free();
  }
}
