/* SPDX-License-Identifier: MIT */
/* utils.h - helpers of the command-line tool (never linked into the runtime) */
#ifndef USERTRACE_UTILS_H
#define USERTRACE_UTILS_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* messages: "usertrace: <what>" on stderr */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int debug;
void pr_dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A traced program killed by a signal (@wstatus as waitpid gives it):
 * "usertrace: program killed by signal 11 (Segmentation fault)@then", as a
 * shell says it.  Nothing for a program that exited.
 */
void pr_killed(int wstatus, const char *then);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* "64K", "1M", "4096": bytes, or -1 */
long long parse_size(const char *s);
/* "10us", "1ms", "5" (us), "2s": ns, or -1 */
long long parse_time(const char *s);

/*
 * Clocks: CLOCK_MONOTONIC in ns, the TSC, and a (tsc, mono) pair taken as
 * close together as possible (a calibration point of the TSC).
 */
uint64_t ut_mono_ns(void);
uint64_t ut_rdtsc(void);
void ut_calibrate(uint64_t *tsc, uint64_t *mono);

int ut_send_all(int fd, const void *p, size_t n);
int ut_copy_file(const char *from, const char *to, int mode);
/* mkdir -p; 0 or -1 */
int mkdir_p(const char *path, int mode);
/* rm -rf; 0 or -1 */
int remove_tree(const char *path);
/* whole file into a NUL-terminated buffer; NULL on error (errno set) */
char *read_file(const char *path, size_t *len);
/*
 * the length of the valid UTF-8 sequence at @s (@n bytes left, n > 0), 0
 * if it is not one (overlong, surrogate, past U+10FFFF, cut short): what
 * the text exports (JSON, XML) replace with U+FFFD
 */
size_t ut_utf8_len(const unsigned char *s, size_t n);

#endif
