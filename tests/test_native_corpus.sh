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
# native code never uses, and each of its ~1700 kernels costs LLVM ~50 ms;
# it runs as two shards at once (CVM_TEST_OPS_SHARD: every other group of
# kernels each), 104 s -> 58-68 s on two cores. The other programs run one at a time after it
# (test_sched's spin-waits want the cores to themselves).
# CVM_NATIVE_CORPUS=short leaves test_ops out altogether: CI's sanitizer
# stage sets it (the first stage runs it; under ASan it took minutes).
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/rerun.sh"
if "$BUILD/tests/test_native" 2>&1 | grep -q "skip no native tier"; then
    echo "1..0 # SKIP this build has no native tier"
    exit 0
fi
env_set="CUBEVM_JIT=on CVM_TEST_JIT_REPORT=1 CVM_TEST_OPS_PASSES=1"
mark='^# native: [1-9][0-9]* launches, .* refused, 0 narrow stacks'
[ "${CVM_NATIVE_CORPUS:-}" = short ] || rerun_shards "$env_set" "natively" "$mark" CVM_TEST_OPS_SHARD 2 test_ops
rerun "$env_set" "natively" "$mark" \
    test_conformance test_control test_memory test_plane test_sched test_interp \
    test_lockstep test_cuda test_cuda_samples test_cuda_real test_cuda_half2 test_cuda_lang
echo "1..$tap_n"
