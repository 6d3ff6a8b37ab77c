#!/bin/sh
# test_cli_cuda.sh - `cubevm compile/run/info` on CUDA C files (TAP): -D,
# -I, --fmad, -O0, template instances via --kernel, --symbol, and a compile
# error printed as file:line:col with the source line and a caret.
# Uses $CUBEVM (set by `make check`) and $TEST_TMPDIR.
C=${CUBEVM:-build/bin/cubevm}
T=${TEST_TMPDIR:-$(mktemp -d)}
EX=docs/examples
n=0
failed=0
ok() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "$2"; }
show() { sed 's/^/# /' "$T/err" "$T/out"; }

# info lists the kernels of a .cu file
run "$C" info tests/cuda/spmv_csr.cu
[ $rc -eq 0 ] && has "2 kernels" "$T/out" && has "kernel spmvCsrScalar(" "$T/out" && has "kernel spmvCsrVector(" "$T/out"
ok $? "info on a .cu file lists its kernels"; [ $rc -eq 0 ] || show

# compile, then run the .cbc: vadd inputs a = 0..7, b = 10a, so c = 11a
run "$C" compile tests/cuda/vector_add.cu -o "$T/va.cbc"
ok $rc "compile vector_add.cu"; [ $rc -eq 0 ] || show
run "$C" run "$T/va.cbc" --grid 1 --block 4 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c
[ $rc -eq 0 ] && has "^c: 0 11 22 33 44 55 66 77$" "$T/out"
ok $? "run the compiled module (grid-stride loop covers 8 elements with 4 threads)"; [ $rc -eq 0 ] || show
run "$C" run tests/cuda/vector_add.cu --grid 2 --block 3 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c
[ $rc -eq 0 ] && has "^c: 0 11 22 33 44 55 66 77$" "$T/out"
ok $? "run a .cu file directly"; [ $rc -eq 0 ] || show

# -D changes behaviour; -I finds an include
mkdir -p "$T/inc"
printf '#define OP(x, y) ((x) - (y))\n' >"$T/inc/op.h"
cat >"$T/k.cu" <<'CU'
#include "op.h"
#ifndef SCALE
#define SCALE 1
#endif
__global__ void k(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = OP(a[i], b[i]) * SCALE;
}
CU
run "$C" run "$T/k.cu" -I "$T/inc" --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c:3
[ $rc -eq 0 ] && has "^c: 0 -9 -18 " "$T/out"
ok $? "-I DIR finds #include \"op.h\""; [ $rc -eq 0 ] || show
run "$C" run "$T/k.cu" -I"$T/inc" -DSCALE=2 --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8 --print c:3
[ $rc -eq 0 ] && has "^c: 0 -18 -36 " "$T/out"
ok $? "-D SCALE=2 changes the result"; [ $rc -eq 0 ] || show
run "$C" run "$T/k.cu" --block 8 a=@$EX/vadd_a.npy b=@$EX/vadd_b.npy c=zeros:8 n=8
[ $rc -eq 1 ] && has "op.h" "$T/err"
ok $? "without -I the missing include is an error naming op.h"; [ $rc -eq 1 ] || show

# -D with a name that is no identifier is a usage error naming it (it was a
# compile error at '<command line>:1:9'); a function-like macro is fine
run "$C" compile tests/cuda/saxpy.cu -o "$T/d1.cbc" -D 1X
[ $rc -eq 2 ] && has "D 1X: the macro name must be an identifier" "$T/err"
ok $? "-D 1X is a usage error naming the option"; [ $rc -eq 2 ] || show
run "$C" compile tests/cuda/saxpy.cu -o "$T/d2.cbc" "-DSQ(x)=((x)*(x))"
ok $rc "-D of a function-like macro"

