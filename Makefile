# usertrace - ftrace for user-space programs
#
#   make            build usertrace and libusertrace.so
#   make example    trace the bundled example and print its call graph
#   make install    PREFIX=/usr/local DESTDIR=: the binary, the runtime, the
#                   headers, usertrace.pc, the man pages
#   make check      unit and end-to-end tests
#   make asan       the tests again under AddressSanitizer + UBSan
#   make bench      overhead against uftrace (not a test)
#   make bench-tp   a tracepoint's cost against LTTng-UST (not a test)
#   make bench-lat  the latency tracers' cost on sigprocmask and preempt pairs (not a test)
#   make bench-tracers  every tracer's cost on and off, with uftrace's (not a test)
#   make bench-exports  each export of dump: calls/s, with uftrace dump --chrome/--flame-graph (not a test)
#   make fuzz       libFuzzer targets, FUZZ_TIME s each (not a test; doc/fuzzing.md)
#   make tsan       the ring buffer stress test under ThreadSanitizer

CC       ?= gcc
O        ?= build
PREFIX   ?= /usr/local
WARN     := -Wall -Wextra
CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -Iinclude -I. -D_GNU_SOURCE -fno-strict-aliasing
SANFLAGS :=

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
O        := build-san
endif

# The runtime runs inside traced programs: no instrumentation of its own,
# no SSE registers (the trampolines then need not save them), a frame
# pointer for the unwinder hooks, initial-exec TLS.
RT_CFLAGS := $(CFLAGS) -fPIC -fvisibility=hidden -fno-omit-frame-pointer \
	     -mgeneral-regs-only -ftls-model=initial-exec -fno-stack-protector

