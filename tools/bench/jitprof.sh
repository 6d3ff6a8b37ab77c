#!/bin/sh
# jitprof.sh - where a bench kernel's native code spends its time.
#
#   tools/bench/jitprof.sh MICRO CASE [RUNS]
#
# MICRO is a build of tools/bench/micro.c (docs/performance.md "Measuring
# one kernel"), CASE one of its cases; the MICRO_* variables pass through.
# perf samples the run (cpu-clock: no hardware counters needed) with
# address randomization off, gdb stops the same command once its kernels
# are compiled and dumps the executable anonymous mapping (the ORC JIT's
# code), and objdump disassembles it at its address. Prints the share of
# the run in native code and in the library, then the hottest 64-byte
# spans of native code; the disassembly is left in $OUT/jit.s (default
# /tmp/jitprof) to read around those addresses. Needs perf, gdb, objdump
# and python3; run from the repository root.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 MICRO CASE [RUNS]" >&2; exit 2; }
micro=$1 case=$2 runs=${3:-300}
out=${OUT:-/tmp/jitprof}
mkdir -p "$out"
export CUBEVM_JIT=on
setarch -R perf record -q -e cpu-clock -o "$out/perf.data" "$micro" -t 1 -r "$runs" "$case" > /dev/null
perf report -i "$out/perf.data" --no-children --sort dso --stdio 2> /dev/null | grep '%' | head -5
# the last executable mapping without a file: the JIT's code
range=$(setarch -R gdb -q -batch -ex 'set pagination off' -ex 'break cvm_module_free' -ex run \
        -ex 'info proc mappings' --args "$micro" -t 1 -r 1 "$case" 2> /dev/null |
        awk '$5 ~ /x/ && NF == 5 { lo = $1; hi = $2 } END { print lo, hi }')
set -- $range
[ $# -eq 2 ] || { echo "$0: no JIT mapping found (did the kernel compile?)" >&2; exit 1; }
setarch -R gdb -q -batch -ex 'set pagination off' -ex 'break cvm_module_free' -ex run \
    -ex "dump binary memory $out/jit.bin $1 $2" --args "$micro" -t 1 -r 1 "$case" > /dev/null 2>&1
objdump -D -b binary -m i386:x86-64 --adjust-vma="$1" "$out/jit.bin" > "$out/jit.s"
perf report -i "$out/perf.data" --no-children --sort sym --stdio 2> /dev/null |
    awk -v lo="$1" -v hi="$2" '$1 ~ /%$/ && $3 ~ /^0x/ { print $1, $3, lo, hi }' |
    python3 -c '
import sys, collections
spans, total = collections.Counter(), 0.0
for line in sys.stdin:
    pct, addr, lo, hi = line.split()
    a = int(addr, 16)
    if int(lo, 16) <= a < int(hi, 16):
        p = float(pct.rstrip("%"))
        spans[a >> 6 << 6] += p
        total += p
print("native code: %.1f%% of the samples; hottest 64-byte spans:" % total)
for a, p in spans.most_common(12):
    print("  %#x  %5.2f%%" % (a, p))
'
echo "disassembly: $out/jit.s"