# printf: a width or precision past 1024 is taken as 1024 (%.2147483647f
# made the host's printf build a 2 GB field: minutes and 10 GB), and a line
# past 8191 bytes ends with a note that it was cut (it lost its tail)
printf '__global__ void k(double *p) { printf("[%%.2147483647f]\\n", p[0]); printf("[%%*d]\\n", 2000000000, 7); }\n' >"$T/prec.cu"
run "$C" run "$T/prec.cu" p=rand:1
[ $rc -eq 0 ] && [ "$(sed -n 1p "$T/out" | wc -c)" -eq 1029 ] && [ "$(sed -n 2p "$T/out" | wc -c)" -eq 1027 ]
ok $? "printf widths and precisions are capped at 1024"; [ $rc -eq 0 ] || show
awk 'BEGIN { printf "__global__ void k(int *p) { printf(\""; for (i = 0; i < 9000; i++) printf "x"; print "END\\n\"); }" }' >"$T/long.cu"
run "$C" run "$T/long.cu" p=zeros:1
[ $rc -eq 0 ] && has 'xxx \[\.\.\. print line cut at 8191 bytes\]$' "$T/out" && [ "$(wc -c < "$T/out")" -eq 8192 ]
ok $? "a print line past 8191 bytes says it was cut"; [ $rc -eq 0 ] || show
awk 'BEGIN { printf "__global__ void k(int *p) { printf(\""; for (i = 0; i < 8190; i++) printf "y"; print "\\n\"); }" }' >"$T/fits.cu"
run "$C" run "$T/fits.cu" p=zeros:1
[ $rc -eq 0 ] && ! has 'cut at' "$T/out" && [ "$(wc -c < "$T/out")" -eq 8191 ]
ok $? "a print line of exactly 8191 bytes is whole (the review's off-by-one)"; [ $rc -eq 0 ] || show

# -o naming the input file is a usage error (compile k.cu -o k.cu replaced
# the source with the module)
cp tests/cuda/saxpy.cu "$T/self.cu"
run "$C" compile "$T/self.cu" -o "$T/self.cu"
[ $rc -eq 2 ] && has "is the input file" "$T/err" && cmp -s tests/cuda/saxpy.cu "$T/self.cu"
ok $? "compile -o of the input file is refused and the source kept"; [ $rc -eq 2 ] || show

# --fmad: both settings compile; a bad value is a usage error
run "$C" compile tests/cuda/saxpy.cu -o "$T/s1.cbc" --fmad=true
ok $rc "compile --fmad=true"
run "$C" compile tests/cuda/saxpy.cu -o "$T/s0.cbc" --fmad=false
ok $rc "compile --fmad=false"
run "$C" compile tests/cuda/saxpy.cu -o "$T/s2.cbc" --fmad=maybe
[ $rc -eq 2 ] && has "fmad" "$T/err"
ok $? "--fmad=maybe is a usage error"

# -O0 writes the code as lowered; the default moves the loop-invariant
# multiply out of the loop (it then comes before the loop in the text)
cat >"$T/inv.cu" <<'CU'
__global__ void rows(float *out, const float *in, int n, int w)
{
    float acc = 0.0f;
    for (int i = 0; i < n; i++)
        acc += in[threadIdx.x * w + i];
    out[threadIdx.x] = acc;
}
CU
run "$C" compile "$T/inv.cu" -o "$T/inv0.cbc" -O0
ok $rc "compile -O0"; [ $rc -eq 0 ] || show
run "$C" compile "$T/inv.cu" -o "$T/inv1.cbc"
ok $rc "compile (default -O1)"; [ $rc -eq 0 ] || show
"$C" disasm "$T/inv0.cbc" | grep -v '^ *\.' >"$T/t0"
"$C" disasm "$T/inv1.cbc" | grep -v '^ *\.' >"$T/t1"
grep 'loop\|mul.u32' "$T/t0" >"$T/d0"
grep 'loop\|mul.u32' "$T/t1" >"$T/d1"
head -1 "$T/d0" | grep -q 'loop' && head -1 "$T/d1" | grep -q 'mul.u32' &&
    grep -q 'mov\.' "$T/t0" && ! grep -q 'mov\.' "$T/t1"
