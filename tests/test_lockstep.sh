#!/bin/sh
# test_lockstep.sh - the interpreter's tests once more with the planes of a
# cube never in lockstep (CUBEVM_LOCKSTEP=0), so the plane interpreter alone
# still passes them; `make check` runs them with lockstep on.
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/rerun.sh"
rerun "CUBEVM_LOCKSTEP=0" "with CUBEVM_LOCKSTEP=0" "" \
    test_cuda test_memory test_lockstep test_cuda_real test_plane test_conformance test_fuse \
    test_control test_sched
echo "1..$tap_n"
