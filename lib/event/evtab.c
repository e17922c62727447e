// SPDX-License-Identifier: MIT
/*
 * evtab.c - the events of a trace, printed by libtraceevent from their
 * format files (evtab.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "lib/event/evtab.h"
#include "lib/event/format.h"
#include "reader/symtab.h"
#include "utils/utils.h"

/* the fields of an event, made at the first ut_evtab_fields() of it */
struct evtab_fields {
	unsigned id;
	int nr;
	struct ut_evfield *f;
};

struct ut_evtab {
	struct tep_handle *tep;
	struct evtab_fields *fields;
	int nr_fields;
	struct ut_symtab *symtab;
	/* the event being printed: whose symbols resolve its addresses */
	int pid;
	uint64_t image, ts;
	char namebuf[256];
};

/* %ps / %pS: the function at *@addrp, in the process of the event printed */
static char *resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct ut_evtab *t = priv;
	const struct ut_sym *s;

	*modp = NULL;
	if (!t->symtab || !*addrp)
		return NULL;
	s = ut_symtab_find(t->symtab, t->pid, t->image, *addrp, t->ts);
	if (!s)
		return NULL;
	*addrp = s->addr;
	return (char *)s->name;
}

struct ut_evtab *ut_evtab_new(void)
{
	struct ut_evtab *t = xcalloc(1, sizeof(*t));

	t->tep = tep_alloc();
	if (!t->tep) {
		free(t);
		return NULL;
	}
	tep_set_long_size(t->tep, sizeof(long));
	tep_set_page_size(t->tep, 4096);
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_function_resolver(t->tep, resolve, t);
	return t;
}

void ut_evtab_free(struct ut_evtab *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nr_fields; i++)
		free(t->fields[i].f);
	free(t->fields);
	tep_free(t->tep);
	free(t);
}

void ut_evtab_set_symtab(struct ut_evtab *t, struct ut_symtab *st)
{
	t->symtab = st;
}

int ut_evtab_add_format(struct ut_evtab *t, const char *sys, const char *text, size_t len)
{
	struct tep_event *ev = NULL;

	return tep_parse_format(t->tep, &ev, text, len, sys) ? -1 : 0;
}

int ut_evtab_add_desc(struct ut_evtab *t, const struct ut_event_desc *d)
{
	char *text = ut_event_format(d);
	int ret;

	if (!text)
		return -1;
	ret = ut_evtab_add_format(t, d->system, text, strlen(text));
	free(text);
	return ret;
}

