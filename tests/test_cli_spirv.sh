#!/bin/sh
# test_cli_spirv.sh - `cubevm spirv` (TAP): .cbs, .cbc and .cu inputs, -o
# and stdout, --kernel, --subgroup-size/--plane-width, and the errors
# (several kernels, an unknown kernel, a rejected kernel's diagnostic, bad
# widths). Output is checked with spirv-val when it is installed.
# Uses $CUBEVM (set by `make check`) and $TEST_TMPDIR.
C=${CUBEVM:-build/bin/cubevm}
T=${TEST_TMPDIR:-$(mktemp -d)}
n=0
failed=0
ok() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "$2"; }
show() { sed 's/^/# /' "$T/err"; }
# A SPIR-V module starts with the magic 0x07230203 (little-endian bytes 03 02 23 07).
magic() { [ "$(od -An -tx1 -N4 "$1" | tr -d ' ')" = "03022307" ]; }
if command -v spirv-val >/dev/null 2>&1; then
    valid() { spirv-val --target-env vulkan1.3 "$1" >"$T/val" 2>&1 || { sed 's/^/# /' "$T/val"; false; }; }
else
    echo "# spirv-val not installed: output checked for the SPIR-V magic only"
    valid() { magic "$1"; }
fi

run "$C" spirv docs/examples/vadd.cbs -o "$T/vadd.spv"
[ $rc -eq 0 ] && magic "$T/vadd.spv" && valid "$T/vadd.spv"
ok $? "a .cbs file to -o: a valid module"; [ $rc -eq 0 ] || show

run "$C" asm docs/examples/vadd.cbs -o "$T/vadd.cbc"
run "$C" spirv "$T/vadd.cbc"
[ $rc -eq 0 ] && cp "$T/out" "$T/stdout.spv" && cmp -s "$T/stdout.spv" "$T/vadd.spv"
ok $? "a .cbc file to stdout: the same words as from the .cbs"; [ $rc -eq 0 ] || show

run "$C" spirv tests/cuda/spmv_csr.cu --kernel spmvCsrScalar -o "$T/spmv.spv"
[ $rc -eq 0 ] && valid "$T/spmv.spv"
ok $? ".cu file, one of two kernels by --kernel"; [ $rc -eq 0 ] || show

run "$C" spirv tests/cuda/spmv_csr.cu -o "$T/x.spv"
[ $rc -eq 2 ] && has "2 kernels; name one" "$T/err" && [ ! -s "$T/x.spv" ]
ok $? "several kernels without --kernel: a usage error (exit 2) naming the count"; show

run "$C" spirv docs/examples/vadd.cbs --kernel nope -o "$T/x.spv"
[ $rc -eq 2 ] && has "no kernel named 'nope'" "$T/err"
ok $? "an unknown kernel name: exit 2"; show

# plane_vote needs width 32; lavapipe's subgroups are 8 wide: its plane ops sit in cube-uniform
# control flow, so they are emulated through shared memory
run "$C" spirv tests/conformance/plane_vote.cbs -o "$T/vote8.spv"
[ $rc -eq 0 ] && valid "$T/vote8.spv"
ok $? "a width-32 kernel in cube-uniform control flow on 8-wide subgroups: emulated"; [ $rc -eq 0 ] || show
# fence_flag's sync_plane is inside a branch on the unit position: not cube-uniform
run "$C" spirv tests/conformance/fence_flag.cbs -o "$T/x.spv"
[ $rc -eq 1 ] && has "sync_plane" "$T/err" && has "width 32" "$T/err" && has "8 wide" "$T/err" &&
    has "not cube-uniform" "$T/err"
ok $? "a width-32 op in divergent control flow: diagnostic names the op and both widths"; show
run "$C" spirv tests/conformance/plane_vote.cbs --subgroup-size 32 -o "$T/vote.spv"
[ $rc -eq 0 ] && valid "$T/vote.spv"
ok $? "--subgroup-size 32 translates it natively"; [ $rc -eq 0 ] || show
run "$C" spirv tests/conformance/plane_vote.cbs --subgroup-size 32 --plane-width 16 -o "$T/x.spv"
[ $rc -eq 1 ] && has "needs plane width 32, the launch has 16" "$T/err"
ok $? "--plane-width other than the kernel's requirement"; show

# every option that takes a value also takes it as --opt=VALUE, as in run
run "$C" spirv tests/conformance/plane_vote.cbs --kernel=plane_vote --subgroup-size=32 --plane-width=32 -o "$T/vote=.spv"
[ $rc -eq 0 ] && cmp -s "$T/vote=.spv" "$T/vote.spv"
ok $? "--kernel=, --subgroup-size=, --plane-width=: the same module as the spaced forms"; [ $rc -eq 0 ] || show
run "$C" spirv docs/examples/vadd.cbs --plane-width= -o "$T/x.spv"
[ $rc -eq 2 ] && has "spirv: option --plane-width needs a value" "$T/err"
ok $? "--plane-width= without a value says it needs one"; show
for opt in "--kernel vadd" "--subgroup-size 8" "--plane-width 8"; do
    run "$C" spirv docs/examples/vadd.cbs $opt $opt -o "$T/x.spv"
    [ $rc -eq 2 ] && has "spirv: ${opt% *} is given more than once" "$T/err"
    ok $? "spirv: a repeated ${opt% *} is refused, not last-one-wins"; show
done
run "$C" spirv docs/examples/vadd.cbs --plane-width 3
[ $rc -eq 2 ] && has "power of two" "$T/err"
ok $? "--plane-width 3: usage error"; show
run "$C" spirv docs/examples/vadd.cbs --subgroup-size 0
[ $rc -eq 2 ]
ok $? "--subgroup-size 0: usage error"; show
run "$C" spirv
[ $rc -eq 2 ] && has "usage: cubevm spirv" "$T/err"
ok $? "no FILE: usage"; show
run "$C" spirv "$T/missing.cbs" -o "$T/x.spv"
[ $rc -eq 1 ]
ok $? "a missing file fails"; show
printf 'not a module' >"$T/bad.cbc"
run "$C" spirv "$T/bad.cbc" -o "$T/x.spv"
[ $rc -eq 1 ] && [ -s "$T/err" ]
ok $? "bytes that are not a module: an error"; show

echo "1..$n"
[ $failed -eq 0 ]
