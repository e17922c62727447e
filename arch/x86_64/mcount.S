/* SPDX-License-Identifier: MIT */
/*
 * mcount.S - mcount for gcc -pg (and clang -pg).
 *
 * The call comes right after the prologue, so the frame pointer is set:
 *
 *   func:
 *     push %rbp
 *     mov  %rsp, %rbp          8(%rbp): parent addr (func's return address)
 *     call mcount              0(%rsp): child addr, inside func
 *
 * The hook itself: entry.h.
 */
#include "entry.h"

	.text
	.globl	mcount
	.type	mcount, @function
mcount:
	.cfi_startproc
	GRAPH_ENTRY 8(%rbp), 8
	.cfi_endproc
	.size	mcount, .-mcount

	.globl	_mcount
	.set	_mcount, mcount

	.section .note.GNU-stack,"",@progbits
