/* SPDX-License-Identifier: MIT */
/*
 * record.h - the records usertrace stores in its ring buffers.
 *
 * Every record starts with the ring buffer's 32-bit header (type + 28-bit
 * time delta, see ringbuf.h).  Addresses are stored in 6 bytes: user-space
 * addresses on x86-64 fit in 47 bits.  A traced call costs one ENTRY (10
 * bytes) and one EXIT (4 bytes): 14 bytes.  The exit names no function:
 * it closes the innermost open entry of its thread, as the shadow stack
 * guarantees that every entry gets exactly one exit.
 *
 *   type           bytes  payload
 *   ENTRY            10   ip
 *   EXIT              4   -
 *   FUNC             16   ip, parent ip          (function tracer)
 *   ENTRY_PARENT     16   ip, parent ip          (graph entry at depth 0)
 *   DEPTH             8   u32 shadow-stack depth (first record of a page)
 *   CPU               8   u32 cpu                (the thread migrated)
 *   STACK        6+6*n    u16 n, n ips, outermost first (open frames
 *                         inherited by a forked child)
 *   DATA          6+len   u16 len, bytes         (trace_marker text)
 *   RETURN           18   ip, u16 depth, u48 duration in clock units
 *                         (a call at least tracing_thresh long; its
 *                         ENTRY was not written; time = the return)
 *   TRACE        6+6*n    u16 n, n ips, innermost first (a stacktrace
 *                         function command fired)
 */
#ifndef USERTRACE_RECORD_H
#define USERTRACE_RECORD_H

#include <stdint.h>
#include <string.h>
#include "ringbuf.h"

enum ut_rec_type {
	UT_REC_ENTRY = 1,
	UT_REC_EXIT = 2,
	UT_REC_FUNC = 3,
	UT_REC_ENTRY_PARENT = 4,
	UT_REC_DEPTH = 5,
	UT_REC_CPU = 6,
	UT_REC_STACK = 7,
	UT_REC_DATA = 8,
	UT_REC_RETURN = 9,
	UT_REC_TRACE = 10,
};

#define UT_ADDR_MASK	0xffffffffffffull
#define UT_STACK_MAX	64

static inline uint64_t ut_get48(const unsigned char *p)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, p, 4);
	memcpy(&hi, p + 4, 2);
	return (uint64_t)lo | ((uint64_t)hi << 32);
}

static inline void ut_put48(unsigned char *p, uint64_t v)
{
	uint32_t lo = (uint32_t)v;
	uint16_t hi = (uint16_t)(v >> 32);

	memcpy(p, &lo, 4);
	memcpy(p + 4, &hi, 2);
}

/* length of the record at @rec, 0 if it is not a valid record or does not fit in @avail */
static inline uint32_t ut_rec_len(const unsigned char *rec, uint32_t avail)
{
	uint32_t h, len;
	uint16_t n;

	if (avail < 4)
		return 0;
	memcpy(&h, rec, 4);
	switch (RB_HDR_TYPE(h)) {
	case UT_REC_ENTRY:		len = 10; break;
	case UT_REC_EXIT:		len = 4; break;
	case UT_REC_FUNC:
	case UT_REC_ENTRY_PARENT:	len = 16; break;
	case UT_REC_DEPTH:
	case UT_REC_CPU:
	case RB_TYPE_TIME_EXTEND:	len = 8; break;
	case UT_REC_RETURN:		len = 18; break;
	case UT_REC_STACK:
	case UT_REC_TRACE:
		if (avail < 6)
			return 0;
		memcpy(&n, rec + 4, 2);
		if (n > UT_STACK_MAX)
			return 0;
		len = 6 + 6u * n;
		break;
	case UT_REC_DATA:
		if (avail < 6)
			return 0;
		memcpy(&n, rec + 4, 2);
		len = 6 + n;
		break;
	default:
		return 0;
	}
	return len <= avail ? len : 0;
}

/* what the runtime records, chosen by the tracer */
enum ut_rec_mode {
	UT_MODE_NONE = 0,	/* nop: nothing */
	UT_MODE_FUNC = 1,	/* function: FUNC records, no return hooks */
	UT_MODE_GRAPH = 2,	/* function_graph: ENTRY/EXIT */
};

#endif /* USERTRACE_RECORD_H */
