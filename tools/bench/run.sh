#!/bin/sh
# run.sh BUILD [bench options] - builds the `make bench` harness against
# BUILD/lib/libcubevm.a and runs it from the repository root. The anchors
# (tools/bench/deps.sh) must be installed first for their contenders to take
# part: which optional pieces compile in is decided here, from what is on
# the machine, and a missing one is reported "unavailable" by the harness.
set -e
build=$1
shift
out=$build/bench
mkdir -p "$out"
cc=${CC:-cc}
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O3 -march=native -ffp-contract=off -fopenmp -g
       -Wall -Wextra -Wpedantic -Wshadow -Werror -Wno-format-truncation"
libs="-ldl -lm -lpthread"
if [ -f /usr/include/CL/cl.h ] && echo 'int main(void){return 0;}' | $cc -x c - -lOpenCL -o "$out/probe" 2>/dev/null; then
    flags="$flags -DBENCH_OPENCL -Wno-deprecated-declarations"
    libs="$libs -lOpenCL"
fi
if [ -f /usr/include/oneapi/dnnl/dnnl.h ] && echo 'int main(void){return 0;}' | $cc -x c - -ldnnl -o "$out/probe" 2>/dev/null; then
    flags="$flags -DBENCH_DNNL"
    libs="$libs -ldnnl"
fi
rm -f "$out/probe"
# shellcheck disable=SC2086 # word splitting of the flag lists is intended
$cc $flags tools/bench/bench.c tools/bench/cases.c tools/bench/cvm.c tools/bench/torch.c \
    tools/bench/ocl.c tools/bench/dnnl.c tools/bench/blas.c tools/bench/lavapipe.c "$build/lib/libcubevm.a" $libs -o "$out/bench"
BENCH_OUT=$out exec "$out/bench" "$@"
