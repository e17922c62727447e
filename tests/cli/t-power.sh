#!/bin/bash
# t-power.sh - the power tracer and the power events (recorder/power_source.c): a
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

# the tracefs source against the kernel's own events over the same run:
# an instance of the test's own with power:cpu_idle (trace_clock mono,
# the session's times), and a program that writes a marker into it when
# it starts and before it ends.  On each CPU the program may run on, the
# recorded cpu_idle events are a contiguous run of the kernel's (each
# state the same, its time within 100 us: the TSC clock's conversion),
# and they include every event the kernel wrote between the two markers:
# only the window's edges (the recorder's own start and end) may differ.
# No event of another CPU.  Five runs: four where the program may run on
# every CPU the test may use and moves itself to the last one as it
# starts (the CPUs counted are those of its affinity: the recorder once
# kept only the CPU a thread was on when it polled, and dropped the idle
# events of the CPUs it had left: 0 events in about half the runs, here
# in the runs that the kernel started on the last CPU), one pinned to
# the first CPU (no event of another).
TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$have_tracefs" ] || [ -z "$TR" ] || ! [ -w "$TR/instances" ]; then
	echo "ok $((n += 1)) - $SUITE: tracefs against the kernel's count # SKIP the kernel's power events are not readable (root, tracefs mounted, power:cpu_idle)"
else
	cat > "$W/pwm.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static void mark(const char *path, const char *m)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		(void)!write(fd, m, strlen(m));
		close(fd);
	}
}
int main(int argc, char **argv)
{
	struct timespec ts = { 0, 20000000 };
	volatile long x = 0;

	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	mark(argv[1], "t-power start");
	for (int r = 0; r < 20; r++) {
		for (long i = 0; i < 1000000; i++)
			x += i;
		nanosleep(&ts, 0);
	}
	mark(argv[1], "t-power end");
	return 0;
}
C
	gcc -O2 -o "$W/pwm" "$W/pwm.c" || not_ok "cannot build pwm.c"
	I=$TR/instances/usertrace-t-power-$$
	allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	first=${allowed%%[-,]*}
	last=${allowed##*[-,]}
	for run in all all all all "$first"; do
		rm -rf "$W/d"
		rmdir "$I" 2> /dev/null
		if ! mkdir "$I" || ! echo mono > "$I/trace_clock" || ! echo 1 > "$I/events/power/cpu_idle/enable"; then
			not_ok "cannot set up the kernel's instance $I"; rmdir "$I" 2> /dev/null; break
		fi
		pin=() to=$last
		[ "$run" = all ] || pin=(taskset -c "$run") to=
		"${pin[@]}" env USERTRACE_POWER_SOURCE=tracefs "$UT" record -o "$W/d" -e power:cpu_idle -- \
			"$W/pwm" "$I/trace_marker" $to > /dev/null 2> "$W/err"
		echo 0 > "$I/events/power/cpu_idle/enable"
		cat "$I/trace" > "$W/ktrace"
		rmdir "$I"
		[ "$run" = all ] && cpus=$allowed || cpus=$run
		"$UT" replay -i "$W/d" > "$W/otrace" 2>> "$W/err"
		# "K|O CPU TIME_US STATE", "M TIME_US" for the markers
		{
			awk '!/^#/ && / cpu_idle: / { sub(/:$/, "", $4); sub(/\./, "", $4); gsub(/[][]/, "", $2)
				sub(/state=/, "", $6); print "K", $2 + 0, $4, $6 }
			     / tracing_mark_write: t-power (start|end)$/ { sub(/:$/, "", $4); sub(/\./, "", $4); print "M", $4 }' "$W/ktrace"
			awk '!/^#/ && / cpu_idle: / { sub(/:$/, "", $4); sub(/\./, "", $4); gsub(/[][]/, "", $2)
				sub(/state=/, "", $6); print "O", $2 + 0, $4, $6 }' "$W/otrace"
		} > "$W/ev"
		verdict=$(awk -v cpus="$cpus" '
			BEGIN { nc = split(cpus, parts, ","); for (i = 1; i <= nc; i++) {
				if (split(parts[i], r, "-") == 2) { for (c = r[1]; c <= r[2]; c++) want[c] = 1 }
				else want[parts[i] + 0] = 1 } }
			$1 == "M" { m[nm++] = $2 + 0 }
			$1 == "K" && ($2 in want) { c = $2; kt[c, nk[c]++] = $3 + 0; ks[c, nk[c] - 1] = $4 }
			$1 == "O" { c = $2; if (!(c in want)) bad = bad " an event of CPU " c;
				ot[c, no[c]++] = $3 + 0; os[c, no[c] - 1] = $4 }
			function d(a, b) { return a > b ? a - b : b - a }
			END {
				if (nm != 2) { print "no markers"; exit }
				for (c in want) {
					inside = 0; lo = -1; hi = -1
					for (k = 0; k < nk[c]; k++)
						if (kt[c, k] > m[0] && kt[c, k] < m[1]) { inside++; if (lo < 0) lo = k; hi = k }
					total += inside; got += no[c]
					if (!no[c]) { if (inside) bad = bad " CPU " c ": none of its " inside " events"; continue }
					at = -1
					for (i = 0; i + no[c] <= nk[c] && at < 0; i++) {
						for (j = 0; j < no[c]; j++)
							if (ks[c, i + j] != os[c, j] || d(kt[c, i + j], ot[c, j]) > 100)
								break
						if (j == no[c])
							at = i
					}
					if (at < 0)
						bad = bad " CPU " c ": its " no[c] " events are not a run of the kernel" "s " nk[c]
					else if (inside && (lo < at || hi >= at + no[c]))
						bad = bad " CPU " c ": the kernel" "s events " lo "-" hi " between the markers, recorded " at "-" at + no[c] - 1
				}
				print (bad ? "bad" bad : "ok") " " got " " total
			}' "$W/ev")
		set -- $verdict
		case $1 in
		ok)	if [ "$3" = 0 ]; then
				echo "ok $((n += 1)) - $SUITE: tracefs on CPUs $cpus: the kernel's events # SKIP no CPU idled during the run"
			else
				ok "tracefs on CPUs $cpus: $2 cpu_idle events, the kernel's over the same window ($3 between the program's markers)"
			fi ;;
		*)	not_ok "tracefs on CPUs $cpus: $verdict"; sed 's/^/# /' "$W/err" ;;
		esac
	done
fi

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
