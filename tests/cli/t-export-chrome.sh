#!/bin/bash
# t-export-chrome.sh - dump --chrome and dump --perfetto (export/export_chrome.c,
# export/export_perfetto.c) on a function_graph recording of a program
# with a thread and a trace_puts(), and on a function tracer one: the
# JSON's events exactly (times and ids left out), its validity and
# shape; then the real readers, each SKIPped when absent: Chrome
# DevTools' trace engine and speedscope's importer (npm, installed by
# tests/deps.sh in /var/cache/usertrace-npm), protoc on the protobuf
# (--decode_raw and our subset of Perfetto's protos).  Bad input: a
# missing or corrupt data directory is said, exit 1, valid JSON still.
SUITE=export-chrome
. "$(dirname "$0")/lib.sh"
X=$(cd "$(dirname "$0")/export" && pwd)
NPM=${USERTRACE_NPM:-/var/cache/usertrace-npm}/node_modules
INC=$(cd "$(dirname "$0")/../../include" && pwd)

cat > "$W/p.c" <<'C'
#include <pthread.h>
#include <usertrace/tracing.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void work(int x) { leaf(x); leaf(x + 1); }
noinline void *thr(void *a) { (void)a; work(5); return 0; }
int main(void)
{
	pthread_t t;

	work(1);
	trace_puts("hi \"q\"\t\x01\xff");
	pthread_create(&t, 0, thr, 0);
	pthread_join(t, 0);
	return 0;
}
C
gcc -pg -mfentry -O1 -I"$INC" -o "$W/p" "$W/p.c" -lpthread ||
	{ not_ok "cannot build the program"; exit 1; }
"$UT" record -o "$W/d" -- "$W/p" > /dev/null 2>&1 &&
	"$UT" record -t function -o "$W/f" -- "$W/p" > /dev/null 2>&1 ||
	{ not_ok "record failed"; exit 1; }

# --chrome: valid JSON, each phase's keys, B/E nested per thread, the events
"$UT" dump --chrome -i "$W/d" > "$W/d.json" 2> "$W/err"
[ $? = 0 ] && python3 -m json.tool "$W/d.json" > /dev/null && ok "dump --chrome: valid JSON" ||
	{ not_ok "dump --chrome: invalid JSON or failed"; sed 's/^/# /' "$W/err"; }
python3 "$X/check-chrome.py" "$W/d.json" > "$W/got" 2>&1
st=$?
sed -i -E 's/"ip": [0-9]+/"ip": IP/' "$W/got"
cat > "$W/want" <<'E'
thread 0: M process_name {"name": "p"} | M thread_name {"name": "p"} | B main | B work | B leaf | E leaf | B leaf | E leaf | E work | i ftrace:print {"buf": "hi \"q\"\t\u0001\ufffd", "ip": IP} | E main
thread 1: M thread_name {"name": "p"} | B thr | B work | B leaf | E leaf | B leaf | E leaf | E work | E thr
E
if [ $st = 0 ] && diff -u "$W/want" "$W/got" > "$W/diff"; then
	ok "dump --chrome: the events of each thread, keys of each phase, B/E balanced"
else
	not_ok "dump --chrome: events"; sed 's/^/# /' "$W/diff" "$W/got"
fi
# the JSON schema of the format as we write it (tests/cli/export/
# chrome-trace.schema.json), checked by python3-jsonschema; a document
# that breaks it is refused, so the check can fail
"$UT" dump --chrome -i "$W/f" > "$W/f.json" 2> /dev/null
if python3 -c 'import jsonschema' 2> /dev/null; then
	python3 - "$X/chrome-trace.schema.json" "$W/d.json" "$W/f.json" > "$W/got" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft7Validator(schema)
for f in sys.argv[2:]:
    errs = list(v.iter_errors(json.load(open(f))))
    print(f.rsplit('/', 1)[1], len(errs), errs[0].message if errs else '')
