#!/bin/bash
# description: irqsoff through the older mask interfaces libc implements on its own: BSD sigblock()/sigsetmask() and System V sighold()/sigrelse() open and close sections as sigprocmask does, and return what libc's return (the old mask); dash, which unblocks with sigsetmask(0), has its SIGCHLD sections end there
SUITE=irqsoff
. "$(dirname "$0")/lib.sh"

cat > "$W/old.c" <<'C'
#define _GNU_SOURCE
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
	int old = sigblock(sigmask(SIGUSR1) | sigmask(SIGUSR2));
	spin(3000);
	int mid = sigsetmask(old);
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
int main(void) { return bsd() + sysv(); }
C
gcc -w -pg -O2 -o "$W/old" "$W/old.c" || { not_ok "cannot build"; exit 1; }
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
