#!/bin/bash
# t-export-ctf.sh - dump --ctf DIR (export/export_ctf.c), read by the real
# consumer, babeltrace2 (Debian babeltrace2, tests/deps.sh): a
# function_graph recording with a tracepoint (myapp:request, from
# <usertrace/tracepoint.h>), myapp:blob (fixed arrays, a dynamic array,
# a pointer) and a trace_puts (ftrace:print) gives exact
# lines (time, host and pid made constant), the times are dump -a's to
# the ns, the event classes have the format files' field types; the
# function tracer's events; a three-thread trace of many packets and one
# that lost records have dump's number of events per thread.  Bad input:
# a missing or corrupt data directory, an existing non-empty DIR
# (refused), a DIR that cannot be made: a message and status 1.
SUITE=export-ctf
. "$(dirname "$0")/lib.sh"
INC=$(cd "$(dirname "$0")/../../include" && pwd)

cat > "$W/tp_trace.h" <<'C'
#undef TRACE_SYSTEM
#define TRACE_SYSTEM myapp
#if !defined(MYAPP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MYAPP_TRACE_H
#include <usertrace/tracepoint.h>
TRACE_EVENT(request,
	TP_PROTO(int id, const char *path),
	TP_ARGS(id, path),
	TP_STRUCT__entry(__field(int, id) __field(unsigned long, size) __string(path, path)),
	TP_fast_assign(__entry->id = id; __entry->size = 4096; __assign_str(path);),
	TP_printk("id=%d size=%lu path=%s", __entry->id, __entry->size, __get_str(path)));
TRACE_EVENT(blob,
	TP_PROTO(const short *v, int n),
	TP_ARGS(v, n),
	TP_STRUCT__entry(__array(unsigned char, mac, 3) __array(char, tag, 8)
			 __dynamic_array(short, vals, n) __field(void *, ptr)),
	TP_fast_assign(__entry->mac[0] = 1; __entry->mac[1] = 2; __entry->mac[2] = 255;
		       memcpy(__entry->tag, "tg", 3); __entry->ptr = (void *)0x1234;
		       memcpy(__get_dynamic_array(vals), v, n * sizeof(short));),
	TP_printk("n=%d", __get_dynamic_array_len(vals)));
#endif
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE tp_trace
#include <usertrace/define_trace.h>
C
cat > "$W/p.c" <<'C'
#include <string.h>
#define CREATE_TRACE_POINTS
#include "tp_trace.h"
#include <usertrace/tracing.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
static const short v[3] = { -1, 2, 300 };
noinline void work(int x) { leaf(x); trace_request(-7, "/a/b"); trace_blob(v, 3); trace_puts("hello ctf"); }
int main(void) { work(1); return 0; }
C
cat > "$W/mt.c" <<'C'
#include <pthread.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void leaf(int x) { sink += x; }
noinline void work(int x) { for (int i = 0; i < 4000; i++) leaf(x); }
static void *th(void *a) { work((int)(long)a); return 0; }
int main(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], 0, th, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], 0);
	work(9);
	return 0;
}
C
(cd "$W" && gcc -pg -mfentry -O1 -I"$INC" -I. -o p p.c && gcc -pg -mfentry -O1 -pthread -o mt mt.c) ||
	{ not_ok "cannot build the programs"; exit 1; }

"$UT" record -o "$W/d" -t function_graph -e 'myapp:*' -- "$W/p" > /dev/null 2> "$W/rec.err" &&
	"$UT" record -o "$W/df" -t function -- "$W/p" > /dev/null 2>> "$W/rec.err" &&
	"$UT" record -o "$W/dm" -- "$W/mt" > /dev/null 2>> "$W/rec.err" ||
	{ not_ok "record"; sed 's/^/# /' "$W/rec.err"; exit 1; }

