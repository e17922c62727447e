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
 * The argument registers hold the function's arguments and must survive:
 * %rdi %rsi %rdx %rcx %r8 %r9, %rax (vector count of varargs calls) and
 * %r10 (static chain).  The C hook uses no vector registers.
 */
	.text
	.globl	__fentry__
	.type	__fentry__, @function
__fentry__:
	/* on entry %rsp = 8 mod 16; 8 pushes keep it so, sub 8 aligns */
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%r8
	push	%r9
	push	%rax
	push	%r10
	sub	$8, %rsp
	/* parent slot: 8 above our return address, which is 72(%rsp) */
	lea	80(%rsp), %rdi
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
	.size	__fentry__, .-__fentry__

	.section .note.GNU-stack,"",@progbits
