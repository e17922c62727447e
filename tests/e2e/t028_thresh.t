# description: record --thresh: only calls that last at least the threshold, closed with their names
src=s-filters.c
ropts="--thresh 1ms"
---
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
  } /* slow */
} /* main */