ok $? "-O0 keeps threadIdx.x * w in the loop and its copies; the default moves it out, drops them"
[ $? -eq 0 ] || { sed 's/^/# -O0: /' "$T/d0"; sed 's/^/# -O1: /' "$T/d1"; }
run "$C" run "$T/inv.cu" -O0 --grid 1 --block 2 in=@$EX/vadd_a.npy out=zeros:2 n=3 w=4 --print out
[ $rc -eq 0 ] && has "^out: 3 15$" "$T/out"
ok $? "run a .cu file with -O0 (rows of 0..7: 0+1+2, 4+5+6)"; [ $rc -eq 0 ] || show
run "$C" run "$T/inv.cu" --grid 1 --block 2 in=@$EX/vadd_a.npy out=zeros:2 n=3 w=4 --print out
[ $rc -eq 0 ] && has "^out: 3 15$" "$T/out"
ok $? "the same run optimized"; [ $rc -eq 0 ] || show
# the compile options change a .cu source only: with a module they are refused, not ignored
refused() { # CMD FILE OPTION ARGS...: exit 2 and a line naming OPTION
    cmd=$1 file=$2 opt=$3
    shift 3
    run "$C" $cmd "$file" "$@"
    [ $rc -eq 2 ] &&
        has "^cubevm: error: $cmd: $opt is a CUDA compile option: it applies to .cu sources, not to $file$" "$T/err"
    ok $? "cubevm $cmd $(basename "$file") $opt: a CUDA option with a module is a usage error naming it"
    [ $rc -eq 2 ] || show
}
refused run $EX/vadd.cbs -D -DFOO --block 8 a=rand:8 b=rand:8 c=zeros:8 n=8
refused run "$T/inv0.cbc" -O0 -O0 out=zeros:2 in=@$EX/vadd_a.npy n=3 w=4
refused info $EX/vadd.cbs -D -D FOO
refused info "$T/inv0.cbc" -I -I "$T/inc"
refused spirv $EX/vadd.cbs --fmad --fmad=true -o "$T/x.spv"
refused spirv "$T/inv0.cbc" -O1 -O1 -o "$T/x.spv"
run "$C" compile "$T/inv.cu" -o "$T/inv2.cbc" -O2
[ $rc -eq 2 ] && has "unknown option '-O2'" "$T/err"
ok $? "-O2 is a usage error"

# template instances by --kernel
run "$C" compile tests/cuda/templated_scale.cu -o "$T/ts.cbc" --kernel 'scale<float, 4>' --kernel 'scale<int, 2>'
ok $rc "compile two template instances"; [ $rc -eq 0 ] || show
run "$C" info "$T/ts.cbc"
[ $rc -eq 0 ] && has "2 kernels" "$T/out" && has "kernel scale<float, ITEMS>" "$T/out" &&
    has "kernel scale<int, ITEMS>" "$T/out" && has "param ITEMS        comptime i32" "$T/out"
ok $? "the module holds one comptime kernel per type argument (ITEMS is a comptime parameter)"
[ $rc -eq 0 ] || show
run "$C" run "$T/ts.cbc" --kernel 'scale<float, 4>' --block 1 in=@$EX/vadd_a.npy out=zeros:8 factor=2 n=8 --print out
[ $rc -eq 0 ] && has "^out: 0 2 4 6 0 0 0 0$" "$T/out"
ok $? "run scale<float, 4> from the module: one thread scales ITEMS = 4 elements"; [ $rc -eq 0 ] || show
run "$C" run tests/cuda/reduce_template.cu --kernel 'reduce<256>' --block 256 g_idata=@$EX/vadd_a.npy \
    g_odata=zeros:1 n=8 --print g_odata
[ $rc -ne 0 ] || has "g_odata:" "$T/out"
ok $? "run --kernel 'reduce<256>' instantiates and runs (or fails cleanly)"

