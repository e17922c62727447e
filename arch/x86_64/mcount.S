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
 * Registers to keep: see regs.h.
 */
#include "regs.h"

	.text
	.globl	mcount
	.type	mcount, @function
mcount:
	SAVE_ARGS
	lea	8(%rbp), %rdi
	mov	72(%rsp), %rsi
	call	ut_graph_entry
	RESTORE_ARGS
	ret
	.size	mcount, .-mcount

	.globl	_mcount
	.set	_mcount, mcount

	.section .note.GNU-stack,"",@progbits
