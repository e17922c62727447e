#!/bin/bash
# description: record keeps the program's exit status and output, and survives its crash
SUITE=record
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void work(int x) { sink += x; }
noinline void die(const char *how)
{
	if (!strcmp(how, "kill"))
		raise(SIGKILL);
	if (!strcmp(how, "segv"))
		*(volatile int *)0 = 1;
	if (!strcmp(how, "abort"))
		abort();
}
int main(int argc, char **argv)
{
	char line[64];

	work(1);
	if (argc > 1 && !strcmp(argv[1], "echo")) {
		while (fgets(line, sizeof(line), stdin))
			fputs(line, stdout);
		fputs("to stderr\n", stderr);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "exit"))
		return atoi(argv[2]);
	work(2);
	if (argc > 1)
		die(argv[1]);
	return 0;
}
C
gcc -pg -mfentry -O2 -o "$W/p" "$W/p.c"

# stdin, stdout and stderr belong to the program
printf 'one\ntwo\n' | "$UT" record -o "$W/d" -- "$W/p" echo > "$W/out" 2> "$W/err"
if [ "$(cat "$W/out")" = "$(printf 'one\ntwo')" ] && [ "$(cat "$W/err")" = "to stderr" ]; then
	ok "program output untouched"
else
	not_ok "program output changed"; sed 's/^/# /' "$W/out" "$W/err"
fi
"$UT" record -o "$W/d" -- "$W/p" exit 7 > /dev/null 2>&1
[ $? = 7 ] && ok "exit status 7 kept" || not_ok "exit status not kept"

# a program that dies loses nothing that reached its buffer
for how in kill segv abort; do
	"$UT" record -o "$W/$how" -- "$W/p" "$how" > /dev/null 2>&1
	st=$?
	case $how in kill) want=137 ;; segv) want=139 ;; abort) want=134 ;; esac
	[ "$st" = "$want" ] && ok "$how: status $st" || not_ok "$how: status $st, expected $want"
	"$UT" replay -i "$W/$how" -O nofuncgraph-cpu -O nofuncgraph-duration > "$W/r" 2> "$W/e"
	if grep -q '^main() {$' "$W/r" && grep -q '^  work();$' "$W/r" && grep -q '^  die() {$' "$W/r" &&
	   [ "$(grep -c 'work();' "$W/r")" = 2 ]; then
		ok "$how: all calls up to the crash are in the trace"
	else
		not_ok "$how: calls missing"; sed 's/^/# /' "$W/r" "$W/e"
	fi
done

# -o DIR twice keeps the previous recording as DIR.old
"$UT" record -o "$W/twice" -- "$W/p" > /dev/null 2>&1
"$UT" record -o "$W/twice" -- "$W/p" > /dev/null 2>&1
[ -f "$W/twice/info" ] && [ -f "$W/twice.old/info" ] && ok "previous data kept as .old" || not_ok "no .old"

# the session directory in /dev/shm is gone afterwards: this one (the
# program says which), not a count of all, which other runs change
"$UT" record -o "$W/shm" -- sh -c 'echo "$USERTRACE_SESSION" > "$1"; exec "$2"' sh "$W/ses" "$W/p" > /dev/null 2>&1
ses=$(cat "$W/ses")
case $ses in
/dev/shm/usertrace.?*) [ ! -e "$ses" ] && ok "session removed from /dev/shm" || not_ok "session $ses left in /dev/shm" ;;
*) not_ok "no session in the program's environment: '$ses'" ;;
esac
ls -ld "$W/shm" > /dev/null
