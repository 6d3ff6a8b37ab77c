#!/bin/sh
# test_racecheck_corpus.sh - the CUDA corpus tests once more under the race
# checker (CVM_TEST_RACECHECK=1, read by tests/cuda_run.h): every kernel
# there is correct code, so each must still pass and report no race (a
# race reported is the checker's mistake, or a real bug in the corpus).
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
    if out=$(CVM_TEST_RACECHECK=1 "$BUILD/tests/$t" 2>&1) && ! printf '%s\n' "$out" | grep -q '^not ok' &&
        printf '%s\n' "$out" | grep -q '^# race check on'; then
        echo "ok $i - $t passes under the race checker"
    else
        echo "not ok $i - $t fails under the race checker (or did not turn it on)"
        printf '%s\n' "$out" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
    fi
done
