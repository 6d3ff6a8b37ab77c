#!/bin/sh
# cgprof.sh - instructions per run of a bench kernel's native code, per
# instruction and per straight run of code, counted by callgrind.
#
#   tools/bench/cgprof.sh MICRO CASE [TOP]
#
# MICRO is a build of tools/bench/micro.c (docs/performance.md "Measuring
# one kernel"), CASE one of its cases; the MICRO_* variables pass through.
# Runs CASE 3 and 8 times under callgrind (--dump-instr=yes) with
# CUBEVM_JIT=on and CUBEVM_ISA (default x86-64-v3: callgrind has no
# AVX-512) and takes the difference over 5: one run, without the
# compile. callgrind cannot name the JIT's code, so a third run under
# valgrind stops at cvm_module_free through vgdb and dumps the code at the
# address callgrind reported (the same in every run under valgrind; not
# the address, nor always the code, of a run outside it: jitprof.sh's
# disassembly does not match). Prints the total, the counts that cover
# the most instructions (a count of 8192 in micro's softmax is 4 rounds
# of 2048 planes), and the costliest runs of instructions with one count;
# leaves the annotated disassembly in $OUT/cg.s (default /tmp/cgprof)
# (tools/bench/cgprof.py reads the profile and the dump).
# Needs valgrind, gdb, objdump and python3; run from the repository root.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 MICRO CASE [TOP]" >&2; exit 2; }
micro=$1 case=$2 top=${3:-25}
out=${OUT:-/tmp/cgprof}
mkdir -p "$out"
export CUBEVM_JIT=on CUBEVM_ISA="${CUBEVM_ISA:-x86-64-v3}"
for r in 3 8; do
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$out/cg.$r" "$micro" -t 1 -r "$r" "$case" \
        > /dev/null 2>&1
done
# the JIT's function: callgrind names it by its address, with no object
fn=$(callgrind_annotate "$out/cg.8" 2> /dev/null | grep '\[???\]' | grep -o '???:0x[0-9a-f]*' | head -n 1 | sed 's/^???://')
[ -n "$fn" ] || { echo "$0: no JIT code in the profile (did the kernel compile?)" >&2; exit 1; }
# one run's count per instruction of that function (8 runs minus 3, over
# 5), to per.json; prints the end of the code to dump
end=$(python3 "$(dirname "$0")/cgprof.py" counts "$out" "$fn")
valgrind --tool=callgrind --callgrind-out-file=/dev/null --vgdb=yes --vgdb-error=0 "$micro" -t 1 -r 1 "$case" \
    > /dev/null 2>&1 &
vg=$!
sleep 5
rm -f "$out/jit.bin"
gdb -q -batch -ex 'target remote | vgdb' -ex 'break cvm_module_free' -ex continue \
    -ex "dump binary memory $out/jit.bin $fn $end" -ex kill "$micro" > /dev/null 2>&1 || true
wait "$vg" 2> /dev/null || true
[ -s "$out/jit.bin" ] || { echo "$0: could not dump the code through vgdb" >&2; exit 1; }
objdump -D -b binary -m i386:x86-64 --adjust-vma="$fn" "$out/jit.bin" > "$out/jit.s"
python3 "$(dirname "$0")/cgprof.py" report "$out" "$top"
