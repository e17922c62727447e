# description: events in a function_graph trace are comments at the caller's depth
src=s-events.c
flags="pg fentry cyg"
ropts="-t function_graph -e sample"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  serve() {
    /* request: id=7 path=/api/x */
  }
/* tick: n=1 */
  serve() {
    /* request: id=8 path=/a/very/long/path */
  }
/* tick: n=2 */
}