RINGBUF_SRC := lib/ringbuf/ringbuf.c
# the symbols of a recording: ELF files read, the symbol files written and
# read back, the maps snapshots (reader/symtab_int.h)
SYM_SRC     := reader/symtab.c reader/symsave.c reader/symmaps.c reader/elfsym.c
# descriptors, format files and the registry of events (lib/event); and
# the events' printer, the one file that uses libtraceevent (with output/)
TEP_SRC     := lib/event/evtab.c
# reap.c writes into ring buffers: the recorder and the runtime only
REAP_SRC    := lib/event/reap.c
EVENT_SRC   := $(filter-out $(TEP_SRC) $(REAP_SRC),$(sort $(wildcard lib/event/*.c)))
TEP_CFLAGS  := $(shell pkg-config --cflags libtraceevent 2>/dev/null || echo -I/usr/include/traceevent)
TEP_LIBS    := $(shell pkg-config --libs libtraceevent 2>/dev/null || echo -ltraceevent)
# the kernel's tracing directory, for the sched events' tracefs source (recorder/sched_source.c)
TFS_CFLAGS  := $(shell pkg-config --cflags libtracefs 2>/dev/null || echo -I/usr/include/tracefs -I/usr/include/traceevent)
TFS_LIBS    := $(shell pkg-config --libs libtracefs 2>/dev/null || echo -ltracefs)
# the output part of each tracer of include/usertrace/tracers.def
TRACER_SRC  := $(sort $(wildcard output/tracers/*.c))
# the output side, for the tests and fuzz targets that link it: output/,
# every tracer's output part, the statistics files the stat tracers read
TRACE_OUT_SRC := $(sort $(wildcard output/*.c)) $(TRACER_SRC) reader/statarea.c utils/progress.c \
		 reader/callstack.c
# the tracing directory, one file per job (tracefs/tfs_int.h), and
# the reader of the live buffers it stands on
LIVE_SRC    := $(sort $(wildcard tracefs/live*.c))
TRACEFS_SRC := $(filter-out $(LIVE_SRC),$(sort $(wildcard tracefs/*.c)))
# the runtime part of each tracer
RT_TRACER_SRC := $(sort $(wildcard runtime/tracers/*.c))
# the runtime: every file of runtime/ and runtime/tracers/, and the parts
# of lib/ it shares with the tools
RT_SRC      := $(sort $(wildcard runtime/*.c)) $(RT_TRACER_SRC) lib/event/registry.c \
	       lib/event/evfilter.c lib/event/builtin.c $(REAP_SRC) lib/funclist/funclist.c $(RINGBUF_SRC)
RT_ASM      := arch/x86_64/mcount.S arch/x86_64/fentry.S arch/x86_64/trampoline.S arch/x86_64/cyg.S
# the tools: the subcommands (cli/), the recorder (recorder/), the reader
# (reader/), the output (output/), the exports (export/), the tracing
# directory (tracefs/) and small helpers (utils/)
CLI_SRC     := usertrace.c $(sort $(wildcard cli/*.c recorder/*.c reader/*.c export/*.c)) $(TRACEFS_SRC) $(LIVE_SRC) \
	       $(sort $(wildcard utils/*.c)) lib/funclist/funclist.c \
	       $(sort $(wildcard output/*.c)) $(TRACER_SRC) $(RINGBUF_SRC) $(EVENT_SRC) $(REAP_SRC) $(TEP_SRC)

RT_OBJ  := $(patsubst %.c,$(O)/rt/%.o,$(RT_SRC)) $(patsubst %.S,$(O)/rt/%.o,$(RT_ASM))
CLI_OBJ := $(patsubst %.c,$(O)/cli/%.o,$(CLI_SRC))
FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
LIBS    := -lelf -ldl -lstdc++ -lfuse3 -lzstd -lpthread $(TFS_LIBS) $(TEP_LIBS)

all: $(O)/usertrace $(O)/libusertrace.so

deps:
	@sh tests/deps.sh

# the hot path needs no frame pointer, nor do the allocator's wrappers
$(O)/rt/runtime/graph.o: RT_CFLAGS += -fomit-frame-pointer
$(O)/rt/runtime/tracers/kmemtrace.o: RT_CFLAGS += -fomit-frame-pointer
# operator new may throw through its wrapper: the cleanup that ends the quiet section must run
$(O)/rt/runtime/tracers/kmemtrace_cxx.o: RT_CFLAGS += -fomit-frame-pointer -fexceptions
$(O)/rt/runtime/lock.o: RT_CFLAGS += -fomit-frame-pointer

$(O)/rt/%.o: %.c $(wildcard include/usertrace/*.h include/usertrace/*.def include/usertrace/events/*.h runtime/*.h runtime/tracers/*.h lib/funclist/*.h lib/event/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(O)/rt/%.o: %.S $(wildcard arch/x86_64/*.h) runtime/asm-offsets.h $(O)/gen/rec-offsets.h
	@mkdir -p $(dir $@)
	$(CC) -fPIC -I. -Iarch/x86_64 -I$(O)/gen -c $< -o $@

# the record layouts the assembly writes, made from include/usertrace/entries.h:
# rec-offsets.c compiled to assembly, its "@@asm-const NAME VALUE" lines made #defines
$(O)/gen/rec-offsets.h: arch/x86_64/rec-offsets.c $(wildcard include/usertrace/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -S -o $@.s $<
	{ echo '/* made by the build from arch/x86_64/rec-offsets.c (Makefile): do not edit */'; \
	  echo '#ifndef USERTRACE_REC_OFFSETS_H'; echo '#define USERTRACE_REC_OFFSETS_H'; \
	  sed -n 's/^@@asm-const \([A-Z0-9_]*\) \(-\{0,1\}[0-9]*\)$$/#define \1\t\2/p' $@.s; \
	  echo '#endif'; } > $@.tmp
	rm -f $@.s
	mv $@.tmp $@

$(O)/cli/%.o: %.c $(wildcard include/usertrace/*.h include/usertrace/*.def include/usertrace/events/*.h utils/*.h reader/*.h output/*.h output/*.def tracefs/*.h lib/funclist/*.h lib/event/*.h cli/*.h recorder/*.h export/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(TEP_CFLAGS) $(TFS_CFLAGS) $(SANFLAGS) -c $< -o $@

# the runtime is never built with sanitizers: it runs inside the traced program
$(O)/libusertrace.so: $(RT_OBJ)
	$(CC) -shared -Wl,-z,defs -Wl,-z,now -o $@ $^ -lelf -ldl -lpthread -lgcc_s -lcapstone

$(O)/usertrace: $(CLI_OBJ) $(O)/libusertrace.so
	$(CC) $(SANFLAGS) -o $@ $(CLI_OBJ) $(LIBS)

example: deps all $(O)/examples/hello
	$(O)/usertrace live -- $(O)/examples/hello
	@echo
	@echo "usertrace is $(abspath $(O))/usertrace (the runtime libusertrace.so beside it);"
	@echo "make install puts it in $(PREFIX)/bin (PREFIX=, DESTDIR=; README.md, Set up)"

.PHONY: all example check asan tsan bench bench-tp bench-lat bench-tracers bench-exports clean deps install
include tests/tests.mk
include bench/bench.mk
include fuzz/fuzz.mk

clean:
	rm -rf build build-san

# make install: under $(DESTDIR)$(PREFIX), bin/usertrace; the runtime
# lib/usertrace/libusertrace.so, where the binary looks (../lib/usertrace);
# the headers programs include (those whose opening comment says
# "installed": nothing to link, no list to keep here) in include/usertrace;
# lib/pkgconfig/usertrace.pc (pkg-config --cflags usertrace); every man
# page of doc/ in share/man/manN.  DESTDIR stages; PREFIX is what the
# installed files name.
PUBLIC_H  := $(shell awk 'FNR <= 8 && /installed/ { print FILENAME; nextfile }' include/usertrace/*.h)
MAN_PAGES := $(wildcard doc/*.[1-8])

install: all
	install -D -m 755 $(O)/usertrace $(DESTDIR)$(PREFIX)/bin/usertrace
	install -D -m 755 $(O)/libusertrace.so $(DESTDIR)$(PREFIX)/lib/usertrace/libusertrace.so
	install -d $(DESTDIR)$(PREFIX)/include/usertrace $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(PUBLIC_H) $(DESTDIR)$(PREFIX)/include/usertrace/
	for m in $(MAN_PAGES); do \
		install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$${m##*.}/$${m##*/} || exit 1; \
	done
	sed 's|@PREFIX@|$(PREFIX)|' doc/usertrace.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/usertrace.pc

$(O)/examples/hello: examples/hello.c
	@mkdir -p $(dir $@)
	$(CC) -pg -mfentry -O2 -g -o $@ $< -lpthread