# a compile error: file:line:col, the line, a caret, exit 1
printf '__global__ void bad(float *x)\n{\n    x[0] = 1.0f +;\n}\n' >"$T/bad.cu"
run "$C" compile "$T/bad.cu" -o "$T/bad.cbc"
[ $rc -eq 1 ] && has "bad.cu:3:[0-9]*: error: " "$T/err" && has "^    x\[0\] = 1.0f +;$" "$T/err" && has "^ *^$" "$T/err"
ok $? "compile error: file:line:col, source line and caret, exit 1"; [ $rc -eq 1 ] || show
# past 1024 columns: the whole line, the caret under the error
{ printf '__global__ void w(float *x)\n{\n    x[0] = 0.0f'; i=0
  while [ $i -lt 300 ]; do printf ' + 1.0f'; i=$((i + 1)); done; printf ' +;\n}\n'; } >"$T/wide.cu"
run "$C" compile "$T/wide.cu" -o "$T/wide.cbc"
col=$(sed -n 's/.*wide.cu:3:\([0-9]*\): error: .*/\1/p' "$T/err")
[ $rc -eq 1 ] && [ "${col:-0}" -gt 2000 ] && [ "$(grep -c "^    x\[0\] = 0.0f.* +;$" "$T/err")" -eq 1 ] &&
    [ "$(grep '^ *^$' "$T/err" | awk '{ print length($0) }')" -eq "$col" ]
ok $? "an error past column 1024: the whole line and the caret at its column"; [ $rc -eq 1 ] || show
printf '__global__ void g(int *x)\n{\nagain:\n    x[0]++;\n    goto again;\n}\n' >"$T/goto.cu"
run "$C" run "$T/goto.cu" x=zeros:1
[ $rc -eq 1 ] && has "goto.cu:[0-9]*:[0-9]*: error: .*goto" "$T/err"
ok $? "goto is rejected with a named diagnostic"; [ $rc -eq 1 ] || show

# --symbol writes a __constant__ array before the launch (taps of 1 at the centre: identity)
{
    printf '\223NUMPY\001\000v\000'
    printf "%s" "{'descr': '<f4', 'fortran_order': False, 'shape': (9,), }"
    printf '%60s\n' ''
    printf '\000\000\000\000%.0s' 1 2 3 4
    printf '\000\000\200\077'
    printf '\000\000\000\000%.0s' 1 2 3 4
} >"$T/taps.npy"
run "$C" run tests/cuda/conv_separable.cu --kernel convolutionRows --block 8 --symbol c_Kernel=@"$T/taps.npy" \
    dst=zeros:8 src=@$EX/vadd_a.npy w=8 h=1 --print dst
[ $rc -eq 0 ] && has "^dst: 0 1 2 3 4 5 6 7$" "$T/out"
ok $? "--symbol c_Kernel=@taps.npy reaches the kernel"; [ $rc -eq 0 ] || show
run "$C" run tests/cuda/conv_separable.cu --kernel convolutionRows --symbol nope=@"$T/taps.npy" \
    dst=zeros:8 src=@$EX/vadd_a.npy w=8 h=1
[ $rc -eq 1 ] && has "no variable named 'nope'" "$T/err"
ok $? "--symbol with an unknown name is a clean error"
run "$C" run tests/cuda/conv_separable.cu --kernel convolutionRows --symbol c_Kernel=@"$T/taps.npy" \
    --symbol c_Kernel=@"$T/taps.npy" dst=zeros:8 src=@$EX/vadd_a.npy w=8 h=1
[ $rc -eq 2 ] && has "symbol c_Kernel is given more than once" "$T/err"
ok $? "--symbol of one variable twice is a usage error (the last one won)"
cp "$T/taps.npy" "$T/taps0.npy"
run "$C" run tests/cuda/conv_separable.cu --kernel convolutionRows --block 8 --symbol c_Kernel=@"$T/taps.npy" \
    dst=zeros:8 src=@$EX/vadd_a.npy w=8 h=1 --out dst="$T/taps.npy"
