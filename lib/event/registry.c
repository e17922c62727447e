// SPDX-License-Identifier: MIT
/*
 * registry.c - event descriptors in bytes, and the session's registry
 * (usertrace/evreg.h).  Built into the runtime (which registers) and the
 * tools (which read): no allocation on the runtime's side but in
 * ut_event_desc_unpack(), which only the tools call.
 *
 * A packed descriptor:
 *
 *   "UTD1"  u16 size  u16 nr_fields  u16 id  u16 0
 *   system\0 name\0 print_fmt\0
 *   per field: u16 offset  u16 size  u8 is_signed  u8 kind  u16 len  type\0 name\0
 *
 * Two descriptors with the same bytes describe the same event layout.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "usertrace/evreg.h"

#define PACK_MAGIC	"UTD1"
#define PACK_HDR	12

int ut_evreg_init(struct ut_evreg *r)
{
	pthread_mutexattr_t a;
	int ret;

	memcpy(r->magic, UT_EVREG_MAGIC, 8);
	r->version = UT_EVREG_VERSION;
	if ((ret = pthread_mutexattr_init(&a)))
		return -ret;
	ret = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (!ret)
		ret = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (!ret)
		ret = pthread_mutex_init(&r->lock, &a);
	pthread_mutexattr_destroy(&a);
	return -ret;
}

/* the words of a name: an event's system and name become directory names */
static int name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

int ut_event_match(const char *pat, const char *system, const char *name)
{
	const char *colon = strchr(pat, ':');
	char sys[128];
	size_t n;

	if (!colon)	/* a bare word: the event's name or its system */
		return !fnmatch(pat, name, 0) || !fnmatch(pat, system, 0);
	n = (size_t)(colon - pat);
	if (n >= sizeof(sys))
		return 0;
	memcpy(sys, pat, n);
	sys[n] = 0;
	/* "sys:" is the whole system, as "sys:*" */
	return (!n || !fnmatch(sys, system, 0)) &&
	       (!colon[1] || !fnmatch(colon + 1, name, 0));
}

const char *ut_event_next_word(const char *list, char *w, size_t size)
{
	size_t n;

	for (;;) {
		list += strspn(list, " \t\n");
		if (!*list)
			return NULL;
		n = strcspn(list, " \t\n");
		if (n < size)
			break;
		list += n;	/* too long to be a pattern: skipped */
	}
	memcpy(w, list, n);
	w[n] = 0;
	return list + n;
}

int ut_event_match_list(const char *list, const char *system, const char *name)
{
	char w[256];

	while ((list = ut_event_next_word(list, w, sizeof(w))))
		if (ut_event_match(w, system, name))
			return 1;
	return 0;
}

/* append @s and its NUL at *@off; 0 if it does not fit */
static int put_str(char *buf, size_t cap, size_t *off, const char *s)
{
	size_t n = strlen(s) + 1;

	if (*off + n > cap)
		return 0;
	memcpy(buf + *off, s, n);
	*off += n;
	return 1;
}

static int put_u16(char *buf, size_t cap, size_t *off, uint32_t v)
{
	uint16_t x = (uint16_t)v;

	if (v > 0xffff || *off + 2 > cap)
		return 0;
	memcpy(buf + *off, &x, 2);
	*off += 2;
	return 1;
}

size_t ut_event_desc_pack(const struct ut_event_desc *d, char *buf, size_t cap)
{
	size_t off = 0;

	if (!d->system || !d->name || !d->print_fmt || !name_ok(d->system) || !name_ok(d->name) ||
	    d->size < sizeof(struct ut_trace_entry) || d->size > UT_EVENT_MAX ||
	    (d->nr_fields && !d->fields) || cap < PACK_HDR)
		return 0;
	memcpy(buf, PACK_MAGIC, 4);
	off = 4;
	if (!put_u16(buf, cap, &off, d->size) || !put_u16(buf, cap, &off, d->nr_fields) ||
	    !put_u16(buf, cap, &off, d->id) || !put_u16(buf, cap, &off, 0) ||
	    !put_str(buf, cap, &off, d->system) || !put_str(buf, cap, &off, d->name) ||
	    !put_str(buf, cap, &off, d->print_fmt))
		return 0;
	for (uint32_t i = 0; i < d->nr_fields; i++) {
		const struct ut_event_field *f = &d->fields[i];

		if (!f->type || !f->name || !name_ok(f->name) || off + 6 > cap ||
		    f->offset + (uint32_t)f->size > d->size || f->offset < sizeof(struct ut_trace_entry))
			return 0;
		if (!put_u16(buf, cap, &off, f->offset) || !put_u16(buf, cap, &off, f->size))
			return 0;
		buf[off++] = (char)(f->is_signed != 0);
		buf[off++] = (char)f->kind;
		if (!put_u16(buf, cap, &off, f->len) || !put_str(buf, cap, &off, f->type) ||
		    !put_str(buf, cap, &off, f->name))
			return 0;
	}
	return off;
}

