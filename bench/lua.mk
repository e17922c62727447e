# bench/lua.mk - builds the Lua interpreter for the "real program" case of
# bench/run.sh, from a Lua source tree that is not part of this repository.
#
#   make -f bench/lua.mk SRC=/path/to/lua OUT=DIR FLAGS='-pg' [CC=cc]
#
# SRC is a directory of Lua's C files: a clone of github.com/lua/lua or the
# src/ directory of a lua.org release.  Every *.c file there is compiled
# with -O2 FLAGS into DIR (one DIR per set of flags), except onelua.c (all
# of Lua in one file) and luac.c (the compiler, a second main); DIR/lua is
# the interpreter.  Built as Lua's own makefiles do on Linux, minus their
# warnings.

CC ?= cc
FLAGS ?=
SRC ?= $(error SRC: the Lua source directory)
OUT ?= $(error OUT: the build directory)

LUA_SRCS := $(filter-out onelua.c luac.c,$(notdir $(wildcard $(SRC)/*.c)))
LUA_OBJS := $(addprefix $(OUT)/,$(LUA_SRCS:.c=.o))
LUA_CFLAGS := -O2 -std=gnu99 -DLUA_USE_LINUX $(FLAGS)

$(OUT)/lua: $(LUA_OBJS)
	$(CC) $(FLAGS) -o $@ $(LUA_OBJS) -Wl,-E -lm -ldl

$(OUT)/%.o: $(SRC)/%.c | $(OUT)
	$(CC) $(LUA_CFLAGS) -MMD -MP -c -o $@ $<

$(OUT):
	mkdir -p $@

-include $(LUA_OBJS:.o=.d)