[ $rc -eq 2 ] && has "is the input file of --symbol c_Kernel=@$T/taps.npy" "$T/err" && cmp -s "$T/taps.npy" "$T/taps0.npy"
ok $? "an --out naming a --symbol file is a usage error and leaves it alone"
# the bytes would be copied as they are: a file of another dtype is refused
{
    printf '\223NUMPY\001\000v\000'
    printf "%s" "{'descr': '<i4', 'fortran_order': False, 'shape': (9,), }"
    printf '%60s\n' ''
    printf '\001\000\000\000%.0s' 1 2 3 4 5 6 7 8 9
} >"$T/itaps.npy"
run "$C" run tests/cuda/conv_separable.cu --kernel convolutionRows --symbol c_Kernel=@"$T/itaps.npy" \
    dst=zeros:8 src=@$EX/vadd_a.npy w=8 h=1
[ $rc -eq 1 ] && has "'c_Kernel' holds f32 but the file has dtype '<i4' (i32)" "$T/err"
ok $? "--symbol with a file of another dtype is a clean error"

# an integer template parameter is a comptime parameter the instance's name fills in:
# reduce4<int, blockSize> runs as reduce4<int, 64>; eight 1s in one block sum to 8
printf '\223NUMPY\001\000\166\000' >"$T/ones.npy"
printf "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }" >>"$T/ones.npy"
printf '%*s\n' 60 '' >>"$T/ones.npy"
printf '\001\000\000\000%.0s' 1 2 3 4 5 6 7 8 >>"$T/ones.npy"
run "$C" info tests/cuda/samples_reduction.cu --kernel 'reduce4<int, 64>'
[ $rc -eq 0 ] && has "kernel reduce4<int, blockSize>(" "$T/out" && has "param blockSize    comptime u32" "$T/out"
ok $? "info: reduce4<int, 64> is the comptime kernel reduce4<int, blockSize>"; [ $rc -eq 0 ] || show
run "$C" run tests/cuda/samples_reduction.cu --kernel 'reduce4<int, 64>' --grid 1 --block 64 --shared 256 \
    g_idata=@"$T/ones.npy" g_odata=zeros:1 n=8 --print g_odata
[ $rc -eq 0 ] && has "^g_odata: 8$" "$T/out"
ok $? "run --kernel 'reduce4<int, 64>' binds blockSize from the name"; [ $rc -eq 0 ] || show
run "$C" compile tests/cuda/samples_reduction.cu -o "$T/red.cbc" --kernel 'reduce4<int, 64>' --kernel 'reduce4<int, 128>'
run "$C" run "$T/red.cbc" --kernel 'reduce4<int, 128>' --grid 1 --block 128 --shared 512 \
    g_idata=@"$T/ones.npy" g_odata=zeros:1 n=8 --print g_odata
[ $rc -eq 0 ] && has "^g_odata: 8$" "$T/out"
ok $? "two instances compiled into one kernel; the .cbc runs reduce4<int, 128>"; [ $rc -eq 0 ] || show
run "$C" info "$T/red.cbc" --kernel 'reduce4<int,128u>' --kernel 'reduce4<int, 64>'
[ $rc -eq 0 ] && has "^kernel reduce4<int, blockSize>(" "$T/out" &&
    has "^  instance reduce4<int,128u>: blockSize = 128$" "$T/out" &&
    has "^  instance reduce4<int, 64>: blockSize = 64$" "$T/out"
ok $? "info on the .cbc takes the instance names run takes, with their values"; [ $rc -eq 0 ] || show
# a type argument in any spelling of its type: int32_t, signed int (uint32_t and 'unsigned char' were
# refused, or compiled and then matched no kernel)
run "$C" run tests/cuda/samples_reduction.cu --kernel 'reduce4<int32_t, 64>' --grid 1 --block 64 --shared 256 \
    g_idata=@"$T/ones.npy" g_odata=zeros:1 n=8 --print g_odata
