#!/bin/bash
# description: signal storms: handlers that return and handlers that siglongjmp out never stop the trace
SUITE=signals
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#define noinline __attribute__((noinline))
static sigjmp_buf env;
static volatile int jump, ticks;
volatile int sink;
noinline void in_handler(void) { sink++; }
noinline void work(int x) { sink += x; }
noinline void after(void) { sink++; }
static void handler(int sig)
{
	(void)sig;
	in_handler();
	ticks++;
	if (jump)
		siglongjmp(env, 1);
}
int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 100 }, { 0, 100 } };

	jump = argc > 1 && !strcmp(argv[1], "jump");
	signal(SIGPROF, handler);
	setitimer(ITIMER_PROF, &it, NULL);
	sigsetjmp(env, 1);
	while (ticks < 50)
		for (int i = 0; i < 1000; i++)
			work(i);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	/* a SIGPROF still pending must not jump back into the loop */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (int i = 0; i < 1000; i++)
		after();
	return 0;
}
C
for flag in "-pg -mfentry" "-finstrument-functions"; do
	gcc $flag -O2 -o "$W/p" "$W/p.c"
	for mode in return jump; do
		"$UT" record -o "$W/d" -- "$W/p" $mode > /dev/null 2> "$W/err"
		st=$?
		"$UT" replay -i "$W/d" -O nofuncgraph-cpu -O nofuncgraph-duration > "$W/out" 2>> "$W/err"
		# a loss from the storm is marked at the next page start: if that
		# falls inside an after() call, it prints as "after() {", the
		# mark, "}" (still one call at depth 1)
		cnt=$(grep -cE '^  after\(\)(;| \{)$' "$W/out")
		lost=$("$UT" dump -i "$W/d" | sed -n 's/.* lost=\([0-9]*\) .*/\1/p')
		# lost records are possible (a handler that jumps out of a write
		# abandons it; a busy machine may fill the buffer): only reported
		# record says how many were lost: that line is expected then
		grep -v "^usertrace: warning: $lost events lost in 1 thread:" "$W/err" > "$W/err2"
		if [ "$st" = 0 ] && [ "$cnt" = 1000 ] && [ -n "$lost" ] && [ ! -s "$W/err2" ]; then
			ok "$flag, handler that ${mode}s: 1000 calls after the storm at depth 1 ($lost lost)"
		else
			not_ok "$flag, handler that ${mode}s: status $st, $cnt of 1000 calls after the storm, lost=$lost"
			sed 's/^/# /' "$W/err"
		fi
	done
done
