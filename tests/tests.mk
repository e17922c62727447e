# tests.mk - `make check` and `make asan`, included by the top-level Makefile
#
# check: unit tests (cmocka), end-to-end tests (tests/e2e), bad-input
# tests; tests/run-all.sh prints one summary line for CI.

UNIT_BIN := $(patsubst tests/unit/%.c,$(O)/tests/%,$(wildcard tests/unit/test_*.c))

$(O)/tests/test_ringbuf: tests/unit/test_ringbuf.c lib/ringbuf/ringbuf.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcmocka -lpthread

$(O)/tests/test_symtab: tests/unit/test_symtab.c utils/symtab.c utils/utils.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcmocka -lelf -ldl -lstdc++

$(O)/tests/test_output: tests/unit/test_output.c lib/trace/tracer.c lib/trace/tracers/nop.c \
		lib/trace/tracers/function.c lib/trace/tracers/function_graph.c utils/utils.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ -lcmocka


check: deps all $(UNIT_BIN)
	@sh tests/run-all.sh $(O)

# the tools and unit tests under AddressSanitizer and UBSan; the runtime
# itself runs inside the traced programs and is built as usual
asan:
	@$(MAKE) --no-print-directory SAN=1 check
