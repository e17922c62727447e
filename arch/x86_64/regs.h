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
 * saving.  Eight pushes keep %rsp = 8 mod 16; the extra 8 bytes align it
 * for the call.  After SAVE_ARGS the hook's own return address is at
 * 72(%rsp).
 */
.macro SAVE_ARGS
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%r8
	push	%r9
	push	%rax
	push	%r10
	sub	$8, %rsp
.endm

.macro RESTORE_ARGS
	add	$8, %rsp
	pop	%r10
	pop	%rax
	pop	%r9
	pop	%r8
	pop	%rcx
	pop	%rdx
	pop	%rsi
	pop	%rdi
.endm
