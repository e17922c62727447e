# lib.sh - helpers for the command-line tests (sourced)
#   B=build dir, UT=usertrace binary, W=scratch dir (removed at exit)
B=$(cd "$1" && pwd) || exit 2
UT=$B/usertrace
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
