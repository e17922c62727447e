/* SPDX-License-Identifier: MIT */
/*
 * fentry.S - __fentry__ for gcc -pg -mfentry (and the patched call sites
 * of dynamic ftrace, whose stubs jump here).
 *
 * The call is the first instruction of the function, before its prologue:
 *
 *   func:
 *     call __fentry__          <- child addr = func + 5 is at 0(%rsp)
 *     push %rbp                   parent addr (func's return address)
 *     ...                         is at 8(%rsp)
 *
 * After SAVE_ARGS (8 words, no padding: %rsp is 0 mod 16 at our entry)
 * the parent slot is at 72(%rsp).  The hook
 * itself: entry.h.
 */
#include "entry.h"

	.text
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	.cfi_startproc
	GRAPH_ENTRY 72(%rsp), 0
	.cfi_endproc
	.size	__fentry__, .-__fentry__

	.section .note.GNU-stack,"",@progbits
