// SPDX-License-Identifier: MIT
/* kevsrc.c - what the recorder's kernel event sources share (kevsrc.h) */
#include "cmds/kevsrc.h"
#include "usertrace/session.h"
#include "utils/utils.h"

int kev_slot(const struct ut_evreg *reg, const char *sys, const char *name, uint32_t *slot)
{
	uint32_t s[4];

	if (ut_evreg_find(reg, sys, name, s, 4) < 1)
		return 0;
	*slot = s[0];
	return 1;
}

int kev_recorded(const struct ut_evreg *reg, uint32_t slot)
{
	uint32_t st = __atomic_load_n(&reg->slots[slot].state, __ATOMIC_ACQUIRE);

	return (st & UT_EVS_RECORD) && !(st & UT_EVS_FILTER_ERR);
}

int kev_wanted(const struct ut_evreg *reg, const char *sys, const char *const *names, int n)
{
	uint32_t slot;

	for (int i = 0; i < n; i++)
		if (kev_slot(reg, sys, names[i], &slot) && kev_recorded(reg, slot))
			return 1;
	return 0;
}

void kev_clock_init(struct kev_clock *c, int clock)
{
	c->tsc = clock == UT_CLOCK_TSC;
	ut_calibrate(&c->tsc_a, &c->mono_a);
	c->tsc_b = c->tsc_a;
	c->mono_b = c->mono_a;
}

void kev_clock_update(struct kev_clock *c)
{
	ut_calibrate(&c->tsc_b, &c->mono_b);
}

uint64_t kev_clock_start(const struct kev_clock *c)
{
	return c->tsc ? c->tsc_a : c->mono_a;
}

uint64_t kev_clock_time(const struct kev_clock *c, uint64_t mono)
{
	long double rate;

	if (!c->tsc)
		return mono;
	if (c->mono_b <= c->mono_a)
		return c->tsc_b;
	rate = (long double)(c->tsc_b - c->tsc_a) / (long double)(c->mono_b - c->mono_a);
	return (uint64_t)((long double)c->tsc_b - (long double)((int64_t)(c->mono_b - mono)) * rate);
}
