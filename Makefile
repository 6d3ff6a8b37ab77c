# cubevm - build, test, install.
#
#   make              build/bin/cubevm and build/lib/libcubevm.a
#   make check        build, then run every test under prove (each with a timeout)
#   make demo         build, then compile and run docs/examples/block_sum.cu and print its sums
#   make deps         install the Debian packages the build and tests need
#   make docs         regenerate the op reference in docs/isa.md from ops.def
#   make install      install cubevm, libcubevm.a/.so, cubevm.h, cubevm.pc and
#                     the man page under PREFIX (default /usr/local; DESTDIR too)
#   make shared       build/lib/libcubevm.so (from the same -fPIC objects as the .a)
#   make check-symbols  the .so exports exactly the CVM_API functions of cubevm.h
#   make check-isa    the interpreter and native-tier tests once per ISA variant this CPU runs
#   make bench        install the benchmark anchors, build, run tools/bench and print
#                     the table (build/bench/results.json); options via
#                     BENCH_ARGS="--quick --threads N --cases a,b" or `make bench -- --quick`
#
# Variables: BUILD=dir (default build), DISPATCH=switch (portable switch
# dispatch instead of computed goto), SAN=1 (ASan+UBSan), WERROR=1,
# ISA=off (no per-ISA variants of the interpreter; see vm/isa.h).

BUILD ?= build
CC ?= cc
OPT ?= -O2 -g
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN += -Werror
endif
# Every object is -fPIC: one compile serves libcubevm.a and libcubevm.so (the
# interpreter's hot file takes minutes at -O2, once per ISA level; compiling it
# twice per build doubled CI). Hidden visibility keeps internal calls direct.
# -fno-math-errno: nothing in cubevm reads errno after a math call; without
# it sqrt may call libm to set errno, and the lane loops over it do not
# vectorize (GCC's optimize pragma does not turn this one off).
CFLAGS_ALL := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) $(WARN) \
              -ffp-contract=off -fno-math-errno -fno-strict-aliasing -fvisibility=hidden -fPIC \
              -MMD -MP
ifeq ($(DISPATCH),switch)
CFLAGS_ALL += -DCVM_DISPATCH_SWITCH=1
endif
# -fno-tree-pta: with ASan's instrumentation, gcc's points-to analysis of the
# interpreter's dispatch function took 354 of 451 s (-ftime-report); without it
# the file compiles in 78 s. It only costs the sanitizer build some precision.
ifeq ($(SAN),1)
CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ifeq ($(findstring clang,$(CC)),)
CFLAGS_ALL += -fno-tree-pta
endif
LDFLAGS_ALL += -fsanitize=address,undefined
endif
CFLAGS_ALL += $(CFLAGS)
LDLIBS_ALL := -lm -lpthread $(LDLIBS)

