# tests.mk - `make check` and `make asan`, included by the top-level Makefile
#
# check: unit tests (cmocka), end-to-end tests (tests/e2e), bad-input
# tests; tests/run-all.sh prints one summary line for CI.

UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_*.c))

HDRS := $(wildcard include/usertrace/*.h include/usertrace/*.def include/usertrace/events/*.h utils/*.h reader/*.h recorder/*.h export/*.h output/*.h output/*.def tracefs/*.h lib/funclist/*.h lib/event/*.h)

# The tools' objects (the main build's $(O)/cli/*.o, sanitized under
# make asan) as one archive per part, in the Makefile's groups; a unit
# test links against them and takes the members it uses.  The parts call
# each other both ways, hence the group.  The output side is taken whole:
# its stat tracers register from constructors (output/workqueue.c,
# tracers/branch.c, tracers/kmemtrace.c) that nothing calls by name.
UT_AR_ringbuf := $(RINGBUF_SRC)
UT_AR_event   := $(EVENT_SRC) $(TEP_SRC) $(REAP_SRC)
UT_AR_trace   := $(TRACE_OUT_SRC)
UT_AR_tracefs := $(TRACEFS_SRC)
UT_AR_live    := $(LIVE_SRC)
UT_AR_funclist := lib/funclist/funclist.c
UT_AR_reader  := $(filter-out $(TRACE_OUT_SRC),$(sort $(wildcard reader/*.c utils/*.c)))
UT_AR_cmds    := $(sort $(wildcard cli/*.c recorder/*.c export/*.c))
UT_AR_PARTS   := ringbuf event trace tracefs live funclist reader cmds
UT_ARCHIVES   := $(foreach p,$(UT_AR_PARTS),$(O)/libut-$(p).a)

$(foreach p,$(UT_AR_PARTS),$(eval $(O)/libut-$(p).a: $(patsubst %.c,$(O)/cli/%.o,$(UT_AR_$(p)))))

$(O)/libut-%.a:
	@rm -f $@
	$(AR) rcs $@ $^

# A unit test is tests/unit/test_NAME.c, built as $(O)/tests/test_NAME by
# this rule: the test file, any .c or .o it lists besides, and the
# archives.  TEST_CFLAGS adds flags for one test.
UT_WHOLE := $(O)/libut-trace.a
UT_LINK = -Wl,--start-group -Wl,--whole-archive $(filter $(UT_WHOLE),$^) -Wl,--no-whole-archive \
	  $(filter-out $(UT_WHOLE),$(filter %.a,$^)) -Wl,--end-group -lcmocka $(LIBS)

$(O)/tests/test_%: tests/unit/test_%.c $(HDRS) $(UT_ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) $(TEST_CFLAGS) -o $@ $(filter %.c %.o,$^) $(UT_LINK)

# test_maxtr is a latency tracer's runtime part: max.c with the runtime stubbed
$(O)/tests/test_maxtr: runtime/max.c runtime/runtime.h

# test_rt_tracer is the runtime's tracer registry, with test tracers
$(O)/tests/test_rt_tracer: runtime/tracer.c runtime/tracer.h runtime/runtime.h

# test_records reads the record table of doc/design/ring-buffer.md
$(O)/tests/test_records: TEST_CFLAGS = -DUT_SRCDIR='"$(CURDIR)"'

# test_output stands in for the merge of reader/decode.c to script events; it
# also decodes real record pages with decode.c itself, whose merge functions
# are renamed data_merge_* here so that both can be linked
DATA_RENAME := $(foreach f,merge merge_new merge_next merge_peek_same merge_skip_same merge_free,\
		 -Dut_$(f)=data_$(f))

$(O)/tests/obj/decode.o: reader/decode.c $(wildcard include/usertrace/*.h utils/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(DATA_RENAME) -c $< -o $@

$(O)/tests/test_output: $(O)/tests/obj/decode.o

# test_format compares the ftrace entries' format files with the kernel's
# (tests/unit/ftrace-formats.txt); test_tep has libtraceevent parse them
$(O)/tests/test_format: TEST_CFLAGS = -DUT_SRCDIR='"$(CURDIR)"'
$(O)/tests/test_format: tests/unit/sample_event.h tests/unit/ftrace-formats.txt tests/unit/builtin-formats.txt
$(O)/tests/test_tep: tests/unit/sample_event.h

# test_filter includes runtime/funcfilter.c (not a prerequisite to compile),
# stubbing the rest of the runtime
$(O)/tests/test_filter: tests/unit/test_filter.c runtime/funcfilter.c runtime/runtime.h $(HDRS) $(UT_ARCHIVES)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $< $(UT_LINK)

# The others need no line here.  A test may stand in for a part: its own
# definitions come first, and an archive's member is only taken for what
# is still undefined (test_tracefs stubs tracefs/live*.c that way).

# the ring buffer's threaded tests under ThreadSanitizer (gcc's or clang's),
# in make check as test_ringbuf_tsan (not with SAN=1: TSan excludes ASan).
# The warning that TSan ignores fences is about the overwrite-mode seqlock,
# whose test TSan skips (see tests/unit/test_ringbuf.c).
TSAN_CFLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer \
	       $(shell $(CC) -Werror -Wno-tsan -E -x c /dev/null >/dev/null 2>&1 && echo -Wno-tsan)
TSAN_BIN := $(if $(filter 1,$(SAN)),,$(O)/tests/test_ringbuf_tsan)

$(O)/tests/test_ringbuf_tsan: tests/unit/test_ringbuf.c lib/ringbuf/ringbuf.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TSAN_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lpthread

tsan: $(O)/tests/test_ringbuf_tsan
	TSAN_OPTIONS=halt_on_error=1 $<

# the event scenarios' second program (tests/tracefs/ftracetest, tp_start):
# traced, so never built with sanitizers
$(O)/tests/tracefs_tp: tests/tracefs/tp.c include/usertrace/event.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 $(WARN) -Iinclude -o $@ $<

# check-build: what the tests run, built in parallel (CHECK_JOBS at once,
# unless make was given -j), after deps.sh has installed the packages
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
.PHONY: check-build
check-build: all $(UNIT_BIN) $(TSAN_BIN) $(O)/tests/tracefs_tp

check: deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) check-build
	@sh tests/deps.sh check
	@sh tests/run-all.sh $(O)

# the tools and unit tests under AddressSanitizer and UBSan; the runtime
# itself runs inside the traced programs and is built as usual
# the tracing directory's scenarios against the patched build only, each
# through one adapter (ctl and fuse in turn): the hooked build and the
# other adapter run the same tools' code, and CI's two passes must stay
# under 30 minutes on two cores
asan:
	@UT_SANITIZED=1 UT_TRACEFS_KINDS=patched UT_TRACEFS_ALTERNATE=1 $(MAKE) --no-print-directory SAN=1 check

# test_tracepoint: the tracepoint macros, created in C, with a C++ caller
# (tp_cxx.cc); test_tracepoint_cxx: the same test compiled as C++.  Both
# with -Werror: the headers must not warn in the programs that use them.
# The C file is also checked as C99.
TP_CXXFLAGS := $(filter-out -std=%,$(CFLAGS)) -std=c++11 -Itests/unit -Werror
TP_DEPS := tests/unit/tp_sample.h tests/unit/tpsys2.h $(HDRS)

$(O)/tests/obj/tp_cxx.o: tests/unit/tp_cxx.cc $(TP_DEPS)
	@mkdir -p $(dir $@)
	$(CXX) $(TP_CXXFLAGS) $(SANFLAGS) -c $< -o $@

$(O)/tests/test_tracepoint: tests/unit/test_tracepoint.c $(O)/tests/obj/tp_cxx.o $(TP_DEPS)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(WARN) -Werror -Iinclude -Itests/unit -fsyntax-only $<
	$(CC) $(CFLAGS) $(SANFLAGS) -Itests/unit -Werror -o $@ $< $(O)/tests/obj/tp_cxx.o -lcmocka -lstdc++ -lpthread

$(O)/tests/test_tracepoint_cxx: tests/unit/test_tracepoint.c $(O)/tests/obj/tp_cxx.o $(TP_DEPS)
	@mkdir -p $(dir $@)
	$(CXX) $(TP_CXXFLAGS) $(SANFLAGS) -x c++ $< -x none $(O)/tests/obj/tp_cxx.o -o $@ -lcmocka -lpthread

check-build: $(O)/tests/test_tracepoint_cxx

