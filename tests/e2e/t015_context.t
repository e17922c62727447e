# description: swapcontext into a makecontext context: its calls nest under the caller, main keeps its duration
src=s-context.c
cmd="replay -O nofuncgraph-cpu"
filter='s/^.*[0-9] us *|/ DUR |/; s/^ *|/ - |/'
---
# tracer: function_graph
#
#  DURATION                  FUNCTION CALLS
#   |   |                     |   |   |   |
 - |  main() {
 - |    run() {
 - |      co_body() {
 DUR |        co_leaf();
 DUR |      }
 DUR |      main_leaf();
 - |      co_body() {
 DUR |        co_leaf();
 DUR |      }
 DUR |      main_leaf();
 DUR |    }
 DUR |  }
