#!/bin/bash
# description: lossless recording: buffers grow while the recorder cannot run; --drop, --buffer-limit
SUITE=lossless
. "$(dirname "$0")/lib.sh"

# THREADS threads call leaf() CALLS times each while the recorder is
# stopped (SIGSTOP from the program itself: its parent is the recorder),
# so that every buffer fills long before anything is saved
cat > "$W/p.c" <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
static long calls;
noinline void leaf(int x) { sink += x; }
noinline void *work(void *arg) { for (long i = 0; i < calls; i++) leaf((int)i); return arg; }
static void burst(int n)
{
	pthread_t t[64];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}
/* THREADS CALLS [stop|twice|kids|kill] */
int main(int argc, char **argv)
{
	const char *mode = argc > 3 ? argv[3] : "";
	int n = atoi(argv[1]);

	calls = atol(argv[2]);
	if (!strcmp(mode, "kids")) {
		/* children that grow and exit while the recorder is stopped */
		pid_t recorder = getppid();

		for (int k = 0; k < 4; k++) {
			if (fork() == 0) {
				kill(recorder, SIGSTOP);
				burst(n);
				kill(recorder, SIGCONT);
				_exit(0);
			}
			wait(NULL);	/* reaped here, not by the recorder */
			usleep(300000);	/* the recorder saves it meanwhile */
		}
	}
	if (*mode)
		kill(getppid(), SIGSTOP);
	burst(n);
	if (!strcmp(mode, "kill")) {
		kill(getppid(), SIGCONT);
		kill(getpid(), SIGKILL);
	}
	if (!strcmp(mode, "twice")) {
		kill(getppid(), SIGCONT);
		usleep(300000);		/* the recorder catches up: the budget comes back */
		kill(getppid(), SIGSTOP);
		burst(n);
	}
	if (*mode)
		kill(getppid(), SIGCONT);
	return 0;
}
C
gcc -pg -mfentry -O2 -pthread -o "$W/p" "$W/p.c"

# record ARGS...: the program stops the recorder; if the program dies
# before it lets it go on, a watchdog does
rec() {
	"$UT" record "$@" > "$W/out" 2> "$W/err" &
	local r=$!
	( sleep 60; kill -CONT $r 2>/dev/null ) &
	local dog=$!
	wait $r
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
}

# sum of entries / lost over the threads of a dump
count() {
	"$UT" dump -i "$1" | sed -n 's/^# thread .* entries=\([0-9]*\) lost=\([0-9]*\) .*/\1 \2/p' |
		awk '{ e += $1; l += $2 } END { print e + 0, l + 0 }'
}

# 4 threads x 300000 calls = 2.4 M events (33 MB) into 64 KB buffers,
# with the recorder stopped all along: the buffers grow, nothing is lost
rec -b 64K -o "$W/d1" -- "$W/p" 4 300000 stop
read -r e l < <(count "$W/d1")
# main, burst, work x4 and leaf x 1.2M: ENTRY + EXIT each
want=$(( 2 * (2 + 4 + 4 * 300000) ))
if [ "$e" = "$want" ] && [ "$l" = 0 ] && [ ! -s "$W/err" ]; then
	ok "stopped recorder: $e events, 0 lost"
else
	not_ok "stopped recorder: entries=$e lost=$l, expected $want and 0"; sed 's/^/# /' "$W/err"
fi
g=$(sed -n 's/^buffer_growths=//p' "$W/d1/info")
[ "${g:-0}" -gt 4 ] && ok "the buffers grew ($g times)" || not_ok "buffer_growths=$g"
"$UT" report -i "$W/d1" > "$W/rep" 2>&1
awk '$NF == "leaf" && $(NF-7) == 1200000 { f = 1 } END { exit !f }' "$W/rep" &&
	ok "report counts 1200000 calls of leaf" || { not_ok "report leaf calls"; sed 's/^/# /' "$W/rep"; }

# the pages of every thread are saved in the order they were written
"$UT" dump -i "$W/d1" | awk '!/^#/ { if ($1 in last && $3 < last[$1]) bad++; last[$1] = $3 } END { exit bad > 0 }' &&
	ok "every thread's events are in time order across its buffers" || not_ok "events out of order"

# the tree is right across the buffers: every leaf() under work(), once each
"$UT" replay -i "$W/d1" -O nofuncgraph-cpu -O nofuncgraph-duration > "$W/rp" 2>&1
nl=$(grep -c '|   leaf();$' "$W/rp"); nw=$(grep -c '| work() {$' "$W/rp")
[ "$nl" = 1200000 ] && [ "$nw" = 4 ] && ! grep -q LOST "$W/rp" &&
	ok "replay: 1200000 leaf() under 4 work()" || not_ok "replay tree: leaf=$nl work=$nw"

# --drop: the fixed buffers of old, every drop counted and marked
rec --drop -b 64K -o "$W/d2" -- "$W/p" 4 300000 stop
read -r e l < <(count "$W/d2")
if [ "$l" -gt 0 ] && [ $((e + l)) = "$want" ]; then
	ok "--drop: $e kept + $l lost = $want"
else
	not_ok "--drop: entries=$e lost=$l (want a loss, sum $want)"
fi
grep -q "events lost in [0-9]* thread" "$W/err" && ok "--drop: the loss is said at the end" ||
	{ not_ok "--drop: no warning"; sed 's/^/# /' "$W/err"; }
grep -q '^buffer_growths=0$' "$W/d2/info" && ok "--drop: no growth" || not_ok "--drop grew"

