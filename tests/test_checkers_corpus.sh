#!/bin/sh
# test_checkers_corpus.sh - the CUDA corpus tests once more under the race
# and uninitialized-read checkers (CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1,
# read by tests/cuda_run.h): every kernel there is correct code, so each
# must still pass and report nothing (a fault reported is a checker's
# mistake, or a real bug in the corpus).
BUILD=${BUILD:-build}
tests="test_cuda test_cuda_samples test_cuda_real test_cuda_half2"
n=0
for t in $tests; do n=$((n + 1)); done
echo "1..$n"
i=0
for t in $tests; do
    i=$((i + 1))
    if [ ! -x "$BUILD/tests/$t" ]; then
        echo "not ok $i - $t: $BUILD/tests/$t not built"
        continue
    fi
    if out=$(CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1 "$BUILD/tests/$t" 2>&1) &&
        ! printf '%s\n' "$out" | grep -q '^not ok' &&
        printf '%s\n' "$out" | grep -q '^# checks on: race init$'; then
        echo "ok $i - $t passes under the race and uninitialized-read checkers"
    else
        echo "not ok $i - $t fails under the checkers (or did not turn them on)"
        printf '%s\n' "$out" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
    fi
done
