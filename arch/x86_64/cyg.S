/* SPDX-License-Identifier: MIT */
/*
 * cyg.S - __cyg_profile_func_enter for -finstrument-functions.
 *
 * The instrumented function calls it as an ordinary C function, so no
 * register needs saving here.  What the C side needs besides (fn,
 * call_site) is the caller's stack pointer at the call, to order frames
 * (a callee's is below its caller's) and to cut them at a longjmp:
 *
 *   0(%rsp)    return address into the instrumented function
 *   8(%rsp)    the caller's stack pointer before the call
 */
	.text
	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
__cyg_profile_func_enter:
	lea	8(%rsp), %rdx
	jmp	ut_cyg_enter
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

	.section .note.GNU-stack,"",@progbits
