/*
 * dir_stubs.h - what runtime/filter.c calls of runtime/triggers.c and
 * graph.c for an instance's function commands, stubbed: none run in the
 * programs that include filter.c alone (test_filter, the filter fuzzer).
 */
#ifndef UT_TESTS_DIR_STUBS_H
#define UT_TESTS_DIR_STUBS_H

int ut_dir_switch(struct ut_evreg *r, uint32_t dir, int on, volatile int64_t *count)
{
	(void)r, (void)dir, (void)on, (void)count;
	return 0;
}

int ut_dir_soft_switch(struct ut_evreg *r, uint32_t dir, uint32_t target, int enable,
		       volatile int64_t *count)
{
	(void)r, (void)dir, (void)target, (void)enable, (void)count;
	return 0;
}

void ut_write_trace_dir(struct ut_thread *t, const uintptr_t *ips, uint32_t n, uint64_t ts,
			uint32_t dir)
{
	(void)t, (void)ips, (void)n, (void)ts, (void)dir;
}

#endif
