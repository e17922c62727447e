#!/bin/bash
# t-progress.sh - the progress bar of replay (and of dump's exports,
# utils/progress.c): drawn on stderr while the output goes elsewhere,
# never into the output, erased at the end; off when stderr is not a
# terminal (as here) or USERTRACE_PROGRESS=0; USERTRACE_PROGRESS=1
# draws it from the start and once more at the end.
SUITE=progress
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { int s = 0; for (int i = 0; i < 150000; i++) s += f(i); return s == 0; }
C
gcc -pg -mfentry -O1 -o "$W/p" "$W/p.c" || { not_ok "cannot build p.c"; exit 1; }
"$UT" record -o "$W/d" -- "$W/p" > /dev/null 2>&1 || { not_ok "record"; exit 1; }

"$UT" replay -i "$W/d" > "$W/plain" 2> "$W/e0"
[ -s "$W/plain" ] && [ ! -s "$W/e0" ] && ok "stderr not a terminal: no bar" ||
	not_ok "stderr not a terminal: $(head -c 200 "$W/e0" | od -c | head -3)"

USERTRACE_PROGRESS=1 "$UT" replay -i "$W/d" > "$W/forced" 2> "$W/e1"
cmp -s "$W/plain" "$W/forced" && ok "the output is the same with the bar" ||
	not_ok "the bar changed the output"
# the last drawing: the whole file read, the events counted (150000 calls
# of a leaf: one event each, its return read with it), then the line erased
last=$(tr '\r' '\n' < "$W/e1" | grep -a '%' | tail -1)
if [[ $last =~ ^\[=+\]\ 100%\ 150\.0K\ events,\ [0-9.]+[KMG]?/s\ $ ]]; then
	ok "USERTRACE_PROGRESS=1: the bar ends at 100% with the events counted"
else
	not_ok "USERTRACE_PROGRESS=1: last drawing '$last'"
fi
[ "$(tail -c 4 "$W/e1" | od -An -c | tr -d ' ')" = '\r033[K' ] && ok "the bar is erased at the end" ||
	not_ok "the bar is not erased: $(tail -c 8 "$W/e1" | od -An -c)"
# it moves: an earlier drawing below 100% (every 65536 events)
tr '\r' '\n' < "$W/e1" | grep -aqE '^\[=*>? *\] +[0-9]{1,2}% ' && ok "drawings before the end show less than 100%" ||
	not_ok "no drawing below 100%: $(tr '\r' '\n' < "$W/e1" | head -3)"

USERTRACE_PROGRESS=0 "$UT" replay -i "$W/d" > /dev/null 2> "$W/e2"
[ ! -s "$W/e2" ] && ok "USERTRACE_PROGRESS=0: no bar" || not_ok "USERTRACE_PROGRESS=0 drew"

# replay -o FILE: the bar too, the file the same
USERTRACE_PROGRESS=1 "$UT" replay -i "$W/d" -o "$W/file" > /dev/null 2> "$W/e3"
cmp -s "$W/plain" "$W/file" && grep -aq '100%' "$W/e3" && ok "replay -o FILE: the bar, the same file" ||
	not_ok "replay -o FILE"
