// SPDX-License-Identifier: MIT
/*
 * evfilter.c - event filters (evfilter.h): the kernel's filter language,
 * compiled into a flat program the runtime runs on each entry.
 *
 * Compiling is two passes over the text, in the kernel's order, so that
 * the first error reported and its position are the kernel's:
 *
 *  1. scan(): quotes and parentheses over the whole text ("Missing
 *     matching quote", "Too few '('", "Too many '('"), and whether
 *     there is anything at all ("Error: (0)").
 *  2. parse(): left to right, operator precedence with two stacks.  A
 *     predicate ("field op value") becomes one instruction as soon as
 *     it is read, so instructions are in text order; && and || only
 *     decide where each instruction goes next.
 *
 * Where to go is settled by back-patching.  Each instruction has two
 * exits, next[0] (the predicate was false) and next[1] (true).  A
 * sub-expression not yet complete is known by its first instruction and
 * two lists of exits still open: those to take when it is true and when
 * it is false.  An open exit holds the link to the next exit of its list
 * (exits are numbered 2 * instruction + exit + 1; 0 ends a list), so the
 * lists cost no memory beyond the program.  Then:
 *
 *   A && B   A's true exits go to B's first instruction; true: B's true
 *            exits; false: A's false exits then B's
 *   A || B   A's false exits go to B; true: A's then B's; false: B's
 *   !A       A's two lists swap
 *   end      true exits go to n (pass), false exits to n + 1 (drop)
 *
 * Every exit leads forward, so a program always ends, in at most n
 * steps.  "a == 1 || b == 2 && !(c == 3)":
 *
 *   0: a == 1   false -> 1   true -> 3 (pass)
 *   1: b == 2   false -> 4   true -> 2
 *   2: c == 3   false -> 3   true -> 4 (drop)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/event/evfilter.h"

static const char *const err_text[UT_EVF_ERR_NR] = {
	[UT_EVF_ERR_NONE] = "No error",
	[UT_EVF_ERR_INVALID_OP] = "Invalid operator",
	[UT_EVF_ERR_TOO_MANY_OPEN] = "Too many '('",
	[UT_EVF_ERR_TOO_MANY_CLOSE] = "Too few '('",
	[UT_EVF_ERR_MISSING_QUOTE] = "Missing matching quote",
	[UT_EVF_ERR_MISSING_BRACE_OPEN] = "Missing '{'",
	[UT_EVF_ERR_MISSING_BRACE_CLOSE] = "Missing '}'",
	[UT_EVF_ERR_OPERAND_TOO_LONG] = "Operand too long",
	[UT_EVF_ERR_EXPECT_STRING] = "Expecting string field",
	[UT_EVF_ERR_EXPECT_DIGIT] = "Expecting numeric field",
	[UT_EVF_ERR_ILLEGAL_FIELD_OP] = "Illegal operation for field type",
	[UT_EVF_ERR_FIELD_NOT_FOUND] = "Field not found",
	[UT_EVF_ERR_ILLEGAL_INTVAL] = "Illegal integer value",
	[UT_EVF_ERR_BAD_SUBSYS_FILTER] = "Couldn't find or set field in one of a subsystem's events",
	[UT_EVF_ERR_TOO_MANY_PREDS] = "Too many terms in predicate expression",
	[UT_EVF_ERR_INVALID_FILTER] = "Meaningless filter expression",
	[UT_EVF_ERR_INVALID_CPULIST] = "Invalid cpulist",
	[UT_EVF_ERR_IP_FIELD_ONLY] = "Only 'ip' field is supported for function trace",
	[UT_EVF_ERR_INVALID_VALUE] = "Invalid value (did you forget quotes)?",
	[UT_EVF_ERR_NO_FUNCTION] = "Function not found",
	[UT_EVF_ERR_ERRNO] = "Error",
	[UT_EVF_ERR_NO_FILTER] = "No filter found",
};

const char ut_evfilter_system_default[] =
	"### global filter ###\n"
	"# Use this to set filters for multiple events.\n"
	"# Only events with the given fields will be affected.\n"
	"# If no events are modified, an error message will be displayed here\n";

/* the operators, longest first where one is the start of another */
static const char op_text[UT_EVF_OP_NR][3] = { "~", "!=", "==", "<=", "<", ">=", ">", "&" };