/* directory entries but ., .. and hidden ones */
static int sub_dir(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* "format", or "format.ID": a second layout of the event (record.c) */
static int format_file(const struct dirent *e)
{
	const char *n = e->d_name;

	return !strncmp(n, "format", 6) &&
	       (!n[6] || (n[6] == '.' && n[7] && strspn(n + 7, "0123456789") == strlen(n + 7)));
}

/* the format files of the event directory @evdir of system @sys: how many parse */
static int load_event(struct ut_evtab *t, const char *sys, const char *evdir)
{
	struct dirent **fs = NULL;
	char path[4096 + 256];	/* @evdir and a name */
	int nf = scandir(evdir, &fs, format_file, alphasort), n = 0;

	for (int k = 0; k < nf; k++) {
		size_t len;
		char *text;

		snprintf(path, sizeof(path), "%s/%s", evdir, fs[k]->d_name);
		text = read_file(path, &len);
		if (!text)
			pr_warn("%s: %s", path, strerror(errno));
		else if (ut_evtab_add_format(t, sys, text, len) < 0)
			pr_warn("%s: not a format libtraceevent can read: its events print raw", path);
		else
			n++;
		free(text);
		free(fs[k]);
	}
	free(fs);
	return n;
}

int ut_evtab_load_dir(struct ut_evtab *t, const char *dir)
{
	char path[4096];
	struct dirent **sys = NULL;
	int nsys, n = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	nsys = scandir(path, &sys, sub_dir, alphasort);
	if (nsys < 0) {
		if (errno == ENOENT)
			return 0;
		pr_warn("%s: %s: its events print raw", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < nsys; i++) {
		struct dirent **evs = NULL;
		int nev;

		snprintf(path, sizeof(path), "%s/events/%s", dir, sys[i]->d_name);
		nev = scandir(path, &evs, sub_dir, alphasort);
		for (int j = 0; j < nev; j++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s", dir, sys[i]->d_name,
				 evs[j]->d_name);
			n += load_event(t, sys[i]->d_name, path);
			free(evs[j]);
		}
		free(evs);
		free(sys[i]);
	}
	free(sys);
	return n;
}

/*
 * The element size of a __data_loc array, from its type ("__data_loc
 * short[]"): libtraceevent's size of such a field is its location
 * word's.  Unknown types: bytes (1).
 */
static uint32_t type_elem_size(const char *type)
{
	static const struct {
		const char *name;
		uint32_t size;
	} types[] = {
		{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "bool", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 }, { "uint8_t", 1 },
		{ "int8_t", 1 }, { "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__s16", 2 }, { "uint16_t", 2 }, { "int16_t", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 }, { "u32", 4 }, { "s32", 4 },
		{ "__u32", 4 }, { "__s32", 4 }, { "uint32_t", 4 }, { "int32_t", 4 },
		{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 }, { "__u64", 8 },
		{ "__s64", 8 }, { "uint64_t", 8 }, { "int64_t", 8 }, { "size_t", 8 },
	};
	char base[64];
	size_t n;

	if (!type)
		return 1;
	if (!strncmp(type, "__data_loc ", 11))
		type += 11;
	if (!strncmp(type, "const ", 6))
		type += 6;
	n = strcspn(type, "[");
	while (n && type[n - 1] == ' ')
		n--;
	if (n >= sizeof(base))
		return 1;
	memcpy(base, type, n);
	base[n] = 0;
	if (n && base[n - 1] == '*')
		return 8;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(base, types[i].name))
			return types[i].size;
	return 1;
}

static void field_add(struct evtab_fields *ef, const struct tep_format_field *tf, unsigned common)
{
	struct ut_evfield *f = &ef->f[ef->nr++];
	unsigned fl = tf->flags;

	f->name = tf->name;
	f->type = tf->type;
	f->offset = (uint32_t)tf->offset;
	f->size = (uint32_t)tf->size;
	f->elem_size = fl & TEP_FIELD_IS_ARRAY && tf->elementsize > 0 ? (uint32_t)tf->elementsize :
									(uint32_t)tf->size;
	/* a __data_loc array's size is its location word's: the element's is its type's */
	if (fl & TEP_FIELD_IS_DYNAMIC)
		f->elem_size = type_elem_size(tf->type);
	f->flags = common;
	if (fl & TEP_FIELD_IS_SIGNED)
		f->flags |= UT_EVF_SIGNED;
	if (fl & TEP_FIELD_IS_ARRAY)
		f->flags |= UT_EVF_ARRAY;
	if (fl & TEP_FIELD_IS_STRING)
		f->flags |= UT_EVF_STRING;
	if (fl & TEP_FIELD_IS_DYNAMIC)
		f->flags |= UT_EVF_DYNAMIC | UT_EVF_ARRAY;
	if (fl & (TEP_FIELD_IS_POINTER | TEP_FIELD_IS_SYMBOLIC))
		f->flags |= UT_EVF_POINTER;
}