[ $rc -eq 0 ] && has "^g_odata: 8$" "$T/out"
ok $? "run --kernel 'reduce4<int32_t, 64>' is reduce4<int, 64>"; [ $rc -eq 0 ] || show
run "$C" run "$T/red.cbc" --kernel 'reduce4<signed int, 128>' --grid 1 --block 128 --shared 512 \
    g_idata=@"$T/ones.npy" g_odata=zeros:1 n=8 --print g_odata
[ $rc -eq 0 ] && has "^g_odata: 8$" "$T/out"
ok $? "the .cbc's reduce4<int, blockSize> runs as reduce4<signed int, 128>"; [ $rc -eq 0 ] || show
run "$C" compile tests/cuda/samples_reduction.cu -o "$T/red2.cbc" --kernel reduce4
[ $rc -eq 2 ] && has "'reduce4' is a kernel template; name an instance: --kernel 'reduce4<...>'" "$T/err"
ok $? "compile --kernel NAME of a template asks for an instance"; [ $rc -eq 2 ] || show
run "$C" info "$T/red.cbc" --kernel 'reduce4<float, 64>'
[ $rc -eq 2 ] && has "has no kernel 'reduce4<float, 64>'" "$T/err"
ok $? "info: an instance of another type is not in the .cbc (exit 2)"; [ $rc -eq 2 ] || show

# printf: %s of a string literal is folded into the format (width, precision, a % in it)
printf '__global__ void p(int *o)\n{\n    printf("%%s %%d [%%5s|%%-4s|%%.2s] 100%%%% %%s\\n", "at", threadIdx.x, "ab", "c", "xyz", "5%% off");\n}\n' >"$T/pf.cu"
run "$C" run "$T/pf.cu" --grid 1 --block 2 o=zeros:1
[ $rc -eq 0 ] && has "^at 0 \[   ab|c   |xy\] 100% 5% off$" "$T/out" && has "^at 1 \[" "$T/out"
ok $? "printf %s of string literals, with width and precision"; [ $rc -eq 0 ] || show
printf '__global__ void p(float *o)\n{\n    printf("v=%%.2f [%%*d|%%-*d|%%s|%%.*f]\\n", o[0] + 1.5f, 5, 42, 3, 7, "hi", -1, 2.5f);\n}\n' >"$T/pf3.cu"
run "$C" run "$T/pf3.cu" --grid 1 --block 1 o=zeros:1
[ $rc -eq 0 ] && has "^v=1.50 \[   42|7  |hi|2.500000\]$" "$T/out"
ok $? "printf of a float, * widths and precisions from the arguments (a negative precision is none), a folded %s"; [ $rc -eq 0 ] || show
{ printf '__global__ void p(int *o)\n{\n    printf("'; i=0; while [ $i -lt 70 ]; do printf '%%d '; i=$((i + 1)); done
  printf '\\n"'; i=0; while [ $i -lt 70 ]; do printf ', %d' $i; i=$((i + 1)); done; printf ');\n}\n'; } >"$T/many.cu"
run "$C" run "$T/many.cu" --grid 1 --block 1 o=zeros:1
[ $rc -eq 0 ] && has "^0 1 2 3 .* 68 69 $" "$T/out"
ok $? "printf with 70 arguments"; [ $rc -eq 0 ] || show
printf '__global__ void p(int *o)\n{\n    printf("%%hhd %%hd %%hhu %%hu %%d %%hhx %%5hhd|\\n", 300, 70000, 300, 70000, 300, 300, -129);\n}\n' >"$T/pfh.cu"
run "$C" run "$T/pfh.cu" --grid 1 --block 1 o=zeros:1
[ $rc -eq 0 ] && has "^44 4464 44 4464 300 2c   127|$" "$T/out"
ok $? "printf %hhd and %hd narrow the argument as C does (gcc's printf prints the same)"; [ $rc -eq 0 ] || show
printf '__global__ void p(const char *s)\n{\n    printf("%%s\\n", s);\n}\n' >"$T/pf2.cu"
run "$C" run "$T/pf2.cu" --grid 1 --block 1 s=zeros:1
[ $rc -eq 1 ] && has "pf2.cu:3:20: error: printf's %s takes a string literal" "$T/err"
ok $? "printf %s of a pointer is an error at the argument"; [ $rc -eq 1 ] || show

