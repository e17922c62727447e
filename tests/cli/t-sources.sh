#!/bin/bash
# t-sources.sh - the recorder's sources (recorder/source.h): record runs
# every source of ut_sources[] by its ops, those of the events recorded
# and the one the tracer names in its tracers.def row (hw-branch's
# UT_NEED_SRC_HWBRANCH), opened in the registry's order, their backends
# in info; and no tracer is named by a string literal outside its own
# files and the registry (a tracer or an event system names its source
# by a property, not the other way round).
#
#   bash tests/cli/t-sources.sh BUILD_DIR
SUITE=sources
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

# every source asked for, none usable here (forced to unknown backends,
# hw-branch to an empty file of perf records): each says so, in the
# registry's order (power, hw-branch, sched), and the program runs
: > "$W/none.rec"
exact 0 "usertrace: warning: USERTRACE_POWER_SOURCE=bogus: the source is tracefs or sysfs; no power events
usertrace: hw-branch from the perf records of USERTRACE_HW_BRANCH_RECORDS
usertrace: USERTRACE_SCHED_SOURCE=nosuch: the source is tracefs or perf" -- \
	env USERTRACE_SCHED_SOURCE=nosuch USERTRACE_POWER_SOURCE=bogus \
	USERTRACE_HW_BRANCH_RECORDS="$W/none.rec" "$UT" record -t hw-branch -e sched:sched_switch \
	-e power:cpu_idle -o "$W/d" -- true
if [ "$(grep _source= "$W/d/info")" = "$(printf 'sched_source=none\npower_source=none')" ]; then
	ok "info: each event source's backend (none), sched's first"
else
	not_ok "info's sources"; sed 's/^/# /' "$W/d/info"
fi
# nothing asked for: no source, no backend in info
rm -rf "$W/d"
exact 0 "" -- "$UT" record -t nop -o "$W/d" -- true
if ! grep -q _source= "$W/d/info"; then
	ok "no source wanted: none in info"
else
	not_ok "info names a source no one asked for"; sed 's/^/# /' "$W/d/info"
fi

# the tracer names from tracers.def (hw_branch and its printed name hw-branch)
names=$(sed -n 's/^UT_TRACER(\([a-z_0-9]*\),.*/\1/p; s/^UT_TRACER_NAMED(\([a-z_0-9]*\), "\([^"]*\)".*/\1 \2/p' \
	"$SRC/include/usertrace/tracers.def")
if [ "$(echo $names | wc -w)" -lt 10 ]; then
	not_ok "cannot read the tracer names of tracers.def"
	exit 0
fi
alt=$(echo $names | sed 's/ /|/g')
# a tracer looked up or compared by a literal: tracer_find("x"), ut_tracer_index(... "x"),
# strcmp(t->name, "x"), strcmp(d->tracer, "x")...
look='(tracer_find|tracer_index|tracer_bit|tracer_mode|ut_tracer_mode|ut_tracer_needs)[[:space:]]*\([^;]*"('"$alt"')"'
cmp='str(n)?cmp[[:space:]]*\([^;]*tracer[^;]*"('"$alt"')"|str(n)?cmp[[:space:]]*\("('"$alt"')"[^;]*tracer'
# or by its output part's struct: t == &function_tracer
ids=$(echo $names | tr ' ' '\n' | grep -v -- - | paste -sd'|')
ptr='[!=]=[[:space:]]*&('"$ids"')_tracer\b|&('"$ids"')_tracer[[:space:]]*[!=]='
# outside the tests, the docs, the registry and each tracer's own two files
own=$(for t in $names; do printf '%s\n' "runtime/tracers/$t.c" "output/tracers/$t.c"; done)
(cd "$SRC" && grep -rnE "$look|$cmp|$ptr" --include='*.c' --include='*.h' cmds lib runtime utils include arch usertrace.c) |
	grep -vE '^include/usertrace/tracers\.(def|h):' | grep -vF "$own" > "$W/hits"
if [ ! -s "$W/hits" ]; then
	ok "no tracer compared or looked up by its name or its struct outside its files and the registry"
else
	not_ok "tracer names as literals outside their files"; sed 's/^/# /' "$W/hits"
fi