bad = json.load(open(sys.argv[2]))
bad["traceEvents"].append({"name": "x", "ph": "B", "pid": 1, "tid": 1})
print('bad', len(list(v.iter_errors(bad))))
PY
	printf '%s\n' "d.json 0 " "f.json 0 " "bad 1" | diff -u - "$W/got" > "$W/diff" &&
		ok "dump --chrome: the JSON schema holds (function_graph, function); a B without ts is refused" ||
		{ not_ok "dump --chrome: JSON schema"; sed 's/^/# /' "$W/diff"; }
else
	ok "dump --chrome: JSON schema # SKIP python3-jsonschema not installed"
fi
# the exact text of a few lines: ts in us with ns digits, escapes
grep -q '"buf":"hi \\"q\\"\\t\\u0001\\ufffd"' "$W/d.json" &&
	grep -qE '^\{"name":"leaf","cat":"function","ph":"E","ts":[0-9]+\.[0-9]{3},"pid":[0-9]+,"tid":[0-9]+\},$' "$W/d.json" &&
	grep -q '^"otherData":{"tracer":"function_graph",.*"lost":0,"unmatched_exits":0,"complete":true}}$' "$W/d.json" &&
	ok "dump --chrome: ts, escapes, otherData" || { not_ok "dump --chrome: text"; sed 's/^/# /' "$W/d.json"; }

"$UT" dump --chrome -i "$W/f" > "$W/f.json" 2> "$W/err" &&
	python3 "$X/check-chrome.py" "$W/f.json" > "$W/got" 2>&1
sed -n 's/^\(thread 1: .*\)/\1/p' "$W/got" > "$W/got1"
echo 'thread 1: M thread_name {"name": "p"} | i thr {"caller": "ut_thread_start"} | i work {"caller": "thr"} | i leaf {"caller": "work"} | i leaf {"caller": "work"}' > "$W/want"
diff -u "$W/want" "$W/got1" > "$W/diff" && ok "dump --chrome of -t function: instant events with the caller" ||
	{ not_ok "dump --chrome -t function"; sed 's/^/# /' "$W/diff" "$W/got"; }

# the real readers
if [ -d "$NPM/@paulirish/trace_engine" ]; then
	node "$X/trace-engine.mjs" "$NPM" "$W/d.json" > "$W/got" 2>&1
	printf 'thread p: main work leaf leaf\nthread p: thr work leaf leaf\n' > "$W/want"
	diff -u "$W/want" "$W/got" > "$W/diff" && ok "DevTools' trace engine: the threads and their calls" ||
		{ not_ok "DevTools' trace engine"; sed 's/^/# /' "$W/diff"; }
else
	ok "DevTools' trace engine # SKIP npm @paulirish/trace_engine not in $NPM (tests/deps.sh)"
fi
SS=$(ls "$NPM"/speedscope/dist/release/speedscope-*.js 2>/dev/null | head -1)
if [ -n "$SS" ] && command -v node > /dev/null; then
	node "$X/speedscope-import.js" "$SS" "$W/d.json" > "$W/got" 2>&1
	sed -i -E 's/[0-9]+/N/g' "$W/got"
	printf 'p (pid N), p (tid N): main work leaf leaf\np (pid N), p (tid N): thr work leaf leaf\n' > "$W/want"
	diff -u "$W/want" "$W/got" > "$W/diff" && ok "speedscope's importer: a profile per thread, its calls" ||
		{ not_ok "speedscope's importer"; sed 's/^/# /' "$W/diff"; }
else
	ok "speedscope's importer # SKIP npm speedscope not in $NPM (tests/deps.sh)"
fi

