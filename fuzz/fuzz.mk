# fuzz.mk - libFuzzer targets, included by the top-level Makefile (see
# doc/fuzzing.md).
#
#   make fuzz             build every target and fuzz each for FUZZ_TIME
#                         seconds (default 60), starting from its corpus
#   make fuzz-build       only build them (build/fuzz/fuzz_*)
#   make fuzz-smoke       run each target once over its corpus (no fuzzing)
#
# FUZZ_TARGETS=data chooses the targets, FUZZ_JOBS=2 runs that many fuzzing
# processes per target, FUZZ_ARGS adds libFuzzer flags.  What a run finds
# (crash-*, leak-*, timeout-*) is written to build/fuzz/findings/<target>/.

FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_JOBS    ?= 1
FUZZ_ARGS    ?=
FUZZ_TARGETS ?= data filter tracefs
FZ           := $(O)/fuzz
FZ_SAN       := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FZ_CFLAGS    := -O1 -g -std=gnu11 $(WARN) -Iinclude -I. -D_GNU_SOURCE -fno-strict-aliasing \
		$(FUSE_CFLAGS) $(TEP_CFLAGS) $(FZ_SAN) -fsanitize=fuzzer-no-link

FZ_DATA_SRC    := fuzz/fuzz_data.c fuzz/files.c reader/data.c reader/decode.c $(SYM_SRC) utils/utils.c \
		  $(TRACE_OUT_SRC) $(EVENT_SRC) $(TEP_SRC) \
		  lib/ringbuf/ringbuf.c cli/report.c cli/report_diff.c cli/report_stat.c export/folded.c cli/dump.c \
		  $(sort $(wildcard export/export*.c))
FZ_FILTER_SRC  := fuzz/fuzz_filter.c lib/event/evfilter.c
FZ_TRACEFS_SRC := fuzz/fuzz_tracefs.c fuzz/files.c fuzz/live_stub.c $(TRACEFS_SRC) \
		  $(TRACE_OUT_SRC) reader/data.c reader/decode.c $(SYM_SRC) \
		  utils/utils.c lib/ringbuf/ringbuf.c $(EVENT_SRC) $(TEP_SRC)

FZ_HDRS := $(wildcard include/usertrace/*.h include/usertrace/*.def utils/*.h reader/*.h output/*.h output/*.def tracefs/*.h \
		      lib/funclist/*.h lib/event/*.h cli/*.h recorder/*.h export/*.h reader/*.h runtime/*.h fuzz/*.h)

$(FZ)/obj/%.o: %.c $(FZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FZ_CFLAGS) -c $< -o $@

# runtime/funcfilter.c and lib/funclist/funclist.c are included by the harness itself
$(FZ)/obj/fuzz/fuzz_filter.o: runtime/funcfilter.c lib/funclist/funclist.c

$(FZ)/fuzz_data: $(patsubst %.c,$(FZ)/obj/%.o,$(FZ_DATA_SRC))
	$(FUZZ_CC) $(FZ_SAN) -fsanitize=fuzzer -o $@ $^ -lelf -lstdc++ -lzstd $(TEP_LIBS)
$(FZ)/fuzz_filter: $(patsubst %.c,$(FZ)/obj/%.o,$(FZ_FILTER_SRC))
	$(FUZZ_CC) $(FZ_SAN) -fsanitize=fuzzer -o $@ $^
$(FZ)/fuzz_tracefs: $(patsubst %.c,$(FZ)/obj/%.o,$(FZ_TRACEFS_SRC))
	$(FUZZ_CC) $(FZ_SAN) -fsanitize=fuzzer -o $@ $^ -lelf -ldl -lstdc++ -lzstd -lpthread $(TEP_LIBS)

fuzz-deps:
	@sh tests/deps.sh fuzz

fuzz-build: fuzz-deps $(foreach t,$(FUZZ_TARGETS),$(FZ)/fuzz_$(t))

# new inputs go to build/fuzz/corpus/<target>; fuzz/corpus/<target> is only read
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		sh fuzz/run.sh $(FZ) $$t $(FUZZ_TIME) $(FUZZ_JOBS) $(FUZZ_ARGS) || exit 1; \
	done

fuzz-smoke: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		sh fuzz/run.sh $(FZ) $$t 0 1 || exit 1; \
	done

.PHONY: fuzz fuzz-build fuzz-smoke fuzz-deps

# ---- the kept inputs, replayed by make check (tests/cli/t-fuzz-corpus.sh) ----
# The targets built with the project's compiler and flags (and the
# sanitizers under make asan) and fuzz/replay.c as main(): no clang needed.

FUZZ_REPLAY := $(O)/tests/fuzz-replay-data $(O)/tests/fuzz-replay-filter \
	       $(O)/tests/fuzz-replay-tracefs
FZR_DATA_OBJ := $(patsubst %.c,$(O)/cli/%.o,reader/data.c reader/decode.c $(SYM_SRC) utils/utils.c \
		  $(TRACE_OUT_SRC) $(EVENT_SRC) $(TEP_SRC) \
		  lib/ringbuf/ringbuf.c cli/report.c cli/report_diff.c cli/report_stat.c export/folded.c cli/dump.c \
		  $(sort $(wildcard export/export*.c)))
FZR_TRACEFS_OBJ := $(patsubst %.c,$(O)/cli/%.o,$(TRACEFS_SRC) $(TRACE_OUT_SRC) \
		   reader/data.c reader/decode.c $(SYM_SRC) utils/utils.c lib/ringbuf/ringbuf.c \
		   $(EVENT_SRC) $(TEP_SRC))
FZR_CC = $(CC) $(CFLAGS) $(SANFLAGS) -DFUZZ_TARGET='"$(patsubst fuzz-replay-%,%,$(notdir $@))"'

$(O)/tests/fuzz-replay-data: fuzz/replay.c fuzz/fuzz_data.c fuzz/files.c $(FZR_DATA_OBJ) $(FZ_HDRS)
	@mkdir -p $(dir $@)
	$(FZR_CC) -o $@ $(filter %.c %.o,$^) -lelf -lstdc++ -lzstd $(TEP_LIBS)
$(O)/tests/fuzz-replay-filter: fuzz/replay.c fuzz/fuzz_filter.c runtime/funcfilter.c lib/funclist/funclist.c \
		lib/event/evfilter.c $(FZ_HDRS)
	@mkdir -p $(dir $@)
	$(FZR_CC) -o $@ fuzz/replay.c fuzz/fuzz_filter.c lib/event/evfilter.c
$(O)/tests/fuzz-replay-tracefs: fuzz/replay.c fuzz/fuzz_tracefs.c fuzz/files.c fuzz/live_stub.c \
		$(FZR_TRACEFS_OBJ) $(FZ_HDRS)
	@mkdir -p $(dir $@)
	$(FZR_CC) -o $@ $(filter %.c %.o,$^) -lelf -ldl -lstdc++ -lzstd -lpthread $(TEP_LIBS)

check-build: $(FUZZ_REPLAY)
