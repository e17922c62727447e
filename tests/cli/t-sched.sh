#!/bin/bash
# t-sched.sh - the sched_switch tracer and the collected sched events
# (recorder/sched_source.c): two threads ping-pong NPING times on two pipes, so
# each blocks (S) at least NPING times; from both sources (tracefs when
# root and the kernel's tracing directory is there, perf always), the
# tracer's ctx/wake lines in the kernel's format, the events with the
# kernel's format files, function_graph's context-switch banners, and a
# source that cannot be used (an unknown one forced; perf refused).
SUITE=sched
. "$(dirname "$0")/lib.sh"
NPING=20

cat > "$W/pp.c" <<'C'
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#define N 20
static int a[2], b[2];
__attribute__((noinline)) void pong(char *c) { if (read(a[0], c, 1) != 1 || write(b[1], c, 1) != 1) _exit(3); }
__attribute__((noinline)) void ping(char *c) { if (write(a[1], c, 1) != 1 || read(b[0], c, 1) != 1) _exit(3); }
static void *peer(void *x)
{
	char c;

	(void)x;
	for (int i = 0; i < N; i++)
		pong(&c);
	return NULL;
}
int main(void)
{
	pthread_t t;
	char c = 'x';

	if (pipe(a) || pipe(b))
		return 1;
	pthread_create(&t, NULL, peer, NULL);
	for (int i = 0; i < N; i++)
		ping(&c);
	pthread_join(t, NULL);
	for (int i = 0; i < 5; i++)
		sched_yield();
	printf("done\n");
	return 0;
}
C
gcc -O2 -pg -mfentry -pthread -o "$W/pp" "$W/pp.c" || { not_ok "cannot build"; exit 1; }

TFS=/sys/kernel/tracing
sources=perf
if [ "$(id -u)" = 0 ] && [ -r $TFS/events/sched/sched_switch/format ]; then
	sources="tracefs perf"
fi
# " %7d:%3d:%c ==> [%03d] %7d:%3d:%c %s" after the context columns
CTX='^ +[^ ].*-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: +[0-9]+:[ 0-9]{3}:[RSDTtXZPI] ==> \[[0-9]{3}\] +[0-9]+:[ 0-9]{3}:R .+$'
WAKE='^ +[^ ].*-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: +[0-9]+:[ 0-9]{3}:R   \+ \[[0-9]{3}\] +[0-9]+:[ 0-9]{3}:R .+$'

