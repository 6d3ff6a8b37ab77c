#!/bin/sh
# test_checkers_corpus.sh - the CUDA corpus tests once more under the race
# and uninitialized-read checkers (CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1,
# read by tests/cuda_run.h): every kernel there is correct code, so each
# must still pass and report nothing (a fault reported is a checker's
# mistake, or a real bug in the corpus). Then the race checker's own tests
# with its self-check (CUBEVM_RACE_SELFCHECK=1: every clock also kept whole
# and compared with the compact form after each step; a difference is an
# internal fault; the corpus passes it too, but at units x plane width
# steps per instruction its larger launches take too long for a test).
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/rerun.sh"
rerun "CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1" "under the race and uninitialized-read checkers" \
    '^# checks on: race init$' test_cuda test_cuda_samples test_cuda_real test_cuda_half2
rerun "CVM_TEST_RACECHECK=1 CUBEVM_RACE_SELFCHECK=1" "with the race checker's self-check" "" \
    test_racecheck
echo "1..$tap_n"
