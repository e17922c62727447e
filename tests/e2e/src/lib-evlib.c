/* a shared library with tracepoints of its own, linked or dlopen'ed */
#define CREATE_TRACE_POINTS
#include "evlib_trace.h"

int evlib_hit(int v)
{
	trace_hit(v);
	return v + 1;
}
