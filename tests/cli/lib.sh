# lib.sh - helpers for the command-line tests (sourced)
#   B=build dir, UT=usertrace binary, W=scratch dir (removed at exit)
B=$(cd "$1" && pwd) || exit 2
UT=$B/usertrace
# no system debug files (libc6-dbg would name libc's inner functions, which
# the expected outputs leave as addresses: machines differ in having them)
export USERTRACE_DEBUG_DIR=
W=$(mktemp -d /tmp/usertrace-cli.XXXXXX)
trap 'rm -rf "$W"' EXIT
n=0

ok() { n=$((n + 1)); echo "ok $n - $SUITE: $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $SUITE: $*"; }

# expect STATUS PATTERN -- CMD...: exit status and a stderr line matching PATTERN
expect() {
	local want=$1 pat=$2
	shift 3
	"$@" > "$W/out" 2> "$W/err" < /dev/null
	local got=$?
	if [ "$got" -ge 128 ] && [ "$want" -lt 128 ]; then
		not_ok "$* crashed (status $got)"; sed 's/^/# /' "$W/err"; return
	fi
	if [ "$want" = nonzero ] && [ "$got" != 0 ]; then :
	elif [ "$got" != "$want" ]; then
		not_ok "$*: status $got, expected $want"; sed 's/^/# /' "$W/err"; return
	fi
	if [ -n "$pat" ] && ! grep -qE -e "$pat" "$W/err"; then
		not_ok "$*: no message matching '$pat'"; sed 's/^/# /' "$W/err"; return
	fi
	ok "$* -> $got"
}

# exact STATUS EXPECTED-STDERR -- CMD...: exit status and the whole of stderr
exact() {
	local want=$1 text=$2
	shift 3
	"$@" > "$W/out" 2> "$W/err" < /dev/null
	local got=$?
	if [ "$got" != "$want" ]; then
		not_ok "$*: status $got, expected $want"; sed 's/^/# /' "$W/err"; return
	fi
	if [ "$text" != "$(cat "$W/err")" ]; then
		not_ok "$*: stderr differs"; diff <(echo "$text") "$W/err" | sed 's/^/# /'; return
	fi
	ok "$* -> $got"
}

# dl_sources DIR FUNC: DIR/host.c, a program that dlopens the library
# named by its argument and calls FUNC(1) in it (status 1 if it cannot),
# and DIR/plug.c, a library with FUNC
dl_sources() {
	cat > "$1/plug.c" <<C
#define noinline __attribute__((noinline))
volatile int sink;
noinline void $2(int x) { sink += x; }
C
	cat > "$1/host.c" <<C
#include <dlfcn.h>
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	void (*fn)(int) = h ? (void (*)(int))dlsym(h, "$2") : 0;

	(void)argc;
	if (!fn)
		return 1;
	fn(1);
	return 0;
}
C
}

# start_session STATUS: usertrace mount $W/mnt on a program that calls
# work() -> leaf() every millisecond until $W/stop exists, then exits with
# STATUS.  Sets D (the daemon's pid); stops everything at exit.
start_session() {
	cat > "$W/loop.c" <<C
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void work(int x) { leaf(x); leaf(x + 1); }
int main(int argc, char **argv)
{
	(void)argc;
	while (access(argv[1], F_OK) != 0) {
		work(1);
		usleep(1000);
	}
	return $1;
}
C
	gcc -pg -mfentry -O2 -o "$W/loop" "$W/loop.c" || return 1
	mkdir "$W/mnt"
	"$UT" mount "$W/mnt" -- "$W/loop" "$W/stop" > "$W/d.out" 2> "$W/d.err" &
	D=$!
	trap 'touch "$W/stop"; "$UT" umount "$W/mnt" >/dev/null 2>&1; kill $D 2>/dev/null; wait $D 2>/dev/null; rm -rf "$W"' EXIT
}
