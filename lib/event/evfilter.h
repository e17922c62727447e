/* SPDX-License-Identifier: MIT */
/*
 * evfilter.h - event filters, as the kernel's events/SYS/NAME/filter:
 * an expression over an event's fields is compiled against its
 * descriptor into a flat program, which the runtime evaluates on each
 * entry before it reserves room in the ring buffer.
 *
 *   prev_pid == 1 && (comm ~ "ba*" || !(flags & 4))
 *
 * The grammar, the limits and the error messages (texts and positions)
 * are the kernel's (kernel/trace/trace_events_filter.c, checked against
 * a 6.18 kernel): numbers (decimal, 0x hex, 0 octal, negative for signed
 * fields) with == != < <= > >= &, strings in '' or "" with == != and ~
 * (a glob: "x*", "*x", "*x*", or a full glob with ? [] \), &&, || (&&
 * binds tighter), ! and parentheses.  The fields are the event's own,
 * then CPU/cpu/common_cpu, COMM/comm, stacktrace/STACKTRACE, then the
 * common ones (common_type, common_flags, common_preempt_count,
 * common_pid).  Not supported: CPUS{list}, .function, .ustring.
 *
 * A program is plain memory of a fixed size, without pointers, so that
 * the session's registry (shared memory) can hold it, and evaluating it
 * allocates nothing, takes no lock and calls nothing that allocates: the
 * traced program runs it.  Every index and offset in it is checked while
 * it runs, so a torn or corrupt program gives a wrong answer, never a
 * fault, and always ends (its jumps only go forward).
 *
 * Compiling needs no allocation either (about 12 KiB of stack): the
 * runtime compiles `record -f` filters when an event registers.
 */
#ifndef UT_LIB_EVENT_EVFILTER_H
#define UT_LIB_EVENT_EVFILTER_H

#include <stddef.h>
#include <stdint.h>

#include "usertrace/event.h"

/* the kernel takes a filter written in less than a page */
#define UT_EVF_TEXT_MAX		4096
/* the most predicates such a text holds: "a<1&&" repeated */
#define UT_EVF_PREDS_MAX	820
/* a string operand is shorter than this (the kernel's MAX_FILTER_STR_VAL) */
#define UT_EVF_STR_MAX		256
/* a number operand is shorter than this */
#define UT_EVF_NUM_MAX		24
#define UT_EVF_MAGIC		0x46565455u	/* "UTVF" */

/* what a predicate reads (kind) */
enum {
	UT_EVF_K_NOP,		/* a number of a size not 1, 2, 4 or 8: never true */
	UT_EVF_K_NUM,		/* a number of `size` bytes, `is_signed` */
	UT_EVF_K_CPU,		/* the current CPU */
	UT_EVF_K_STR,		/* char[size] in the entry */
	UT_EVF_K_STRLOC,	/* __data_loc char[]: u32 (len << 16 | offset from the entry) */
	UT_EVF_K_STRRELLOC,	/* __rel_loc char[]: offset from the end of the u32 */
	UT_EVF_K_PCHAR,		/* char *: read through the context */
	UT_EVF_K_COMM,		/* the thread's name */
};

/* operators, in the order they are recognized */
enum {
	UT_EVF_OP_GLOB,		/* ~ */
	UT_EVF_OP_NE,		/* != */
	UT_EVF_OP_EQ,		/* == */
	UT_EVF_OP_LE,		/* <= */
	UT_EVF_OP_LT,		/* < */
	UT_EVF_OP_GE,		/* >= */
	UT_EVF_OP_GT,		/* > */
	UT_EVF_OP_BAND,		/* & */
	UT_EVF_OP_NR,
};

/* how a string operand matches */
enum {
	UT_EVF_M_FULL,		/* the whole string */
	UT_EVF_M_FRONT,		/* "x*" */
	UT_EVF_M_MIDDLE,	/* "*x*" */
	UT_EVF_M_END,		/* "*x" */
	UT_EVF_M_GLOB,		/* ? [ \ or a * inside */
};

