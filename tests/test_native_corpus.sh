#!/bin/sh
# test_native_corpus.sh - the interpreter's behaviour tests once more with
# every kernel compiled by the native tier at its first launch
# (CUBEVM_JIT=on; vm/jit.h): per-op results against tests/ops_ref.h, the
# conformance suite, control flow, memory, plane ops, scheduling (spin-waits
# between planes), the CUDA corpus. Each must pass as it does interpreted,
# and report native launches, none of whose threads fell back to the
# interpreter for want of stack (CVM_TEST_JIT_REPORT=1 prints the tier's
# counters at the end: the proof it ran). Skipped in a build without the
# native tier (test_native says which; it fails on its own if it fails).
#
# test_ops runs its first pass only (cubes of 37 units: a full and a partial
# plane): its second pass, two full planes, is there for lockstep, which
# native code never uses, and each of its ~1700 kernels costs LLVM ~0.2 s;
# it runs as two shards (CVM_TEST_OPS_SHARD: every other group of kernels
# each). The jobs run one per core (rerun.sh), the longest first.
# CVM_NATIVE_CORPUS=short leaves test_ops out altogether (under ASan its
# compiles take minutes); CVM_NATIVE_CORPUS=off skips the whole rerun: CI's
# sanitizer stage sets it, as the first stage runs the rerun in full and
# test_native covers the tier's own code under ASan there.
BUILD=${BUILD:-build}
if [ "${CVM_NATIVE_CORPUS:-}" = off ]; then
    echo "1..0 # SKIP CVM_NATIVE_CORPUS=off"
    exit 0
fi
. "$(dirname "$0")/lib/rerun.sh"
if "$BUILD/tests/test_native" 2>&1 | grep -q "skip no native tier"; then
    echo "1..0 # SKIP this build has no native tier"
    exit 0
fi
env_set="CUBEVM_JIT=on CVM_TEST_JIT_REPORT=1 CVM_TEST_OPS_PASSES=1"
mark='^# native: [1-9][0-9]* launches, .* refused, 0 narrow stacks'
shards=
[ "${CVM_NATIVE_CORPUS:-}" = short ] || shards="test_ops:CVM_TEST_OPS_SHARD=0/2 test_ops:CVM_TEST_OPS_SHARD=1/2"
rerun "$env_set" "natively" "$mark" $shards \
    test_cuda_lang test_cuda test_cuda_real test_cuda_samples test_memory test_lockstep test_plane \
    test_conformance test_control test_sched test_interp test_cuda_half2
echo "1..$tap_n"
