#!/bin/sh
# run-all.sh - run every test suite and print one summary line for CI.
#   tests/run-all.sh BUILD_DIR
B=${1:-build}
T=$(dirname "$0")
pass=0 fail=0
# the sanitized build (make asan): leaks of the libraries, not ours (tests/lsan.supp)
LSAN_OPTIONS="suppressions=$(cd "$T" && pwd)/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
log=$(mktemp /tmp/usertrace-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

# count the "ok" / "not ok" lines of the suite output in $log; $1 names
# the suite for its timing line (CI's two passes must stay under 30 minutes)
t0=$(date +%s)
tally() {
	grep -E '^(not )?ok |^#' "$log"
	[ -z "${1:-}" ] || { now=$(date +%s); echo "# time: $1 $((now - t0)) s"; t0=$now; }
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	pass=$((pass + p))
	fail=$((fail + f))
}

for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	if ! CMOCKA_MESSAGE_OUTPUT=TAP "$t" > "$log.raw" 2>&1; then
		grep -q '^not ok' "$log.raw" || echo "not ok - $name crashed or failed" >> "$log.raw"
	fi
	sed "s/^ok /ok $name: /; s/^not ok /not ok $name: /" "$log.raw" > "$log"
	rm -f "$log.raw"
	tally
done
[ -z "$t" ] || { echo "# time: unit $(( $(date +%s) - t0 )) s"; t0=$(date +%s); }
bash "$T/e2e/runtest.sh" "$B" > "$log" 2>&1
tally e2e
for t in "$T"/cli/*.sh; do
	[ -f "$t" ] || continue
	bash "$t" "$B" > "$log" 2>&1
	tally "$(basename "$t" .sh)"
done
# the tracing directory, scenario by scenario, through ctl and the mount
bash "$T/tracefs/ftracetest" "$B" > "$log" 2>&1
tally tracefs
echo "$pass passed, $fail failed"
if [ "$fail" = 0 ] && [ "$pass" -gt 0 ]; then
	echo "Result: PASS"
	exit 0
fi
echo "Result: FAIL"
exit 1
