#!/bin/bash
# description: irqsoff through the older mask interfaces libc implements on its own: BSD sigblock()/sigsetmask() and System V sighold()/sigrelse() open and close sections as sigprocmask does, and return what libc's return (the old mask), errno kept; dash, which unblocks with sigsetmask(0), has its SIGCHLD sections end there
SUITE=irqsoff
. "$(dirname "$0")/lib.sh"

cat > "$W/old.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void spin(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}
__attribute__((noinline)) int bsd(void)
{
	errno = 4242;
	int old = sigblock(sigmask(SIGUSR1) | sigmask(SIGUSR2));
	spin(3000);
	int mid = sigsetmask(old);	/* ends the section, reported: errno kept all the same */
	if (errno != 4242)
		return 11;
	/* libc's answers: the mask before each call */
	return old == 0 && mid == (sigmask(SIGUSR1) | sigmask(SIGUSR2)) ? 0 : 10;
}
__attribute__((noinline)) int sysv(void)
{
	sigset_t now;
	if (sighold(SIGUSR1))
		return 20;
	spin(2000);
	sigprocmask(SIG_SETMASK, 0, &now);
	if (!sigismember(&now, SIGUSR1) || sigrelse(SIGUSR1))
		return 21;
	return sighold(0) == -1 ? 0 : 22;	/* not a signal: libc's EINVAL */
}
/* under wakeup: a sem_wait that waits (its first try fails) leaves errno as it was */
static sem_t s;
static void *poster(void *a) { spin(20000); sem_post(&s); return a; }
int sem(void)
{
	pthread_t t;
	sem_init(&s, 0, 0);
	pthread_create(&t, 0, poster, 0);
	errno = 4343;
	int r = sem_wait(&s) == 0 && errno == 4343 ? 0 : 40;
	pthread_join(t, 0);
	return r;
}
int main(int argc, char **argv) { (void)argv; return argc > 1 ? sem() : bsd() + sysv(); }
C
gcc -w -pg -O2 -o "$W/old" "$W/old.c" -lpthread || { not_ok "cannot build"; exit 1; }
"$UT" record -t irqsoff --thresh 1ms -o "$W/d" -- "$W/old" > /dev/null 2> "$W/err"
rc=$?
[ "$rc" = 0 ] && ok "the program's checks of libc's answers pass under irqsoff" ||
	{ not_ok "status $rc"; sed 's/^/# /' "$W/err"; }
"$UT" replay -i "$W/d" 2>&1 | grep -v '^#' | grep -v '^ =>' |
	sed -E 's/^ *old-[0-9]+ +[0-9]+/old C/; s/ +[0-9]+us.: / T: /' > "$W/got"
cat > "$W/want" <<'X'
old Cd.... T: sigblock <-bsd
old Cd.... T: spin <-bsd
old Cd.... T: sigsetmask <-bsd
old Cd.... T: <stack trace>
old Cd.... T: sighold <-sysv
old Cd.... T: spin <-sysv
old Cd.... T: sigrelse <-sysv
old Cd.... T: <stack trace>
X
if diff "$W/want" "$W/got" > "$W/diff"; then
	ok "sigblock..sigsetmask and sighold..sigrelse are sections with their calls (--thresh 1ms: both)"
else
	not_ok "the sections differ"; sed 's/^/# /' "$W/diff"
fi

# -O nofunction-trace: the marks and the stacks alone
"$UT" record -t irqsoff --thresh 1ms -O nofunction-trace -o "$W/nf" -- "$W/old" > /dev/null 2>&1
"$UT" replay -i "$W/nf" 2>&1 | grep -v '^#' | grep -v '^ =>' |
	sed -E 's/^ *old-[0-9]+ +[0-9]+/old C/; s/ +[0-9]+us.: / T: /' > "$W/got"
grep -v ': spin <-' "$W/want" > "$W/want.nf"
if diff "$W/want.nf" "$W/got" > "$W/diff"; then
	ok "record -O nofunction-trace: the sections without the calls inside"
else
	not_ok "record -O nofunction-trace"; sed 's/^/# /' "$W/diff"
fi
# a recording of another tracer holds no section: the kernel's empty
# maximum (the tracer's name alone, no header of latency 0 and task -0,
# no event), and why on stderr
"$UT" record -o "$W/fg" -- "$W/old" > /dev/null 2>&1
"$UT" replay -i "$W/fg" -t irqsoff > "$W/out" 2> "$W/err"
st=$?
if [ $st = 0 ] && [ "$(cat "$W/out")" = "$(printf '# tracer: irqsoff\n#')" ] &&
   grep -qx "usertrace: warning: $W/fg: recorded with the function_graph tracer: no irqsoff section to show, the maximum is empty (record with -t irqsoff)" "$W/err"; then
	ok "replay -t irqsoff of a function_graph recording: an empty maximum, and why"
else
	not_ok "replay -t irqsoff of a function_graph recording (status $st)"; head -12 "$W/out" "$W/err" | sed 's/^/# /'
fi
expect 2 "unknown record option 'sym-offset'" -- "$UT" record -O sym-offset -o "$W/bad" -- "$W/old"

"$UT" record -t wakeup -o "$W/sem" -- "$W/old" sem > /dev/null 2> "$W/err"
rc=$?
[ "$rc" = 0 ] && ok "under wakeup, a sem_wait that waits keeps errno" ||
	{ not_ok "sem_wait under wakeup: status $rc"; sed 's/^/# /' "$W/err"; }

# dash: sigprocmask blocks all, sigsuspend waits, SIGCHLD's handler runs, sigsetmask(0) unblocks
if [ -x /bin/dash ]; then
	"$UT" record -t irqsoff --thresh 1ns -o "$W/dash" -- /bin/dash -c 'sleep 0.2 & wait; sleep 0.2 & wait' > /dev/null 2>&1
	ends=$("$UT" replay -i "$W/dash" 2>/dev/null | grep --no-group-separator -B1 '<stack trace>' | grep -v 'stack trace' |
		sed -E 's/.*us.: ([a-z_]+) <-.*/\1/' | tr '\n' ' ')
	if [ "$ends" = "sigsuspend sigsetmask sigsuspend sigsetmask " ]; then
		ok "dash: each wait's sections end at sigsuspend and at sigsetmask ($ends)"
	else
		not_ok "dash: the sections end at '$ends'"; "$UT" replay -i "$W/dash" 2>&1 | sed 's/^/# /' | head -40
	fi
else
	ok "# SKIP no /bin/dash"
fi