# --perfetto
"$UT" dump --perfetto -i "$W/d" > "$W/d.pftrace" 2> "$W/err" || { not_ok "dump --perfetto failed"; sed 's/^/# /' "$W/err"; }
if command -v protoc > /dev/null; then
	protoc --decode_raw < "$W/d.pftrace" > "$W/raw" 2> "$W/err" &&
		[ "$(grep -c '^1 {' "$W/raw")" = 20 ] &&
		ok "protoc --decode_raw: 20 packets (3 tracks, 8 calls begun and ended, 1 event)" ||
		{ not_ok "protoc --decode_raw"; sed 's/^/# /' "$W/err"; grep -c '^1 {' "$W/raw"; }
	protoc -I"$X" --decode=perfetto.protos.Trace perfetto-subset.proto < "$W/d.pftrace" > "$W/txt" 2> "$W/err"
	b=$(grep -c 'type: TYPE_SLICE_BEGIN' "$W/txt") e=$(grep -c 'type: TYPE_SLICE_END' "$W/txt")
	if [ "$b" = 8 ] && [ "$e" = 8 ] && grep -q 'thread_name: "p"' "$W/txt" &&
	   grep -q 'process_name: "p"' "$W/txt" && [ "$(grep -c 'sequence_flags: 1$' "$W/txt")" = 1 ] &&
	   [ "$(grep -c 'name: "leaf"' "$W/txt")" = 1 ] && grep -q 'name: "ftrace:print"' "$W/txt" &&
	   grep -q 'string_value: "hi \\"q\\"\\t\\001\\377"' "$W/txt"; then
		ok "protoc --decode=perfetto.protos.Trace: tracks with names, 8 slices begun and ended, names interned once"
	else
		not_ok "protoc --decode: begin $b end $e"; sed 's/^/# /' "$W/err" "$W/txt" | head -60
	fi
else
	ok "protoc --decode_raw # SKIP protoc not installed (Debian protobuf-compiler)"
	ok "protoc --decode # SKIP protoc not installed (Debian protobuf-compiler)"
fi

# bad input
expect 1 "cannot open data directory" -- "$UT" dump --chrome -i "$W/nonexistent"
expect 1 "cannot open data directory" -- "$UT" dump --perfetto -i "$W/nonexistent"
cp -r "$W/d" "$W/c"
python3 - "$W/c" <<'P'
import glob, sys
p = sorted(glob.glob(sys.argv[1] + '/*.dat'))[0]
b = bytearray(open(p, 'rb').read())
b[4096 + 16:] = b'\xff' * (len(b) - 4096 - 16)
open(p, 'wb').write(b)
P
expect 1 "bytes 4096-[0-9]+ damaged" -- "$UT" dump --chrome -i "$W/c"
python3 -m json.tool "$W/out" > /dev/null && grep -q '"complete":false' "$W/out" &&
	ok "a corrupt file: what was read, valid JSON, complete false" || not_ok "corrupt: invalid JSON"
expect 1 "bytes 4096-[0-9]+ damaged" -- "$UT" dump --perfetto -i "$W/c"
# a corrupt format: buf as a __data_loc whose 4-byte location word would
# end past the 26-byte entry (size:1 at offset 25): no string, never a
# read past the entry (it was read, and garbage printed)
rm -rf "$W/e"; cp -r "$W/d" "$W/e"
sed -i 's/field:char buf\[\];\toffset:16;\tsize:0;/field:__data_loc char[] buf;\toffset:25;\tsize:1;/' \
	"$W/e/events/ftrace/print/format"
"$UT" dump --chrome -i "$W/e" > "$W/e.json" 2> "$W/err"
grep -q '__data_loc char\[\] buf;.offset:25;.size:1;' "$W/e/events/ftrace/print/format" &&
	python3 -m json.tool "$W/e.json" > /dev/null &&
	grep -q '"name":"ftrace:print",.*"args":{"ip":[0-9]*,"buf":null}}' "$W/e.json" &&
	ok "a __data_loc field past the entry's end: null" ||
	{ not_ok "__data_loc past the end"; grep print "$W/e.json" | sed 's/^/# /'; }
# events/ that cannot be read: a warning, the events raw, still an export
rm -rf "$W/e"; cp -r "$W/d" "$W/e"; rm -rf "$W/e/events"; echo x > "$W/e/events"
expect 0 "events: Not a directory: its events print raw" -- "$UT" dump --chrome -i "$W/e"
python3 -m json.tool "$W/out" > /dev/null &&
	grep -q '"name":"event 5","cat":"event",.*"args":{"id":5}}' "$W/out" &&
	ok "unreadable events/: the events as their ids, valid JSON" ||
	{ not_ok "unreadable events/"; sed 's/^/# /' "$W/out" | head; }
