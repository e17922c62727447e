/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - where hooked functions return (function_graph).
 *
 * The entry hook replaced the function's return address with this
 * address.  We arrive here as if returning to the caller:
 *
 *   %rsp -> slot + 8        (the `ret` popped the slot)
 *   %rax, %rdx              integer return value(s)
 *   %xmm0, %xmm1, %st0      floating return values: the runtime is built
 *                           with -mgeneral-regs-only, so they survive
 *
 *   sub  $16, %rsp          room for the original return address
 *   push %rax / push %rdx
 *   ut_graph_return(slot)   -> original return address in %rax
 *   ...                     restore, `ret` to the caller
 */
	.text
	.globl	ut_return_trampoline
	.hidden	ut_return_trampoline
	.type	ut_return_trampoline, @function
ut_return_trampoline:
	sub	$16, %rsp
	push	%rax
	push	%rdx
	/* %rsp = slot + 8 - 32: the slot is at 24(%rsp); stack is 16-aligned */
	lea	24(%rsp), %rdi
	call	ut_graph_return
	mov	%rax, 24(%rsp)
	pop	%rdx
	pop	%rax
	add	$8, %rsp
	ret
	.size	ut_return_trampoline, .-ut_return_trampoline

	.section .note.GNU-stack,"",@progbits
