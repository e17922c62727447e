# bench.mk - included by the top-level Makefile
#
#   make bench     usertrace's recording overhead, bytes per call, lost
#                  events and replay/report speed against uftrace's
#
# Not a test: it prints tables (see bench/README.md) and fails only when a
# build or a run fails.  BENCH_ROUNDS, BENCH_LOOP_N, ... : see bench/run.sh.

bench: all
	@sh tests/deps.sh bench
	O='$(O)' CC='$(CC)' bash bench/run.sh