/* the string at *@off of @len bytes (NUL within), or NULL; moves *@off past it */
static const char *get_str(const char *buf, size_t len, size_t *off)
{
	const char *s = buf + *off, *end;

	if (*off >= len || !(end = memchr(s, 0, len - *off)))
		return NULL;
	*off += (size_t)(end - s) + 1;
	return s;
}

struct ut_event_desc *ut_event_desc_unpack(const char *buf, size_t len, uint16_t id)
{
	uint16_t size, nr, fid;
	const char *sys, *name, *fmt, *fname;
	struct ut_event_desc *d;
	struct ut_event_field *fields;
	char *strs;
	size_t off = PACK_HDR, start;

	if (len < PACK_HDR || memcmp(buf, PACK_MAGIC, 4))
		return NULL;
	memcpy(&size, buf + 4, 2);
	memcpy(&nr, buf + 6, 2);
	memcpy(&fid, buf + 8, 2);
	if (size < sizeof(struct ut_trace_entry) || size > UT_EVENT_MAX ||
	    nr > UT_EVENT_MAX / 2)
		return NULL;
	if (!(sys = get_str(buf, len, &off)) || !(name = get_str(buf, len, &off)) ||
	    !(fmt = get_str(buf, len, &off)) || !name_ok(sys) || !name_ok(name))
		return NULL;
	start = off;
	for (uint32_t i = 0; i < nr; i++) {
		uint16_t fo, fs;

		if (off + 8 > len)
			return NULL;
		memcpy(&fo, buf + off, 2);
		memcpy(&fs, buf + off + 2, 2);
		if (fo < sizeof(struct ut_trace_entry) || fo + (uint32_t)fs > size ||
		    (unsigned char)buf[off + 5] > UT_FIELD_DATA_LOC)
			return NULL;
		off += 8;
		if (!get_str(buf, len, &off) || !(fname = get_str(buf, len, &off)) ||
		    !name_ok(fname))
			return NULL;
	}
	if (off != len)
		return NULL;
	/* one block: the struct, the fields, then a copy of every string */
	d = malloc(sizeof(*d) + nr * sizeof(*fields) + len);
	if (!d)
		return NULL;
	fields = (struct ut_event_field *)(d + 1);
	strs = (char *)(fields + nr);
	memcpy(strs, buf, len);
	off = PACK_HDR;
	*d = (struct ut_event_desc){ .abi = UT_TP_ABI, .id = id ? id : fid, .size = size,
				     .nr_fields = nr, .fields = fields };
	d->system = get_str(strs, len, &off);
	d->name = get_str(strs, len, &off);
	d->print_fmt = get_str(strs, len, &off);
	off = start;
	for (uint32_t i = 0; i < nr; i++) {
		struct ut_event_field *f = &fields[i];

		memcpy(&f->offset, strs + off, 2);
		memcpy(&f->size, strs + off + 2, 2);
		f->is_signed = (uint8_t)strs[off + 4];
		f->kind = (uint8_t)strs[off + 5];
		memcpy(&f->len, strs + off + 6, 2);
		off += 8;
		f->type = get_str(strs, len, &off);
		f->name = get_str(strs, len, &off);
	}
	return d;
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ---- filters ---- */

/*
 * The program of slot @i, to be rewritten: the one it has, else a free
 * one, taken for it; NULL if none is free.  Context: the lock held.
 */
static struct ut_evreg_prog *prog_for(struct ut_evreg *r, uint32_t i)
{
	uint32_t cur = r->slots[i].filter;