for src in $sources; do
	rm -rf "$W/d"
	USERTRACE_SCHED_SOURCE=$src "$UT" record -t sched_switch -o "$W/d" -- "$W/pp" > "$W/out" 2> "$W/err"
	st=$?
	if [ $st = 0 ] && [ "$(cat "$W/out")" = done ] && grep -qx "sched_source=$src" "$W/d/info" &&
	   grep -q "sched events from" "$W/err"; then
		ok "$src: record -t sched_switch, the source in info and on stderr"
	else
		not_ok "$src: record -t sched_switch: status $st"; sed 's/^/# /' "$W/err"; continue
	fi
	"$UT" replay -i "$W/d" > "$W/r" 2> "$W/rerr"
	pid=$(ls "$W/d" | sed -n 's/^\([0-9]*\)\.\1\.1\.dat$/\1/p' | while read p; do
		grep -q "^ *pp-$p " "$W/r" && echo "$p"; done | head -1)
	if [ "$(head -1 "$W/r")" = "# tracer: sched_switch" ] && [ -n "$pid" ]; then
		ok "$src: replay: the tracer's header, the program's lines"
	else
		not_ok "$src: replay header / no line of pp"; head -20 "$W/r" | sed 's/^/# /'
	fi
	# every line of a traced thread that switches out is the ctx format
	lines=$(grep -E " pp-[0-9]+ .* ==> " "$W/r")
	bad=$(grep -E " pp-[0-9]+ .* ==> " "$W/r" | grep -cvE "$CTX")
	# each thread blocks in every round (S, or R when woken before it was off the CPU)
	tids=$(grep -E " pp-[0-9]+ .* ==> " "$W/r" | sed -E 's/^ *pp-([0-9]+) .*/\1/' | sort | uniq -c |
		awk -v min=$((NPING / 2)) '$1 >= min' | wc -l)
	nsw=$(grep -cE " pp-[0-9]+ .* ==> " "$W/r")
	if [ -n "$lines" ] && [ "$bad" = 0 ] && [ "$tids" = 2 ]; then
		ok "$src: ==> lines in the kernel's format, both threads switch out >= $((NPING / 2)) times ($nsw)"
	else
		not_ok "$src: ctx lines: bad $bad, threads with >= $((NPING / 2)) switches: $tids"
		grep -E " pp-[0-9]+ " "$W/r" | head -10 | sed 's/^/# /'
	fi
	# the threads pass the CPU to each other: some switch names the other thread next
	if grep -E " pp-[0-9]+ .*:S ==> \[[0-9]{3}\] +[0-9]+:[ 0-9]{3}:R pp$" "$W/r" | grep -q .; then
		ok "$src: a switch from one thread to the other, with its name"
	else
		# on one CPU each, the other may wait in another CPU's idle
		grep -qE " pp-[0-9]+ .* ==> \[[0-9]{3}\] +[0-9]+:" "$W/r" && ok "$src: switches to other tasks (none direct)" ||
			not_ok "$src: no switch between the threads"
	fi
	if [ $src = tracefs ]; then
		nw=$(grep -cE "$WAKE" "$W/r")
		if [ "$nw" -ge $((NPING)) ]; then
			ok "$src: + wake-ups in the kernel's format ($nw)"
		else
			not_ok "$src: $nw wake-up lines"; grep -F '  + ' "$W/r" | head -5 | sed 's/^/# /'
		fi
	fi

	# the events themselves: the kernel's format files, printed by their print fmt
	rm -rf "$W/e"
	USERTRACE_SCHED_SOURCE=$src "$UT" record -e sched:sched_switch -e sched:sched_migrate_task \
		-o "$W/e" -- "$W/pp" > /dev/null 2> "$W/err"
	same=1
	for ev in sched_switch sched_migrate_task; do
		f="$W/e/events/sched/$ev/format"
		if [ -r $TFS/events/sched/$ev/format ]; then
			diff <(grep -v '^ID:' "$f") <(grep -v '^ID:' $TFS/events/sched/$ev/format) > /dev/null || same=0
		else
			grep -q '^print fmt: "prev_comm=\|^print fmt: "comm=' "$f" || same=0
		fi
	done
	if [ $same = 1 ]; then
		ok "$src: -e sched:sched_switch: the format files are the kernel's"
	else
		not_ok "$src: format files differ from the kernel's"
	fi
	EVL='^ +pp-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: sched_switch: prev_comm=pp prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[RSDTtXZPI|+]+ ==> next_comm=.* next_pid=[0-9]+ next_prio=[0-9]+$'
	nev=$("$UT" replay -i "$W/e" 2> /dev/null | grep -cE "$EVL")
	nall=$("$UT" replay -i "$W/e" 2> /dev/null | grep -c ' sched_switch: prev_comm=pp ')
	if [ "$nev" -ge $((NPING / 2)) ] && [ "$nev" = "$nall" ]; then
		ok "$src: the events print as the kernel's ($nev sched_switch lines of pp)"
	else
		not_ok "$src: $nev of $nall sched_switch lines"; "$UT" replay -i "$W/e" 2>&1 | head -20 | sed 's/^/# /'
	fi
	# a filter applies to them as to any event
	rm -rf "$W/f"
	USERTRACE_SCHED_SOURCE=$src "$UT" record -e sched:sched_switch -f 'prev_state == 256' \
		-o "$W/f" -- "$W/pp" > /dev/null 2> "$W/err"
	if ! "$UT" replay -i "$W/f" 2> /dev/null | grep sched_switch: | grep -q 'prev_state=S'; then
		ok "$src: -f 'prev_state == 256' keeps the preemptions only"
	else
		not_ok "$src: the filter let S through"
	fi

	# function_graph: the context switches as the kernel's graph shows them;
	# on one CPU, so that the threads switch to each other, not through idle
	# (perf knows the other side of a switch only when it is a traced thread)
	rm -rf "$W/g"
	USERTRACE_SCHED_SOURCE=$src taskset -c 0 "$UT" record -t function_graph -e sched:sched_switch \
		-o "$W/g" -- "$W/pp" > /dev/null 2> "$W/err"
	"$UT" replay -i "$W/g" > "$W/gr" 2> /dev/null
	if grep -qE '^ [0-9]\)   +pp-[0-9]+ +=> +pp-[0-9]+ *$' "$W/gr" &&
	   grep -q '^ ------------------------------------------$' "$W/gr" &&
	   grep -qE 'ping\(\);|pong\(\);' "$W/gr"; then
		ok "$src: function_graph: the switches between the threads as => banners"
	else
		not_ok "$src: function_graph banners"; grep -B2 -A2 '=>' "$W/gr" | head -12 | sed 's/^/# /'
	fi
done

# bad input: an unknown source is refused, the program runs untraced by it
USERTRACE_SCHED_SOURCE=nosuch "$UT" record -t sched_switch -o "$W/x" -- "$W/pp" > "$W/out" 2> "$W/err"
st=$?
if [ $st = 0 ] && [ "$(cat "$W/out")" = done ] && grep -q "USERTRACE_SCHED_SOURCE=nosuch" "$W/err" &&
   grep -qx 'sched_source=none' "$W/x/info"; then
	ok "an unknown source: a message, the program runs, sched_source=none"
else
	not_ok "unknown source: status $st"; sed 's/^/# /' "$W/err"
fi
# perf_event_open refused: the recorder's syscall() fails with EACCES for it
# (a preloaded shim; the program is not affected), then with ENOSYS
cat > "$W/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		errno = atoi(getenv("SHIM_ERRNO"));
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
C
if gcc -shared -fPIC -o "$W/shim.so" "$W/shim.c" -ldl; then
	for e in "13 Permission denied.*perf_event_paranoid" "38 Function not implemented"; do
		# (a sanitized usertrace: the shim comes before ASan's runtime, which is fine for it)
		ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
		SHIM_ERRNO=${e%% *} USERTRACE_SCHED_SOURCE=perf LD_PRELOAD="$W/shim.so" \
			"$UT" record -t sched_switch -o "$W/x" -- "$W/pp" > "$W/out" 2> "$W/err"
		st=$?
		if [ $st = 0 ] && [ "$(cat "$W/out")" = done ] &&
		   grep -qE "perf_event_open: ${e#* }.*no context switches are recorded" "$W/err" &&
		   grep -qx 'sched_source=none' "$W/x/info"; then
			ok "perf_event_open refused (${e#* }): a message, the program runs"
		else
			not_ok "perf refused (errno ${e%% *}): status $st"; sed 's/^/# /' "$W/err"
		fi
	done
else
	not_ok "cannot build the shim"
fi
# no sched event asked for: no source, no line in info
"$UT" record -t nop -o "$W/x" -- "$W/pp" > /dev/null 2> "$W/err"
if ! grep -q sched_source "$W/x/info" && ! grep -q "sched events" "$W/err"; then
	ok "no sched event: no source"
else
	not_ok "a source without sched events"
fi
