/* SPDX-License-Identifier: MIT */
/*
 * regs.h - the registers an entry hook must keep (included by mcount.S and
 * fentry.S).
 *
 * The hook runs before (fentry) or just after (mcount) the traced function
 * has set anything up, so every argument register still holds an
 * argument: %rdi %rsi %rdx %rcx %r8 %r9, %rax (the vector-register count
 * of a varargs call) and %r10 (static chain of nested functions).  The C
 * hook uses no vector registers (-mgeneral-regs-only), so %xmm0-7 need no
 * saving.
 *
 * SAVE_ARGS pad: eight pushes, then @pad bytes so that %rsp is 16-byte
 * aligned for the calls the hook makes.  __fentry__ is called as the
 * function's first instruction (%rsp = 0 mod 16 at its entry): pad 0.
 * mcount is called after `push %rbp` (%rsp = 8 mod 16): pad 8.  The hook's
 * own return address is then at 64+pad(%rsp).
 */
.macro SAVE_ARGS pad
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%r8
	push	%r9
	push	%rax
	push	%r10
	.if \pad
	sub	$\pad, %rsp
	.endif
.endm

.macro RESTORE_ARGS pad
	.if \pad
	add	$\pad, %rsp
	.endif
	pop	%r10
	pop	%rax
	pop	%r9
	pop	%r8
	pop	%rcx
	pop	%rdx
	pop	%rsi
	pop	%rdi
.endm