	if (cur && cur <= UT_EVREG_PROGS && r->progs[cur - 1].slot == i + 1)
		return &r->progs[cur - 1];
	for (uint32_t k = 0; k < UT_EVREG_PROGS; k++)
		if (!r->progs[k].slot) {
			r->progs[k].slot = i + 1;
			return &r->progs[k];
		}
	return NULL;
}

/* a writer of a program: odd while it writes (even if one died in a write) */
static void prog_write_begin(struct ut_evreg_prog *p)
{
	__atomic_store_n(&p->seq, (p->seq + 1) | 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void prog_write_end(struct ut_evreg *r, uint32_t i, struct ut_evreg_prog *p)
{
	__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->slots[i].filter, (uint32_t)(p - r->progs) + 1, __ATOMIC_RELEASE);
}

static void prog_release(struct ut_evreg *r, uint32_t i)
{
	uint32_t cur = r->slots[i].filter;

	__atomic_store_n(&r->slots[i].filter, 0, __ATOMIC_RELEASE);
	if (cur && cur <= UT_EVREG_PROGS && r->progs[cur - 1].slot == i + 1)
		r->progs[cur - 1].slot = 0;
}

const char *ut_evreg_filter_text(const struct ut_evreg *r, const char *system, const char *name)
{
	const char *p = r->filters, *end = r->filters + UT_EVREG_FILTERS;

	while (p < end && *p) {
		const char *expr = p + strnlen(p, (size_t)(end - p)) + 1, *next;

		if (expr >= end)
			break;
		next = expr + strnlen(expr, (size_t)(end - expr)) + 1;
		if (next > end)
			break;
		if (ut_event_match(p, system, name))
			return expr;
		p = next;
	}
	return NULL;
}

int ut_evreg_add_filter(struct ut_evreg *r, const char *pattern, const char *expr)
{
	size_t off = 0, np = strlen(pattern) + 1, ne = strlen(expr) + 1;

	while (off < UT_EVREG_FILTERS && r->filters[off]) {
		off += strnlen(r->filters + off, UT_EVREG_FILTERS - off) + 1;	/* the pattern */
		if (off < UT_EVREG_FILTERS)
			off += strnlen(r->filters + off, UT_EVREG_FILTERS - off) + 1;	/* its filter */
	}
	if (!np || off + np + ne + 1 > UT_EVREG_FILTERS)
		return -ENOSPC;
	memcpy(r->filters + off, pattern, np);
	memcpy(r->filters + off + np, expr, ne);
	r->filters[off + np + ne] = 0;
	return 0;
}

/*
 * A new slot @i selected by record -e: its -f filter, compiled for @d.
 * Context: the lock held; in the traced program (no allocation: the
 * compiler works on the stack and in the program itself).
 */
static void apply_record_filter(struct ut_evreg *r, uint32_t i, const struct ut_event_desc *d)
{
	const char *expr = ut_evreg_filter_text(r, d->system, d->name);
	struct ut_evreg_prog *p;
	struct ut_evf_error err;
	int ret;

	if (!expr)
		return;
	p = prog_for(r, i);
	if (!p) {
		r->slots[i].state = UT_EVS_FILTER_ERR;
		return;
	}
	prog_write_begin(p);
	ret = ut_evfilter_compile(&p->f, expr, d, &err);
	if (ret < 0) {
		__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
		p->slot = 0;
		r->slots[i].state = UT_EVS_FILTER_ERR;
		return;
	}
	prog_write_end(r, i, p);
}

static int reg_lock(struct ut_evreg *r)
{
	int ret = pthread_mutex_lock(&r->lock);

	/* its holder died: what it wrote is not counted yet (nr), go on */
	if (ret == EOWNERDEAD)
		ret = pthread_mutex_consistent(&r->lock);
	return ret;
}

int ut_evreg_register(struct ut_evreg *r, const struct ut_event_desc *d)
{
	char buf[8192];
	size_t len = ut_event_desc_pack(d, buf, sizeof(buf));
	uint64_t h;
	uint32_t n, i;

	if (!len || reg_lock(r))
		return -1;
	h = fnv1a(buf, len);
	n = r->nr;
	for (i = 0; i < n; i++) {
		const struct ut_evreg_slot *s = &r->slots[i];

		if (s->hash == h && s->desc_len == len && !memcmp(r->blob + s->desc_off, buf, len))
			break;
	}
	if (i == n) {
		struct ut_evreg_slot *s = &r->slots[n];

		if (n >= UT_EVREG_SLOTS || r->blob_used + len > UT_EVREG_BLOB) {
			r->full++;
			pthread_mutex_unlock(&r->lock);
			return -1;
		}
		memcpy(r->blob + r->blob_used, buf, len);
		s->desc_off = r->blob_used;
		s->desc_len = (uint32_t)len;
		s->hash = h;
		s->state = ut_event_match_list(r->patterns, d->system, d->name) ? UT_EVS_RECORD : 0;
		s->filter = 0;
		if (s->state & UT_EVS_RECORD)
			apply_record_filter(r, n, d);
		r->blob_used += len;
		__atomic_store_n(&r->nr, n + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&r->lock);
	return (int)i;
}

struct ut_event_desc *ut_evreg_desc(const struct ut_evreg *r, uint32_t i)
{
	const struct ut_evreg_slot *s;

	if (i >= __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE) || i >= UT_EVREG_SLOTS)
		return NULL;
	s = &r->slots[i];
	if (s->desc_off > UT_EVREG_BLOB || s->desc_len > UT_EVREG_BLOB - s->desc_off)
		return NULL;
	return ut_event_desc_unpack(r->blob + s->desc_off, s->desc_len, UT_EVREG_ID(i));
}

int ut_evreg_find(const struct ut_evreg *r, const char *system, const char *name,
		  uint32_t *out, int max)
{
	uint32_t n = __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE);
	size_t sl = strlen(system) + 1, nl = strlen(name) + 1;
	int k = 0;

	for (uint32_t i = 0; i < n && i < UT_EVREG_SLOTS; i++) {
		const struct ut_evreg_slot *s = &r->slots[i];
		const char *p = r->blob + s->desc_off + PACK_HDR;

		/* packed: the header, then system\0 name\0 */
		if (s->desc_off > UT_EVREG_BLOB || s->desc_len > UT_EVREG_BLOB - s->desc_off ||
		    s->desc_len < PACK_HDR + sl + nl)
			continue;
		if (memcmp(p, system, sl) || memcmp(p + sl, name, nl))
			continue;
		if (k < max)
			out[k] = i;
		k++;
	}
	return k;
}

int ut_evreg_set_filter(struct ut_evreg *r, uint32_t i, const struct ut_evfilter *f)
{
	struct ut_evreg_prog *p;

	if (i >= __atomic_load_n(&r->nr, __ATOMIC_ACQUIRE) || i >= UT_EVREG_SLOTS ||
	    (f && (f->magic != UT_EVF_MAGIC || !f->n)))
		return -EINVAL;
	if (reg_lock(r))
		return -EINVAL;
	if (!f) {
		prog_release(r, i);
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	p = prog_for(r, i);
	if (!p) {
		pthread_mutex_unlock(&r->lock);
		return -ENOSPC;
	}
	prog_write_begin(p);
	memcpy(&p->f, f, sizeof(*f));
	prog_write_end(r, i, p);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

int ut_evreg_filter_match(const struct ut_evreg *r, uint32_t i, const void *ent, uint32_t size,
			  struct ut_evf_ctx *ctx, void (*fill)(struct ut_evf_ctx *ctx, unsigned needs))
{
	if (i >= UT_EVREG_SLOTS)
		return 1;
	/* a program rewritten while it ran: run it again, a few times at most */
	for (int tries = 0; tries < 4; tries++) {
		uint32_t k = __atomic_load_n(&r->slots[i].filter, __ATOMIC_ACQUIRE), seq;
		const struct ut_evreg_prog *p;
		int ret;

		if (!k || k > UT_EVREG_PROGS)
			return 1;
		p = &r->progs[k - 1];
		seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		if (p->f.needs && fill)
			fill(ctx, p->f.needs);
		ret = ut_evfilter_match(&p->f, ent, size, ctx);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == seq &&
		    __atomic_load_n(&r->slots[i].filter, __ATOMIC_RELAXED) == k)
			return ret;
	}
	return 1;
}

/* a trigger's filter: a program of its own, not a slot's */
#define PROG_TRIGGER	UINT32_MAX

int ut_evreg_prog_alloc(struct ut_evreg *r, const struct ut_evfilter *f)
{
	int ret = -ENOSPC;

	if (!f || f->magic != UT_EVF_MAGIC || !f->n)
		return -EINVAL;
	if (reg_lock(r))
		return -EINVAL;
	for (uint32_t k = 0; k < UT_EVREG_PROGS; k++)
		if (!r->progs[k].slot) {
			struct ut_evreg_prog *p = &r->progs[k];

			p->slot = PROG_TRIGGER;
			prog_write_begin(p);
			memcpy(&p->f, f, sizeof(*f));
			__atomic_store_n(&p->seq, p->seq + 1, __ATOMIC_RELEASE);
			ret = (int)k + 1;
			break;
		}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void ut_evreg_prog_free(struct ut_evreg *r, uint32_t k)
{
	if (!k || k > UT_EVREG_PROGS || reg_lock(r))
		return;
	if (r->progs[k - 1].slot == PROG_TRIGGER)
		r->progs[k - 1].slot = 0;
	pthread_mutex_unlock(&r->lock);
}
