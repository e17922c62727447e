/* SPDX-License-Identifier: MIT */
/*
 * ftrace.h - the entries of the `ftrace` event system (ftrace.def) as C
 * structs: struct ut_ftrace_<entry>, common fields first, laid out as
 * the kernel's (x86_64).  C and C++ (the flexible arrays are a GNU
 * extension in C++).
 */
#ifndef USERTRACE_FTRACE_H
#define USERTRACE_FTRACE_H

#include <stdint.h>
#include "event.h"

/* the kernel's u32 (bprint's buf), as a macro only while the list is read */
#pragma push_macro("u32")
#undef u32
#define u32 uint32_t

#define UT_FTRACE_ENTRY(e, id)			struct ut_ftrace_##e { struct ut_trace_entry ent;
#define UT_FTRACE_FIELD(e, type, name, sgn)	type name;
#define UT_FTRACE_ARRAY(e, type, name, len, sgn)	type name[len];
#define UT_FTRACE_FLEX(e, type, name, sgn)	type name[];
#define UT_FTRACE_PRINT(e, ...)			};
#include "ftrace.def"
#undef UT_FTRACE_ENTRY
#undef UT_FTRACE_FIELD
#undef UT_FTRACE_ARRAY
#undef UT_FTRACE_FLEX
#undef UT_FTRACE_PRINT

#pragma pop_macro("u32")

#endif /* USERTRACE_FTRACE_H */
