#!/bin/sh
# deps.sh - make sure the Debian packages usertrace builds and tests with
# are installed: installs them when run as root, else names them.
PKGS="gcc g++ make libc6-dev libelf-dev libcmocka-dev perl libfuse3-dev fuse3 libzstd-dev libtraceevent-dev libtracefs-dev libcapstone-dev"
PKGS="$PKGS trace-cmd"   # t-export-dat.sh: trace-cmd report reads dump --dat files
PKGS="$PKGS chromium libxml2-utils"   # t-export-flame: the SVG flame graph in a real browser, xmllint
PKGS="$PKGS protobuf-compiler jq python3-jsonschema"   # t-export-chrome: the readers of dump --chrome/--perfetto
# t-export-chrome: node and npm for the npm readers (a node installed otherwise has its
# own npm, which Debian's npm package conflicts with)
command -v npm > /dev/null || PKGS="$PKGS nodejs npm"
PKGS="$PKGS babeltrace2"   # tests/cli/t-export-ctf.sh reads dump --ctf's output
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang"
[ "${1:-}" = bench ] && PKGS="$PKGS uftrace valgrind liblttng-ust-dev lttng-tools"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
npm_deps() {	# t-export-chrome: Chrome DevTools' trace engine, speedscope
	[ "$(id -u)" = 0 ] && command -v npm > /dev/null || return 0
	# pinned: the tests read these versions (speedscope's bundle is matched by pattern)
	for m in @paulirish/trace_engine@0.0.65 speedscope@1.25.0; do
		[ -d "/var/cache/usertrace-npm/node_modules/${m%@*}" ] ||
			npm install -q --prefix /var/cache/usertrace-npm "$m" > /dev/null 2>&1 ||
			echo "deps: npm install $m failed" >&2
	done
}
[ -z "$missing" ] && { npm_deps; exit 0; }
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $missing >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null; } || {
		echo "deps: could not install:$missing" >&2; exit 1; }
	npm_deps
	exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with: sudo apt-get install$missing" >&2
exit 1
