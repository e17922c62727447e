# description: swapcontext: each context keeps its own depth
src=s-context.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  run() {
co_body() {
  co_leaf();
    main_leaf();
  co_leaf();
}
    main_leaf();
  } /* run */
} /* main */
