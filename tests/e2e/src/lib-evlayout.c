/* a library whose sample:request has another layout than the program's */
#define CREATE_TRACE_POINTS
#include "evlayout_trace.h"

int evlib_hit(int v)
{
	trace_request((long)v * 1000);
	return v + 1;
}
