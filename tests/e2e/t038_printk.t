# description: trace_printk and trace_puts print in the call graph; tracing_off stops the recording
src=s-printk.c
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  step() {
    /* step x=0 */
  }
  step() {
    /* step x=1 */
  }
/* done */
}