expect 0 "events: Not a directory" -- "$UT" dump --perfetto -i "$W/e"
truncate -s 4150 "$W"/c/*.dat
expect 1 "damaged \\(a chunk cut short: the file is truncated\\)" -- "$UT" dump --chrome -i "$W/c"
python3 -m json.tool "$W/out" > /dev/null && ok "a truncated file: a warning, valid JSON" ||
	not_ok "truncated: invalid JSON"
# a thread that ends inside its calls (pthread_exit): they end at its own
# last event, not at the end of the trace (main goes on 30 ms longer)
cat > "$W/x.c" <<'C'
#include <pthread.h>
#include <unistd.h>
#define noinline __attribute__((noinline))
noinline void quit(void) { pthread_exit(0); }
noinline void inner(void) { quit(); }
noinline void *thr(void *a) { (void)a; inner(); return 0; }
noinline void later(void) { usleep(30000); }
int main(void)
{
	pthread_t t;

	pthread_create(&t, 0, thr, 0);
	pthread_join(t, 0);
	later();
	return 0;
}
C
gcc -pg -mfentry -O1 -o "$W/x" "$W/x.c" -lpthread && "$UT" record -o "$W/xd" -- "$W/x" > /dev/null 2>&1 ||
	not_ok "cannot record x.c"
for fmt in chrome perfetto; do
	"$UT" dump -i "$W/xd" --$fmt > "$W/x.$fmt" 2> "$W/err" || not_ok "dump --$fmt of x.c"
done
python3 - "$W/x.chrome" > "$W/got" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
main = [e for e in ev if e.get("ph") in "BE" and e["pid"] == e["tid"]]
thr = [e for e in ev if e.get("ph") in "BE" and e["pid"] != e["tid"]]
last_b = max(e["ts"] for e in thr if e["ph"] == "B")
ends = [e["ts"] for e in thr if e["ph"] == "E"]
print(len([e for e in thr if e["ph"] == "B"]), len(ends),
      all(t - last_b < 5000 for t in ends), max(e["ts"] for e in main) - max(ends) > 20000)
PY
[ "$(cat "$W/got")" = "3 3 True True" ] &&
	ok "dump --chrome: a thread's calls open at its end close at its last event" ||
	{ not_ok "dump --chrome: open calls of an ended thread: $(cat "$W/got")"; }
if command -v protoc > /dev/null; then
	protoc --decode_raw < "$W/x.perfetto" > "$W/x.raw" 2>&1
	# the thread's slice ends: on its track, within 5 ms of its last begin
	python3 - "$W/x.raw" > "$W/got" 2>&1 <<'PY'
import re, sys
t = open(sys.argv[1]).read()
pk = re.findall(r'^1 \{\n(.*?)^\}', t, re.S | re.M)
ev = []
for p in pk:
    ts = re.search(r'^  8: (\d+)', p, re.M)
    te = re.search(r'^  11 \{\n(.*?)^  \}', p, re.S | re.M)
    if ts and te:
        ty = int(re.search(r'^    9: (\d+)', te.group(1), re.M).group(1))
        tr = int(re.search(r'^    11: (\d+)', te.group(1), re.M).group(1))
        ev.append((int(ts.group(1)), ty, tr))
tracks = sorted({tr for _, _, tr in ev}, key=lambda tr: min(t for t, _, x in ev if x == tr))
thr = [e for e in ev if e[2] == tracks[-1]]
lb = max(t for t, ty, _ in thr if ty == 1)
print(len(tracks), all(t - lb < 5000000 for t, ty, _ in thr if ty == 2))
PY
	[ "$(cat "$W/got")" = "2 True" ] &&
		ok "dump --perfetto: a thread's open calls end on its own track at its last event" ||
		not_ok "dump --perfetto: open calls of an ended thread: $(cat "$W/got")"
else
	ok "dump --perfetto: open calls of an ended thread # SKIP protoc not installed"
fi
echo "1..$n"
