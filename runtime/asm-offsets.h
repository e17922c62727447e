/* SPDX-License-Identifier: MIT */
/*
 * asm-offsets.h - the layout the assembly fast paths (arch/x86_64/) rely
 * on: field offsets of struct ut_thread, struct ut_frame, struct rb_page
 * and struct ut_session_ctl, and the constants they test.  The records
 * they write (types, lengths, offsets) come from entries.h through
 * rec-offsets.h, which the build makes (arch/x86_64/rec-offsets.c).
 *
 * Plain #defines, so that both the assembler and C can read this file.
 * graph.c checks every value against the C definitions at compile time
 * (_Static_assert), so a change of layout that forgets this file does not
 * build.
 */
#ifndef USERTRACE_ASM_OFFSETS_H
#define USERTRACE_ASM_OFFSETS_H

/* struct ut_thread (thread-local ut_self) */
#define UT_T_STATE		0x00
#define UT_T_DEPTH		0x04
#define UT_T_BUSY		0x08
#define UT_T_NPENDING		0x10
#define UT_T_REC_DEPTH		0x14
#define UT_T_PAGE		0x20	/* w.page */
#define UT_T_LAST_TS		0x28	/* w.last_ts */
#define UT_T_CPU		0x30	/* w.cpu */
#define UT_T_FULL		0x34	/* w.full */
#define UT_T_FRAMES		0x70

/* struct ut_frame */
#define UT_F_SIZE_SHIFT		5	/* 32 bytes */
#define UT_F_SLOT		0x00
#define UT_F_ORIG		0x08
#define UT_F_IP			0x10
#define UT_F_VALID		0x18	/* valid, then recorded: one 8-byte store sets both */
#define UT_F_RECORDED		0x1c

/* struct rb_page */
#define UT_P_COMMIT		0x10
#define UT_P_ENTRIES		0x14
#define UT_P_DATA		0x20

/* struct ut_session_ctl */
#define UT_C_TRACING_ON		0x1c

#define UT_A_TS_READY		1	/* UT_TS_READY */
#define UT_A_FR_RECORDED	1	/* UT_FR_RECORDED */
#define UT_A_SHADOW_MAX		4096	/* UT_SHADOW_MAX */
#define UT_A_DATA_SIZE		4056	/* RB_DATA_SIZE */
#define UT_A_DELTA_MAX		0x0fffffff	/* RB_DELTA_MAX */
#define UT_A_TYPE_BITS		4	/* RB_TYPE_BITS */

#endif /* USERTRACE_ASM_OFFSETS_H */
