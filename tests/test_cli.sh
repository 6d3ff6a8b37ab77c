#!/bin/sh
# test_cli.sh - the `cubevm` command end to end (TAP). Uses $CUBEVM (the
# binary under test, set by `make check`) and $TEST_TMPDIR. Expected .npy
# bytes are written by hand with printf, independently of cubevm's writer.
C=${CUBEVM:-build/bin/cubevm}
case $C in /*) ;; *) C=$PWD/$C ;; esac # some cases run it from another directory
T=${TEST_TMPDIR:-$(mktemp -d)}
EX=docs/examples
n=0
failed=0

ok() { # ok COND-EXIT-STATUS NAME
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
# run CMD...: runs with stdout/stderr captured into $T/out, $T/err; status in $rc
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "$2"; }
show() { sed 's/^/# /' "$T/err" "$T/out"; }
# a clean error: non-zero, not a signal, "cubevm: error:" on stderr
clean_error() { [ $rc -ne 0 ] && [ $rc -lt 128 ] && has "^cubevm: error: " "$T/err"; }

# --help / --version
run "$C" --help
ok $? "--help exits 0"
for word in "asm IN.cbs -o OUT.cbc" "disasm IN.cbc" "verify FILE" "info FILE" "--kernel NAME" \
    "--grid X" "--block X" "--shared BYTES" "--device NAME" "--plane-width N" "--timeout SECONDS" \
    "--steps N" "--unchecked" "--out NAME=PATH" "--print NAME" "NAME=@PATH.npy" "zeros:N" \
    "rand:N" "NAME=VALUE"; do
    has "$word" "$T/out"; ok $? "--help mentions $word"
done
for cmd in run compile spirv asm info; do
    run "$C" $cmd some.cu --help
    [ $rc -eq 0 ] && has "cubevm run FILE" "$T/out"; ok $? "cubevm $cmd ... --help prints the usage"
done
# the run usage of --help is docs/cli.md's, and shows the devices --device takes
"$C" --help | sed -n '/^cubevm run FILE \[--kernel/,/\[NAME=VALUE\]\.\.\.$/p' >"$T/help_run"
sed -n '/^cubevm run FILE \[--kernel/,/\[NAME=VALUE\]\.\.\.$/p' docs/cli.md >"$T/doc_run"
[ -s "$T/help_run" ] && cmp -s "$T/help_run" "$T/doc_run" && has "\[--device cpu|vulkan\[:N\]\]" "$T/help_run"
ok $? "the run usage lines of --help and docs/cli.md match and show --device cpu|vulkan[:N]"
run "$C" --version
[ $rc -eq 0 ] && has "^cubevm [0-9]*\.[0-9]*\.[0-9]*$" "$T/out"; ok $? "--version prints the version"
# --help does not hide a mistyped command, and --version takes nothing after it
run "$C" bogus --help
[ $rc -eq 2 ] && has "unknown command 'bogus'" "$T/err" && [ ! -s "$T/out" ]
ok $? "an unknown command is an error (exit 2) even with --help"
run "$C" --bogus -h
[ $rc -eq 2 ] && has "unknown option '--bogus'" "$T/err"; ok $? "an unknown option before -h is an error"
run "$C" --version extra
[ $rc -eq 2 ] && has "cubevm: error: --version: unexpected argument 'extra'" "$T/err" && [ ! -s "$T/out" ]
ok $? "--version with an argument after it is a usage error"
run "$C" help run
[ $rc -eq 0 ] && has "^cubevm run FILE" "$T/out"; ok $? "help run prints the usage text"
run "$C" help bogus
[ $rc -eq 2 ] && has "help: unexpected argument 'bogus'" "$T/err" && [ ! -s "$T/out" ]
ok $? "help followed by a word that is no command is a usage error (it printed the help)"

# asm / verify / disasm / info on every example; text -> binary -> text -> binary is stable
for f in $EX/*.cbs; do
    b=$(basename "$f" .cbs)
    run "$C" asm "$f" -o "$T/$b.cbc"
    ok $rc "asm $b.cbs"
    run "$C" verify "$T/$b.cbc"
    [ $rc -eq 0 ] && has ": ok$" "$T/out"; ok $? "verify $b.cbc prints ok"
    run "$C" verify "$f"
    [ $rc -eq 0 ] && has "^$f: ok$" "$T/out"; ok $? "verify $b.cbs prints ok"
    run "$C" disasm "$T/$b.cbc" -o "$T/$b.dis.cbs"
    ok $rc "disasm $b.cbc -o"
    "$C" asm "$T/$b.dis.cbs" -o "$T/$b.2.cbc" && cmp -s "$T/$b.cbc" "$T/$b.2.cbc"
    ok $? "$b: disassembled text assembles to the same bytes"
    run "$C" disasm "$T/$b.cbc"
    cmp -s "$T/out" "$T/$b.dis.cbs"; ok $? "$b: disasm to stdout equals -o output"
    run "$C" info "$f"
    [ $rc -eq 0 ] && has "^kernel $b(" "$T/out" && has "requires: plane width" "$T/out"
    ok $? "info $b.cbs lists kernel $b and its requirements"
done
# make demo's CUDA example: x = 1..1000 in four blocks of 256; the sums by hand:
# block b adds 256b+1 .. min(256b+256, 1000) = 32896, 98432, 163968, 205204
run "$C" run $EX/block_sum.cu --kernel 'block_sum<256>' --grid 4 --block 256 \
    x=@$EX/block_sum_x.npy partial=zeros:4 n=1000 --print partial
[ $rc -eq 0 ] && has "^partial: 32896 98432 163968 205204$" "$T/out"
ok $? "docs/examples/block_sum.cu (make demo) gives the block sums"; [ $rc -eq 0 ] || show

run "$C" info $EX/vadd.cbs
has "param a  *buffer f32 read" "$T/out" && has "param c  *buffer f32 write" "$T/out" &&
    has "param n  *scalar u32" "$T/out"
ok $? "info vadd: parameter kinds, types and access"

# run vadd: .npy in, --out, compared with hand-written bytes
{
    printf '\223NUMPY\001\000v\000'
    printf "%s" "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }"
    printf '%60s\n' ''
    # 0 11 22 33 44 55 66 77 as little-endian f32
    printf '\000\000\000\000\000\000\060\101\000\000\260\101\000\000\004\102'
    printf '\000\000\060\102\000\000\134\102\000\000\204\102\000\000\232\102'
} >"$T/want_c.npy"
run "$C" run $EX/vadd.cbs --grid 1 --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 \
    --out c="$T/c.npy" --print c
ok $rc "run vadd.cbs"
[ $rc -eq 0 ] || show
cmp -s "$T/c.npy" "$T/want_c.npy"; ok $? "vadd --out c.npy matches the expected bytes"
has "^c: 0 11 22 33 44 55 66 77$" "$T/out"; ok $? "--print c shows the first 8 elements"
run "$C" run "$T/vadd.cbc" --grid=2 --block=4 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 \
    --out=c="$T/c2.npy" --print c:3
[ $rc -eq 0 ] && cmp -s "$T/c2.npy" "$T/want_c.npy" && has "^c: 0 11 22 \.\.\. (8 elements)$" "$T/out"
ok $? "run vadd.cbc with --opt=value forms and --print c:3"
if python3 -c 'import numpy' 2>/dev/null; then
    python3 -c "import numpy as np, sys; a = np.load(sys.argv[1]); assert a.dtype == np.float32 and list(a) == [0, 11, 22, 33, 44, 55, 66, 77]" "$T/c.npy"
    ok $? "numpy reads the --out file"
else
    n=$((n + 1)); echo "ok $n # skip numpy not installed"
fi
run "$C" run $EX/vadd.cbs --grid 1 --block 64 a=rand:64:7 b=rand:64:7 c=zeros:64 n=64 --print c:64
[ $rc -eq 0 ] && has "^c: " "$T/out"; ok $? "rand: and zeros: buffers"
run "$C" run $EX/vadd.cbs --grid 1 --block 8 a=rand:8 b=rand:8 c=zeros:8:f32 n=8
[ $rc -eq 2 ] && has "zeros takes a count alone (zeros:N; the element type is the parameter's, f32)" "$T/err"
ok $? "zeros:N:TYPE says zeros takes a count alone"

# scalars, kernel selection, print output
run "$C" run tests/cli/two.cbs v=-5 w=0x10
[ $rc -eq 2 ] && has "2 kernels (hello, noop)" "$T/err"; ok $? "several kernels: --kernel required, kernels listed"
run "$C" run tests/cli/two.cbs --kernel hello v=-5 w=0x10
[ $rc -eq 0 ] && has "v=-5 w=16" "$T/out"; r=$?
ok $r "scalars (negative, hex) reach the kernel; print goes to stdout"
[ $r -eq 0 ] || show
run "$C" run tests/cli/two.cbs --kernel nope
clean_error && has "no kernel 'nope'" "$T/err"; ok $? "unknown kernel"
run "$C" run tests/cli/two.cbs --kernel noop
ok $rc "kernel without parameters"

# argument errors
run "$C" run $EX/vadd.cbs a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8
clean_error && has "missing argument for parameter: n" "$T/err"; ok $? "missing parameter named"
run "$C" run $EX/vadd.cbs a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 m=1
clean_error && has "no parameter 'm'" "$T/err"; ok $? "unknown parameter named"
run "$C" run $EX/vadd.cbs a=@$EX/vadd_a.npy a=@$EX/vadd_a.npy b=zeros:8 c=zeros:8 n=8
clean_error && has "'a' is given more than once" "$T/err"; ok $? "duplicate parameter"
run "$C" run $EX/vadd.cbs --frobnicate a=zeros:1
[ $rc -eq 2 ] && has "unknown option '--frobnicate'" "$T/err"; ok $? "unknown option: exit 2"
run "$C" run $EX/vadd.cbs a=zeros:8 b=zeros:8 c=zeros:8 n=eight
clean_error && has "'n' (u32): 'eight'" "$T/err"; ok $? "bad number"
run "$C" run $EX/vadd.cbs a=zeros:8 b=zeros:8 c=zeros:8 n=4294967296
clean_error && has "out of range" "$T/err"; ok $? "number out of range for u32"
run "$C" run $EX/vadd.cbs a=zeros:8 b=zeros:8 c=zeros:8 n=18446744073709551616
clean_error && has "out of range" "$T/err"; ok $? "a number past 2^64 - 1 is out of range, not malformed"
run "$C" run $EX/vadd.cbs a=@ b=zeros:8 c=zeros:8 n=8
clean_error && has "parameter 'a': '@' needs a path" "$T/err"; ok $? "a=@ without a path names the parameter"
run "$C" run tests/cli/floats.cbs out=zeros:3 h=65504 s=inf d=-1e-400 --print out
[ $rc -eq 0 ] && has "^out: 65504 inf -0$" "$T/out"; ok $? "float scalars: f16 max, inf, a double that rounds to -0"
# 65519.999 rounds to 65504 in f16; through f32 first it would be 65520, then inf
run "$C" run tests/cli/floats.cbs out=zeros:3 h=65519.999 s=0.1 d=0.1 --print out
[ $rc -eq 0 ] && has "^out: 65504 0.10000000149011612 0.10000000000000001$" "$T/out"; ok $? "f16 scalars round once"
# just above the midpoints 1 + 2^-24 (f32) and 1 + 2^-11 (f16): a double in between would round
# them down to 1 (the double is the midpoint, a tie to even); the exact f16 midpoint is a tie
run "$C" run tests/cli/floats.cbs out=zeros:3 h=1.00048828125000000000000001 s=1.0000000596046448 d=0 --print out
[ $rc -eq 0 ] && has "^out: 1.0009765625 1.0000001192092896 0$" "$T/out"; ok $? "f32 and f16 scalars round the text once"
run "$C" run tests/cli/floats.cbs out=zeros:3 h=1.00048828125 s=1 d=0 --print out
[ $rc -eq 0 ] && has "^out: 1 1 0$" "$T/out"; ok $? "an f16 scalar exactly halfway rounds to even"
printf '.kernel k\n.param o buffer f16 write\n.reg ptr.global %%p\n.reg f16 %%x\n    param.ptr.global %%p, o, 0\n    const.f16 %%x, 1.00048828125000000000000001\n    st.f16 [%%p], %%x\n    return\n.end\n' >"$T/lit16.cbs"
run "$C" disasm "$T/lit16.cbs"
[ $rc -eq 0 ] && has "const.f16 %r1, 0x1.004p+0" "$T/out"; ok $? "an f16 literal in .cbs text rounds once"
for bad in "h=65520 s=1 d=1" "h=1 s=1e39 d=1" "h=1 s=1 d=1e400" "h=1 s=-4e38 d=1"; do
    run "$C" run tests/cli/floats.cbs out=zeros:3 $bad
    clean_error && has "out of range for the type" "$T/err"; ok $? "float scalar too large for its type: $bad"
done
run "$C" run $EX/vadd.cbs a=zeros:999999999999999 b=zeros:8 c=zeros:8 n=8
clean_error && has "out of memory: buffer 'a'" "$T/err"; ok $? "absurd zeros: count: clean out-of-memory error"
run "$C" run $EX/vadd.cbs --block 2000 a=zeros:8 b=zeros:8 c=zeros:8 n=8
clean_error && has "1024" "$T/err"; ok $? "too many units per cube"
run "$C" run $EX/vadd.cbs --plane-width 3 a=zeros:8 b=zeros:8 c=zeros:8 n=8
clean_error && has "power of two" "$T/err"; ok $? "bad plane width"
run "$C" run $EX/vadd.cbs --device vulkan:99 a=zeros:8 b=zeros:8 c=zeros:8 n=8
clean_error && has "not available" "$T/err"; ok $? "unavailable device"
{
    printf '\223NUMPY\001\000v\000'
    printf "%s" "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }"
    printf '%60s\n' ''
    printf '\001\000\000\000\002\000\000\000'
} >"$T/i32.npy"
run "$C" run $EX/vadd.cbs a=@"$T/i32.npy" b=zeros:2 c=zeros:2 n=2
clean_error && has "dtype '<i4'" "$T/err" && has "f32" "$T/err"; ok $? "wrong dtype names both types"
head -c 60 "$T/i32.npy" >"$T/short.npy"
run "$C" run $EX/vadd.cbs a=@"$T/short.npy" b=zeros:2 c=zeros:2 n=2
clean_error && has "short.npy" "$T/err"; ok $? "truncated .npy: clean error naming the file"
run "$C" run $EX/vadd.cbs a=@"$T/none.npy" b=zeros:2 c=zeros:2 n=2
clean_error && has "none.npy: No such file" "$T/err"; ok $? "missing .npy"
run "$C" run "$T/nothing.cbc"
clean_error && has "nothing.cbc" "$T/err"; ok $? "missing module file"
run "$C" run $EX/vadd.cbs a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --out c="$T/no/dir/c.npy"
clean_error && has "no/dir/c.npy" "$T/err"; ok $? "unwritable --out path"

# kernel faults: out of bounds, runaway loop
run "$C" run tests/cli/oob.cbs --grid 1 --block 8 outbuf=zeros:4
clean_error && has "outbuf" "$T/err" && has "cube (0,0,0)" "$T/err" && has "unit (4,0,0)" "$T/err" &&
    has "pc [0-9]" "$T/err" && has "line oob.cu:12" "$T/err"
r=$?
ok $r "out-of-bounds store: non-zero, buffer name, cube, unit, pc and source line on stderr"
[ $r -eq 0 ] || show
run "$C" run tests/cli/oob.cbs --grid 1 --block 4 outbuf=zeros:4 --print outbuf
[ $rc -eq 0 ] && has "^outbuf: 0 1 2 3$" "$T/out"; ok $? "the same kernel in bounds"
run "$C" run tests/cli/spin.cbs --steps 10000
clean_error; ok $? "--steps turns a runaway loop into a fault"
run "$C" run tests/cli/spin.cbs --timeout 0.2
clean_error; ok $? "--timeout turns a runaway loop into a fault"
# an option without its value says so, for every command
for args in "asm $EX/vadd.cbs -o" "disasm $T/vadd.cbc -o" "compile x.cu --kernel" "compile x.cu --kernel=" \
    "spirv $T/vadd.cbc --subgroup-size" "spirv $T/vadd.cbc --plane-width=" "run $EX/vadd.cbs --grid" \
    "run $EX/vadd.cbs --kernel=" "info $EX/vadd.cbs --kernel"; do
    run "$C" $args
    clean_error && has "needs a value" "$T/err"; ok $? "cubevm $args: the option needs a value"
done
run "$C" run $EX/vadd.cbs --plane-width 0 a=zeros:1 b=zeros:1 c=zeros:1 n=1
clean_error && has "power of two from 1 to 64" "$T/err"; ok $? "--plane-width 0 is refused"
# a .cbs that assembles but does not verify: the error at the instruction's line and column
printf '.kernel k\n.reg i32 %%r0\n    add.i32 %%r0, %%r0, %%r0\n    ld.i32 %%r0, [%%r0]\n    return\n.end\n' >"$T/uv.cbs"
run "$C" verify "$T/uv.cbs"
[ $rc -eq 1 ] && has "uv.cbs:4:5: kernel 'k' pc 1 (ld): operand 2 %r0 has type i32, expected a pointer$" "$T/err"
ok $? "verify of a .cbs: a verifier error at the instruction's line:col"
run "$C" asm "$T/uv.cbs" -o "$T/uv.cbc"
[ $rc -eq 1 ] && [ ! -e "$T/uv.cbc" ] && has "uv.cbs:4:5: " "$T/err"
ok $? "asm of a module that does not verify fails and writes nothing"
run "$C" disasm $EX/vadd.cbs
[ $rc -eq 0 ] && "$C" asm $EX/vadd.cbs -o "$T/vd.cbc" && "$C" disasm "$T/vd.cbc" | cmp -s - "$T/out"
ok $? "disasm of a .cbs file prints its canonical text (as disasm of its .cbc)"
# --print counts elements of the parameter's type: lines of f32x4
run "$C" run tests/cli/lines.cbs --block 3 out=zeros:3 --print out:2
[ $rc -eq 0 ] && has "^out: 0 0.5 -0 0 1 1.5 -1 2 ... (3 elements)$" "$T/out"
ok $? "--print out:2 of an f32x4 buffer shows two lines of four, of 3 elements"
run "$C" run $EX/vadd.cbs --profile sm_99 a=zeros:1 b=zeros:1 c=zeros:1 n=1
[ $rc -eq 2 ] && has "unknown profile 'sm_99' (known: generic, sm_80, sm_90, lavapipe)" "$T/err"
ok $? "an unknown --profile is a command-line error (exit 2) listing the profiles"
# info --kernel lists the named kernels alone, and refuses a missing one
run "$C" info $EX/vadd.cbs --kernel vadd
[ $rc -eq 0 ] && has "^kernel vadd(" "$T/out" && ! has "1 kernel" "$T/out"; ok $? "info --kernel vadd lists it alone"
run "$C" info $EX/vadd.cbs --kernel nosuch
clean_error && has "has no kernel 'nosuch'" "$T/err"; ok $? "info --kernel of a missing kernel is an error"
# a billion short cubes: the deadline is read between cubes too
run "$C" run $EX/vadd.cbs --grid 1000000000 --block 32 --timeout 0.2 a=zeros:1 b=zeros:1 c=zeros:1 n=1
clean_error && has "timeout after" "$T/err"; ok $? "--timeout stops a launch of many short cubes"
# 2^22 x 2^21 x 2^21 cubes is 2^64: refused, not wrapped to none
run "$C" run $EX/vadd.cbs --grid 4194304,2097152,2097152 a=zeros:1 b=zeros:1 c=zeros:1 n=1
clean_error && has "2^64 cubes or more" "$T/err"; ok $? "a grid of 2^64 cubes is refused"

# corrupted modules: truncations and byte flips never crash
size=$(wc -c <"$T/vadd.cbc")
bad=0
for cut in 0 1 8 16 40 100 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$T/vadd.cbc" >"$T/cut.cbc"
    run "$C" verify "$T/cut.cbc"; clean_error || bad=$((bad + 1))
    run "$C" run "$T/cut.cbc" a=zeros:1 b=zeros:1 c=zeros:1 n=1; clean_error || bad=$((bad + 1))
done
ok $bad "truncated .cbc files give clean errors"
bad=0
i=0
while [ $i -lt "$size" ]; do
    cp "$T/vadd.cbc" "$T/flip.cbc"
    printf '\377' | dd of="$T/flip.cbc" bs=1 seek=$i conv=notrunc 2>/dev/null
    run "$C" run "$T/flip.cbc" --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8
    [ $rc -lt 128 ] || bad=$((bad + 1))
    [ $rc -eq 0 ] || has "^cubevm: error: " "$T/err" || bad=$((bad + 1))
    i=$((i + 37))
done
ok $bad "byte-flipped .cbc files never crash run"

# output files: a failed write (here past a file-size limit) leaves the old file whole, and
# output paths are checked before the launch
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/keep.npy"
cp "$T/keep.npy" "$T/keep0.npy"
(trap '' XFSZ; ulimit -f 1; "$C" run $EX/vadd.cbs --grid 40 --block 256 a=rand:10000 b=rand:10000 c=zeros:10000 \
    n=10000 --out c="$T/keep.npy" >"$T/out" 2>"$T/err"); rc=$?
[ $rc -eq 1 ] && has "keep.npy: write error" "$T/err" && cmp -s "$T/keep.npy" "$T/keep0.npy" && ! ls "$T"/keep.npy.*.tmp >/dev/null 2>&1
ok $? "--out: a write that fails leaves the old file as it was"
chmod 600 "$T/keep.npy"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/keep.npy"
[ $rc -eq 0 ] && [ "$(stat -c %a "$T/keep.npy")" = 600 ]; ok $? "--out keeps the replaced file's permissions"
rm -f "$T/dang.npy" "$T/dangtarget.npy"; ln -s dangtarget.npy "$T/dang.npy"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/dang.npy"
[ $rc -eq 0 ] && [ -L "$T/dang.npy" ] && [ -f "$T/dangtarget.npy" ]; ok $? "--out through a dangling link creates its target"
"$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c=/dev/stdout 2>"$T/err" | wc -c >"$T/out"
[ "$(cat "$T/out")" -eq 160 ]; ok $? "--out to /dev/stdout through a pipe"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/nodir/x.npy"
[ $rc -eq 1 ] && has "no such directory" "$T/err"; ok $? "--out into a missing directory fails before the launch"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/x.npy" --out a="$T/x.npy"
[ $rc -eq 2 ] && has "write the same file" "$T/err"; ok $? "two --out to one file is a usage error"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/x.npy" --out a="$T/./x.npy"
[ $rc -eq 2 ] && has "write the same file" "$T/err"; ok $? "two --out to one file spelled apart (./) is a usage error"
rm -f "$T/xl.npy"; ln -s x.npy "$T/xl.npy"
run "$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c="$T/x.npy" --out a="$T/xl.npy"
[ $rc -eq 2 ] && has "write the same file" "$T/err"; ok $? "two --out to one file through a link is a usage error"
# --out never writes over a file the run reads (as asm/compile -o): the module, however spelled,
# or a NAME=@PATH.npy input; refused before the launch, the file left as it was
cp $EX/vadd.cbs "$T/vin.cbs"
(cd "$T" && "$C" run ./vin.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --out c=vin.cbs >out 2>err); rc=$?
[ $rc -eq 2 ] && has "run: --out c=vin.cbs is the input file: it would be overwritten" "$T/err" &&
    cmp -s "$T/vin.cbs" $EX/vadd.cbs
ok $? "run: an --out naming the module file is a usage error and leaves it alone"
cp $EX/vadd_a.npy "$T/ain.npy"
run "$C" run $EX/vadd.cbs --block 8 a=@"$T/ain.npy" b=rand:8 c=zeros:8 n=8 --out c="$T/./ain.npy"
[ $rc -eq 2 ] && has "is the input file of a=@$T/ain.npy: it would be overwritten" "$T/err" &&
    cmp -s "$T/ain.npy" $EX/vadd_a.npy
ok $? "run: an --out naming a NAME=@PATH.npy input is a usage error and leaves it alone"
# an --out that fails after the launch (/dev/full: written in place, ENOSPC) keeps the others
rm -f "$T/later.npy"
if [ -w /dev/full ]; then
    run "$C" run $EX/vadd.cbs --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --out c=/dev/full \
        --out a="$T/later.npy"
    [ $rc -eq 1 ] && has "No space left" "$T/err" && [ -s "$T/later.npy" ]
    ok $? "a failing --out still lets the later ones be written"
fi
run "$C" verify /dev/zero
clean_error && has "not a regular file" "$T/err"; ok $? "verify of a device is refused before reading it"
cp $EX/vadd.cbs "$T/v.txt"
run "$C" verify "$T/v.txt"
clean_error && has "looks like text" "$T/err"; ok $? "a .cbs file under another name gets a hint"
run "$C" compile $EX/vadd.cbs -o "$T/v.cbc"
[ $rc -eq 2 ] && has "use 'cubevm asm'" "$T/err"; ok $? "compile of assembly text names asm"
# inputs of the wrong kind are named
"$C" asm $EX/vadd.cbs -o "$T/w.cbc" >/dev/null 2>&1
run "$C" asm "$T/w.cbc" -o "$T/w2.cbc"
[ $rc -eq 1 ] && has "a binary .cbc module, not .cbs text" "$T/err"; ok $? "asm of a .cbc names it"
for cmd in verify disasm; do
    run "$C" $cmd $EX/block_sum.cu
    [ $rc -eq 1 ] && has "CUDA C source, not a module; compile it with 'cubevm compile'" "$T/err"
    ok $? "$cmd of a .cu file points at compile"
done
printf '\223NUMPY' >"$T/short.npy"
run "$C" run $EX/vadd.cbs a=@"$T/short.npy" b=zeros:8 c=zeros:8 n=8
[ $rc -eq 1 ] && has "truncated .npy file (6 bytes" "$T/err"; ok $? "a .npy file cut after its magic is called truncated"
rm -f "$T/fifo.npy"; mkfifo "$T/fifo.npy"
run timeout 10 "$C" run $EX/vadd.cbs a=@"$T/fifo.npy" b=zeros:8 c=zeros:8 n=8
[ $rc -eq 1 ] && has "not a regular file" "$T/err"; ok $? "a FIFO as a .npy path is refused without blocking"
run "$C" run $EX/vadd.cbs --threads 2000 a=zeros:8 b=zeros:8 c=zeros:8 n=8
[ $rc -eq 2 ] && has "run: --threads '2000': expected an integer from 1 to 1024" "$T/err"; ok $? "--threads past 1024 is a usage error"
# the cpu-only settings are refused on a Vulkan device, not silently ignored
if "$C" devices 2>/dev/null | grep -q '^vulkan:0'; then
    run "$C" run $EX/vadd.cbs --device vulkan --threads 4 --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --print c
    [ $rc -eq 1 ] && [ ! -s "$T/out" ] &&
        has "^cubevm: error: device 'vulkan:[0-9]*' cannot run the cubes on 4 worker threads: .*(worker threads are a cpu device setting)$" "$T/err"
    ok $? "run --device vulkan --threads 4 is refused as --schedule is"; [ $rc -eq 1 ] || show
    run "$C" run $EX/vadd.cbs --device vulkan --schedule sequential --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8
    [ $rc -eq 1 ] && has "(schedules are a cpu device setting)$" "$T/err"; ok $? "run --device vulkan --schedule sequential is refused"
    run "$C" run $EX/vadd.cbs --device vulkan --tier native --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8
    [ $rc -eq 1 ] && has "cannot take --tier: .*(tiers are a cpu device setting)$" "$T/err"
    ok $? "run --device vulkan --tier native is refused"
else
    n=$((n + 1)); echo "ok $n # skip no Vulkan device"
    n=$((n + 1)); echo "ok $n # skip no Vulkan device"
    n=$((n + 1)); echo "ok $n # skip no Vulkan device"
fi
# --tier: every engine gives the same result; bad values are usage errors
for tier in default interp native; do
    run "$C" run $EX/vadd.cbs --tier $tier --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c
    [ $rc -eq 0 ] && has "^c: 0 11 22 33 44 55 66 77$" "$T/out"; ok $? "run --tier $tier"
done
run "$C" run $EX/vadd.cbs --tier fast a=zeros:8 b=zeros:8 c=zeros:8 n=8
[ $rc -eq 2 ] && has "run: --tier 'fast': expected default, interp or native" "$T/err"; ok $? "--tier fast is a usage error"
run "$C" debug $EX/vadd.cbs --tier native a=zeros:8 b=zeros:8 c=zeros:8 n=8 </dev/null
[ $rc -eq 2 ] && has "debug: --tier does not apply" "$T/err"; ok $? "debug refuses --tier"
# the tiers `cubevm devices` reports; without LLVM, native code is refused
# with the reason and --tier native runs interpreted, with the same result
if "$C" devices | grep -q "^  tiers: interpreter, native code through LLVM 14"; then
    run env CUBEVM_LLVM_LIB=/nonexistent/libLLVM-14.so.1 "$C" devices
    [ $rc -eq 0 ] && has "^  tiers: interpreter, no native code: LLVM is not available: /nonexistent/libLLVM-14.so.1" "$T/out"
    ok $? "cubevm devices names the tiers, and why there is no native code when LLVM cannot load"
    run env CUBEVM_LLVM_LIB=/nonexistent/libLLVM-14.so.1 "$C" run $EX/vadd.cbs --tier native --block 8 \
        a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c
    [ $rc -eq 0 ] && has "^c: 0 11 22 33 44 55 66 77$" "$T/out"; ok $? "run --tier native without LLVM interprets"
else
    "$C" devices | grep -q "^  tiers: interpreter, no native code: "; ok $? "cubevm devices says why there is no native code"
    n=$((n + 1)); echo "ok $n # skip no native tier here"
fi
run env CUBEVM_JIT=sometimes "$C" run $EX/vadd.cbs --block 8 a=zeros:8 b=zeros:8 c=zeros:8 n=8
[ $rc -eq 1 ] && has "CUBEVM_JIT=sometimes is not a tier policy (off, on or auto)" "$T/err"
ok $? "an unknown CUBEVM_JIT fails the launch, naming it"
run "$C" run $EX/vadd.cbs --device cpu:0 --threads 2 --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c
[ $rc -eq 0 ] && has "^c: 0 11 22 33 44 55 66 77$" "$T/out"; ok $? "--threads on the cpu device (cpu:0)"
run "$C" run $EX/vadd.cbs --seed 5 a=zeros:8 b=zeros:8 c=zeros:8 n=8
[ $rc -eq 2 ] && has "seed applies to --schedule random only" "$T/err"; ok $? "--seed without --schedule random is a usage error"
# a single-valued option given twice is a usage error, not last-one-wins
run "$C" run $EX/vadd.cbs --kernel=vadd --kernel vadd a=zeros:8 b=zeros:8 c=zeros:8 n=8
[ $rc -eq 2 ] && has "run: --kernel is given more than once" "$T/err"; ok $? "run: a repeated --kernel is refused"
run "$C" asm $EX/vadd.cbs -o "$T/o1.cbc" -o "$T/o2.cbc"
[ $rc -eq 2 ] && has "asm: -o is given more than once" "$T/err"; ok $? "asm: a repeated -o is refused"
# stdout that cannot be written is a failure
"$C" run $EX/vadd.cbs --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8 --print c >/dev/full 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && has "writing to stdout failed" "$T/err"; ok $? "--print to a full device fails"
# a comptime value fixed by the instance's name may be repeated, not changed
R=tests/cuda/samples_reduction.cu
run "$C" run $R --kernel 'reduce4<int, 128>' --block 128 --shared 512 g_idata=rand:128 g_odata=zeros:1 n=128 blockSize=0x80
ok $rc "a comptime value equal to the instance's is accepted"
run "$C" run $R --kernel 'reduce4<int, 128>' --block 128 --shared 512 g_idata=rand:128 g_odata=zeros:1 n=128 blockSize=256
[ $rc -eq 2 ] && has "parameter 'blockSize' is 128 in 'reduce4<int, 128>'; blockSize=256 contradicts it" "$T/err"
ok $? "a comptime value that contradicts the instance's name is refused"

# a kernel's %c of 0 prints a NUL byte, and the text after it is kept (it ended the output)
printf '.kernel nul\n.reg u32 %%z\n    const.u32 %%z, 0\n    print "a%%cb", %%z\n    print "c"\n    return\n.end\n' \
    >"$T/nul.cbs"
run "$C" run "$T/nul.cbs" --block 2
printf 'a\000b\na\000b\nc\nc\n' >"$T/want_nul"
[ $rc -eq 0 ] && cmp -s "$T/out" "$T/want_nul"
ok $? "print: a %c of 0 writes a NUL and the rest of the output follows"

# flags, width and precision in C's order; a flag after the '.' or the width ends the spec as a bad
# format ("%.-5d" went to the host's printf, undefined there). Expected text by hand, C's printf
cat >"$T/fmt.cbs" <<'EOF'
.kernel fmt
.reg f32 %f
.reg i32 %a, %b, %c
    const.f32 %f, 3.14159
    const.i32 %a, 42
    const.i32 %b, 7
    const.i32 %c, 255
    print "%08.3f|%-5d|%+d|% d|%#x|%.-5d|%5-d", %f, %a, %b, %b, %c, %c
    return
.end
EOF
run "$C" run "$T/fmt.cbs"
[ $rc -eq 0 ] && has "^0003.142|42   |+7| 7|0xff|(bad format)5d|(bad format)d$" "$T/out"
ok $? "print: flags, width and precision in C's order; one out of order is a bad format"

# --racecheck: the race, both accesses and the exit status; the fixed kernel is clean; the refusals
cat >"$T/racy.cu" <<'EOF'
__global__ void racy(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t + 1;
    if (FIXED) __syncthreads();
    out[t] = s[(t + 1) % 64];
}
EOF
run "$C" run "$T/racy.cu" -D FIXED=0 --block 64 out=zeros:64 --racecheck
[ $rc -eq 1 ] && has "data race on shared offset 4: this load of 4 bytes and a store by unit (1,0,0) at pc [0-9]* (line 5)" "$T/err" &&
    has "unit (0,0,0) plane 0 lane 0 pc [0-9]* (line 7)" "$T/err"
ok $? "--racecheck: unit 0 loads s[1] that unit 1 stored with no barrier between: a fault naming both"
run "$C" run "$T/racy.cu" -D FIXED=1 --block 64 out=zeros:64 --racecheck --print out:3
[ $rc -eq 0 ] && has "^out: 2 3 4 " "$T/out"
ok $? "--racecheck: with __syncthreads the same kernel runs clean"
run "$C" run "$T/racy.cu" -D FIXED=0 --block 64 out=zeros:64 --racecheck --unchecked
[ $rc -eq 1 ] && has "the race check needs checked mode" "$T/err"
ok $? "--racecheck with --unchecked is refused"
printf 'break 7\nrun\ncontinue\nquit\n' >"$T/race.cmd"
run "$C" debug "$T/racy.cu" -D FIXED=0 --block 64 out=zeros:64 --racecheck --commands "$T/race.cmd"
[ $rc -eq 1 ] && has "^Fault (lane 0): data race on shared offset 4" "$T/out" &&
    has "kernel fault (the session ended at it): data race" "$T/err"
ok $? "cubevm debug --racecheck stops at the race as a fault (the session ends there, status 1)"
# --initcheck: bins nobody zeroed; with in all zero, unit 0 adds to bins[0] first: offset 0
cat >"$T/hist.cu" <<'EOF'
__global__ void hist(int *out, const int *in)
{
    __shared__ int bins[8];
    int t = threadIdx.x;
    if (ZERO && t < 8) bins[t] = 0;
    __syncthreads();
    atomicAdd(&bins[in[t] & 7], 1);
    __syncthreads();
    if (t < 8) out[t] = bins[t];
}
EOF
run "$C" run "$T/hist.cu" -D ZERO=0 --block 16 out=zeros:8 in=zeros:16 --initcheck
[ $rc -eq 1 ] && has "uninitialized read: this atomic of 4 bytes at shared offset 0 reads bytes no unit of this cube has written" "$T/err" &&
    has "unit (0,0,0) plane 0 lane 0 pc [0-9]* (line 7)" "$T/err"
ok $? "--initcheck: an atomicAdd on shared bins nobody zeroed faults at the first unit, naming the offset"
run "$C" run "$T/hist.cu" -D ZERO=1 --block 16 out=zeros:8 in=zeros:16 --initcheck --racecheck --print out:2
[ $rc -eq 0 ] && has "^out: 16 0 " "$T/out"
ok $? "--initcheck --racecheck: the bins zeroed first run clean (every unit counted in bin 0)"

echo "1..$n"
[ $failed -eq 0 ]
