# cubevm - build, test, install.
#
#   make              build/bin/cubevm and build/lib/libcubevm.a
#   make check        build, then run every test under prove (each with a timeout)
#   make demo         build, then run docs/examples/vadd.cbs and print outputs
#   make deps         install the Debian packages the build and tests need
#   make docs         regenerate the op reference in docs/isa.md from ops.def
#
# Variables: BUILD=dir (default build), DISPATCH=switch (portable switch
# dispatch instead of computed goto), SAN=1 (ASan+UBSan), WERROR=1.

BUILD ?= build
CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) \
              -ffp-contract=off -fno-strict-aliasing -fvisibility=hidden -MMD -MP
ifeq ($(DISPATCH),switch)
CFLAGS_ALL += -DCVM_DISPATCH_SWITCH=1
endif
ifeq ($(SAN),1)
CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS_ALL += -fsanitize=address,undefined
endif
CFLAGS_ALL += $(CFLAGS)
LDLIBS_ALL := -lm -lpthread $(LDLIBS)

LIB_SRC := $(sort $(wildcard bytecode/*.c vm/*.c frontends/cuda/*.c))
TOOL_SRC := $(sort $(wildcard tools/cubevm*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

LIB := $(BUILD)/lib/libcubevm.a
BIN := $(BUILD)/bin/cubevm

.PHONY: all check demo deps clean docs
all: $(LIB) $(BIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(TOOL_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) $(TOOL_OBJ) $(LIB) $(LDLIBS_ALL) -o $@

$(BUILD)/tests/%: tests/%.c $(LIB) tests/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MF $(BUILD)/tests/$*.d $(LDFLAGS_ALL) $< $(LIB) $(LDLIBS_ALL) -o $@

# Each test runs from the repository root with its own cache directory and
# a timeout; CUBEVM points the CLI tests at the binary of this build.
check: deps all $(TEST_BIN)
	@CUBEVM=$(abspath $(BIN)) BUILD=$(BUILD) prove -f --exec 'tests/run-one' $(TEST_BIN) $(wildcard tests/*.sh)

demo: deps all
	@echo "== cubevm run docs/examples/vadd.cbs (a = 0..7, b = 10 x a, c = a + b)"
	$(BIN) run docs/examples/vadd.cbs --grid 1 --block 8 a=@docs/examples/vadd_a.npy \
	    b=@docs/examples/vadd_b.npy c=zeros:8 n=8 --out c=$(BUILD)/vadd_c.npy --print c

deps:
	@tools/deps.sh

# Regenerates the op reference in docs/isa.md from ops.def and sregs.def.
docs: $(BUILD)/gen_isa
	$(BUILD)/gen_isa --update docs/isa.md

$(BUILD)/gen_isa: tools/gen_isa.c bytecode/ops.def bytecode/sregs.def bytecode/bc.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -I. $< -o $@

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(wildcard $(BUILD)/tests/*.d)
