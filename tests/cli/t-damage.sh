#!/bin/bash
# description: damaged recordings: each damage found and said (file, bytes, pages), the rest read, status 1
SUITE=damage
. "$(dirname "$0")/lib.sh"
T=$(cd "$(dirname "$0")/../.." && pwd)

# two threads, enough calls for several chunks (compressed) and pages
cat > "$W/app.c" <<'C'
#include <pthread.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void work(int x) { leaf(x); if (x % 3) leaf(x + 1); }
static void *run(void *a) { for (int i = 0; i < 8000; i++) work(i + (int)(long)a); return 0; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, run, (void *)1L);
	run(0);
	pthread_join(t, 0);
	return 0;
}
C
gcc -pg -mfentry -O2 -pthread -o "$W/app" "$W/app.c"
"$UT" record -o "$W/z" -- "$W/app" > /dev/null 2>&1
"$UT" record --compress=none -o "$W/n" -- "$W/app" > /dev/null 2>&1
[ -f "$W/z/info" ] && [ -f "$W/n/info" ] && ok "recorded" || not_ok "record failed"

# main's thread file of a copy of recording $1 in $W/$2
copy() {
	rm -rf "${W:?}/$2" && cp -r "$W/$1" "$W/$2"
	f=$(ls "$W/$2"/*.dat | sort | head -1)
	b=$(basename "$f")
}
# random bytes of a fixed seed
randbytes() { perl -e 'srand($ARGV[0]); print map { chr(int(rand(256))) } 1..$ARGV[1]' "$1" "$2"; }

for kind in z n; do
	"$UT" replay -i "$W/$kind" > "$W/$kind.good" 2>&1
	# the records, as dump -a prints them (not the threads' names and counts)
	"$UT" dump -a -i "$W/$kind" | grep -v '^# thread' > "$W/$kind.recs"
	same() { "$UT" dump -a -i "$W/$1" 2>/dev/null | grep -v '^# thread' | cmp -s - "$W/$kind.recs"; }

	# the issue's three cases: 64 random bytes at offset 2000 (the header
	# page's extension: a compressed file's chunks were taken for pages)
	copy $kind r2000
	randbytes 1 64 | dd of="$f" bs=1 seek=2000 conv=notrunc 2>/dev/null
	expect 1 "^usertrace: $W/r2000/$b: header page \\(bytes 0-4095\\) damaged \\(its extension at byte 2048 is damaged\\): the thread taken from the file name, its lost and overwritten counts unknown; its pages are read$" -- "$UT" replay -i "$W/r2000"
	same r2000 && ok "$kind: 64 bytes at 2000: every event still read" ||
		not_ok "$kind: 64 bytes at 2000: not every event read"

	# an overwritten header: no count read from it
	copy $kind hdr
	randbytes 2 96 | dd of="$f" bs=1 seek=8 conv=notrunc 2>/dev/null
	expect 1 "^usertrace: $W/hdr/$b: header page \\(bytes 0-4095\\) damaged \\(.*\\)" -- "$UT" replay -i "$W/hdr"
	! grep -q 'LOST [0-9]' "$W/out" && same hdr &&
		ok "$kind: overwritten header: no lost count from it, every event read" ||
		{ not_ok "$kind: overwritten header"; grep LOST "$W/out" | head -3 | sed 's/^/# /'; }
	# just the lost count (header fields past the identity): its check
	copy $kind lost
	printf '\131\331\377\377\377\377\377\011' | dd of="$f" bs=1 seek=64 conv=notrunc 2>/dev/null
	expect 1 "^usertrace: $W/lost/$b: header page \\(bytes 0-4095\\) damaged \\(its check fails\\)" -- "$UT" replay -i "$W/lost"
	! grep -q 'LOST [0-9]' "$W/out" && ok "$kind: a damaged lost count is not printed" ||
		not_ok "$kind: printed $(grep LOST "$W/out" | head -1)"
	expect 1 "header page" -- "$UT" dump -i "$W/lost"
	grep -q "^# thread .* lost=? overrun=?$" "$W/out" && ok "$kind: dump: lost=? overrun=?" ||
		not_ok "$kind: dump: $(grep '^# thread' "$W/out" | head -2)"

	# a file cut inside its header page: said, the other thread read
	copy $kind cut
	truncate -s 3000 "$f"
	expect 1 "^usertrace: $W/cut/$b: truncated to 3000 bytes, inside its header page \\(bytes 0-4095\\): no events left$" -- "$UT" replay -i "$W/cut"
	grep -q 'leaf' "$W/out" && ok "$kind: cut header: the other thread printed" || not_ok "$kind: cut header: nothing printed"
done

# a page's damage (no compression): that page, said with its bytes, the
# pages around it read
copy n zero
dd if=/dev/zero of="$f" bs=4096 seek=5 count=1 conv=notrunc 2>/dev/null
expect 1 "^usertrace: $W/zero/$b: page 4 \\(bytes 20480-24575\\) damaged \\(its check fails\\): skipped, 1 page$" -- "$UT" replay -i "$W/zero"
grep -q '^ *CPU:[0-9]* \[LOST EVENTS\]$' "$W/out" && ok "n: a zeroed page: a hole of an unknown count" ||
	not_ok "n: zeroed page: no [LOST EVENTS]"
expect 1 "page 4 \\(bytes 20480-24575\\)" -- "$UT" report -i "$W/zero"
expect 1 "page 4 \\(bytes 20480-24575\\)" -- "$UT" dump -i "$W/zero"
expect 1 "page 4 \\(bytes 20480-24575\\)" -- "$UT" dump -i "$W/zero" --chrome
grep -q '"name":"leaf"' "$W/out" && ok "dump --chrome: the export of the rest is written" || not_ok "no chrome export"
# two pages swapped: each fails its check at the other's place
copy n swap
dd if="$f" of="$W/p3" bs=4096 skip=3 count=1 2>/dev/null
dd if="$f" of="$W/p7" bs=4096 skip=7 count=1 2>/dev/null
dd if="$W/p7" of="$f" bs=4096 seek=3 conv=notrunc 2>/dev/null
dd if="$W/p3" of="$f" bs=4096 seek=7 conv=notrunc 2>/dev/null
expect 1 "page 2 \\(bytes 12288-16383\\) damaged \\(its check fails\\)" -- "$UT" replay -i "$W/swap"
grep -q "page 6 (bytes 28672-32767) damaged (its check fails)" "$W/err" && [ "$(wc -l < "$W/err")" = 2 ] &&
	ok "n: two swapped pages: those two said" || { not_ok "n: swapped pages"; sed 's/^/# /' "$W/err"; }
# cut inside a page: the bytes said, the whole pages before read
copy n cutpage
truncate -s 30000 "$f"
expect 1 "^usertrace: $W/cutpage/$b: truncated: bytes 28672-29999 \\(1328 bytes of page 6\\) ignored$" -- "$UT" replay -i "$W/cutpage"
# a recording of before the checks: an impossible lost count is said, not printed
copy n old
printf '\0\0\0\0\0\0\0\0' | dd of="$f" bs=1 seek=$((2048 + 40)) conv=notrunc 2>/dev/null
sed -i '/^checks=/d' "$W/old/info"
printf '\131\331\377\377\377\377\377\011' | dd of="$f" bs=1 seek=64 conv=notrunc 2>/dev/null
expect 1 "header page \\(bytes 0-4095\\) damaged \\(an impossible count of 72057594037926[0-9]+ records lost\\)" -- "$UT" replay -i "$W/old"
! grep -q 'LOST [0-9]\{10,\}' "$W/out" && ok "old recording: the impossible count not printed" ||
	not_ok "old recording: $(grep LOST "$W/out" | head -1) printed"

# a chunk's damage (zstd): that chunk (or the pages of it that fail their
# checks: zeroes may still decompress), said with its bytes and pages, the
# chunks after it read
copy z chunk
dd if=/dev/zero of="$f" bs=1 seek=$((4096 + 16 + 100)) count=64 conv=notrunc 2>/dev/null
expect 1 "^usertrace: $W/chunk/$b: (the chunk at bytes 4096-[0-9]+ damaged \\(its frame does not decompress: .*\\): skipped, 64 pages|pages? [-0-9]+ \\((its|from its) page [0-9]+ of the chunk at bytes 4096-[0-9]+\\) damaged \\(its check fails\\): skipped, [0-9]+ pages?)$" -- "$UT" replay -i "$W/chunk"
n1=$(grep -c 'leaf' "$W/out"); n0=$(grep -c 'leaf' "$W/z.good")
[ "$n1" -gt $((n0 / 2)) ] && [ "$n1" -lt "$n0" ] && ok "z: the chunks after it read ($n1 of $n0 leaf lines)" ||
	not_ok "z: $n1 of $n0 leaf lines"
# the end of a chunk's frame damaged: its pages before the damaged block,
# decompressed as a stream and checked, are read
copy z chunkend
cs=$(perl -e 'open(F, "<", $ARGV[0]); binmode(F); seek(F, 4100, 0); read(F, $c, 4); print unpack("V", $c)' "$f")
randbytes 3 8 | dd of="$f" bs=1 seek=$((4096 + 16 + cs - 40)) conv=notrunc 2>/dev/null
expect 1 "^usertrace: $W/chunkend/$b: (the chunk at bytes 4096-[0-9]+ damaged \\(its frame does not decompress: .*\\): its pages [1-9][0-9]*-63 skipped, [0-9]+ pages; its pages 0-[0-9]+ read|pages? [-0-9]+ \\((its|from its) page [1-9][0-9]* of the chunk at bytes 4096-[0-9]+\\) damaged \\(its check fails\\): skipped, [0-9]+ pages?)$" -- "$UT" replay -i "$W/chunkend"
# a damaged chunk header: the next chunk found by its magic
copy z chunkhdr
printf 'XXXX' | dd of="$f" bs=1 seek=4096 conv=notrunc 2>/dev/null
expect 1 "^usertrace: $W/chunkhdr/$b: bytes 4096-[0-9]+ damaged \\(no chunk header there\\): skipped, an unknown number of pages$" -- "$UT" replay -i "$W/chunkhdr"
n1=$(grep -c 'leaf' "$W/out")
[ "$n1" -gt $((n0 / 2)) ] && [ "$n1" -lt "$n0" ] && ok "z: a damaged chunk header: the chunks after it read ($n1 of $n0 leaf lines)" ||
	not_ok "z: damaged chunk header: $n1 of $n0 leaf lines"

# random damages of fixed seeds, each checked against the good recording
# (fuzz/damage.pl: no crash, status 1 and a message naming the damage,
# every event of the undamaged pages still printed, none invented)
perl "$T/fuzz/damage.pl" --tap --count 6 "$UT" "$W/z" "$W/n" > "$W/damage.tap" 2>&1
st=$?
sed "s/^\\(not \\)\\{0,1\\}ok [0-9]* - damage: /&/" "$W/damage.tap" | while IFS= read -r l; do
	case $l in
	"ok "*) n=$((n + 1)); echo "ok $n - $SUITE: ${l#* - damage: }" ;;
	"not ok "*) n=$((n + 1)); echo "not ok $n - $SUITE: ${l#* - damage: }" ;;
	"#"*) echo "$l" ;;
	*) echo "# $l" ;;	# its other words (a die) as comments, which run-all.sh shows
	esac
done
n=$((n + $(grep -c '^\(not \)\{0,1\}ok ' "$W/damage.tap")))
[ $st = 0 ] && grep -q '^ok ' "$W/damage.tap" && ok "fuzz/damage.pl: status $st" || not_ok "fuzz/damage.pl: status $st"

echo "# $SUITE: $n tests"