int ut_evtab_fields(struct ut_evtab *t, unsigned id, const struct ut_evfield **fields)
{
	struct tep_event *ev;
	struct evtab_fields *ef;
	struct tep_format_field *tf;
	int n = 0;

	for (int i = 0; i < t->nr_fields; i++)
		if (t->fields[i].id == id) {
			*fields = t->fields[i].f;
			return t->fields[i].nr;
		}
	ev = tep_find_event(t->tep, (int)id);
	if (!ev)
		return -1;
	for (tf = ev->format.common_fields; tf; tf = tf->next)
		n++;
	for (tf = ev->format.fields; tf; tf = tf->next)
		n++;
	t->fields = xrealloc(t->fields, sizeof(*t->fields) * (size_t)(t->nr_fields + 1));
	ef = &t->fields[t->nr_fields++];
	ef->id = id;
	ef->nr = 0;
	ef->f = xcalloc((size_t)n + 1, sizeof(*ef->f));
	for (tf = ev->format.common_fields; tf; tf = tf->next)
		field_add(ef, tf, UT_EVF_COMMON);
	for (tf = ev->format.fields; tf; tf = tf->next)
		field_add(ef, tf, 0);
	*fields = ef->f;
	return ef->nr;
}

uint64_t ut_evfield_value(const struct ut_evfield *f, const void *entry, uint32_t len)
{
	const unsigned char *p = entry;
	uint64_t v = 0;

	if (f->flags & UT_EVF_ARRAY || f->offset > len || f->size > len - f->offset)
		return 0;
	switch (f->size) {
	case 1: {
		uint8_t x;

		memcpy(&x, p + f->offset, 1);
		v = f->flags & UT_EVF_SIGNED ? (uint64_t)(int64_t)(int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, p + f->offset, 2);
		v = f->flags & UT_EVF_SIGNED ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p + f->offset, 4);
		v = f->flags & UT_EVF_SIGNED ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	case 8:
		memcpy(&v, p + f->offset, 8);
		break;
	}
	return v;
}

const char *ut_evfield_string(const struct ut_evfield *f, const void *entry, uint32_t len,
			      uint32_t *n)
{
	const char *p = entry;
	uint32_t off = f->offset, size = f->size, k = 0;

	if (!(f->flags & UT_EVF_STRING) || f->offset > len || f->size > len - f->offset)
		return NULL;
	if (f->flags & UT_EVF_DYNAMIC) {
		uint32_t loc;

		/* the location word is 4 bytes whatever size a corrupt format gives it */
		if (len - f->offset < 4)
			return NULL;
		memcpy(&loc, p + f->offset, 4);
		off = loc & 0xffff;
		size = loc >> 16;
		if (off > len || size > len - off)
			return NULL;
	} else if (!size) {
		/* char buf[] at the end (ftrace:print): the rest of the entry */
		size = len - off;
	}
	while (k < size && p[off + k])
		k++;
	*n = k;
	return p + off;
}

const char *ut_evtab_name(struct ut_evtab *t, unsigned id, const char **system)
{
	struct tep_event *ev = tep_find_event(t->tep, (int)id);

	if (!ev)
		return NULL;
	if (system)
		*system = ev->system;
	return ev->name;
}

size_t ut_evtab_print(struct ut_evtab *t, const void *entry, uint32_t len, int pid,
		      uint64_t image, uint64_t ts, char *out, size_t size)
{
	struct tep_record rec = { 0 };
	struct trace_seq s;
	struct tep_event *ev;
	uint16_t id;
	size_t n;

	memcpy(&id, entry, 2);
	ev = tep_find_event(t->tep, id);
	if (!ev) {
		const unsigned char *p = entry;
		size_t k = (size_t)snprintf(out, size, "id %u:", id);

		for (uint32_t i = sizeof(struct ut_trace_entry); i < len; i++)
			k += (size_t)snprintf(out + (k < size ? k : size), k < size ? size - k : 0,
					      " %02x", p[i]);
		return k;
	}
	t->pid = pid;
	t->image = image;
	t->ts = ts;
	rec.data = (void *)entry;
	rec.size = (int)len;
	rec.ts = ts;
	trace_seq_init(&s);
	tep_print_event(t->tep, &s, &rec, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	n = (size_t)snprintf(out, size, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return n;
}
