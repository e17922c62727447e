/* s-irqfork.c - irqsoff across fork(): the child's 8 ms signal-blocked
 * section is longer than the parent's 0.2 ms one and is the maximum. */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static void spin(long us) { struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a); do clock_gettime(CLOCK_MONOTONIC, &b); while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us); }
__attribute__((noinline)) void child_section(void) { sigset_t s, o; sigfillset(&s); sigprocmask(SIG_BLOCK, &s, &o); spin(8000); sigprocmask(SIG_SETMASK, &o, 0); }
__attribute__((noinline)) void parent_section(void) { sigset_t s, o; sigfillset(&s); sigprocmask(SIG_BLOCK, &s, &o); spin(200); sigprocmask(SIG_SETMASK, &o, 0); }
int main(void) { pid_t p = fork(); if (!p) { child_section(); _exit(0); } parent_section(); waitpid(p, 0, 0); return 0; }