const char *ut_evfilter_errmsg(int code)
{
	return code > 0 && code < UT_EVF_ERR_NR ? err_text[code] : "Error";
}

/* the kernel's isspace() and isalnum(): ASCII, no locale */
static int is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum(char c)
{
	return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* ---- fields ---- */

/* a field as a predicate reads it */
struct field {
	uint8_t kind;		/* UT_EVF_K_* */
	uint8_t is_signed;
	uint8_t is_string;
	uint8_t any;		/* checking alone (no descriptor): a name of any type */
	uint16_t offset, size;
};

static const struct {
	const char *name;
	struct field f;
} fixed_fields[] = {
	/* the generic fields, looked up after the event's own */
	{ "CPU", { UT_EVF_K_CPU, 1, 0, 0, 0, 4 } },
	{ "cpu", { UT_EVF_K_CPU, 1, 0, 0, 0, 4 } },
	{ "common_cpu", { UT_EVF_K_CPU, 1, 0, 0, 0, 4 } },
	{ "COMM", { UT_EVF_K_COMM, 0, 1, 0, 0, 16 } },
	{ "comm", { UT_EVF_K_COMM, 0, 1, 0, 0, 16 } },
	/* the kernel's stacktrace field reads as a number at offset 0 in a filter */
	{ "stacktrace", { UT_EVF_K_NUM, 0, 0, 0, 0, 8 } },
	{ "STACKTRACE", { UT_EVF_K_NUM, 0, 0, 0, 0, 8 } },
	/* then the common fields (struct ut_trace_entry) */
	{ "common_type", { UT_EVF_K_NUM, 0, 0, 0, 0, 2 } },
	{ "common_flags", { UT_EVF_K_NUM, 0, 0, 0, 2, 1 } },
	{ "common_preempt_count", { UT_EVF_K_NUM, 0, 0, 0, 3, 1 } },
	{ "common_pid", { UT_EVF_K_NUM, 1, 0, 0, 4, 4 } },
};

/* a descriptor's field, classified as the kernel's filter_assign_type() does */
static void desc_field(const struct ut_event_field *ef, struct field *f)
{
	const char *t = ef->type;
	int has_char = strstr(t, "char") != NULL;

	*f = (struct field){ UT_EVF_K_NUM, ef->is_signed != 0, 0, 0, ef->offset, ef->size };
	if (strstr(t, "__data_loc") && has_char)
		f->kind = UT_EVF_K_STRLOC;
	else if (strstr(t, "__rel_loc") && has_char)
		f->kind = UT_EVF_K_STRRELLOC;
	else if (strchr(t, '[') && has_char)
		f->kind = UT_EVF_K_STR;
	else if (!strcmp(t, "char *") || !strcmp(t, "const char *"))
		f->kind = UT_EVF_K_PCHAR;
	f->is_string = f->kind != UT_EVF_K_NUM;
	if (!f->is_string && f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		f->kind = UT_EVF_K_NOP;
}

static int find_field(const struct ut_event_desc *d, const char *name, size_t len, struct field *f)
{
	if (d)
		for (uint32_t i = 0; i < d->nr_fields; i++) {
			const struct ut_event_field *ef = &d->fields[i];

			if (ef->name && ef->type && !strncmp(ef->name, name, len) && !ef->name[len]) {
				desc_field(ef, f);
				return 1;
			}
		}
	for (size_t i = 0; i < sizeof(fixed_fields) / sizeof(fixed_fields[0]); i++)
		if (!strncmp(fixed_fields[i].name, name, len) && !fixed_fields[i].name[len]) {
			*f = fixed_fields[i].f;
			return 1;
		}
	if (d)
		return 0;
	*f = (struct field){ UT_EVF_K_NUM, 0, 0, 1, 0, 8 };
	return 1;
}

/* ---- numbers, as the kernel's kstrtoull()/kstrtoll() with base 0 ---- */

static int parse_u64(const char *s, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	int nd = 0;

	if (s[0] == '0') {
		base = 8;
		if ((s[1] | 0x20) == 'x' && (is_digit(s[2]) || ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'f'))) {
			base = 16;
			s += 2;
		}
	}
	for (;; s++, nd++) {
		unsigned dv;

		if (is_digit(*s))
			dv = (unsigned)(*s - '0');
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			dv = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			break;
		if (dv >= base)
			break;
		if (v > (UINT64_MAX - dv) / base)
			return -ERANGE;
		v = v * base + dv;
	}
	if (!nd || *s)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_num(const char *s, int is_signed, uint64_t *out)
{
	uint64_t v;

	if (!is_signed)
		return parse_u64(s, out);
	if (s[0] == '-') {
		if (parse_u64(s + 1, &v) < 0 || (int64_t)(0 - v) > 0)
			return -EINVAL;
		*out = 0 - v;
		return 0;
	}
	if (parse_u64(s, &v) < 0 || (int64_t)v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* ---- compiling ---- */

/* a sub-expression being compiled: its first instruction, its open exits */
struct operand {
	uint16_t first;
	uint16_t t_head, t_tail;	/* exits to take when it is true */
	uint16_t f_head, f_tail;	/* when it is false */
};

struct compiler {
	struct ut_evfilter *f;
	const struct ut_event_desc *d;
	struct ut_evf_error *err;
	const char *s;
	size_t len;
	unsigned nops, nopnds;
	char ops[UT_EVF_TEXT_MAX];		/* '(', '!', '&' (&&), '|' (||) */
	struct operand opnds[UT_EVF_PREDS_MAX];
};

static int fail(struct compiler *c, int code, size_t pos, int ret)
{
	c->err->code = code;
	c->err->pos = (int)pos;
	c->err->ret = ret;
	return ret;
}

/* the exit numbered @x (2 * instruction + exit + 1) */
static uint16_t *exit_of(struct ut_evfilter *f, uint16_t x)
{
	x--;
	return &f->preds[x / 2].next[x & 1];
}

/* send every exit of the list at @head to @to */
static void patch(struct ut_evfilter *f, uint16_t head, uint16_t to)
{
	while (head) {
		uint16_t *e = exit_of(f, head);

		head = *e;
		*e = to;
	}
}

/* append the list @h2..@t2 to the list *@h..*@t */
static void append(struct ut_evfilter *f, uint16_t *h, uint16_t *t, uint16_t h2, uint16_t t2)
{
	if (!h2)
		return;
	if (*h)
		*exit_of(f, *t) = h2;
	else
		*h = h2;
	*t = t2;
}

/* the top operand joined with the one before it by @op */
static void reduce(struct compiler *c, char op)
{
	struct operand r = c->opnds[--c->nopnds], *l = &c->opnds[c->nopnds - 1];

	if (op == '&') {
		patch(c->f, l->t_head, r.first);
		l->t_head = r.t_head;
		l->t_tail = r.t_tail;
		append(c->f, &l->f_head, &l->f_tail, r.f_head, r.f_tail);
	} else {
		patch(c->f, l->f_head, r.first);
		l->f_head = r.f_head;
		l->f_tail = r.f_tail;
		append(c->f, &l->t_head, &l->t_tail, r.t_head, r.t_tail);
	}
}

/* an operand is complete: apply the ! before it */
static void apply_nots(struct compiler *c)
{
	while (c->nops && c->ops[c->nops - 1] == '!') {
		struct operand *o = &c->opnds[c->nopnds - 1];
		struct operand t = *o;

		c->nops--;
		o->t_head = t.f_head;
		o->t_tail = t.f_tail;
		o->f_head = t.t_head;
		o->f_tail = t.t_tail;
	}
}

/*
 * Pass 1, over the whole text: quotes and parentheses.  Returns 0 with
 * *@terms = the number of places a predicate may start (0: nothing to
 * compile), or the error.
 */
static int scan(struct compiler *c, unsigned *terms)
{
	const char *s = c->s;
	int open = 1, in_term = 0;
	char quote = 0;
	size_t i, last_quote = 0;

	*terms = 0;
	for (i = 0; s[i]; i++) {
		if (is_space(s[i]))
			continue;
		if (quote) {
			if (s[i] == quote)
				quote = 0;
			continue;
		}
		if (s[i] == '\'' || s[i] == '"') {
			quote = s[i];
			last_quote = i;
		} else if ((s[i] == '&' || s[i] == '|') && s[i + 1] == s[i]) {
			in_term = 0;
			continue;
		} else if (s[i] == '(' || s[i] == ')') {
			in_term = 0;
			if (s[i] == '(') {
				open++;
			} else if (open-- == 1) {
				return fail(c, UT_EVF_ERR_TOO_MANY_CLOSE, i, -EPERM);
			}
			continue;
		}
		if (!in_term) {
			(*terms)++;
			in_term = 1;
		}
	}
	if (quote)
		return fail(c, UT_EVF_ERR_MISSING_QUOTE, last_quote, -ESRCH);
	if (open != 1) {
		/*
		 * Which '(' is not closed: the kernel walks back from the end
		 * to the first '(' no ')' after it closes, never looking at
		 * the first character (reported as 0).
		 */
		int level = open;

		for (i = c->len - 1; i > 0; i--) {
			if (quote) {
				if (s[i] == quote)
					quote = 0;
			} else if (s[i] == '(') {
				if (level == open)
					return fail(c, UT_EVF_ERR_TOO_MANY_OPEN, i, -ENOENT);
				level--;
			} else if (s[i] == ')') {
				level++;
			} else if (s[i] == '\'' || s[i] == '"') {
				quote = s[i];
			}
		}
		return fail(c, UT_EVF_ERR_TOO_MANY_OPEN, 0, -ENOENT);
	}
	return 0;
}

/* a string operand: its match kind, as the kernel's filter_parse_regex() */
static void string_match(struct ut_evf_pred *p, char *pat)
{
	size_t len = strlen(pat);

	p->match = UT_EVF_M_FULL;
	if (p->op != UT_EVF_OP_GLOB)
		return;
	if (pat[0] == '!') {
		p->not = 1;
		memmove(pat, pat + 1, len--);
	}
	if (is_digit(pat[0]))
		return;
	for (size_t i = 0; i < len; i++) {
		if (pat[i] == '*') {
			if (!i) {
				p->match = UT_EVF_M_END;
			} else if (i == len - 1) {
				p->match = p->match == UT_EVF_M_END ? UT_EVF_M_MIDDLE : UT_EVF_M_FRONT;
				pat[i] = 0;
				break;
			} else {
				p->match = UT_EVF_M_GLOB;
				return;
			}
		} else if (pat[i] == '[' || pat[i] == '?' || pat[i] == '\\') {
			p->match = UT_EVF_M_GLOB;
			return;
		}
	}
	if (pat[0] == '*')
		memmove(pat, pat + 1, strlen(pat));
}

/*
 * One predicate, at @at in the text: "field op value" becomes
 * instruction n.  Returns the characters it took, or a negative error.
 * The kernel reports errors inside a predicate one character on
 * (its position base is @at + 1): so do we.
 */
static int parse_pred(struct compiler *c, size_t at)
{
	const char *str = c->s + at;
	size_t pos = at + 1, i = 0, s;
	struct ut_evfilter *f = c->f;
	struct ut_evf_pred *p = &f->preds[f->n];
	struct field fld;
	int op;

	while (is_alnum(str[i]) || str[i] == '_')
		i++;
	if (!i)
		return fail(c, UT_EVF_ERR_NONE, 0, -EPERM);
	if (!find_field(c->d, str, i, &fld))
		return fail(c, UT_EVF_ERR_FIELD_NOT_FOUND, pos + i, -EINVAL);
	while (is_space(str[i]))
		i++;
	for (op = 0; op < UT_EVF_OP_NR; op++)
		if (!strncmp(str + i, op_text[op], strlen(op_text[op])))
			break;
	if (op == UT_EVF_OP_NR)
		return fail(c, UT_EVF_ERR_INVALID_OP, pos + i, -EINVAL);
	i += strlen(op_text[op]);
	while (is_space(str[i]))
		i++;
	s = i;
	memset(p, 0, sizeof(*p));
	p->op = (uint8_t)op;
	p->kind = fld.kind;
	p->offset = fld.offset;
	p->size = fld.size;
	p->is_signed = fld.is_signed;

	if (str[i] == '\'' || str[i] == '"') {
		char q = str[i];
		size_t n;

		if (op != UT_EVF_OP_NE && op != UT_EVF_OP_GLOB && op != UT_EVF_OP_EQ)
			return fail(c, UT_EVF_ERR_ILLEGAL_FIELD_OP, pos + i, -EINVAL);
		p->not = op == UT_EVF_OP_NE;
		if (!fld.is_string && !fld.any)
			return fail(c, UT_EVF_ERR_EXPECT_DIGIT, pos + i, -EINVAL);
		for (i++; str[i] && str[i] != q; i++)
			;
		if (!str[i])
			return fail(c, UT_EVF_ERR_MISSING_QUOTE, pos + i, -EINVAL);
		n = i - s - 1;
		if (n >= UT_EVF_STR_MAX)
			return fail(c, UT_EVF_ERR_OPERAND_TOO_LONG, pos + i, -EINVAL);
		if (f->strs_used + n + 1 > sizeof(f->strs))	/* cannot be: the text is shorter */
			return fail(c, UT_EVF_ERR_OPERAND_TOO_LONG, pos + i, -EINVAL);
		if (fld.any)
			p->kind = UT_EVF_K_STR;
		p->str = (uint16_t)f->strs_used;
		memcpy(f->strs + f->strs_used, str + s + 1, n);
		f->strs[f->strs_used + n] = 0;
		string_match(p, f->strs + f->strs_used);
		p->str_len = (uint16_t)strlen(f->strs + p->str);
		f->strs_used += p->str_len + 1;
		if (p->kind == UT_EVF_K_COMM)
			f->needs |= UT_EVF_NEED_COMM;
		else if (p->kind == UT_EVF_K_PCHAR)
			f->needs |= UT_EVF_NEED_PCHAR;
		i++;
	} else if (is_digit(str[i]) || str[i] == '-') {
		char num[UT_EVF_NUM_MAX];
		size_t n;

		if (fld.is_string)
			return fail(c, UT_EVF_ERR_EXPECT_STRING, pos + i, -EINVAL);
		if (op == UT_EVF_OP_GLOB)
			return fail(c, UT_EVF_ERR_ILLEGAL_FIELD_OP, pos + i, -EINVAL);
		if (str[i] == '-')
			i++;
		while (is_alnum(str[i]))
			i++;
		n = i - s;
		if (n >= sizeof(num))
			return fail(c, UT_EVF_ERR_OPERAND_TOO_LONG, pos + i, -EINVAL);
		memcpy(num, str + s, n);
		num[n] = 0;
		if (parse_num(num, fld.any ? num[0] == '-' : fld.is_signed, &p->val) < 0)
			return fail(c, UT_EVF_ERR_ILLEGAL_INTVAL, pos + s, -EINVAL);
		if (fld.kind == UT_EVF_K_CPU)
			f->needs |= UT_EVF_NEED_CPU;
		else
			p->not = op == UT_EVF_OP_NE;
	} else {
		return fail(c, UT_EVF_ERR_INVALID_VALUE, pos + i, -EINVAL);
	}
	c->opnds[c->nopnds++] = (struct operand){
		.first = f->n,
		.t_head = (uint16_t)(2 * f->n + 2), .t_tail = (uint16_t)(2 * f->n + 2),
		.f_head = (uint16_t)(2 * f->n + 1), .f_tail = (uint16_t)(2 * f->n + 1),
	};
	f->n++;
	return (int)i;
}

/* pass 2: the predicates and how they join */
static int parse(struct compiler *c)
{
	const char *s = c->s;
	size_t p = 0;

	while (s[p]) {
		char ch = s[p++];
		int len;

		if (is_space(ch))
			continue;
		if (ch == '(' || (ch == '!' && s[p] != '=' && s[p] != '~')) {
			c->ops[c->nops++] = ch;
			continue;
		}
		if (c->f->n >= UT_EVF_PREDS_MAX)
			return fail(c, UT_EVF_ERR_TOO_MANY_PREDS, p - 1, -EPERM);
		len = parse_pred(c, p - 1);
		if (len < 0)
			return len;
		p += (size_t)len - 1;
		apply_nots(c);
		/* after a predicate: &&, ||, ')' or the end */
		for (;;) {
			ch = s[p++];
			if (is_space(ch))
				continue;
			if ((ch == '&' || ch == '|') && s[p] == ch) {
				p++;
				/* && binds tighter than || */
				while (c->nops && (c->ops[c->nops - 1] == '&' ||
						   (c->ops[c->nops - 1] == '|' && ch == '|')))
					reduce(c, c->ops[--c->nops]);
				c->ops[c->nops++] = ch;
				break;
			}
			if (ch == '\0')
				goto out;
			if (ch != ')')
				return fail(c, UT_EVF_ERR_TOO_MANY_PREDS, p - 1, -EPERM);
			while (c->nops && (c->ops[c->nops - 1] == '&' || c->ops[c->nops - 1] == '|'))
				reduce(c, c->ops[--c->nops]);
			if (!c->nops || c->ops[c->nops - 1] != '(')
				return fail(c, UT_EVF_ERR_TOO_MANY_CLOSE, p, -EPERM);
			c->nops--;
			apply_nots(c);
		}
	}
	/*
	 * The text ended where an operand was expected: the kernel ignores
	 * what waited for it ("a &&" is "a", "a && !" too).
	 */
	while (c->nops && c->ops[c->nops - 1] == '!')
		c->nops--;
	if (c->nops && (c->ops[c->nops - 1] == '&' || c->ops[c->nops - 1] == '|'))
		c->nops--;
out:
	while (c->nops && (c->ops[c->nops - 1] == '&' || c->ops[c->nops - 1] == '|'))
		reduce(c, c->ops[--c->nops]);
	if (c->nops)
		return fail(c, UT_EVF_ERR_TOO_MANY_OPEN, p, -EPERM);
	if (!c->f->n)
		return fail(c, UT_EVF_ERR_NO_FILTER, p, -EINVAL);
	patch(c->f, c->opnds[0].t_head, c->f->n);
	patch(c->f, c->opnds[0].f_head, (uint16_t)(c->f->n + 1));
	return 0;
}

int ut_evfilter_compile(struct ut_evfilter *f, const char *expr, const struct ut_event_desc *d,
			struct ut_evf_error *err)
{
	struct compiler c;
	unsigned terms;
	int ret;

	memset(f, 0, sizeof(*f));
	*err = (struct ut_evf_error){ 0, 0, 0 };
	c.f = f;
	c.d = d;
	c.err = err;
	c.s = expr;
	c.len = strnlen(expr, UT_EVF_TEXT_MAX);
	c.nops = c.nopnds = 0;
	if (c.len >= UT_EVF_TEXT_MAX)
		return fail(&c, UT_EVF_ERR_NONE, 0, -EINVAL);
	ret = scan(&c, &terms);
	if (ret < 0)
		return ret;
	if (!terms)
		return fail(&c, UT_EVF_ERR_NONE, 0, -EINVAL);
	ret = parse(&c);
	if (ret < 0) {
		f->n = 0;
		return ret;
	}
	f->magic = UT_EVF_MAGIC;
	return 0;
}

/* ---- running ---- */

/* the kernel's strncmp() on a string that may not end before @avail bytes */
static int str_ncmp(const char *s, size_t avail, const char *pat, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char a = i < avail ? (unsigned char)s[i] : 0, b = (unsigned char)pat[i];

		if (a != b)
			return 1;
		if (!a)
			return 0;
	}
	return 0;
}

int ut_evf_glob(const char *pat, const char *s, size_t len)
{
	const char *back_pat = NULL;
	size_t i = 0, back = 0;

	for (;;) {
		unsigned char c = i < len ? (unsigned char)s[i] : 0;
		unsigned char d = (unsigned char)*pat++;

		if (d == '?') {
			if (!c)
				return 0;
			i++;
			continue;
		}
		if (d == '*') {
			if (!*pat)
				return 1;
			back_pat = pat;		/* a match of zero characters first */
			back = i;
			continue;
		}
		if (d == '[') {
			/* a class: [abc], [a-z], [!a-z]; a first ']' is itself; no ']': a '[' */
			int inv = *pat == '!', in = 0;
			const char *cl = pat + inv;
			unsigned char a = (unsigned char)*cl++;

			for (;;) {
				unsigned char b = a;

				if (!a)
					goto literal;
				if (cl[0] == '-' && cl[1] != ']') {
					b = (unsigned char)cl[1];
					if (!b)
						goto literal;
					cl += 2;
				}
				in |= a <= c && c <= b;
				a = (unsigned char)*cl++;
				if (a == ']')
					break;
			}
			if (in == inv)
				goto backtrack;
			pat = cl;
			i++;
			continue;
		}
		if (d == '\\')
			d = (unsigned char)*pat++;
literal:
		if (c == d) {
			if (!d)
				return 1;
			i++;
			continue;
		}
backtrack:
		if (!c || !back_pat)
			return 0;
		pat = back_pat;		/* the last * takes one character more */
		i = ++back;
	}
}

/*
 * A string operand against @s: @len is what the kernel passes for the
 * field (its size, the data_loc length, or 0: up to the NUL), @avail how
 * many bytes may be read at @s (at least @len).
 */
static int str_match(const struct ut_evfilter *f, const struct ut_evf_pred *p, const char *s,
		     size_t len, size_t avail)
{
	const char *pat = f->strs + p->str;
	size_t plen = p->str_len;

	switch (p->match) {
	case UT_EVF_M_FULL:
		if (!len)
			return !str_ncmp(s, avail, pat, plen + 1);
		return !str_ncmp(s, avail, pat, len);
	case UT_EVF_M_FRONT:
		if (len && len < plen)
			return 0;
		return !str_ncmp(s, avail, pat, plen);
	case UT_EVF_M_MIDDLE:
		if (!len)
			len = strnlen(s, avail);
		if (!plen)
			return 1;
		for (size_t i = 0; i + plen <= len; i++)
			if (!memcmp(s + i, pat, plen))
				return 1;
		return 0;
	case UT_EVF_M_END:
		/* the kernel compares the end of the field, not of the string */
		return len >= 1 && len - 1 >= plen && !memcmp(s + len - 1 - plen, pat, plen);
	case UT_EVF_M_GLOB:
		return ut_evf_glob(pat, s, strnlen(s, avail));
	}
	return 0;
}

static int num_match(const struct ut_evf_pred *p, const unsigned char *e)
{
	uint64_t u = 0, v = p->val, mask = p->size == 8 ? ~0ull : (1ull << (p->size * 8)) - 1;
	int64_t sv, svv;

	memcpy(&u, e + p->offset, p->size);	/* little-endian */
	u &= mask;
	v &= mask;
	if (p->op == UT_EVF_OP_EQ || p->op == UT_EVF_OP_NE)
		return (u == v) ^ p->not;
	if (p->op == UT_EVF_OP_BAND)
		return (u & v) != 0;
	if (p->is_signed) {
		unsigned sh = 64 - p->size * 8;

		sv = (int64_t)(u << sh) >> sh;
		svv = (int64_t)(v << sh) >> sh;
		switch (p->op) {
		case UT_EVF_OP_LT: return sv < svv;
		case UT_EVF_OP_LE: return sv <= svv;
		case UT_EVF_OP_GT: return sv > svv;
		case UT_EVF_OP_GE: return sv >= svv;
		}
		return 0;
	}
	switch (p->op) {
	case UT_EVF_OP_LT: return u < v;
	case UT_EVF_OP_LE: return u <= v;
	case UT_EVF_OP_GT: return u > v;
	case UT_EVF_OP_GE: return u >= v;
	}
	return 0;
}

static int cpu_match(const struct ut_evf_pred *p, int cpu)
{
	int v = (int)p->val;

	switch (p->op) {
	case UT_EVF_OP_EQ: return cpu == v;
	case UT_EVF_OP_NE: return cpu != v;
	case UT_EVF_OP_LT: return cpu < v;
	case UT_EVF_OP_LE: return cpu <= v;
	case UT_EVF_OP_GT: return cpu > v;
	case UT_EVF_OP_GE: return cpu >= v;
	}
	return 0;
}

/* one predicate on the entry @e of @size bytes */
static int pred_match(const struct ut_evfilter *f, const struct ut_evf_pred *p,
		      const unsigned char *e, uint32_t size, const struct ut_evf_ctx *ctx)
{
	uint32_t item, loc, len;
	uint64_t addr;
	long n;

	if (p->kind != UT_EVF_K_CPU && p->kind != UT_EVF_K_COMM &&
	    (uint32_t)p->offset + p->size > size)
		return 0;
	if ((p->kind >= UT_EVF_K_STR && p->kind <= UT_EVF_K_COMM) &&
	    ((uint32_t)p->str + p->str_len >= sizeof(f->strs) || f->strs[p->str + p->str_len]))
		return 0;
	switch (p->kind) {
	case UT_EVF_K_NUM:
		if (p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8)
			return 0;
		return num_match(p, e);
	case UT_EVF_K_CPU:
		return ctx && cpu_match(p, ctx->cpu);
	case UT_EVF_K_STR:
		/* a flexible char[] (ftrace:print's buf): to the entry's end */
		len = p->size ? p->size : size - p->offset;
		return str_match(f, p, (const char *)e + p->offset, len, len) ^ p->not;
	case UT_EVF_K_STRLOC:
	case UT_EVF_K_STRRELLOC:
		if (p->size < 4)
			return 0;
		memcpy(&item, e + p->offset, 4);
		loc = (item & 0xffff) + (p->kind == UT_EVF_K_STRRELLOC ? p->offset + 4u : 0);
		len = item >> 16;
		if (loc > size || len > size - loc)
			return 0;
		return str_match(f, p, (const char *)e + loc, len, len) ^ p->not;
	case UT_EVF_K_PCHAR: {
		char buf[1024];

		if (p->size != 8 || !ctx || !ctx->read_str)
			return 0;
		memcpy(&addr, e + p->offset, 8);
		n = ctx->read_str(addr, buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf))
			return 0;
		buf[n] = 0;
		return str_match(f, p, buf, (size_t)n + 1, (size_t)n + 1) ^ p->not;
	}
	case UT_EVF_K_COMM: {
		char comm[16] = { 0 };

		if (!ctx || !ctx->comm)
			return 0;
		strncpy(comm, ctx->comm, sizeof(comm) - 1);
		return str_match(f, p, comm, sizeof(comm), sizeof(comm)) ^ p->not;
	}
	}
	return 0;	/* UT_EVF_K_NOP */
}

int ut_evfilter_match(const struct ut_evfilter *f, const void *ent, uint32_t size,
		      const struct ut_evf_ctx *ctx)
{
	uint32_t n = f->n, i = 0;

	if (f->magic != UT_EVF_MAGIC || !n || n > UT_EVF_PREDS_MAX)
		return 1;
	while (i < n) {
		const struct ut_evf_pred *p = &f->preds[i];
		uint32_t next = p->next[pred_match(f, p, ent, size, ctx) != 0];

		if (next <= i || next > n + 1)
			return 1;	/* not a program we made */
		i = next;
	}
	return i == n;
}

/* ---- the texts of the tracing directory ---- */

size_t ut_evfilter_show(char *buf, size_t size, const char *expr, const struct ut_evf_error *err)
{
	size_t len, pos;
	int n;

	if (!expr)
		n = snprintf(buf, size, "none\n");
	else if (!err)
		n = snprintf(buf, size, "%s\n", expr);
	else if (err->code <= 0)
		n = snprintf(buf, size, "%s\nError: (%d)\n\n", expr, err->code);
	else {
		len = strlen(expr);
		pos = err->pos < 0 ? 0 : (size_t)err->pos;
		if (pos > len)
			pos = len;
		n = snprintf(buf, size, "%s\n%*s^\nparse_error: %s\n\n", expr, (int)pos, "",
			     ut_evfilter_errmsg(err->code));
	}
	return n < 0 ? 0 : (size_t)n;
}

const char *ut_evfilter_errlog_msg(const struct ut_evf_error *err)
{
	return ut_evfilter_errmsg(err->code > 0 ? err->code : UT_EVF_ERR_ERRNO);
}

int ut_evfilter_errlog_pos(const struct ut_evf_error *err)
{
	return err->code > 0 && err->pos > 0 ? err->pos : 0;
}

size_t ut_evfilter_errlog(char *buf, size_t size, const char *expr, const struct ut_evf_error *err)
{
	int n = snprintf(buf, size, "%s: error: %s\n  Command: %s\n%*s^\n", UT_EVF_ERRLOG_LOC,
			 ut_evfilter_errlog_msg(err), expr,
			 (int)(sizeof("  Command: ") - 1) + ut_evfilter_errlog_pos(err), "");

	return n < 0 ? 0 : (size_t)n;
}

int ut_evfilter_compile_system(const char *expr, const struct ut_event_desc *const *descs,
			       size_t n, struct ut_evfilter *progs, struct ut_evf_error *errs,
			       int *ok, struct ut_evf_error *sys_err)
{
	*sys_err = (struct ut_evf_error){ 0, 0, 0 };
	if (!n) {
		*sys_err = (struct ut_evf_error){ UT_EVF_ERR_BAD_SUBSYS_FILTER, 0, -EINVAL };
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		ok[i] = ut_evfilter_compile(&progs[i], expr, descs[i], &errs[i]) == 0;
		if (!ok[i])
			errs[i] = (struct ut_evf_error){ UT_EVF_ERR_BAD_SUBSYS_FILTER, 0, -EINVAL };
	}
	return 0;
}

int ut_evfilter_prepare(char *text)
{
	size_t n = strlen(text);

	while (n && is_space(text[n - 1]))
		text[--n] = 0;
	while (is_space(*text))
		text++;
	return !strcmp(text, "0");
}