# a __host__ function's body is set aside: device rules (static locals) do not apply to it
printf '__global__ void k(int *o)\n{\n    o[0] = 1;\n}\n__host__ int next_id()\n{\n    static int id = 0;\n    return ++id;\n}\n' >"$T/hostfn.cu"
run "$C" run "$T/hostfn.cu" --kernel k o=zeros:1 --print o
[ $rc -eq 0 ] && has "^o: 1$" "$T/out"
ok $? "a __host__ function with a static local does not stop the kernel"; [ $rc -eq 0 ] || show

# a const __grid_constant__ struct parameter whose address is taken (p = {1.5f, 5})
printf 'struct P { float a; int n; };\n__global__ void k(const __grid_constant__ P p, float *out)\n{\n    const P *q = &p;\n    out[threadIdx.x] = q->a * threadIdx.x + p.n;\n}\n' >"$T/gridconst.cu"
run "$C" run "$T/gridconst.cu" --block 4 p=hex:0000c03f05000000 out=zeros:4 --print out
[ $rc -eq 0 ] && has "^out: 5 6.5 8 9.5$" "$T/out"
ok $? "__grid_constant__ parameter"; [ $rc -eq 0 ] || show

# an empty functor as a kernel parameter is a one-byte struct (it was an internal compiler error)
printf 'struct Plus { __device__ float operator()(float a, float b) const { return a + b; } };\n__global__ void k(float *o, Plus op) { o[0] = op(o[0], 2.5f); }\n' >"$T/functor.cu"
run "$C" info "$T/functor.cu"
[ $rc -eq 0 ] && has "param op  *struct (1 byte)$" "$T/out"
ok $? "info: an empty functor parameter is a struct of 1 byte"; [ $rc -eq 0 ] || show
run "$C" run "$T/functor.cu" o=zeros:1 op=hex:00 --print o
[ $rc -eq 0 ] && has "^o: 2.5$" "$T/out"
ok $? "run a kernel with an empty functor parameter"; [ $rc -eq 0 ] || show

# a pointer-free union inside a flattened struct parameter is one struct parameter of its bytes
printf 'union V { int i; float f; };\nstruct P { float *p; V v; int n; };\n__global__ void k(P a, float *out) { out[0] = a.p[0] + a.v.f + a.n; }\n' >"$T/unionparam.cu"
run "$C" run "$T/unionparam.cu" a.p=zeros:1 a.v=hex:0000c03f a.n=2 out=zeros:1 --print out
[ $rc -eq 0 ] && has "^out: 3.5$" "$T/out"; ok $? "a union without pointers inside a struct parameter"; [ $rc -eq 0 ] || show
# a comptime value repeated on the command line is read as the CLI reads values (010 is ten, true is 1)
printf 'template <int N, bool F> __global__ void k(int *out) { out[0] = N + (F ? 100 : 0); }\n' >"$T/ctval.cu"
run "$C" run "$T/ctval.cu" --kernel 'k<10, true>' out=zeros:1 N=010 F=true --print out
[ $rc -eq 0 ] && has "^out: 110$" "$T/out"; ok $? "comptime values given again in the CLI's number forms"; [ $rc -eq 0 ] || show

