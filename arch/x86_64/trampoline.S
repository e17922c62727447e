/* SPDX-License-Identifier: MIT */
/*
 * trampoline.S - where hooked functions return (function_graph).
 *
 * The entry hook replaced the function's return address with this
 * address.  We arrive here as if returning to the caller:
 *
 *   %rsp -> slot + 8        (the `ret` popped the slot; 16-byte aligned)
 *   %rax, %rdx              integer return value(s)
 *   %xmm0, %xmm1, %st0      floating return values: nothing here or in the
 *                           runtime (-mgeneral-regs-only) touches them
 *
 * %rcx %rsi %rdi %r8-%r11 are free: caller-saved and no return value.
 *
 * The usual case (the top shadow frame owns this slot and its ENTRY was
 * recorded, the TSC clock, not inside a write, room in the page, no
 * migration) pops the frame and writes the 4-byte EXIT here, as
 * ut_graph_return() would; anything else calls ut_graph_return(slot),
 * which returns the original return address.
 *
 * We leave with an indirect jump, not a `ret`: the `ret` that brought us
 * here already used the return-stack-buffer entry of this call, and a
 * second `ret` would unbalance the predictor for every return after it.
 */
#include "runtime/asm-offsets.h"
#include "rec-offsets.h"		/* made from entries.h by the build */

/* the EXIT written below: the header alone */
.if UT_A_EXIT_LEN != 4
.error "EXIT is no longer a header alone (entries.h): write its new fields here too"
.endif

	.hidden	ut_ret_fast
	.hidden	ut_cpu_off
	.hidden	ut_graph_return
	.hidden	ut_flush_pending

	.text
	.globl	ut_return_trampoline
	.hidden	ut_return_trampoline
	.type	ut_return_trampoline, @function
ut_return_trampoline:
	push	%rax
	push	%rdx
	lea	8(%rsp), %rdi			/* the slot: just below where %rsp was */
	mov	ut_self@gottpoff(%rip), %r11	/* %fs:(%r11) is ut_self */
	cmpl	$0, ut_ret_fast(%rip)		/* the TSC, and no profiler */
	je	.Lslow
	mov	%fs:UT_T_DEPTH(%r11), %r8d
	sub	$1, %r8d
	jb	.Lslow				/* no frame */
	mov	%r8d, %ecx
	shl	$UT_F_SIZE_SHIFT, %rcx
	add	%fs:UT_T_FRAMES(%r11), %rcx	/* the top frame */
	cmp	%rdi, UT_F_SLOT(%rcx)
	jne	.Lslow
	mov	UT_F_ORIG(%rcx), %r10		/* where to return */
	test	%r10, %r10
	jz	.Lslow
	cmpl	$UT_A_FR_RECORDED, UT_F_RECORDED(%rcx)
	jne	.Lslow				/* lost, notrace or thresh frame */
	cmpq	$0, %fs:UT_T_BUSY(%r11)
	jne	.Lslow

	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx			/* ts */
	mov	%rsp, %fs:UT_T_BUSY(%r11)	/* take the buffer; %rsp < slot */
	mov	%fs:UT_T_PAGE(%r11), %rax	/* page */
	mov	%rdx, %rsi
	sub	%fs:UT_T_LAST_TS(%r11), %rsi	/* delta */
	cmp	$UT_A_DELTA_MAX, %rsi
	ja	.Lheld
	mov	UT_P_COMMIT(%rax), %r9d		/* offset in the page */
	cmp	$UT_A_DATA_SIZE - UT_A_EXIT_LEN, %r9d
	ja	.Lheld
	cmpl	$0, %fs:UT_T_FULL(%r11)
	jne	.Lheld
	mov	ut_cpu_off(%rip), %rcx
	mov	%fs:(%rcx), %ecx
	cmp	%ecx, %fs:UT_T_CPU(%r11)
	jne	.Lheld

	/* nothing can fail from here: pop the frame, write the EXIT */
	mov	%r8d, %fs:UT_T_DEPTH(%r11)
	mov	%rdx, %fs:UT_T_LAST_TS(%r11)
	shl	$UT_A_TYPE_BITS, %esi
	or	$UT_A_REC_EXIT, %esi
	mov	%esi, UT_P_DATA(%rax,%r9)
	cmpl	$0, %fs:UT_T_REC_DEPTH(%r11)
	je	1f
	subl	$1, %fs:UT_T_REC_DEPTH(%r11)
1:	addl	$1, UT_P_ENTRIES(%rax)
	add	$UT_A_EXIT_LEN, %r9d
	mov	%r9d, UT_P_COMMIT(%rax)		/* commit */
	movq	$0, %fs:UT_T_BUSY(%r11)		/* release */
	cmpl	$0, %fs:UT_T_NPENDING(%r11)
	jne	.Lflush
	mov	%r10, %r11
	pop	%rdx
	pop	%rax
	jmp	*%r11

	/* a handler parked records while we held the buffer: write them */
.Lflush:
	push	%r10
	sub	$8, %rsp
	mov	%fs:0, %rdi
	add	%r11, %rdi
	call	ut_flush_pending
	add	$8, %rsp
	pop	%r11
	pop	%rdx
	pop	%rax
	jmp	*%r11

	/* gave up holding the buffer: release (and flush), then the C path */
.Lheld:
	movq	$0, %fs:UT_T_BUSY(%r11)
	cmpl	$0, %fs:UT_T_NPENDING(%r11)
	je	.Lslow_slot
	mov	%fs:0, %rdi
	add	%r11, %rdi
	call	ut_flush_pending
.Lslow_slot:
	lea	8(%rsp), %rdi
.Lslow:
	call	ut_graph_return
	mov	%rax, %r11
	pop	%rdx
	pop	%rax
	jmp	*%r11
	.size	ut_return_trampoline, .-ut_return_trampoline

	.section .note.GNU-stack,"",@progbits
