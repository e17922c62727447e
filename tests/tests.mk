# tests.mk - `make check` and `make asan`, included by the top-level Makefile
#
# check: unit tests (cmocka), end-to-end tests (tests/e2e), bad-input
# tests; tests/run-all.sh prints one summary line for CI.

UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_*.c))

HDRS := $(wildcard include/usertrace/*.h include/usertrace/*.def include/usertrace/events/*.h utils/*.h lib/trace/*.h lib/trace/*.def lib/tracefs/*.h lib/filter/*.h lib/event/*.h)

$(O)/tests/test_ringbuf: tests/unit/test_ringbuf.c lib/ringbuf/ringbuf.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lpthread

# test_maxtr is a latency tracer's runtime part: max.c with the runtime stubbed
$(O)/tests/test_maxtr: tests/unit/test_maxtr.c runtime/max.c lib/ringbuf/ringbuf.c runtime/runtime.h $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka

# test_records reads the record table of doc/design/ring-buffer.md
$(O)/tests/test_records: tests/unit/test_records.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -DUT_SRCDIR='"$(CURDIR)"' -o $@ $< -lcmocka

$(O)/tests/test_symtab: tests/unit/test_symtab.c utils/symtab.c utils/utils.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lelf -ldl -lstdc++

$(O)/tests/test_statarea: tests/unit/test_statarea.c utils/statarea.c utils/utils.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka

# test_output stands in for the merge of utils/data.c to script events; it
# also decodes real record pages with data.c itself, whose merge functions
# are renamed data_merge_* here so that both can be linked
DATA_RENAME := $(foreach f,merge merge_new merge_next merge_peek_same merge_skip_same merge_free,\
		 -Dut_$(f)=data_$(f))

$(O)/tests/obj/data.o: utils/data.c $(wildcard include/usertrace/*.h utils/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(DATA_RENAME) -c $< -o $@

$(O)/tests/test_output: tests/unit/test_output.c $(TRACE_OUT_SRC) utils/utils.c \
		$(O)/tests/obj/data.o $(RINGBUF_SRC) $(EVENT_SRC) $(TEP_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c %.o,$^) -lcmocka -lzstd -lpthread $(TEP_LIBS)

# test_format compares the ftrace entries' format files with the kernel's
# (tests/unit/ftrace-formats.txt); test_tep has libtraceevent parse them
$(O)/tests/test_format: tests/unit/test_format.c tests/unit/sample_event.h $(EVENT_SRC) tests/unit/ftrace-formats.txt tests/unit/builtin-formats.txt $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -DUT_SRCDIR='"$(CURDIR)"' -o $@ $(filter %.c,$^) -lcmocka

$(O)/tests/test_tep: tests/unit/test_tep.c tests/unit/sample_event.h $(EVENT_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka $(TEP_LIBS)

# test_tracefs stands in for lib/tracefs/live.c (stubs in the test file);
# the tracers' hooks are lib/trace's
TRACE_SRC := $(TRACE_OUT_SRC) utils/data.c utils/symtab.c utils/profile.c utils/utils.c \
	     $(RINGBUF_SRC) $(TEP_SRC)
$(O)/tests/test_tracefs: tests/unit/test_tracefs.c $(TRACEFS_SRC) $(TRACE_SRC) $(EVENT_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lelf -ldl -lstdc++ -lzstd \
		-lpthread $(TEP_LIBS)

# test_lost runs replay and report themselves on data directories it writes
$(O)/tests/test_lost: tests/unit/test_lost.c cmds/report.c cmds/folded.c cmds/replay.c utils/data.c utils/symtab.c utils/profile.c \
		utils/utils.c $(TRACE_OUT_SRC) $(RINGBUF_SRC) $(EVENT_SRC) $(TEP_SRC) \
		$(HDRS) cmds/cmds.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lelf -ldl -lstdc++ -lzstd -lpthread $(TEP_LIBS)

# test_hwbranch: the hw-branch decoder on synthetic perf records, its lines
$(O)/tests/test_hwbranch: tests/unit/test_hwbranch.c utils/data.c utils/symtab.c utils/utils.c \
		$(TRACE_OUT_SRC) $(RINGBUF_SRC) $(EVENT_SRC) $(TEP_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lelf -ldl -lstdc++ -lzstd -lpthread $(TEP_LIBS)

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

check: deps all $(UNIT_BIN) $(TSAN_BIN) $(O)/tests/tracefs_tp
	@sh tests/deps.sh check
	@sh tests/run-all.sh $(O)

# the tools and unit tests under AddressSanitizer and UBSan; the runtime
# itself runs inside the traced programs and is built as usual
# the tracing directory's scenarios against the patched build only: the
# hooked one runs the same tools' code, and CI's two passes must stay
# under 30 minutes on two cores
asan:
	@UT_TRACEFS_KINDS=patched $(MAKE) --no-print-directory SAN=1 check

$(O)/tests/test_live: tests/unit/test_live.c $(LIVE_SRC) lib/filter/list.c utils/data.c utils/symtab.c \
		utils/utils.c $(TRACE_OUT_SRC) $(RINGBUF_SRC) $(EVENT_SRC) $(TEP_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $^ -lcmocka -lelf -ldl -lstdc++ -lzstd -lpthread $(TEP_LIBS)

# test_filter includes runtime/filter.c, stubbing the rest of the runtime
$(O)/tests/test_filter: tests/unit/test_filter.c runtime/filter.c lib/filter/list.c lib/event/registry.c lib/event/filter.c $(HDRS) runtime/runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ tests/unit/test_filter.c lib/filter/list.c lib/event/registry.c lib/event/filter.c -lcmocka -lpthread

$(O)/tests/test_trigger: tests/unit/test_trigger.c lib/event/trigger.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(O)/tests/test_evreg: tests/unit/test_evreg.c lib/event/registry.c lib/event/filter.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lpthread

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

check: $(O)/tests/test_tracepoint_cxx

$(O)/tests/test_event_filter: tests/unit/test_event_filter.c lib/event/filter.c lib/event/registry.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lpthread

# test_branch prints the branch profilers' trace_stat/ files
$(O)/tests/test_branch: tests/unit/test_branch.c $(TRACE_SRC) $(EVENT_SRC) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $(TEP_CFLAGS) -o $@ $(filter %.c %.o,$^) -lcmocka -lzstd -lpthread \
		-lelf -ldl -lstdc++ $(TEP_LIBS)

# test_callstack: the one per-thread call stack (utils/callstack.c) on scripted events
$(O)/tests/test_callstack: tests/unit/test_callstack.c utils/callstack.c utils/utils.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.c,$^) -lcmocka
