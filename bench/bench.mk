# bench.mk - included by the top-level Makefile
#
#   make bench     usertrace's in-thread overhead per call, whole-run time,
#                  bytes per call, lost events and replay/report speed
#                  against uftrace's; BENCH_LUA_SRC=/path/to/lua adds the
#                  Lua interpreter as a real program (bench/lua.mk)
#
# Not a test: it prints tables and bars (see bench/README.md) and fails only
# when a build or a run fails (BENCH_STRICT=1: or a bar is not met).
# BENCH_ROUNDS, BENCH_LOOP_N, ... : see bench/run.sh.

bench: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/run.sh

# a tracepoint's cost against LTTng-UST's (bench/tp.sh)
bench-tp: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/tp.sh

# the latency tracers' cost on a sigprocmask and a preempt pair (bench/lat.sh)
bench-lat: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/lat.sh

# every tracer's cost, on and off, against uftrace's (bench/tracers.sh)
bench-tracers: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/tracers.sh

# each export's speed, with uftrace's dump --chrome and --flame-graph (bench/exports.sh)
bench-exports: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/exports.sh
