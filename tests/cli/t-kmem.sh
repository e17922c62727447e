#!/bin/bash
# description: kmemtrace and workqueue statistics: report --kmem/--workqueue on bad or missing data (a message, never a crash), counts exact when events are lost, fork (a file per process), the bounded tables' overflows said
SUITE=kmem
. "$(dirname "$0")/lib.sh"

# check NAME CMD...: ok if CMD succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; sed 's/^/# /' "$W/out" | head -20; fi
}

cat > "$W/p.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
void *volatile sink;
static int rounds = 10000;
__attribute__((noinline)) void *churn(void *arg)
{
	for (int i = 0; i < rounds; i++) {
		void *volatile p = malloc(40);	/* each thread its own block */

		free(p);
	}
	return arg;
}
__attribute__((noinline)) void child_leak(void)
{
	sink = malloc(50);
}
int main(int argc, char **argv)
{
	pthread_t t[4];

	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			child_leak();
			child_leak();
			_exit(0);
		}
		waitpid(pid, NULL, 0);
		child_leak();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "live")) {	/* 1.2M blocks kept: beyond the live table */
		for (int i = 0; i < 1200000; i++)
			sink = malloc(16);
		return 0;
	}
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
gcc -O2 -pg -o "$W/p" "$W/p.c" -lpthread || { not_ok "cannot build"; exit 1; }

expect 1 'cannot open data directory' -- "$UT" report --kmem -i "$W/none"
expect 1 'cannot open data directory' -- "$UT" report --workqueue -i "$W/none"
"$UT" record -o "$W/plain" -- "$W/p" fork > /dev/null 2>&1
expect 1 'has no kmem statistics \(record with -t kmemtrace\)' -- "$UT" report --kmem -i "$W/plain"
expect 1 'has no workqueue statistics \(the program used no work queue\)' -- "$UT" report --workqueue -i "$W/plain"

# four threads, 40000 malloc/free pairs at one site, a small buffer that drops: the counts are exact
KM_WANT='^ +40000 +0 +1600000 +1600000 +40 +40 +0\.00 +40000 +0 +0  churn\+0x[0-9a-f]+$'
"$UT" record -t kmemtrace --drop -b 64K -o "$W/lost" -- "$W/p" > "$W/rec.out" 2> "$W/rec.err"
rc=$?
"$UT" report --kmem -i "$W/lost" > "$W/out" 2>&1
[ $rc = 0 ] && ok "the program ran whole under kmemtrace" ||
	{ not_ok "the program ran whole under kmemtrace (status $rc)"; sed 's/^/# /' "$W/rec.err"; }
check "events lost ($(grep -o '[0-9]* events* lost' "$W/rec.err" | head -1)), the counts exact" \
	grep -qE "$KM_WANT" "$W/out"
check "the events were lost indeed" grep -qi 'lost' "$W/rec.err"

# fork: the child's counts in its own file, added by site; its two leaks and the parent's one
"$UT" record -t kmemtrace -o "$W/fork" -- "$W/p" fork > /dev/null 2>&1
"$UT" report --kmem -i "$W/fork" > "$W/out" 2>&1
check "fork: parent and child, 3 leaks of child_leak" \
	grep -qE '^ +3 +0 +168 +150 +56 +50 +10\.71 +0 +3 +168  child_leak\+0x[0-9a-f]+$' "$W/out"
check "fork: two process images" grep -qx '# 2 process image(s); 0 anonymous mapping(s) counted' "$W/out"
[ "$(ls "$W/fork/stat" | grep -c '^kmem\.')" = 2 ] && ok "fork: a statistics file per process" ||
	not_ok "fork: a statistics file per process"

# 1.2M live blocks: the table keeps what it can and says how many it could not
"$UT" record -t kmemtrace --drop -b 64K -o "$W/live" -- "$W/p" live > /dev/null 2>&1
"$UT" report --kmem -i "$W/live" > "$W/out" 2>&1
line=$(grep -E '  main\+0x[0-9a-f]+$' "$W/out" | head -1)
read -r hits _ _ _ _ _ _ frees lb _ _ <<< "$line"
over=$(sed -nE 's/^# overflow: ([0-9]+) block\(s\) beyond the live table.*/\1/p' "$W/out")
check "live table full: $lb kept, ${over:-no} overflow, of 1200000" \
	test "$hits" = 1200000 -a "$frees" = 0 -a -n "$over" -a "$((lb + ${over:-0}))" = 1200000

# broken statistics files: a warning, never a crash
f=$(ls "$W/fork/stat/"kmem.* | head -1)
cp -r "$W/fork" "$W/bad"
fb="$W/bad/stat/$(basename "$f")"
head -c 100 "$f" > "$fb"
expect 0 'corrupt statistics file|not a statistics file' -- "$UT" report --kmem -i "$W/bad"
head -c 60 /dev/urandom > "$fb"
expect 0 'not a statistics file' -- "$UT" report --kmem -i "$W/bad"
cp "$f" "$fb"
printf '\143' | dd of="$fb" bs=1 seek=40 conv=notrunc 2> /dev/null	# version 99
expect 0 'layout 99, this usertrace reads 1: skipped' -- "$UT" report --kmem -i "$W/bad"
echo "# $SUITE: $n tests"
