#!/bin/bash
# description: the README's build lines for traced programs (cc ... -o app app.c with -pg, -mfentry, -finstrument-functions, -fpatchable-function-entry, -mnop-mcount) build a program as written, and usertrace traces it; every flag set with -mnop-mcount in the README and the man pages also has -fno-pie -no-pie, without which gcc refuses it
SUITE=readme-build
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)

cat > "$W/app.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int work(int x) { return x * 2 + 1; }
int main(void)
{
	printf("%d\n", work(20));
	return 0;
}
C

# the lines of the README's code blocks that build app from app.c with instrumentation
grep -E '^cc .*-o app app\.c' "$SRC/README.md" | sed 's/ *#.*$//' |
	grep -E -- '-pg|-finstrument-functions|-fpatchable-function-entry' > "$W/lines"
[ "$(wc -l < "$W/lines")" -ge 2 ] && ok "README: $(wc -l < "$W/lines") build lines" ||
	not_ok "README: the build lines not found"
grep -q -- '-mnop-mcount' "$W/lines" && ok "README: a build line with -mnop-mcount" ||
	not_ok "README: a build line with -mnop-mcount"
while read -r line; do
	rm -f "$W/app"
	if ! (cd "$W" && sh -c "$line") > "$W/out" 2>&1; then
		not_ok "'$line' does not build"
		sed 's/^/# /' "$W/out" | head -5
		continue
	fi
	(cd "$W" && "$UT" live -- ./app) > "$W/out" 2> "$W/err"
	if grep -q '^41$' "$W/out" && grep -qE '^ [0-9]+\) +[^|]*\|    work\(\);$' "$W/out"; then
		ok "'$line': built, work() traced"
	else
		not_ok "'$line': work() not traced"
		sed 's/^/# /' "$W/out" "$W/err" | tail -8
	fi
done < "$W/lines"

# every compile command with -mnop-mcount says -fno-pie and -no-pie (gcc: "'-mnop-mcount' is not implemented for '-fPIC'")
bad=$(cat "$SRC/README.md" "$SRC"/doc/*.md "$SRC"/doc/design/*.md |
	grep -E -- '-pg [^`]*-mnop-mcount' | grep -v -- '-fno-pie -no-pie')
bad_man=$(grep -h -- 'mnop\\-mcount' "$SRC"/doc/*.[1-8] | grep -E -- '-pg' | grep -v -- 'fno\\-pie \\-no\\-pie')
[ -z "$bad$bad_man" ] && ok "every -mnop-mcount build in the docs says -fno-pie -no-pie" ||
	{ not_ok "-mnop-mcount without -fno-pie -no-pie in the docs"; printf '# %s\n' "$bad" "$bad_man"; }
# and so does record -h (its lines joined)
flags=$("$UT" record -h | tr -s ' \n' '  ' | grep -o -- '-pg -mfentry -mnop-mcount -mrecord-mcount[^;)]*')
case "$flags" in
*"-fno-pie -no-pie"*) ok "record -h: $flags" ;;
*) not_ok "record -h: '${flags:-no -mnop-mcount line}' without -fno-pie -no-pie" ;;
esac
