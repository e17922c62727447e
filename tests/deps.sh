#!/bin/sh
# deps.sh - make sure the Debian packages usertrace builds and tests with
# are installed: installs them when run as root, else names them.
#
#   sh tests/deps.sh          the build's (required: exit 1 when missing)
#   sh tests/deps.sh check    then the real readers the export tests run
#                             (trace-cmd, babeltrace2, chromium, protoc,
#                             node's packages...): best effort, a test
#                             whose reader is missing says SKIP
#   sh tests/deps.sh fuzz|bench   the build's and those of make fuzz / bench
PKGS="gcc g++ make libc6-dev libelf-dev libcmocka-dev perl libfuse3-dev fuse3 libzstd-dev libtraceevent-dev libtracefs-dev libcapstone-dev"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang"
[ "${1:-}" = bench ] && PKGS="$PKGS uftrace valgrind liblttng-ust-dev lttng-tools"
OPT=
if [ "${1:-}" = check ]; then
	OPT="$OPT trace-cmd"   # t-export-dat.sh: trace-cmd report reads dump --dat files
	OPT="$OPT chromium libxml2-utils"   # t-export-flame: the SVG flame graph in a real browser, xmllint
	OPT="$OPT protobuf-compiler jq python3-jsonschema"   # t-export-chrome: the readers of --chrome/--perfetto
	# t-export-chrome: node and npm for the npm readers (a node installed otherwise
	# has its own npm, which Debian's npm package conflicts with)
	command -v npm > /dev/null || OPT="$OPT nodejs npm"
	OPT="$OPT babeltrace2"   # t-export-ctf.sh reads dump --ctf's output
	OPT="$OPT pkgconf groff-base"   # t-install: pkg-config --cflags usertrace, the man page as man prints it
fi

missing_of() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || printf ' %s' "$p"
	done
}
# apt-get install PKGS..., once more after an update: 0, or 1
install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "$@" > /dev/null 2>&1 ||
		{ apt-get update -q > /dev/null 2>&1 && apt-get install -y -q "$@" > /dev/null; }
}
npm_deps() {	# t-export-chrome: Chrome DevTools' trace engine, speedscope
	[ "$(id -u)" = 0 ] && command -v npm > /dev/null || return 0
	# pinned: the tests read these versions (speedscope's bundle is matched by pattern)
	for m in @paulirish/trace_engine@0.0.65 speedscope@1.25.0; do
		[ -d "/var/cache/usertrace-npm/node_modules/${m%@*}" ] ||
			npm install -q --prefix /var/cache/usertrace-npm "$m" > /dev/null 2>&1 ||
			echo "deps: npm install $m failed (its test says SKIP)" >&2
	done
}
root=
[ "$(id -u)" = 0 ] && command -v apt-get > /dev/null && root=1

missing=$(missing_of $PKGS)
if [ -n "$missing" ]; then
	if [ -z "$root" ]; then
		echo "deps: missing Debian packages:$missing" >&2
		echo "deps: install them with: sudo apt-get install$missing" >&2
		exit 1
	fi
	echo "deps: installing$missing"
	install $missing || { echo "deps: could not install:$missing" >&2; exit 1; }
fi
[ -n "$OPT" ] || exit 0
missing=$(missing_of $OPT)
if [ -n "$missing" ] && [ -n "$root" ]; then
	echo "deps: installing the tests' readers:$missing"
	# one by one when together they fail: what can be had is had
	install $missing || for p in $missing; do
		install "$p" || echo "deps: could not install $p (its tests say SKIP)" >&2
	done
elif [ -n "$missing" ]; then
	echo "deps: the export tests' readers are missing (their tests say SKIP):$missing" >&2
fi
npm_deps
exit 0