# The vulkan device (backends/vulkan/) is built when volk's header is found
# (Debian: libvulkan-volk-dev); otherwise devices.def marks it "not built in".
# Nothing links against Vulkan: volk dlopens the loader at run time (-ldl).
# volk's own source is compiled with -Wno-pedantic (see volk_unit.c).
VOLK_H := $(wildcard /usr/include/volk.h)
VULKAN_SRC := $(if $(VOLK_H),$(wildcard backends/vulkan/*.c))
ifneq ($(VOLK_H),)
CFLAGS_ALL += -DCVM_HAVE_VULKAN=1
LDLIBS_ALL += -ldl
endif
ifneq ($(wildcard backends/spirv/*.c),)
CFLAGS_ALL += -DCVM_HAVE_SPIRV=1
endif
# The native tier (jit/native.c, docs/design.md "Tiers") is built when
# LLVM 14's C API headers are found (Debian: llvm-14-dev; LLVM=off builds
# without it, and jit/none.c then says so). libcubevm does not link LLVM:
# the tier dlopens the library (its soname, from the file llvm-config names)
# at the first compile, and runs interpreted where it is missing.
LLVM ?= on
LLVM_CONFIG := $(if $(filter on,$(LLVM)),$(firstword $(shell command -v llvm-config-14 2>/dev/null)))
LLVM_INC := $(if $(LLVM_CONFIG),$(shell $(LLVM_CONFIG) --includedir))
LLVM_SONAME := $(if $(LLVM_CONFIG),$(notdir $(realpath $(shell $(LLVM_CONFIG) --libdir)/$(shell $(LLVM_CONFIG) --libnames))))
ifneq ($(and $(wildcard $(LLVM_INC)/llvm-c/LLJIT.h),$(LLVM_SONAME)),)
JIT_SRC := jit/llvm.c jit/native.c jit/native_compile.c jit/native_ops.c jit/native_mem.c jit/native_loop.c jit/native_facts.c
$(JIT_SRC:%.c=$(BUILD)/obj/%.o): CFLAGS_ALL += -isystem $(LLVM_INC) \
    -DCVM_LLVM_SONAME='"$(LLVM_SONAME)"'
else
JIT_SRC := jit/none.c
endif
LIB_SRC := $(sort $(wildcard bytecode/*.c vm/*.c frontends/cuda/*.c backends/spirv/*.c) $(VULKAN_SRC) $(JIT_SRC))
TOOL_SRC := $(sort $(wildcard tools/cubevm*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOL_OBJ := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

LIB := $(BUILD)/lib/libcubevm.a
BIN := $(BUILD)/bin/cubevm

$(BUILD)/obj/backends/vulkan/volk_unit.o: CFLAGS_ALL += -Wno-pedantic

# ISA variants (vm/isa.h): on x86-64 the interpreter's hot files are compiled
# once per level (-march=x86-64, -v3, -v4) with renamed entry points and
# vm/isa.c picks one at start. Everything else targets the compiler's
# default, baseline x86-64: never -march=native in what is installed.
ISA ?= on
ISA_SRC := vm/interp_run.c vm/interp_mem.c vm/interp_plane.c vm/interp_lockstep.c
ISA_LEVELS :=
ifeq ($(ISA),on)
ifneq ($(findstring x86_64,$(shell $(CC) -dumpmachine)),)
ISA_LEVELS := x86-64 x86-64-v3 x86-64-v4
endif
endif
ifneq ($(ISA_LEVELS),)
isa_suffix = $(if $(filter x86-64,$1),_x86_64,_$(subst x86-64-,,$1))
LIB_OBJ := $(filter-out $(ISA_SRC:%.c=$(BUILD)/obj/%.o),$(LIB_OBJ)) \
           $(foreach l,$(ISA_LEVELS),$(ISA_SRC:%.c=$(BUILD)/obj/isa-$l/%.o))
$(BUILD)/obj/vm/isa.o: CFLAGS_ALL += -DCVM_ISA_VARIANTS=1
define isa_rules
$(BUILD)/obj/isa-$1/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) -march=$1 -DCVM_ISA_SUFFIX=$(call isa_suffix,$1) -c $$< -o $$@
endef
$(foreach l,$(ISA_LEVELS),$(eval $(call isa_rules,$l)))
endif
# The slowest compiles first: make starts prerequisites in order, and each
# vm/interp_run.c takes ~90 s at -O2 against ~1 s for most files. Started
# last, the three ran after everything else and the library took ~215 s
# with -j2; started first, the other files fill the second core meanwhile.
SLOW_OBJ := $(filter %/interp_run.o,$(LIB_OBJ)) $(filter %/interp_lockstep.o,$(LIB_OBJ))
LIB_OBJ := $(SLOW_OBJ) $(filter-out $(SLOW_OBJ),$(LIB_OBJ))

# The shared library: the static library's objects; soname libcubevm.so.0.
VERSION := $(shell sed -n 's/^\#define CVM_VERSION_STRING "\(.*\)"/\1/p' vm/cubevm.h)
SONAME := libcubevm.so.0
SO := $(BUILD)/lib/libcubevm.so

.PHONY: all check demo deps clean docs install uninstall shared check-symbols check-isa bench
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
# CHECK_JOBS programs run at once (default: one per core), the longest,
# the native tier's rerun of the corpus, first. Then the interpreter
# tests once more per other ISA variant the CPU runs (check-isa);
# CUBEVM_LDFLAGS lets test_install.sh link like this build.
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_JOBS ?= $(NPROC)
CHECK_FIRST := tests/test_native_corpus.sh
check: deps all shared $(TEST_BIN) $(BUILD)/isa_levels
	@CUBEVM=$(abspath $(BIN)) BUILD=$(BUILD) CUBEVM_LDFLAGS='$(LDFLAGS_ALL)' \
	    prove -j$(CHECK_JOBS) -f --exec 'tests/run-one' $(CHECK_FIRST) $(TEST_BIN) \
	    $(filter-out $(CHECK_FIRST),$(wildcard tests/*.sh))
	@$(MAKE) --no-print-directory check-isa ISA_CHECK_LEVELS="$$($(BUILD)/isa_levels --others | tr "\n" " ")"

demo: deps all
	@echo "== cubevm run docs/examples/block_sum.cu (CUDA C; x = 1..1000, one sum per block of 256)"
	$(BIN) run docs/examples/block_sum.cu --kernel 'block_sum<256>' --grid 4 --block 256 \
	    x=@docs/examples/block_sum_x.npy partial=zeros:4 n=1000 --print partial

deps:
	@tools/deps.sh

# Regenerates the op reference in docs/isa.md from ops.def and sregs.def.
docs: $(BUILD)/gen_isa
	$(BUILD)/gen_isa --update docs/isa.md

$(BUILD)/gen_isa: tools/gen_isa.c bytecode/ops.def bytecode/sregs.def bytecode/bc.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -I. $< -o $@

# ---- shared library, install, exported symbols ----

shared: $(SO)

$(SO).$(VERSION): $(LIB_OBJ) vm/libcubevm.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,-z,defs -Wl,--version-script=vm/libcubevm.map $(LDFLAGS_ALL) \
	    $(LIB_OBJ) $(LDLIBS_ALL) -o $@

$(SO): $(SO).$(VERSION)
	ln -sf libcubevm.so.$(VERSION) $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $@

# The installed header is self-contained: status.def is pasted in.
$(BUILD)/include/cubevm.h: vm/cubevm.h vm/status.def
	@mkdir -p $(dir $@)
	awk '/^#include "status.def"/ { while ((getline l < "vm/status.def") > 0) print l; next } { print }' \
	    vm/cubevm.h >$@

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

$(BUILD)/cubevm.pc: cubevm.pc.in vm/cubevm.h FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' cubevm.pc.in >$@

install: $(BIN) $(LIB) $(SO) $(BUILD)/include/cubevm.h $(BUILD)/cubevm.pc tools/cubevm.1
	$(if $(findstring -march=native,$(CFLAGS_ALL)),$(error install: -march=native in CFLAGS; the installed library must run on any x86-64))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cubevm
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libcubevm.a
	install -m 755 $(SO).$(VERSION) $(DESTDIR)$(LIBDIR)/libcubevm.so.$(VERSION)
	ln -sf libcubevm.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcubevm.so
	install -m 644 $(BUILD)/include/cubevm.h $(DESTDIR)$(INCLUDEDIR)/cubevm.h
	install -m 644 $(BUILD)/cubevm.pc $(DESTDIR)$(PKGCONFIGDIR)/cubevm.pc
	install -m 644 tools/cubevm.1 $(DESTDIR)$(MANDIR)/man1/cubevm.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cubevm $(DESTDIR)$(LIBDIR)/libcubevm.a \
	    $(DESTDIR)$(LIBDIR)/libcubevm.so $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libcubevm.so.$(VERSION) $(DESTDIR)$(INCLUDEDIR)/cubevm.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/cubevm.pc $(DESTDIR)$(MANDIR)/man1/cubevm.1

check-symbols: $(SO)
	tools/check-symbols.sh $(SO) vm/cubevm.h

# The interpreter-heavy tests and test_native (whose code then targets the
# level) again under each ISA variant this CPU runs
# (the plain `make check` run uses the best one).
ISA_TESTS := test_isa test_interp test_ops test_control test_memory test_plane test_sched test_numerics test_fuse \
             test_conformance test_differ test_native
ISA_TEST_BIN := $(filter $(ISA_TESTS:%=$(BUILD)/tests/%),$(TEST_BIN))
ISA_CHECK_LEVELS ?= $$($(BUILD)/isa_levels)
check-isa: $(BUILD)/isa_levels $(ISA_TEST_BIN) $(BIN)
	@for l in $(ISA_CHECK_LEVELS); do \
	    echo "== CUBEVM_ISA=$$l"; \
	    CUBEVM_ISA=$$l CUBEVM=$(abspath $(BIN)) BUILD=$(BUILD) prove -j$(CHECK_JOBS) -f --exec 'tests/run-one' \
	        $(ISA_TEST_BIN) || exit 1; \
	done
	@echo "== CUBEVM_ISA=bogus (every launch fails, naming it)"
	@CUBEVM_ISA=bogus CUBEVM=$(abspath $(BIN)) BUILD=$(BUILD) prove -f --exec 'tests/run-one' \
	    $(BUILD)/tests/test_isa

$(BUILD)/isa_levels: tools/isa_levels.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) $< $(LIB) $(LDLIBS_ALL) -o $@

# ---- robustness: fuzzing, ThreadSanitizer, Valgrind (docs/testing.md) ----
#
#   make fuzz       libFuzzer harnesses (clang, ASan+UBSan) in FUZZ_BUILD, each run
#                   FUZZ_SECONDS (default 60); fails on a finding or when all together
#                   execute fewer than FUZZ_MIN_EXECS inputs
#   make tsan       the scheduler/runtime tests built with -fsanitize=thread in
#                   TSAN_BUILD, run with tests/tsan.supp (kernel memory only)
#   make valgrind   VALGRIND_TESTS under valgrind --leak-check=full
#
# Each uses its own build directory and the portable switch dispatch. The fuzz
# build is -O0: clang with ASan+UBSan takes many minutes on vm/interp_run.c at -O1.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_MIN_EXECS ?= 0
FUZZ_HARNESSES := load exec spirv cuda npy
TSAN_BUILD ?= build-tsan
TSAN_TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_sched.c tests/test_runtime.c \
              tests/test_concurrency.c tests/test_race.c tests/test_launch_path.c tests/test_debugger.c \
              tests/test_racecheck.c tests/test_initcheck.c))
VALGRIND_BUILD ?= build-valgrind
# Not test_sched: its spin-wait kernels run into their 10 s timeouts at Valgrind speed.
VALGRIND_TESTS ?= test_fuzz_replay test_asm test_verify test_api test_oom test_debugger test_racecheck \
                  test_initcheck
VALGRIND := valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect
# Valgrind runs a program on one core, and none of the subset is timing-bound:
# one at a time per core, the longest (test_fuzz_replay, which splits its
# inputs over one child per core itself) first.
VALGRIND_JOBS ?= $(NPROC)
ROBUST_VARS = ISA=off DISPATCH=switch OPT="-O1 -g1"
# CI points VALGRIND_BUILD at the switch-dispatch check build and reuses it.
VALGRIND_VARS ?= $(ROBUST_VARS)

.PHONY: fuzz fuzz-build tsan valgrind
fuzz: fuzz-build
	FUZZ_HARNESSES="$(FUZZ_HARNESSES)" tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_MIN_EXECS)

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang ISA=off DISPATCH=switch OPT="-O0 -g" SAN=1 \
	    CFLAGS=-fsanitize=fuzzer-no-link SHA256_CFLAGS="-O2 -fno-sanitize-coverage=trace-cmp" FE_CFLAGS="-O1 -fno-sanitize-coverage=trace-cmp" \
	    $(FUZZ_BUILD)/bin/cubevm $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/fuzz/fuzz_%)

# SHA-256 (the module hash) is compiled optimized and without comparison
# tracing in the fuzz build: its branches teach the fuzzer nothing, and with
# trace-cmp at -O0 hashing a 1 MiB constant took 21 s (97% of fuzz_load's time
# on such inputs), which starved the fixed-count CI gate.
$(BUILD)/obj/bytecode/sha256.o: CFLAGS_ALL += $(SHA256_CFLAGS)
# The CUDA frontend is compiled at -O1 in the fuzz build: every input parses
# the built-in cuda_runtime.h (50 KB of declarations) first, which took 218 ms
# an input at -O0 (5 inputs a second).
$(BUILD)/obj/frontends/%.o: CFLAGS_ALL += $(FE_CFLAGS)

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_common.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -MF $@.d $(LDFLAGS_ALL) $< $(LIB) $(LDLIBS_ALL) -o $@

# gcc warns that TSan does not model atomic_thread_fence: only the kernel `fence`
# instruction uses it, and the memory it orders is kernel memory (suppressed).
# -fno-tree-pta as for SAN=1 (compile time of the instrumented interpreter).
tsan:
	$(MAKE) BUILD=$(TSAN_BUILD) $(ROBUST_VARS) CFLAGS="-fsanitize=thread -Wno-tsan -fno-tree-pta" \
	    $(TSAN_TESTS:%=$(TSAN_BUILD)/tests/%)
	TSAN_OPTIONS="suppressions=$(abspath tests/tsan.supp) halt_on_error=1 history_size=4" \
	    BUILD=$(TSAN_BUILD) prove -f --exec tests/run-one $(TSAN_TESTS:%=$(TSAN_BUILD)/tests/%)

valgrind:
	$(MAKE) BUILD=$(VALGRIND_BUILD) $(VALGRIND_VARS) $(VALGRIND_TESTS:%=$(VALGRIND_BUILD)/tests/%)
	prove -f -j$(or $(VALGRIND_JOBS),1) --exec 'timeout 600 $(VALGRIND)' $(VALGRIND_TESTS:%=$(VALGRIND_BUILD)/tests/%)

# The benchmark suite (docs/performance.md). Words after `make bench --` are
# passed to the harness, so they are swallowed here as goals.
ifeq ($(firstword $(MAKECMDGOALS)),bench)
BENCH_GOALS := $(wordlist 2,$(words $(MAKECMDGOALS)),$(MAKECMDGOALS))
$(eval $(BENCH_GOALS):;@:)
endif
bench: all
	@tools/bench/deps.sh
	@tools/bench/run.sh $(BUILD) $(BENCH_ARGS) $(BENCH_GOALS)

FORCE:

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(wildcard $(BUILD)/tests/*.d)
