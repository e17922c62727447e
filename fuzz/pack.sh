#!/bin/sh
# pack.sh - a directory as one fuzzer input (the format of fuzz/files.h):
#   fuzz/pack.sh DIR [FILE...] > input
# packs the FILEs (paths relative to DIR; default: every file of DIR and of
# its sub-directories, one level deep), each as "=== NAME", its bytes and
# a newline.
set -eu
dir=$1
shift
if [ $# = 0 ]; then
	set -- $(cd "$dir" && find . -maxdepth 2 -type f | sed 's|^\./||' | LC_ALL=C sort)
fi
for f in "$@"; do
	printf '=== %s\n' "$f"
	cat "$dir/$f"
	printf '\n'
done