expect 0 "" -- "$UT" dump -i "$W/d" --ctf "$W/ctf"
if [ -f "$W/ctf/metadata" ] && head -1 "$W/ctf/metadata" | grep -qx '/\* CTF 1.8 \*/' &&
	[ "$(ls "$W/ctf" | grep -c '^stream_[0-9]*_[0-9]*$')" = 1 ]; then
	ok "DIR: metadata (/* CTF 1.8 */) and one stream file"
else
	not_ok "DIR: $(ls "$W/ctf" | tr '\n' ' ')"
fi

# bad input, without babeltrace2
expect 1 "cannot open data directory" -- "$UT" dump -i "$W/nosuch" --ctf "$W/c1"
cp -r "$W/dm" "$W/bad"
dat=$(ls "$W"/bad/*.dat | head -1)
dd if=/dev/urandom of="$dat" bs=1 seek=5000 count=3000 conv=notrunc status=none
expect 1 "corrupt" -- "$UT" dump -i "$W/bad" --ctf "$W/c2"
mkdir "$W/full" && touch "$W/full/x"
expect 1 "exists and is not empty" -- "$UT" dump -i "$W/d" --ctf "$W/full"
[ "$(ls "$W/full")" = x ] && ok "a non-empty DIR is left as it was" || not_ok "DIR changed"
touch "$W/file"
expect 1 "cannot create $W/file/ctf: Not a directory" -- "$UT" dump -i "$W/d" --ctf "$W/file/ctf"
mkdir "$W/empty"
expect 0 "" -- "$UT" dump -i "$W/d" --ctf "$W/empty"

if ! command -v babeltrace2 > /dev/null; then
	ok "babeltrace2 reads the export # SKIP babeltrace2 not installed (tests/deps.sh installs it)"
	exit 0
fi

PID=$("$UT" dump -i "$W/d" | sed -n 's/^# thread \([0-9]*\)\..*/\1/p' | head -1)
# the time, delta and host of each line out; addresses, CPU and pid made constant
norm() {
	sed -E -e 's/^\[[^]]*\] \([^)]*\) [^ ]+ //' -e 's/0x[0-9A-Fa-f]+/ADDR/g' \
		-e 's/cpu_id = [0-9]+/cpu_id = N/' -e "s/= $PID\\b/= PID/g"
}
babeltrace2 "$W/ctf" > "$W/bt" 2> "$W/bt.err"
norm < "$W/bt" > "$W/got"
E='{ cpu_id = N }, { vpid = PID, vtid = PID }'
cat > "$W/want" <<EOF
usertrace:func_entry: $E, { ip = ADDR, name = "main", depth = 0, parent_ip = ADDR }
usertrace:func_entry: $E, { ip = ADDR, name = "work", depth = 1, parent_ip = ADDR }
usertrace:func_entry: $E, { ip = ADDR, name = "leaf", depth = 2, parent_ip = ADDR }
usertrace:func_exit: $E, { ip = ADDR, name = "leaf", depth = 2 }
myapp:request: $E, { id = -7, size = 4096, path = "/a/b" }
myapp:blob: $E, { mac = [ [0] = 1, [1] = 2, [2] = 255 ], tag = "tg", _vals_length = 3, vals = [ [0] = -1, [1] = 2, [2] = 300 ], ptr = ADDR }
ftrace:print: $E, { ip = ADDR, ip_sym = "work", buf = "hello ctf" }
usertrace:func_exit: $E, { ip = ADDR, name = "work", depth = 1 }
usertrace:func_exit: $E, { ip = ADDR, name = "main", depth = 0 }
EOF
if diff "$W/want" "$W/got" > "$W/diff" && [ ! -s "$W/bt.err" ]; then
	ok "babeltrace2: function_graph, tracepoints (integers, string, arrays, sequence, pointer) and a print, exact"
else
	not_ok "babeltrace2's lines"; sed 's/^/# /' "$W/diff" "$W/bt.err"
fi
# field names that meet the names the writer makes (a dynamic array's
# length, a code field's symbol) or each other (a corrupt format): each
# gets a name of its own, or babeltrace2 refuses the whole trace
cp -r "$W/d" "$W/dn"
sed -i 's/field:void \* ptr;/field:unsigned long vals_length;/' "$W/dn/events/myapp/blob/format"
sed -i 's/field:char tag\[8\];/field:char mac[8];/' "$W/dn/events/myapp/blob/format"
sed -i 's/field:int id;\(.*\)signed:1;/field:unsigned long ip_sym;\1signed:0;/; s/field:unsigned long size;/field:unsigned long ip;/' \
	"$W/dn/events/myapp/request/format"
"$UT" dump -i "$W/dn" --ctf "$W/ctf-n" 2> "$W/err"
babeltrace2 "$W/ctf-n" 2> "$W/bt.err" | norm | grep myapp > "$W/got"
cat > "$W/want" <<EOF
myapp:request: $E, { ip_sym = 4294967289, ip = ADDR, ip_sym_2 = "", path = "/a/b" }
myapp:blob: $E, { mac = [ [0] = 1, [1] = 2, [2] = 255 ], mac_2 = "tg", _vals_length_2 = 3, vals = [ [0] = -1, [1] = 2, [2] = 300 ], vals_length = 4660 }
EOF
if diff "$W/want" "$W/got" > "$W/diff"; then
	ok "babeltrace2: fields named as the writer's length and symbol fields, or twice, are renamed"
else
	not_ok "field name clashes"; sed 's/^/# /' "$W/diff" "$W/err"; grep -m3 ' E ' "$W/bt.err" | sed 's/^/# /'
fi
host=$(hostname)
if grep -q "^\[[0-9:.]*\] ([^)]*) $host usertrace:func_entry" "$W/bt"; then
	ok "babeltrace2 names the trace by the env's hostname ($host)"
else
	not_ok "hostname: $(head -1 "$W/bt")"
fi

# the times: babeltrace2's seconds since the clock's origin are dump -a's ns
babeltrace2 --clock-seconds "$W/ctf" | sed -E 's/^\[([0-9]+)\.([0-9]{9})\].*/\1\2/; s/^0+//' > "$W/t.bt"
"$UT" dump -a -i "$W/d" | awk '!/^#/ { print $3 }' > "$W/t.dump"
if [ -s "$W/t.bt" ] && cmp -s "$W/t.bt" "$W/t.dump"; then
	ok "timestamps: babeltrace2's are dump -a's, to the ns"
else
	not_ok "timestamps"; paste "$W/t.bt" "$W/t.dump" | sed 's/^/# /'
fi

babeltrace2 "$W/ctf" -c sink.text.details --params with-data=false > "$W/cls" 2>&1
req=$(grep -A4 'Event class `myapp:request`' "$W/cls" | sed -n 's/^ *//; 3,5p' | tr '\n' ';')
if [ "$req" = "id: Signed integer (32-bit, Base 10);size: Unsigned integer (64-bit, Base 10);path: String;" ] &&
	grep -q 'Supports discarded events: Yes' "$W/cls" &&
	grep -q 'Frequency (Hz): 1,000,000,000' "$W/cls"; then
	ok "event classes: myapp:request's fields typed as its format file's; discarded events; 1 GHz clock"
else
	not_ok "event classes: '$req'"; head -30 "$W/cls" | sed 's/^/# /'
fi
babeltrace2 "$W/ctf" -c sink.text.details > "$W/env" 2>&1
if grep -q '^      tracer_name: usertrace$' "$W/env" && grep -q '^      domain: ust$' "$W/env" &&
	grep -q "^      cmdline: $W/p\$" "$W/env"; then
	ok "env: tracer_name, domain, cmdline"
else
	not_ok "env"; grep -A12 Environment "$W/env" | sed 's/^/# /'
fi

"$UT" dump -i "$W/df" --ctf "$W/ctf-f" 2> "$W/err"
cat > "$W/want" <<EOF
usertrace:function: $E, { ip = ADDR, name = "work", parent_ip = ADDR, parent_name = "main" }
usertrace:function: $E, { ip = ADDR, name = "leaf", parent_ip = ADDR, parent_name = "work" }
EOF
PID=$("$UT" dump -i "$W/df" | sed -n 's/^# thread \([0-9]*\)\..*/\1/p' | head -1)
babeltrace2 "$W/ctf-f" 2> "$W/bt.err" | norm | grep usertrace:function | tail -2 > "$W/got"
if diff "$W/want" "$W/got" > "$W/diff" && [ ! -s "$W/bt.err" ]; then
	ok "babeltrace2: the function tracer's events with their callers' names"
else
	not_ok "function tracer"; sed 's/^/# /' "$W/diff" "$W/err" "$W/bt.err"
fi

# per_thread DATA BT: "tid count" lines of dump's events and of babeltrace2's
per_thread() {
	"$UT" dump -i "$1" | awk '!/^#/ { split($1, a, "."); n[a[2]]++ } END { for (t in n) print t, n[t] }' |
		sort > "$W/n.dump"
	babeltrace2 "$2" 2> "$W/bt.err" | sed -nE 's/.*vtid = ([0-9]+) .*/\1/p' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort > "$W/n.bt"
}
expect 0 "" -- "$UT" dump -i "$W/dm" --ctf "$W/ctf-m"
per_thread "$W/dm" "$W/ctf-m"
big=$(find "$W/ctf-m" -name 'stream_*' -size +64k | wc -l)
if [ "$(wc -l < "$W/n.dump")" = 4 ] && cmp -s "$W/n.dump" "$W/n.bt" && [ "$big" -ge 4 ]; then
	ok "4 threads, several 64 KiB packets each: dump's number of events per thread ($(awk '{ s += $2 } END { print s }' "$W/n.dump"))"
else
	not_ok "4 threads ($big streams over 64 KiB)"; paste "$W/n.dump" "$W/n.bt" | sed 's/^/# /'
fi

# records lost (a tiny buffer that drops): lost events, and babeltrace2's discarded events
"$UT" record --drop -b 8K -o "$W/dl" -- "$W/mt" > /dev/null 2>&1
lost=$("$UT" dump -i "$W/dl" | grep -c '^[0-9.]* [0-9]* [0-9]* lost ')
if [ "$lost" = 0 ]; then
	ok "lost records # SKIP the recording lost none"
else
	"$UT" dump -i "$W/dl" --ctf "$W/ctf-l" 2> "$W/err"
	per_thread "$W/dl" "$W/ctf-l"
	btlost=$(babeltrace2 "$W/ctf-l" 2> /dev/null | grep -c 'usertrace:lost: ')
	if cmp -s "$W/n.dump" "$W/n.bt" && [ "$btlost" = "$lost" ] &&
		grep -q 'discarded .*events' "$W/bt.err"; then
		ok "$lost lost events, and babeltrace2 warns of discarded events (events_discarded)"
	else
		not_ok "lost: $btlost of $lost"; head -3 "$W/bt.err" | sed 's/^/# /'
	fi
fi

# the corrupt directory's export holds the events before the corruption
if babeltrace2 "$W/c2" > /dev/null 2> "$W/bt.err"; then
	ok "the export of a corrupt directory is a readable trace of what came before"
else
	not_ok "corrupt directory's export"; head -5 "$W/bt.err" | sed 's/^/# /'
fi

# a write that fails midway (a full disk; here the file size limit, which
# needs no root): status 1 and a message, and no packet cut short, which
# would make babeltrace2 refuse the whole directory
(trap '' XFSZ; ulimit -f 40; exec "$UT" dump -i "$W/dm" --ctf "$W/ctf-full") > /dev/null 2> "$W/err"
st=$?
if [ "$st" = 1 ] && grep -q "dump --ctf: writing .*: File too large" "$W/err" &&
	babeltrace2 "$W/ctf-full" > /dev/null 2> "$W/bt.err"; then
	ok "a write error: said, status 1, and DIR a readable trace of the packets written"
else
	not_ok "a write error: status $st"; sed 's/^/# /' "$W/err"; head -5 "$W/bt.err" | sed 's/^/# /'
fi
