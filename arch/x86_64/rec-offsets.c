// SPDX-License-Identifier: MIT
/*
 * rec-offsets.c - the record layouts the assembly fast paths write
 * (entry.h's ENTRY, trampoline.S's EXIT), from entries.h's one list.
 *
 * Never linked: the build compiles it to assembly (-S), where each
 * UT_ASM_CONST() left a line "@@asm-const NAME VALUE", and turns those
 * lines into $(O)/gen/rec-offsets.h, plain #defines that both the
 * assembler and C read (Makefile).  A change of a record in entries.h
 * thus reaches the assembly by the build, with no number to copy.
 */
#include "usertrace/record.h"

#define UT_ASM_CONST(name, val) \
	__asm__ volatile("\n@@asm-const " #name " %c0" : : "i" ((long)(val)))

void ut_rec_offsets(void);

void ut_rec_offsets(void)
{
	UT_ASM_CONST(UT_A_REC_ENTRY, UT_REC_ENTRY);		/* types */
	UT_ASM_CONST(UT_A_REC_EXIT, UT_REC_EXIT);
	UT_ASM_CONST(UT_A_ENTRY_LEN, UT_REC_LEN(entry));	/* lengths */
	UT_ASM_CONST(UT_A_EXIT_LEN, UT_REC_LEN(exit));
	UT_ASM_CONST(UT_A_ENTRY_IP, UT_REC_OFF(entry, ip));	/* offsets */
}
