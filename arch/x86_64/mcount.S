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
 * Registers to keep: as in fentry.S.
 */
	.text
	.globl	mcount
	.type	mcount, @function
mcount:
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%r8
	push	%r9
	push	%rax
	push	%r10
	sub	$8, %rsp
	lea	8(%rbp), %rdi
	mov	72(%rsp), %rsi
	call	ut_graph_entry
	add	$8, %rsp
	pop	%r10
	pop	%rax
	pop	%r9
	pop	%r8
	pop	%rcx
	pop	%rdx
	pop	%rsi
	pop	%rdi
	ret
	.size	mcount, .-mcount

	.globl	_mcount
	.set	_mcount, mcount

	.section .note.GNU-stack,"",@progbits
