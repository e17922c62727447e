#!/bin/bash
# description: record refuses a filter that selects nothing before the program runs its main
SUITE=filter-startup
. "$(dirname "$0")/lib.sh"

cat > "$W/p.c" <<'C'
#include <stdio.h>
#include <unistd.h>
#define noinline __attribute__((noinline))
volatile int sink;
noinline void work(int x) { sink += x; }
int main(int argc, char **argv)
{
	/* proof that main ran */
	FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;

	if (f)
		fclose(f);
	work(1);
	/* a second traced program, exec'd */
	if (argc > 2)
		execl(argv[2], argv[2], (char *)NULL);
	return 0;
}
C
cat > "$W/q.c" <<'C'
#define noinline __attribute__((noinline))
volatile int sink;
noinline void other(int x) { sink += x; }
int main(void) { other(1); return 0; }
C
gcc -pg -mfentry -O2 -o "$W/p" "$W/p.c" && gcc -pg -mfentry -O2 -o "$W/q" "$W/q.c" || exit 1
gcc -fpatchable-function-entry=5 -O2 -o "$W/pfe" "$W/p.c" || exit 1
cyg() { gcc -finstrument-functions -O2 -o "$W/cyg" "$W/p.c"; }
cyg || exit 1

# ran PATH: main() created the file
ran() { [ -e "$1" ]; }

stopped="usertrace: the program was stopped before its main: fix the filters"
# the first plain name that matched nothing may be a function of a library dlopen loads later
dlhint() { echo "usertrace: if '$1' is in a library the program loads with dlopen, name the library: '$1:mod:LIBNAME.so'"; }

# no function matches: an error before main, status 2, nothing recorded
for b in p pfe cyg; do
	rm -f "$W/ran"
	exact 2 "usertrace: set_ftrace_filter: 'nosuchfunc': no function matches (EINVAL)
$stopped
$(dlhint nosuchfunc)" -- "$UT" record -o "$W/d-$b" -F nosuchfunc -- "$W/$b" "$W/ran"
	if ran "$W/ran"; then not_ok "$b: main ran"; else ok "$b: main did not run"; fi
	if [ -e "$W/d-$b" ]; then not_ok "$b: $W/d-$b left behind"; else ok "$b: no data directory left"; fi
done

# every list, every pattern that selects nothing is named
rm -f "$W/ran"
exact 2 "usertrace: set_ftrace_filter: 'nope*': no function matches (EINVAL)
usertrace: set_ftrace_notrace: 'zz': no function matches (EINVAL)
usertrace: set_graph_function: 'g1': no function matches (EINVAL)
usertrace: set_graph_notrace: 'g2': no function matches (EINVAL)
usertrace: set_ftrace_filter: 'off:traceoff': no function matches (EINVAL)
$stopped
$(dlhint 'nope*')" -- "$UT" record -o "$W/d" -F work -F 'nope*' -N zz -G g1 --graph-notrace g2 -T off:traceoff -- "$W/p" "$W/ran"
if ran "$W/ran"; then not_ok "lists: main ran"; else ok "lists: main did not run"; fi

# a library of the program that matches nothing is an error too
exact 2 "usertrace: set_ftrace_filter: 'zzz:mod:p': no function matches (EINVAL)
$stopped" -- "$UT" record -o "$W/d" -F 'zzz:mod:p' -- "$W/p"

# patterns that match: the program runs
rm -f "$W/ran"
exact 0 "" -- "$UT" record -o "$W/d" -F 'wor*' -N main -- "$W/p" "$W/ran"
if ran "$W/ran"; then ok "match: main ran"; else not_ok "match: main did not run"; fi
"$UT" replay -i "$W/d" -O nofuncgraph-cpu -O nofuncgraph-duration > "$W/out" 2>&1
if grep -q '^ *work();$' "$W/out"; then ok "match: work() recorded"; else not_ok "match: work() not recorded"; sed 's/^/# /' "$W/out"; fi

# a failed start keeps the previous recording where it was
exact 2 "usertrace: set_ftrace_filter: 'nosuchfunc': no function matches (EINVAL)
$stopped
$(dlhint nosuchfunc)" -- "$UT" record -o "$W/d" -F nosuchfunc -- "$W/p"
if "$UT" replay -i "$W/d" 2>/dev/null | grep -q 'work();'; then ok "previous recording kept"; else not_ok "previous recording lost"; fi

# a library not loaded yet may come with dlopen: a warning, the program runs
rm -f "$W/ran"
exact 0 "usertrace: warning: set_ftrace_filter: 'f:mod:libnotyet.so': no library libnotyet.so was loaded at start-up (nothing matches unless a dlopen loads it)" \
	-- "$UT" record -o "$W/d2" -F 'f:mod:libnotyet.so' -F work -- "$W/p" "$W/ran"
if ran "$W/ran"; then ok "mod: main ran"; else not_ok "mod: main did not run"; fi

# the first program with traced code is checked: through a shell too
rm -f "$W/ran"
exact 2 "usertrace: set_ftrace_filter: 'nosuchfunc': no function matches (EINVAL)
$stopped
$(dlhint nosuchfunc)" -- "$UT" record -o "$W/d3" -F nosuchfunc -- sh -c "exec '$W/p' '$W/ran'"
if ran "$W/ran"; then not_ok "shell: main ran"; else ok "shell: main did not run"; fi
rm -f "$W/ran"
exact 0 "" -- "$UT" record -o "$W/d3" -F work -- sh -c "'$W/p' '$W/ran'; exit 0"
if ran "$W/ran"; then ok "shell: main ran"; else not_ok "shell: main did not run"; fi

# a program exec'd later that has none of the functions: a warning
exact 0 "usertrace: warning: q (pid PID): set_ftrace_filter: 'work': no function matches" \
	-- bash -o pipefail -c "'$UT' record -o '$W/d4' -F work -- '$W/p' '$W/ran' '$W/q' 2>&1 >/dev/null | sed 's/pid [0-9]*/pid PID/' >&2"

# a function of a library the program dlopens: the error says how to name it
# (FUNC:mod:LIB), and named so it is traced once the library is loaded
dl_sources "$W" plugin_fn
gcc -pg -mfentry -O2 -fPIC -shared -o "$W/libplug.so" "$W/plug.c" && gcc -pg -mfentry -O2 -o "$W/host" "$W/host.c" -ldl || exit 1
exact 2 "usertrace: set_ftrace_filter: 'plugin_fn': no function matches (EINVAL)
$stopped
$(dlhint plugin_fn)" -- "$UT" record -o "$W/d5" -F plugin_fn -- "$W/host" "$W/libplug.so"
exact 0 "usertrace: warning: set_ftrace_filter: 'plugin_fn:mod:libplug.so': no library libplug.so was loaded at start-up (nothing matches unless a dlopen loads it)" \
	-- "$UT" record -o "$W/d5" -F 'plugin_fn:mod:libplug.so' -- "$W/host" "$W/libplug.so"
"$UT" replay -i "$W/d5" -O nofuncgraph-cpu -O nofuncgraph-duration > "$W/out" 2>&1
if grep -q '^ *plugin_fn();$' "$W/out" && ! grep -q 'main()' "$W/out"; then
	ok "mod: plugin_fn of the dlopen'ed library recorded alone"
else
	not_ok "mod: plugin_fn of the dlopen'ed library recorded alone"; sed 's/^/# /' "$W/out"
fi

echo "# $SUITE: $n tests"