# a static_assert on a template parameter is checked for each instance (the
# comptime form cannot evaluate it, so the instance is folded): k<3> fails,
# k<4> runs; before, the assert was never checked and k<3> printed 3
printf 'constexpr int sq(int x) { return x * x; }\ntemplate <int N> __global__ void k(int *o) { static_assert(N %% 2 == 0, "N must be even"); static_assert(sq(N) > 0, "sq"); o[0] = N; }\n' >"$T/sa.cu"
run "$C" run "$T/sa.cu" --kernel 'k<3>' o=zeros:1 --print o
[ $rc -ne 0 ] && has "static assertion failed: N must be even" "$T/err"
ok $? "a static_assert on a template parameter fails for the instance that breaks it"; [ $rc -ne 0 ] || show
run "$C" run "$T/sa.cu" --kernel 'k<4>' o=zeros:1 --print o
[ $rc -eq 0 ] && has "^o: 4$" "$T/out"; ok $? "... and passes for the one that keeps it"; [ $rc -eq 0 ] || show

# integer template arguments of an instance name keep all 64 bits (an unsigned one above
# INT64_MAX read as INT64_MAX before), and one out of its parameter's range is an error
printf 'template <unsigned long long M> __global__ void k(unsigned long long *o) { o[0] = M; o[1] = M >> 60; }\ntemplate <int N> __global__ void i(int *o) { o[0] = N; }\n' >"$T/u64targ.cu"
run "$C" run "$T/u64targ.cu" --kernel 'k<18446744073709551615>' o=zeros:2 --print o
[ $rc -eq 0 ] && has "^o: 18446744073709551615 15$" "$T/out"; ok $? "a u64 template argument above INT64_MAX"; [ $rc -eq 0 ] || show
run "$C" run "$T/u64targ.cu" --kernel 'k<0x8000000000000000ull>' o=zeros:2 --print o
[ $rc -eq 0 ] && has "^o: 9223372036854775808 8$" "$T/out"; ok $? "a hex u64 template argument with a suffix"; [ $rc -eq 0 ] || show
run "$C" run "$T/u64targ.cu" --kernel 'i<4294967296>' o=zeros:1
[ $rc -ne 0 ] && has "template argument '4294967296' of 'i<4294967296>' is out of range for 'int'" "$T/err"
ok $? "a template argument out of its parameter's range is an error"; [ $rc -ne 0 ] || show
run "$C" run "$T/u64targ.cu" --kernel 'k<18446744073709551616>' o=zeros:2
[ $rc -ne 0 ] && has "cannot read template argument '18446744073709551616'" "$T/err"
ok $? "a template argument beyond 64 bits is an error"; [ $rc -ne 0 ] || show

run "$C" run "$T/u64targ.cu" --kernel 'i<-1u>' o=zeros:1
[ $rc -ne 0 ] && has "cannot read template argument '-1u'" "$T/err"
ok $? "a minus before an unsigned literal is not read (C++ would wrap it)"; [ $rc -ne 0 ] || show
# info on a comptime kernel names only the values the instance gives
printf 'template <unsigned long long M, int N> __global__ void k(unsigned long long *o) { o[0] = M + N; }\n' >"$T/mn.cu"
run "$C" compile "$T/mn.cu" --kernel 'k<1, 2>' -o "$T/mn.cbc"
run "$C" info "$T/mn.cbc" --kernel 'k<M, 5>' --kernel 'k<0x8000000000000000, 7>'
[ $rc -eq 0 ] && has "^  instance k<M, 5>: N = 5$" "$T/out" &&
    has "^  instance k<0x8000000000000000, 7>: M = 9223372036854775808, N = 7$" "$T/out"
ok $? "info prints the comptime values an instance gives, u64 unsigned"; [ $rc -eq 0 ] || show

# warnings: file:line:col, the line and a caret; the compile still succeeds
run "$C" compile tests/cuda_warn/sync_divergent.cu -o "$T/w.cbc"
[ $rc -eq 0 ] && has "sync_divergent.cu:10:9: warning: barrier under a condition" "$T/err" &&
    has "^        __syncthreads();$" "$T/err" && has "^        ^$" "$T/err"
ok $? "compile prints a warning with the source line and a caret"; [ $rc -eq 0 ] || show

echo "1..$n"
[ $failed -eq 0 ]
