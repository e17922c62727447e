# description: a signal handler's calls nest under the interrupted call
src=s-signal.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  send() {
    handler() {
      in_handler();
    }
  }
}
