#!/bin/bash
# description: whatever ends live, record or mount (a reader gone, SIGTERM, a closed stderr), their temporary data goes
SUITE=cleanup
. "$(dirname "$0")/lib.sh"

# big: a trace of some MB of text (more than a pipe holds); it names the
# session directory it records into (in $W/session) and lists $TMPDIR
# (in $W/tmpdir-seen) while it runs
cat > "$W/big.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
int main(int argc, char **argv)
{
	const char *s = getenv("USERTRACE_SESSION");
	FILE *f = fopen(argv[1], "w");
	char cmd[4200];

	if (!f || !s)
		return 1;
	fprintf(f, "%s\n", s);
	fclose(f);
	if (argc > 2) {
		snprintf(cmd, sizeof(cmd), "ls \"$TMPDIR\" > '%s'", argv[2]);
		if (system(cmd) != 0)
			return 1;
	}
	for (int i = 0; i < 40000; i++)
		leaf(i);
	return 0;
}
C
gcc -pg -mfentry -O1 -o "$W/big" "$W/big.c" || exit 1
# noreader CMD...: CMD with a stderr that nobody reads (every write: SIGPIPE or EPIPE)
cat > "$W/noreader.c" <<'C'
#include <unistd.h>
int main(int argc, char **argv)
{
	int p[2];

	(void)argc;
	if (pipe(p) < 0)
		return 1;
	close(p[0]);
	dup2(p[1], 2);
	close(p[1]);
	execvp(argv[1], argv + 1);
	return 127;
}
C
gcc -O2 -o "$W/noreader" "$W/noreader.c" || exit 1
mkdir "$W/tmp"