/* what the caller of ut_evfilter_match() must put in the context */
#define UT_EVF_NEED_CPU		1u
#define UT_EVF_NEED_COMM	2u
#define UT_EVF_NEED_PCHAR	4u

struct ut_evf_pred {
	uint64_t val;		/* a number operand */
	uint16_t offset;	/* of the field in the entry */
	uint16_t size;		/* of the field */
	uint16_t str;		/* a string operand: its offset in strs[] */
	uint16_t str_len;
	uint16_t next[2];	/* the predicate to run next when false / true;
				 * n: the entry passes, n + 1: it does not */
	uint8_t kind;		/* UT_EVF_K_* */
	uint8_t op;		/* UT_EVF_OP_* */
	uint8_t match;		/* UT_EVF_M_* */
	uint8_t is_signed;
	uint8_t not;		/* invert the comparison (!=, ~ "!x") */
	uint8_t pad[3];
};

struct ut_evfilter {
	uint32_t magic;		/* UT_EVF_MAGIC */
	uint16_t n;		/* predicates */
	uint16_t needs;		/* UT_EVF_NEED_* */
	uint32_t strs_used;
	uint32_t pad;
	struct ut_evf_pred preds[UT_EVF_PREDS_MAX];
	char strs[UT_EVF_TEXT_MAX];	/* the string operands, each NUL-terminated */
};

/* what the program may need besides the entry */
struct ut_evf_ctx {
	int cpu;			/* UT_EVF_NEED_CPU */
	const char *comm;		/* UT_EVF_NEED_COMM: NUL-terminated, or NULL */
	/*
	 * UT_EVF_NEED_PCHAR: copy the string at @addr into @buf (@size
	 * bytes, NUL-terminated); its length, or -1 if it cannot be read.
	 * NULL: such predicates are false.
	 */
	long (*read_str)(uint64_t addr, char *buf, size_t size);
};

/* the kernel's error codes (FILT_ERR_*), in its order */
enum {
	UT_EVF_ERR_NONE,
	UT_EVF_ERR_INVALID_OP,
	UT_EVF_ERR_TOO_MANY_OPEN,
	UT_EVF_ERR_TOO_MANY_CLOSE,
	UT_EVF_ERR_MISSING_QUOTE,
	UT_EVF_ERR_MISSING_BRACE_OPEN,
	UT_EVF_ERR_MISSING_BRACE_CLOSE,
	UT_EVF_ERR_OPERAND_TOO_LONG,
	UT_EVF_ERR_EXPECT_STRING,
	UT_EVF_ERR_EXPECT_DIGIT,
	UT_EVF_ERR_ILLEGAL_FIELD_OP,
	UT_EVF_ERR_FIELD_NOT_FOUND,
	UT_EVF_ERR_ILLEGAL_INTVAL,
	UT_EVF_ERR_BAD_SUBSYS_FILTER,
	UT_EVF_ERR_TOO_MANY_PREDS,
	UT_EVF_ERR_INVALID_FILTER,
	UT_EVF_ERR_INVALID_CPULIST,
	UT_EVF_ERR_IP_FIELD_ONLY,
	UT_EVF_ERR_INVALID_VALUE,
	UT_EVF_ERR_NO_FUNCTION,
	UT_EVF_ERR_ERRNO,
	UT_EVF_ERR_NO_FILTER,
	UT_EVF_ERR_NR,
};

/*
 * Why a compile failed.  `code` 0 is the kernel's "Error: (0)" case (no
 * message: e.g. "()" or "&& a"); `ret` is what the write of the filter
 * file returns, as the kernel's: -EINVAL, and for some errors -EPERM
 * (-1), -ENOENT (-2, "Too many '('"), -ESRCH (-3, missing quote).
 */
struct ut_evf_error {
	int code;		/* UT_EVF_ERR_* */
	int pos;		/* the kernel's position (may be past the end) */
	int ret;
};

