#!/bin/bash
# t-builtin-stress.sh - the built-in events under load must never break the
# program: eight threads allocating, reallocating and freeing with kmem:*
# on, with function_graph and in a small overwrite buffer too; the same
# threads taking a contended mutex with lock:* on; every built-in event
# on.  Each must end with
# its status and output, without a deadlock (a time limit), and record.
SUITE=builtin-stress
. "$(dirname "$0")/lib.sh"

cat > "$W/stress.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define N 8
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long total;
static void *work(void *a)
{
	long id = (long)a;
	void *v[64] = { 0 };
	for (int i = 0; i < 50000; i++) {
		int k = (i * 7 + id) & 63;
		switch (i % 5) {
		case 0: free(v[k]); v[k] = malloc(i % 300 + 1); break;
		case 1: v[k] = realloc(v[k], i % 500 + 1); break;
		case 2: free(v[k]); v[k] = calloc(3, i % 100 + 1); break;
		case 3: { char *s = strdup("hello"); free(s); break; }
		case 4: free(v[k]); if (posix_memalign(&v[k], 64, 100)) v[k] = NULL; break;
		}
		pthread_mutex_lock(&m);
		total++;
		if (i % 10000 == 0)	/* held a while: the others wait */
			usleep(2000);
		pthread_mutex_unlock(&m);
	}
	for (int k = 0; k < 64; k++)
		free(v[k]);
	return NULL;
}
int main(void)
{
	pthread_t th[N];
	for (long i = 0; i < N; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	printf("total=%ld\n", total);
	return 0;
}
C
gcc -pg -mfentry -O2 -o "$W/stress" "$W/stress.c" -lpthread || { not_ok "cannot build"; exit 1; }

run() {	# NAME RECORD-OPTIONS...
	local name=$1
	shift
	rm -rf "$W/d"
	timeout 120 "$UT" record "$@" -o "$W/d" -- "$W/stress" > "$W/out" 2> "$W/err"
	local st=$?
	if [ "$st" = 0 ] && [ "$(cat "$W/out")" = total=400000 ] &&
	   "$UT" replay -i "$W/d" 2> /dev/null | grep -qE "${EXPECT:-.}"; then
		ok "$name"
	else
		not_ok "$name: status $st, output '$(cat "$W/out")'"; sed 's/^/# /' "$W/err"
	fi
}

EXPECT='kmalloc: call_site=' run "kmem:* on, 8 threads" -e 'kmem:*'
EXPECT='kfree: call_site=' run "kmem:* on, function_graph" -t function_graph -e 'kmem:*'
EXPECT='kmalloc: ' run "kmem:* on, 16 KiB overwrite buffers" --overwrite -b 16K -e 'kmem:*'
EXPECT='contention_end: ' run "lock:* on" -e 'lock:*'
EXPECT='kmalloc: ' run "every built-in event on" -e 'sched:*' -e 'task:*' -e 'signal:*' -e 'kmem:*' -e 'lock:*' -e 'dl:*'
