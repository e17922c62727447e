#!/bin/sh
# mkcorpus.sh - remake the recorded seeds of the data target:
#   sh fuzz/seed/mkcorpus.sh BUILD_DIR
# records fuzz/seed/prog.c a few ways and packs each recording, cut down
# to the program's own maps lines and symbols (a few KB), into
# fuzz/corpus/data/rec-* (zstd-compressed pages, as record saves them by
# default) and rec-*-plain (--compress=none).  The rec-v1-* seeds are
# recordings of data version 1 (before compression), kept as they were
# made.  The synthetic seeds come from mkdat.pl.
set -eu
B=${1:-build}
src=$(cd "$(dirname "$0")" && pwd)
out=$src/../corpus/data
tmp=/tmp/usertrace-seed
rm -rf "$tmp"
mkdir -p "$tmp" "$out"
cc -pg -mfentry -O2 -g -o "$tmp/prog" "$src/prog.c" -lpthread -ldl
cc -pg -mfentry -O2 -g -shared -fPIC -o "$tmp/libseed.so" "$src/lib.c"

record() {	# NAME ARGS... (the program's argument in $N)
	name=$1
	shift
	"$B/usertrace" record -o "$tmp/$name" "$@" -- "$tmp/prog" ${N:-3} ${LIB:-} > /dev/null
	d=$tmp/$name
	# only the program's lines and symbols: small seeds
	for m in "$d"/maps.*; do
		grep -E "^# |$tmp/(prog|libseed)" "$m" > "$m.new" || true
		mv "$m.new" "$m"
	done
	grep -E " $tmp/(prog|libseed)" "$d/sym/index" > "$d/sym/index.new"
	mv "$d/sym/index.new" "$d/sym/index"
	for s in "$d"/sym/*.sym; do
		grep -q "^$(basename "$s" .sym) " "$d/sym/index" || rm -f "$s"
	done
	sh "$src/../pack.sh" "$d" > "$out/rec-$name"
}

record graph -b 64K
record graph-plain -b 64K --compress=none
record function -b 64K -t function
record function-plain -b 64K -t function --compress=none
record thresh -b 64K --thresh 100us -T slow:stacktrace
record depth -b 64K -D 2 -G work -N leaf
record overwrite -b 8K --overwrite --drop
N=3000 record grow -b 8K --compress=zstd:3
LIB=$tmp/libseed.so record dlopen -b 64K

# damaged recordings (with the checks of usertrace-data(5)): a header page
# and the end of a chunk's frame (rec-damaged), two pages swapped, a lost
# count and a zeroed page (rec-damaged-plain); tests/cli/t-damage.sh says
# what a reader makes of them
damage() {	# FILE OFFSET BYTES...
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}
N=300 record damaged -b 64K
f=$(ls "$tmp"/damaged/*.dat | head -1)
damage "$f" 2000 'garbage!'
cs=$(od -An -tu4 -j4100 -N4 "$f" | tr -d ' ')
damage "$f" $((4096 + 16 + cs - 40)) '\001\002\003\004\005\006\007\010'
sh "$src/../pack.sh" "$tmp/damaged" > "$out/rec-damaged"
N=30 record damaged-plain -b 64K --compress=none
f=$(ls "$tmp"/damaged-plain/*.dat | head -1)
dd if="$f" of="$tmp/p1" bs=4096 skip=1 count=1 2> /dev/null
dd if="$f" of="$tmp/p2" bs=4096 skip=2 count=1 2> /dev/null
dd if="$tmp/p2" of="$f" bs=4096 seek=1 conv=notrunc 2> /dev/null
dd if="$tmp/p1" of="$f" bs=4096 seek=2 conv=notrunc 2> /dev/null
damage "$f" 64 '\377\377\377\377\377\377\377\177'
f=$(ls "$tmp"/damaged-plain/*.dat | sed -n 2p)
dd if=/dev/zero of="$f" bs=4096 seek=1 count=1 conv=notrunc 2> /dev/null
sh "$src/../pack.sh" "$tmp/damaged-plain" > "$out/rec-damaged-plain"
ls -l "$out"