/* the kernel's message for @code ("Field not found") */
const char *ut_evfilter_errmsg(int code);

/*
 * ut_evfilter_compile - compile @expr for the event @d into @f
 *
 * @d NULL checks the expression alone (`record -f` before the program
 * has registered its events): the common and generic fields are checked
 * as usual, any other name is taken as a field of the type its operand
 * has.  Returns 0, or @err->ret (negative) with @err filled.
 *
 * Context: any; no allocation.
 */
int ut_evfilter_compile(struct ut_evfilter *f, const char *expr, const struct ut_event_desc *d,
			struct ut_evf_error *err);

/*
 * ut_evfilter_match - does the entry @ent (@size bytes) pass @f?
 *
 * @ctx gives what @f->needs (may be NULL if it needs nothing).  A
 * program that is not valid lets every entry pass.
 *
 * Context: any, including the traced program's hot path: no allocation,
 * no lock, no libc call but a string compare.
 */
int ut_evfilter_match(const struct ut_evfilter *f, const void *ent, uint32_t size,
		      const struct ut_evf_ctx *ctx);

/*
 * ut_evfilter_show - what the event's `filter` file reads
 *
 * @expr NULL: no filter ("none\n").  @err NULL: the filter @expr was set
 * ("EXPR\n").  Else the write of @expr failed with @err: the expression,
 * a line with `^` under the error, "parse_error: MESSAGE" and an empty
 * line (or "Error: (N)" for code 0), byte for byte the kernel's.  As
 * snprintf: the length of the whole text.
 */
size_t ut_evfilter_show(char *buf, size_t size, const char *expr, const struct ut_evf_error *err);

/* the location of the error_log entries of filters */
#define UT_EVF_ERRLOG_LOC	"event filter parse error"

/*
 * The error_log entry for @err: the message ("Error" for code 0) and the
 * `^`'s column after "  Command: ".  ut_evfilter_errlog() makes the
 * entry's text without its "[  123.456789] " prefix:
 *   "event filter parse error: error: MESSAGE\n  Command: EXPR\n   ...^\n"
 */
const char *ut_evfilter_errlog_msg(const struct ut_evf_error *err);
int ut_evfilter_errlog_pos(const struct ut_evf_error *err);
size_t ut_evfilter_errlog(char *buf, size_t size, const char *expr, const struct ut_evf_error *err);

/*
 * ut_evfilter_compile_system - events/SYS/filter: @expr for each of the
 * @n events @descs of a system
 *
 * Each event that has the fields gets its program in @progs[i] and
 * @ok[i] = 1; the others get @ok[i] = 0 and @errs[i] = "Couldn't find or
 * set field in one of a subsystem's events" at 0: their filter file
 * shows it, each adds an error_log entry, and they are not filtered (the
 * kernel disables their filter).  As the kernel's, the write succeeds
 * even if no event took the filter, and the system's file then reads
 * ut_evfilter_system_default; it fails only for a system without events:
 * -EINVAL, with @sys_err (that message, at 0) for the system's file.
 */
int ut_evfilter_compile_system(const char *expr, const struct ut_event_desc *const *descs,
			       size_t n, struct ut_evfilter *progs, struct ut_evf_error *errs,
			       int *ok, struct ut_evf_error *sys_err);

/* the text of events/SYS/filter when no error is to be shown */
extern const char ut_evfilter_system_default[];

/*
 * What the tracing directory does with a written text first, as the
 * kernel: cut trailing blanks in place; returns 1 if the text then says
 * "clear the filter" ("0", blanks before it allowed), else 0.  An empty
 * write changes nothing; a write of UT_EVF_TEXT_MAX bytes or more fails
 * with EINVAL before any of this.
 */
int ut_evfilter_prepare(char *text);

/* the kernel's glob (lib/glob.c semantics): * ? [a-z] [!a] \x; @s ends at NUL or @len */
int ut_evf_glob(const char *pat, const char *s, size_t len);

#endif /* UT_LIB_EVENT_EVFILTER_H */
