#!/bin/sh
# deps.sh - make sure the Debian packages usertrace builds and tests with
# are installed: installs them when run as root, else names them.
PKGS="gcc g++ make libc6-dev libelf-dev libcmocka-dev perl libfuse3-dev fuse3 libzstd-dev libtraceevent-dev libtracefs-dev libcapstone-dev"
PKGS="$PKGS babeltrace2"   # tests/cli/t-export-ctf.sh reads dump --ctf's output
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang"
[ "${1:-}" = bench ] && PKGS="$PKGS uftrace valgrind liblttng-ust-dev lttng-tools"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q $missing >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $missing >/dev/null; } || {
		echo "deps: could not install:$missing" >&2; exit 1; }
	exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: install them with: sudo apt-get install$missing" >&2
exit 1
