#!/bin/bash
# t-power.sh - the power tracer and the power events (cmds/powersrc.c): a
# program that computes and sleeps in rounds; from each source that this
# machine has (tracefs as root with the kernel's power events; sysfs
# sampling where cpufreq or cpuidle is there), forced by
# USERTRACE_POWER_SOURCE: the source said and kept in info, every line
# the kernel's cpu_idle/cpu_frequency line of the idle task, the CPU
# column its cpu_id, sysfs's idle events in enter/exit pairs; record -e
# 'power:*'; an unknown source.
SUITE=power
. "$(dirname "$0")/lib.sh"

cat > "$W/pw.c" <<'C'
#include <time.h>
int main(void)
{
	struct timespec ts = { 0, 30000000 };
	volatile long x = 0;

	for (int r = 0; r < 25; r++) {
		for (long i = 0; i < 2000000; i++)
			x += i;
		nanosleep(&ts, 0);
	}
	return 0;
}
C
gcc -O2 -o "$W/pw" "$W/pw.c" || { not_ok "cannot build the program"; exit 1; }

# LINE_RE: "<idle>-0 [CPU] ..... TIME: cpu_idle: state=N cpu_id=CPU" (the kernel's print fmt)
check_lines() {	# SOURCE DATA
	local src=$1 d=$2 bad=0 lines
	lines=$("$UT" replay -i "$d" 2> "$W/rerr" | grep -v '^#')
	if ! grep -qx "power_source=$src" "$d/info"; then
		not_ok "$src: info has no power_source=$src"; sed 's/^/# /' "$d/info"; return
	fi
	ok "$src: info has power_source=$src"
	if [ -z "$lines" ]; then
		# a loaded machine (the development VMs: 2 CPUs, several builds) may never idle
		echo "ok $((n += 1)) - $SUITE: $src lines # SKIP no CPU of the program idled or changed frequency"
		return
	fi
	while read -r line; do
		if ! [[ $line =~ ^\<idle\>-0\ +\[([0-9]{3})\]\ \.\.\.\.\.\ +[0-9]+\.[0-9]{6}:\ cpu_(idle|frequency):\ state=[0-9]+\ cpu_id=([0-9]+)$ ]] ||
		   [ "$((10#${BASH_REMATCH[1]}))" != "${BASH_REMATCH[3]}" ]; then
			[ "$src" = tracefs ] && [[ $line =~ ^.*-[0-9]+\ +\[ ]] && continue	# the kernel's task
			bad=1; echo "# bad line: $line"
		fi
	done <<< "$lines"
	[ "$bad" = 0 ] && ok "$src: $(wc -l <<< "$lines") lines in the kernel's format, CPU column = cpu_id" ||
		not_ok "$src: lines not in the kernel's format"
	if [ "$src" = sysfs ]; then
		local enter exits
		enter=$(grep -c 'cpu_idle: state=[0-9] ' <<< "$lines")
		exits=$(grep -c 'cpu_idle: state=4294967295 ' <<< "$lines")
		[ "$enter" = "$exits" ] && ok "sysfs: idle enter/exit pairs ($enter)" ||
			not_ok "sysfs: $enter idle entries, $exits exits"
	fi
}

have_sysfs=
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ -r "$c/cpufreq/scaling_cur_freq" ] || [ -r "$c/cpuidle/state0/usage" ] && have_sysfs=1
done
have_tracefs=
[ "$(id -u)" = 0 ] && [ -r /sys/kernel/tracing/events/power/cpu_idle/format ] && have_tracefs=1

for src in tracefs sysfs; do
	v=have_$src
	if [ -z "${!v}" ]; then
		echo "ok $((n += 1)) - $SUITE: $src # SKIP not on this machine"
		continue
	fi
	rm -rf "$W/d"
	expect 0 "power events from $([ $src = tracefs ] && echo "the kernel's tracefs" || echo sampling)" -- \
		env USERTRACE_POWER_SOURCE=$src "$UT" record -o "$W/d" -t power -- "$W/pw"
	check_lines $src "$W/d"
done

# record -e 'power:*' with nop: the same events
if [ -n "$have_sysfs$have_tracefs" ]; then
	rm -rf "$W/d"
	expect 0 "power events from" -- "$UT" record -o "$W/d" -e 'power:cpu_idle' -- "$W/pw"
	if ! "$UT" replay -i "$W/d" | grep -v '^#' | grep -qv ': cpu_idle: state='; then
		ok "record -e power:cpu_idle: its events alone ($("$UT" replay -i "$W/d" | grep -c cpu_idle))"
	else
		not_ok "record -e power:cpu_idle"
	fi