# left NAME: nothing in $W/tmp, and the session directory the program named is gone
left() {
	local s
	s=$(cat "$W/session" 2>/dev/null)
	if [ -z "$s" ]; then
		not_ok "$1: the program did not name its session"
	elif [ -n "$(ls -A "$W/tmp")" ] || [ -e "$s" ]; then
		not_ok "$1: left $(ls -A "$W/tmp") $([ -e "$s" ] && echo "$s")"
	else
		ok "$1: nothing left behind"
	fi
	rm -rf "$W/tmp"/* "$W/session"
}

# live | head: the printer's reader goes; live ends with SIGPIPE as before, its data gone
TMPDIR="$W/tmp" "$UT" live -- "$W/big" "$W/session" "$W/seen" 2> "$W/err" | head -1 > "$W/out"
st=${PIPESTATUS[0]}
if grep -q '^usertrace-live\.' "$W/seen"; then ok "live: its temporary directory is in \$TMPDIR"; else not_ok "live: its temporary directory is in \$TMPDIR"; fi
if [ "$st" = 141 ] && [ "$(cat "$W/out")" = "# tracer: function_graph" ]; then
	ok "live | head -1: the header, then SIGPIPE"
else
	not_ok "live | head -1: status $st"; sed 's/^/# /' "$W/out" "$W/err"
fi
left "live | head -1"

# SIGTERM while live prints (blocked on a full pipe: the reader took one line)
mkfifo "$W/fifo"
TMPDIR="$W/tmp" "$UT" live -- "$W/big" "$W/session" > "$W/fifo" 2> "$W/err" &
L=$!
exec 3< "$W/fifo"
read -r line <&3
kill -TERM $L
cat <&3 > /dev/null
exec 3<&-
wait $L
st=$?
if [ "$st" = 143 ] && [ "$line" = "# tracer: function_graph" ]; then
	ok "live, SIGTERM while printing: ended by it"
else
	not_ok "live, SIGTERM while printing: status $st, first line '$line'"; sed 's/^/# /' "$W/err"
fi
left "live, SIGTERM while printing"

# live's output file cannot be written to the end (a full device): an error, nothing left
if [ -w /dev/full ]; then
	TMPDIR="$W/tmp" "$UT" live -o /dev/full -- "$W/big" "$W/session" > /dev/null 2> "$W/err"
	st=$?
	if [ "$st" = 1 ]; then ok "live -o /dev/full: status 1"; else not_ok "live -o /dev/full: status $st"; sed 's/^/# /' "$W/err"; fi
	left "live -o /dev/full"
fi

# record with a stderr nobody reads (its messages: SIGPIPE): the session goes, the data is saved
rm -rf "$W/d"
TMPDIR="$W/tmp" "$W/noreader" "$UT" record -o "$W/d" -e nosuch:event -- "$W/big" "$W/session"
st=$?
if [ "$st" = 0 ] && [ -e "$W/d/info" ]; then ok "record, stderr closed: status 0, data saved"; else not_ok "record, stderr closed: status $st"; fi
left "record, stderr closed"
# the program's own SIGPIPE is the default still
cat > "$W/pipe.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "w");
	const char *s = getenv("USERTRACE_SESSION");

	if (!f || !s)
		return 1;
	fprintf(f, "%s\n", s);
	fclose(f);
	for (;;)
		fprintf(stderr, "x\n");
}
C
gcc -O2 -o "$W/pipe" "$W/pipe.c" || exit 1
"$W/noreader" "$UT" record -o "$W/d" -t kmemtrace -- "$W/pipe" "$W/session"
st=$?
if [ "$st" = 141 ]; then ok "record: the program's SIGPIPE is its own (status 141)"; else not_ok "record: the program's SIGPIPE (status $st)"; fi
left "record, the program killed by SIGPIPE"

# the mount daemon: SIGTERM is for the program; umount then ends the daemon, its session gone
cat > "$W/wait.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "w");
	const char *s = getenv("USERTRACE_SESSION");

	(void)argc;
	if (!f || !s)
		return 1;
	fprintf(f, "%s\n", s);
	fclose(f);
	for (;;)
		pause();
}
C
gcc -O2 -o "$W/wait" "$W/wait.c" || exit 1
mkdir "$W/mnt"
"$UT" mount "$W/mnt" -- "$W/wait" "$W/session" > /dev/null 2> "$W/err" &
D=$!
for i in $(seq 100); do [ -s "$W/session" ] && break; sleep 0.1; done
kill -TERM $D
for i in $(seq 100); do grep -q 'killed by signal 15' "$W/err" && break; sleep 0.1; done
"$UT" umount "$W/mnt" > /dev/null 2>&1
wait $D
st=$?
if [ "$st" = 143 ]; then ok "mount, SIGTERM then umount: status 143"; else not_ok "mount, SIGTERM then umount: status $st"; sed 's/^/# /' "$W/err"; fi
left "mount, SIGTERM then umount"
if mountpoint -q "$W/mnt" 2>/dev/null; then not_ok "mount: still mounted"; fusermount3 -u "$W/mnt"; else ok "mount: unmounted"; fi

# a recorder killed by SIGKILL (nothing of it runs to clean up) leaves
# its session in /dev/shm; the next session this user makes removes it,
# and only such: a session whose maker runs, or without an owner file
# (an older usertrace's), stays
"$UT" record -o "$W/dk" -- "$W/wait" "$W/session" > /dev/null 2>&1 &
R=$!
for i in $(seq 100); do [ -s "$W/session" ] && break; sleep 0.1; done
ses=$(cat "$W/session" 2>/dev/null)
kill -KILL $R
wait $R 2>/dev/null
pkill -KILL -f "^$W/wait $W/session" 2>/dev/null
live=$(mktemp -d /dev/shm/usertrace.XXXXXX)
awk '{ sub(/.*\) /, ""); split($0, f, " "); print '"$$"', f[20] }' /proc/$$/stat > "$live/owner"
bare=$(mktemp -d /dev/shm/usertrace.XXXXXX)
reused=$(mktemp -d /dev/shm/usertrace.XXXXXX)
echo "$$ 1" > "$reused/owner"
if [ -n "$ses" ] && [ -f "$ses/owner" ]; then ok "record killed: its session $ses stays, with its owner"
else not_ok "record killed: session '$ses'"; fi
"$UT" record -o "$W/d2" -- /bin/true > /dev/null 2>&1
[ -n "$ses" ] && [ ! -e "$ses" ] && ok "the next record removed the session of the killed one" ||
	not_ok "the session of the killed record is still there: $ses"
[ -d "$live" ] && ok "a session whose maker runs stays" || not_ok "a session whose maker runs was removed"
[ -d "$bare" ] && ok "a session without an owner file stays" || not_ok "a session without an owner file was removed"
[ ! -e "$reused" ] && ok "a session whose maker's pid is now another process's is removed" ||
	not_ok "a session of a reused pid stays"
rm -rf "$live" "$bare" "$reused" "$ses"

echo "# $SUITE: $n tests"
