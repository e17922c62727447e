/* SPDX-License-Identifier: MIT */
/*
 * entry.h - the function_graph entry hook, written out for mcount.S and
 * fentry.S (included by both; they differ only in where the slot is).
 *
 * GRAPH_ENTRY slot, pad
 *   slot: an operand for the address of the traced function's return
 *   address (8(%rbp) for mcount, 72(%rsp) for __fentry__ after SAVE_ARGS);
 *   pad: SAVE_ARGS's alignment padding (8 for mcount, 0 for __fentry__).
 *
 * The usual case is done here without a call: function_graph with the
 * TSC clock and no filter in the hooks (ut_fast), tracing on, the thread ready and not inside a write, a
 * caller's frame on the shadow stack whose slot lies above this one (so no
 * frame needs closing and this is no tail call), room in the page, a time
 * delta that fits, no migration.  It hooks the return address, pushes the
 * shadow frame and writes the ENTRY (its layout from rec-offsets.h)
 * exactly as the C path does, store for store, in the order the signal-handler rules of graph.c and
 * doc/design/ring-buffer.md ask for (x86 keeps stores in program order, and
 * a handler on this thread sees them in that order).  Anything else goes to
 * ut_graph_entry() in C.
 *
 * After SAVE_ARGS: 64+pad(%rsp) is the hook's return address (an address
 * inside the traced function), %rsp is 16-byte aligned for calls.
 * Registers used: those SAVE_ARGS saved, and %r11 (free at a call).
 */
#include "regs.h"
#include "runtime/asm-offsets.h"
#include "rec-offsets.h"		/* made from entries.h by the build */

/* the ENTRY written below: the header, then the 48-bit ip, nothing else */
.if UT_A_ENTRY_IP != 4 || UT_A_ENTRY_LEN != UT_A_ENTRY_IP + 6
.error "ENTRY is no longer header + ip (entries.h): write its new fields here too"
.endif

	.hidden	ut_ctl
	.hidden	ut_fast
	.hidden	ut_cpu_off
	.hidden	ut_graph_entry
	.hidden	ut_flush_pending
	.hidden	ut_return_trampoline

.macro GRAPH_ENTRY slot, pad
	SAVE_ARGS \pad
	lea	\slot, %rdi			/* the slot */
	mov	64+\pad(%rsp), %rsi		/* ip */
	mov	ut_self@gottpoff(%rip), %r11	/* %fs:(%r11) is ut_self */
	cmpl	$UT_A_TS_READY, %fs:UT_T_STATE(%r11)
	jne	.Lslow\@
	cmpl	$0, ut_fast(%rip)
	je	.Lslow\@			/* filters, commands, other tracers */
	mov	ut_ctl(%rip), %rax
	cmpl	$0, UT_C_TRACING_ON(%rax)
	je	.Lout\@
	cmpq	$0, %fs:UT_T_BUSY(%r11)
	jne	.Lslow\@
	mov	(%rdi), %r8			/* the return address */
	lea	ut_return_trampoline(%rip), %r9
	cmp	%r9, %r8
	je	.Lslow\@			/* tail call: the slot is hooked */
	mov	%fs:UT_T_DEPTH(%r11), %ecx
	lea	-1(%rcx), %eax
	cmp	$UT_A_SHADOW_MAX - 2, %eax
	ja	.Lslow\@			/* depth 0, or the shadow stack full */
	shl	$UT_F_SIZE_SHIFT, %rax
	add	%fs:UT_T_FRAMES(%r11), %rax
	cmp	%rdi, UT_F_SLOT(%rax)
	jbe	.Lslow\@			/* the top frame is over (longjmp...) */

	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx			/* ts */
	mov	%rsp, %fs:UT_T_BUSY(%r11)	/* take the buffer */
	mov	%fs:UT_T_PAGE(%r11), %rax	/* page */
	mov	%rdx, %r9
	sub	%fs:UT_T_LAST_TS(%r11), %r9	/* delta */
	cmp	$UT_A_DELTA_MAX, %r9
	ja	.Lheld\@
	mov	UT_P_COMMIT(%rax), %r10d	/* offset in the page */
	cmp	$UT_A_DATA_SIZE - UT_A_ENTRY_LEN, %r10d
	ja	.Lheld\@
	cmpl	$0, %fs:UT_T_FULL(%r11)
	jne	.Lheld\@
	mov	ut_cpu_off(%rip), %rcx
	mov	%fs:(%rcx), %ecx
	cmp	%ecx, %fs:UT_T_CPU(%r11)
	jne	.Lheld\@

	/* nothing can fail from here: hook, push the frame, write the ENTRY */
	lea	ut_return_trampoline(%rip), %rcx
	mov	%rcx, (%rdi)
	mov	%rdx, %fs:UT_T_LAST_TS(%r11)
	mov	%fs:UT_T_DEPTH(%r11), %ecx
	lea	1(%rcx), %edx
	shl	$UT_F_SIZE_SHIFT, %rcx
	add	%fs:UT_T_FRAMES(%r11), %rcx	/* the new frame */
	movq	$0, UT_F_VALID(%rcx)		/* not valid, not recorded */
	mov	%rdi, UT_F_SLOT(%rcx)
	mov	%edx, %fs:UT_T_DEPTH(%r11)	/* published */
	mov	%rdi, UT_F_SLOT(%rcx)		/* again: a handler may have used it */
	mov	%r8, UT_F_ORIG(%rcx)
	mov	%rsi, UT_F_IP(%rcx)
	shl	$UT_A_TYPE_BITS, %r9
	or	$UT_A_REC_ENTRY, %r9		/* header */
	mov	%rsi, %rdx
	shl	$32, %rdx
	or	%rdx, %r9			/* header, low half of ip */
	mov	%r9, UT_P_DATA(%rax,%r10)
	shr	$32, %rsi
	mov	%si, UT_P_DATA+UT_A_ENTRY_IP+4(%rax,%r10) /* high half (48-bit ip) */
	addl	$1, %fs:UT_T_REC_DEPTH(%r11)
	addl	$1, UT_P_ENTRIES(%rax)
	add	$UT_A_ENTRY_LEN, %r10d
	mov	%r10d, UT_P_COMMIT(%rax)	/* commit: the record is visible */
	movabs	$0x100000001, %rdx
	mov	%rdx, UT_F_VALID(%rcx)		/* recorded, valid */
	movq	$0, %fs:UT_T_BUSY(%r11)		/* release */
	cmpl	$0, %fs:UT_T_NPENDING(%r11)
	jne	.Lflush\@
.Lout\@:
	.cfi_remember_state
	RESTORE_ARGS \pad
	ret
	.cfi_restore_state

	/* a handler parked records while we held the buffer: write them */
.Lflush\@:
	mov	%fs:0, %rdi
	add	%r11, %rdi
	call	ut_flush_pending
	jmp	.Lout\@

	/* gave up holding the buffer: release (and flush), then the C path */
.Lheld\@:
	movq	$0, %fs:UT_T_BUSY(%r11)
	cmpl	$0, %fs:UT_T_NPENDING(%r11)
	je	.Lslow\@
	mov	%fs:0, %rdi
	add	%r11, %rdi
	call	ut_flush_pending
.Lslow\@:
	lea	\slot, %rdi
	mov	64+\pad(%rsp), %rsi
	call	ut_graph_entry
	jmp	.Lout\@
.endm
