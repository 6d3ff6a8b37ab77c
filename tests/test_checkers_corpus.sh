#!/bin/sh
# test_checkers_corpus.sh - the CUDA corpus tests once more under the race
# and uninitialized-read checkers (CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1,
# read by tests/cuda_run.h): every kernel there is correct code, so each
# must still pass and report nothing (a fault reported is a checker's
# mistake, or a real bug in the corpus).
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/rerun.sh"
rerun "CVM_TEST_RACECHECK=1 CVM_TEST_INITCHECK=1" "under the race and uninitialized-read checkers" \
    '^# checks on: race init$' test_cuda test_cuda_samples test_cuda_real test_cuda_half2
