/* SPDX-License-Identifier: MIT */
/*
 * fentry.S - __fentry__ for gcc -pg -mfentry.
 *
 * The call is the first instruction of the function, before its prologue:
 *
 *   func:
 *     call __fentry__          <- child addr = func + 5 is at 0(%rsp)
 *     push %rbp                   parent addr (func's return address)
 *     ...                         is at 8(%rsp)
 *
 * Registers to keep: see regs.h.
 */
#include "regs.h"

	.text
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	SAVE_ARGS
	/* parent slot: 8 above our return address, which is at 72(%rsp) */
	lea	80(%rsp), %rdi
	mov	72(%rsp), %rsi
	call	ut_graph_entry
	RESTORE_ARGS
	ret
	.size	__fentry__, .-__fentry__

	.section .note.GNU-stack,"",@progbits