fi

# the sysfs source on a directory of our own (USERTRACE_POWER_SYSFS), all
# pinned to CPU 0: the program changes CPU 0's frequency and idle counts
# (and CPU 1's, not its CPU); the exact lines
F=$W/cpu
for c in 0 1; do
	mkdir -p "$F/cpu$c/cpufreq" "$F/cpu$c/cpuidle/state0" "$F/cpu$c/cpuidle/state1"
	echo 1800000 > "$F/cpu$c/cpufreq/scaling_cur_freq"
	echo 10 > "$F/cpu$c/cpuidle/state0/usage"; echo 100 > "$F/cpu$c/cpuidle/state0/time"
	echo 5 > "$F/cpu$c/cpuidle/state1/usage"; echo 5000 > "$F/cpu$c/cpuidle/state1/time"
done
cat > "$W/fake.c" <<'C'
#include <stdio.h>
#include <time.h>
static void put(const char *dir, const char *f, const char *v)
{
	char p[4096];
	FILE *o;

	snprintf(p, sizeof(p), "%s/%s", dir, f);
	if ((o = fopen(p, "w"))) {
		fputs(v, o);
		fclose(o);
	}
}
int main(int argc, char **argv)
{
	struct timespec ts = { 0, 100000000 };

	(void)argc;
	nanosleep(&ts, 0);
	put(argv[1], "cpu0/cpufreq/scaling_cur_freq", "2400000\n");
	put(argv[1], "cpu0/cpuidle/state0/usage", "11\n");
	put(argv[1], "cpu0/cpuidle/state0/time", "150\n");
	put(argv[1], "cpu0/cpuidle/state1/usage", "7\n");
	put(argv[1], "cpu0/cpuidle/state1/time", "9000\n");
	put(argv[1], "cpu1/cpufreq/scaling_cur_freq", "3000000\n");
	put(argv[1], "cpu1/cpuidle/state1/usage", "9\n");
	nanosleep(&ts, 0);
	return 0;
}
C
gcc -O2 -o "$W/fake" "$W/fake.c" || not_ok "cannot build fake.c"
rm -rf "$W/d"
if command -v taskset > /dev/null; then
	expect 0 "power events from sampling" -- env USERTRACE_POWER_SOURCE=sysfs USERTRACE_POWER_SYSFS="$F" \
		taskset -c 0 "$UT" record -o "$W/d" -t power -- "$W/fake" "$F"
	"$UT" replay -i "$W/d" -O nocontext-info 2>&1 | grep -v '^#' > "$W/got"
	printf '%s\n' "cpu_frequency: state=1800000 cpu_id=0" "cpu_frequency: state=2400000 cpu_id=0" \
		"cpu_idle: state=1 cpu_id=0" "cpu_idle: state=4294967295 cpu_id=0" > "$W/want"
	if diff -u "$W/want" "$W/got" > "$W/diff"; then
		ok "sysfs: the frequency at the start and its change, the idle state with the most time then its exit; CPU 0 alone"
	else
		not_ok "sysfs lines"; sed 's/^/# /' "$W/diff"
	fi
	grep -qx "power_source=sysfs" "$W/d/info" && ok "sysfs: info says power_source=sysfs" ||
		not_ok "sysfs: info"
	# no cpufreq nor cpuidle there: no source, said
	mkdir -p "$W/empty"
	rm -rf "$W/d"
	expect 0 "power events: no source: tracefs: not tried; sysfs: no cpufreq nor cpuidle in $W/empty/cpuN" -- \
		env USERTRACE_POWER_SOURCE=sysfs USERTRACE_POWER_SYSFS="$W/empty" "$UT" record -o "$W/d" -t power -- true
	grep -qx "power_source=none" "$W/d/info" && ok "no source: power_source=none" || not_ok "no source: info"
fi

# an unknown source: said, no power events, the program runs
rm -rf "$W/d"
expect 0 "USERTRACE_POWER_SOURCE=bogus: the source is tracefs or sysfs; no power events" -- \
	env USERTRACE_POWER_SOURCE=bogus "$UT" record -o "$W/d" -t power -- "$W/pw"
grep -qx "power_source=none" "$W/d/info" && ok "unknown source: power_source=none" ||
	not_ok "unknown source: info"
echo "# $SUITE: $n tests"
