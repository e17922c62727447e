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
 *
 * The .cfi lines describe the pushes for unwinders (a sampling profiler's
 * stack taken inside the hook goes on through it to the traced function
 * and its callers); they make no instruction.
 */
.macro SAVE_ARGS pad
	push	%rdi
	.cfi_adjust_cfa_offset 8
	push	%rsi
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%rcx
	.cfi_adjust_cfa_offset 8
	push	%r8
	.cfi_adjust_cfa_offset 8
	push	%r9
	.cfi_adjust_cfa_offset 8
	push	%rax
	.cfi_adjust_cfa_offset 8
	push	%r10
	.cfi_adjust_cfa_offset 8
	.if \pad
	sub	$\pad, %rsp
	.cfi_adjust_cfa_offset \pad
	.endif
.endm

.macro RESTORE_ARGS pad
	.if \pad
	add	$\pad, %rsp
	.cfi_adjust_cfa_offset -\pad
	.endif
	pop	%r10
	.cfi_adjust_cfa_offset -8
	pop	%rax
	.cfi_adjust_cfa_offset -8
	pop	%r9
	.cfi_adjust_cfa_offset -8
	pop	%r8
	.cfi_adjust_cfa_offset -8
	pop	%rcx
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rsi
	.cfi_adjust_cfa_offset -8
	pop	%rdi
	.cfi_adjust_cfa_offset -8
.endm