# --buffer-limit: growth stops at the limit, the rest is lost and counted
rec -b 64K --buffer-limit 4M -o "$W/d3" -- "$W/p" 4 300000 stop
read -r e l < <(count "$W/d3")
g=$(sed -n 's/^buffer_growths=//p' "$W/d3/info")
# 4 MiB holds 3 added buffers (1 MiB at least, + their header page)
if [ "$l" -gt 0 ] && [ $((e + l)) = "$want" ] && [ "$g" = 3 ]; then
	ok "--buffer-limit 4M: $g growths, $e kept + $l lost = $want"
else
	not_ok "--buffer-limit: growths=$g entries=$e lost=$l"
fi
grep -q "buffer-limit" "$W/err" && ok "--buffer-limit: the loss names the limit" ||
	{ not_ok "--buffer-limit: message"; sed 's/^/# /' "$W/err"; }

# the budget comes back once the grown buffers are saved: two bursts
# that each need 4 added buffers of 1 MiB fit in a limit of 6 MiB
rec -b 64K --buffer-limit 6M -o "$W/d5" -- "$W/p" 1 300000 twice
read -r e l < <(count "$W/d5")
want=$(( 2 * (1 + 2 + 2 + 2 * 300000) ))
g=$(sed -n 's/^buffer_growths=//p' "$W/d5/info")
[ "$e" = "$want" ] && [ "$l" = 0 ] && [ "$g" -ge 8 ] &&
	ok "two bursts in a 6M budget: $g growths, 0 lost" || not_ok "budget not given back: entries=$e lost=$l growths=$g"
# ... also when the processes that grew have exited (their buffers are
# saved when they are reaped: exit() closes no buffer)
rec -b 64K --buffer-limit 6M -o "$W/d6" -- "$W/p" 1 300000 kids
read -r e l < <(count "$W/d6")
# main, and in 5 processes burst, work and 300000 leaf
want=$(( 2 + 5 * 2 * (2 + 300000) ))
[ "$l" = 0 ] && [ "$e" = "$want" ] && ok "children that grew and exited: 0 lost" ||
	not_ok "children: entries=$e lost=$l (want $want, 0)"
# a program killed with several generations of buffers: all of them saved
rec -b 64K -o "$W/d7" -- "$W/p" 2 300000 kill
nk=$("$UT" dump -i "$W/d7" | grep -c ' entry [0-9]* leaf')
[ "$nk" = 600000 ] && ok "SIGKILL: all 600000 calls saved from the grown buffers" || not_ok "SIGKILL: $nk of 600000"

# 64 threads on this machine's cores, at the default settings: nothing lost
"$UT" record -o "$W/d4" -- "$W/p" 64 20000 > "$W/out" 2> "$W/err"
read -r e l < <(count "$W/d4")
want=$(( 2 * (2 + 64 + 64 * 20000) ))
[ "$e" = "$want" ] && [ "$l" = 0 ] && ok "64 threads: $e events, 0 lost" ||
	not_ok "64 threads: entries=$e lost=$l, expected $want"

# a process that outlives the program is saved as it runs, not at its
# end: with the buffers fixed (--drop, 64K), a background child of 2
# threads keeps far more than its first buffers (16 pages, about 9000
# events each) would hold if nobody read them until it ended
rec --drop -b 64K -o "$W/d8" -- sh -c "\"$W/p\" 2 2000000 & exit 0"
read -r e l < <(count "$W/d8")
want=$(( 2 * (2 + 2 + 2 * 2000000) ))
[ $((e + l)) = "$want" ] && [ "$e" -gt 60000 ] &&
	ok "a child that outlives the program: $e kept, $l lost of $want" ||
	not_ok "outliving child: entries=$e lost=$l of $want"

# a full disk: exit 1, one message per thread's file, no hang, nothing
# left in /dev/shm (root only: a small tmpfs)
if [ "$(id -u)" = 0 ] && mkdir -p "$W/small" && mount -t tmpfs -o size=300k tmpfs "$W/small" 2>/dev/null; then
	# the program says which session is its own (other runs come and go)
	timeout 120 "$UT" record -o "$W/small/d" -- \
		sh -c 'echo "$USERTRACE_SESSION" > "$1"; exec "$2" 8 200000' sh "$W/ses" "$W/p" > "$W/out" 2> "$W/err"
	st=$?
	nmsg=$(grep -c 'No space left on device' "$W/err")
	nfiles=$(sed -n 's|^usertrace: writing \(.*\.dat\): No space.*|\1|p' "$W/err" | sort -u | wc -l)
	ses=$(cat "$W/ses")
	umount "$W/small"
	if [ "$st" = 1 ] && [ "$nfiles" -ge 1 ] && [ "$nfiles" = "$(grep -c '\.dat: No space' "$W/err")" ] &&
	   [ "$nmsg" -le $((nfiles + 2)) ] && [ -n "$ses" ] && [ ! -e "$ses" ]; then
		ok "full disk: status 1, one message for each of $nfiles files, /dev/shm clean"
	else
		not_ok "full disk: status $st, $nmsg messages for $nfiles files, session '$ses' left: $([ -e "$ses" ] && echo yes)"
		sed 's/^/# /' "$W/err" | head -20
	fi
else
	ok "# SKIP full disk: not root or no tmpfs"
fi

# bad values
expect 2 "invalid buffer limit" -- "$UT" record --buffer-limit 12Q -- true
expect 2 "invalid buffer limit" -- "$UT" record --buffer-limit -5 -- true
