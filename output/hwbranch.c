// SPDX-License-Identifier: MIT
/*
 * hwbranch.c - hardware branch records: the probe, the decoder of perf
 * samples with a branch stack, the kernel's hw-branch lines.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "output/hwbranch.h"
#include "output/output.h"
#include "output/tracer.h"

static const char *const pmus[] = { "intel_bts", "intel_pt" };

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static enum hwb_source probed;
static char probe_why[256];

static void probe(void)
{
	const char *env = getenv(UT_HWB_ENV), *file = getenv(UT_HWB_RECORDS_ENV);
	struct perf_event_attr a;
	char path[96];
	int fd;

	if (env && !strcmp(env, "off")) {
		snprintf(probe_why, sizeof(probe_why), "turned off by %s=off", UT_HWB_ENV);
		return;
	}
	if (file && *file) {
		probed = HWB_FILE;
		return;
	}
	for (unsigned i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmus[i]);
		if (!access(path, R_OK)) {
			probed = i ? HWB_PT : HWB_BTS;
			return;
		}
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 100003;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		probed = HWB_BRANCH_STACK;
		return;
	}
	snprintf(probe_why, sizeof(probe_why),
		 "no intel_bts or intel_pt PMU, and perf_event_open of branch-stack sampling (LBR, BRS) "
		 "fails: %s", errno == ENOENT ? "the CPU offers no hardware branch event (ENOENT)" :
		 errno == EOPNOTSUPP ? "branch stacks not supported (EOPNOTSUPP)" :
		 errno == EACCES || errno == EPERM ? "not permitted (perf_event_paranoid)" :
		 strerror(errno));
}

enum hwb_source hwb_probe(char *why, size_t len)
{
	pthread_once(&probe_once, probe);
	if (len)
		snprintf(why, len, "%s", probed == HWB_NONE ? probe_why : "");
	return probed;
}

const char *hwb_source_name(enum hwb_source src)
{
	static const char *const names[] = { "none", "intel_bts", "intel_pt", "branch-stack", "file" };

	return (unsigned)src < 5 ? names[src] : "none";
}

/* the words of a sample before its callchain, for each bit of sample_type */
static const struct {
	uint64_t bit;
	unsigned words;
} fixed[] = {
	{ PERF_SAMPLE_IDENTIFIER, 1 },
	{ PERF_SAMPLE_IP, 1 },
	{ PERF_SAMPLE_TID, 1 },
	{ PERF_SAMPLE_TIME, 1 },
	{ PERF_SAMPLE_ADDR, 1 },
	{ PERF_SAMPLE_ID, 1 },
	{ PERF_SAMPLE_STREAM_ID, 1 },
	{ PERF_SAMPLE_CPU, 1 },
	{ PERF_SAMPLE_PERIOD, 1 },
};

/* the branches of one sample: @p its body, @n its words.  -1: inconsistent */
static int sample(const uint64_t *p, size_t n, uint64_t st, uint64_t bst,
		  int (*fn)(const struct hwb_branch *, void *), void *arg, int *stop)
{
	struct hwb_branch b;
	size_t i = 0, nr;
	int given = 0;

	memset(&b, 0, sizeof(b));
	for (unsigned k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++) {
		if (!(st & fixed[k].bit))
			continue;
		if (i >= n)
			return -1;
		if (fixed[k].bit == PERF_SAMPLE_TID) {
			b.pid = (uint32_t)p[i];
			b.tid = (uint32_t)(p[i] >> 32);
		} else if (fixed[k].bit == PERF_SAMPLE_TIME)
			b.time = p[i];
		else if (fixed[k].bit == PERF_SAMPLE_CPU)
			b.cpu = (uint32_t)p[i];
		i++;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (i >= n || p[i] > n - i - 1)
			return -1;
		i += 1 + p[i];
	}
	if (st & PERF_SAMPLE_RAW) {
		/* a u32 size, the data; the whole padded to 8 bytes */
		uint32_t sz;

		if (i >= n)
			return -1;
		memcpy(&sz, &p[i], 4);
		if ((4 + (size_t)sz + 7) / 8 > n - i)
			return -1;
		i += (4 + (size_t)sz + 7) / 8;
	}
	if (i >= n)
		return -1;
	nr = p[i++];
	if (bst & PERF_SAMPLE_BRANCH_HW_INDEX) {
		if (i >= n)
			return -1;
		i++;
	}
	if (nr > (n - i) / 3)
		return -1;
	/* the newest first: given oldest first */
	for (size_t k = nr; k-- > 0;) {
		b.from = p[i + 3 * k];
		b.to = p[i + 3 * k + 1];
		given++;
		if (fn(&b, arg)) {
			*stop = 1;
			break;
		}
	}
	return given;
}

int hwb_decode(const void *buf, size_t len, uint64_t sample_type, uint64_t branch_sample_type,
	       int (*fn)(const struct hwb_branch *b, void *arg), void *arg)
{
	const unsigned char *p = buf;
	size_t off = 0;
	int total = 0, stop = 0;

	if (!(sample_type & PERF_SAMPLE_BRANCH_STACK) || (sample_type & PERF_SAMPLE_READ))
		return -1;
	while (off < len && !stop) {
		struct perf_event_header h;
		uint64_t words[512];
		size_t nw;
		int r;

		if (len - off < sizeof(h))
			return -1;
		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off || h.size % 8)
			return -1;
		if (h.type == PERF_RECORD_SAMPLE) {
			nw = (h.size - sizeof(h)) / 8;
			if (nw > sizeof(words) / 8)
				return -1;
			memcpy(words, p + off + sizeof(h), nw * 8);
			r = sample(words, nw, sample_type, branch_sample_type, fn, arg, &stop);
			if (r < 0)
				return -1;
			total += r;
		}
		off += h.size;
	}
	return total;
}

void hwb_print_header(struct trace_iter *iter)
{
	ut_seq_puts(&iter->seq, "# CPU#        FROM                   TO         FUNCTION\n"
				"#  |           |                     |             |\n");
}

void hwb_print_branch(struct trace_iter *iter, const struct ut_event *ev, int cpu,
		      uint64_t from, uint64_t to)
{
	ut_seq_printf(&iter->seq, "%4d  0x%016llx -> 0x%016llx ", cpu, (unsigned long long)from,
		      (unsigned long long)to);
	if (from)
		trace_print_sym(iter, ev, from);
	ut_seq_putc(&iter->seq, '\n');
}
