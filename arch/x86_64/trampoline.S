/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - where hooked functions return (function_graph).
 *
 * The entry hook replaced the function's return address with this
 * address.  We arrive here as if returning to the caller:
 *
 *   %rsp -> slot + 8        (the `ret` popped the slot; 16-byte aligned)
 *   %rax, %rdx              integer return value(s)
 *   %xmm0, %xmm1, %st0      floating return values: the runtime is built
 *                           with -mgeneral-regs-only, so they survive
 *
 *   push %rax / push %rdx   (stack aligned again for the call)
 *   ut_graph_return(slot)   -> original return address in %rax
 *   %r11 = it; restore; jmp *%r11
 *
 * We leave with an indirect jump, not a `ret`: the `ret` that brought us
 * here already used the return-stack-buffer entry of this call, and a
 * second `ret` would unbalance the predictor for every return after it.
 * %r11 is free at a function return (caller-saved, no return value).
 */
	.text
	.globl	ut_return_trampoline
	.hidden	ut_return_trampoline
	.type	ut_return_trampoline, @function
ut_return_trampoline:
	push	%rax
	push	%rdx
	/* the slot is just below where %rsp was: 8(%rsp) + 8 */
	lea	8(%rsp), %rdi
	call	ut_graph_return
	mov	%rax, %r11
	pop	%rdx
	pop	%rax
	jmp	*%r11
	.size	ut_return_trampoline, .-ut_return_trampoline

	.section .note.GNU-stack,"",@progbits
