#!/bin/sh
# test_debug.sh - `cubevm debug` end to end (TAP): scripted sessions
# (--commands) on a kernel written here with its line numbers in comments.
# Expected values are worked out by hand from the launch: i = 32 * cube +
# lane, in[i] = 2 * i (written as .npy bytes with printf), v = in[i] + 1,
# out[i] = v * v. Uses $CUBEVM and $TEST_TMPDIR as test_cli.sh does.
C=${CUBEVM:-build/bin/cubevm}
case $C in /*) ;; *) C=$PWD/$C ;; esac
T=${TEST_TMPDIR:-$(mktemp -d)}
n=0
failed=0

ok() { # ok COND-EXIT-STATUS NAME
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }
has() { grep -q -- "$1" "$2"; }
hasx() { grep -qxF -- "$1" "$2"; } # the whole line, as written
show() { sed 's/^/# /' "$T/err" "$T/out"; }
# debug SCRIPT-LINES... : runs the kernel under the debugger with these commands
debug() {
    printf '%s\n' "$@" >"$T/cmds"
    run "$C" debug "$T/k.cu" --grid 2 --block 32 out=zeros:64 in=@"$T/in.npy" n=40 \
        --commands "$T/cmds" --print out:4
}

cat >"$T/k.cu" <<'EOF'
__device__ int sq(int x) {
    int y = x * x;
    return y;
}
__global__ void k(int *out, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i] + 1;
        out[i] = sq(v);
    }
}
EOF
# lines:   1 sq, 2 y = x * x, 3 return y, 5 kernel, 6 i = ..., 7 if, 8 v = in[i] + 1, 9 out[i] = sq(v)

# in.npy: 64 int32 values 2 * i (version 1.0; a 58-byte dict padded to a 128-byte header)
{
    printf '\223NUMPY\001\000\166\000'
    printf "{'descr': '<i4', 'fortran_order': False, 'shape': (64,), }"
    printf '%59s\n' ''
    i=0
    while [ $i -lt 64 ]; do
        printf "\\$(printf '%03o' $((2 * i)))\\000\\000\\000"
        i=$((i + 1))
    done
} >"$T/in.npy"

debug "break 8" "run" "print i" "print in[i]" "next" "print v" "print/x threadIdx.x" \
    "x/4i32 in" "continue" "print i" "info planes" "delete" "continue"
[ $rc -eq 0 ]; ok $? "a scripted session runs to the end (exit 0)"; [ $rc -eq 0 ] || show
has "^Breakpoint 1 at 8 (pc [0-9]*)$" "$T/out"
ok $? "break 8 names its first instruction"
hasx "Breakpoint 1, cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:8" "$T/out" &&
    has "^8	        int v = in\[i\] + 1;$" "$T/out"
ok $? "run stops at line 8 in cube 0 plane 0, all 32 lanes active, with the source line"
hasx "  [ 0] 0 1 2 3 4 5 6 7" "$T/out" && hasx "  [24] 24 25 26 27 28 29 30 31" "$T/out"
ok $? "print i: each lane's i"
hasx "  [ 8] 16 18 20 22 24 26 28 30" "$T/out"; ok $? "print in[i]: each lane's element of the buffer"
hasx "cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:9" "$T/out" &&
    hasx "  [ 0] 1 3 5 7 9 11 13 15" "$T/out"
ok $? "next goes to line 9, where v = in[i] + 1"
hasx "  [ 8] 0x8 0x9 0xa 0xb 0xc 0xd 0xe 0xf" "$T/out"; ok $? "print/x threadIdx.x"
hasx "lane 0: in = (buffer 'in' + 0): 0 2 4 6" "$T/out"; ok $? "x/4i32 in reads the buffer"
# cube 1: i = 32..63, i < 40 for lanes 0-7; the others are inactive (*)
hasx "Breakpoint 1, cube (1,0,0) plane 0, lanes 0-7 active, at k.cu:8" "$T/out" &&
    hasx "  [ 8] 40* 41* 42* 43* 44* 45* 46* 47*" "$T/out"
ok $? "continue stops in cube 1 with lanes 0-7 active; inactive lanes marked"
has "^\* plane 0: runnable, pc [0-9]* (k.cu:8), lanes 0-7 active" "$T/out"; ok $? "info planes"
hasx "[the kernel has finished]" "$T/out" && hasx "out: 1 9 25 49 ... (64 elements)" "$T/out"
ok $? "after delete, continue runs to the end; --print shows out[i] = (2i + 1)^2"

debug "break 8" "run" "step" "step" "bt" "info args" "info locals" "finish" "info locals" "quit"
[ $rc -eq 0 ] && hasx "[the launch was ended by the debugger]" "$T/out" && ! has "^out:" "$T/out"
ok $? "quit ends the launch (exit 0, no results printed)"
hasx "cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:9" "$T/out" && ! has "in sq, at k.cu:9" "$T/out" &&
    hasx "cube (0,0,0) plane 0, lanes 0-31 active, in sq, at k.cu:2" "$T/out"
ok $? "step goes to the call's line 9 (its argument copy is the caller's), then into sq's line 2"
hasx "#0  sq at k.cu:2 (inlined)" "$T/out" && hasx "#1  k at k.cu:9" "$T/out"
ok $? "backtrace: the inlined frame and the kernel with the call's line"
has "^x = 1  (lane 0;" "$T/out" && hasx "no locals here" "$T/out"
ok $? "info args inside sq: its parameter x (lane 0: v = 1); no locals before y's line has run"
hasx "cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:9" "$T/out" && has "^v = 1  (lane 0;" "$T/out" &&
    has "^i = 0  (lane 0;" "$T/out"
ok $? "finish returns to the kernel's line 9 and its locals"

# conditions: i == 37 is lane 5 of cube 1 (i = 32 + lane); blockIdx.x > 0 first holds in cube 1
debug "break 8 if i == 37" "break 9 if blockIdx.x>0" "break 9 if nosuch == 1" "break 9 if i" \
    "info breakpoints" "run" "display v" "continue" "info display" "undisplay 1" "delete" "continue"
has "^Breakpoint 1 at 8 (pc [0-9]*) if i == 37$" "$T/out"
ok $? "break LINE if EXPR == N is accepted and echoed"
has "^break: 'nosuch' is no number at the breakpoint" "$T/out" && has "^break: the condition must be EXPR OP NUMBER" "$T/out"
ok $? "a condition on an unknown name, or without an operator, is refused"
has "^1  k.cu:8 if i == 37  (0 hits)$" "$T/out" && has "^2  k.cu:9 if blockIdx.x > 0  (0 hits)$" "$T/out"
ok $? "info breakpoints shows the conditions"
hasx "Breakpoint 1 (lane 5: i == 37), cube (1,0,0) plane 0, lanes 0-7 active, at k.cu:8" "$T/out"
ok $? "the conditional breakpoint stops in cube 1, naming the lane that meets it"
hasx "Breakpoint 2 (lane 0: blockIdx.x > 0), cube (1,0,0) plane 0, lanes 0-7 active, at k.cu:9" "$T/out" &&
    hasx "  [ 0] 65 67 69 71 73 75 77 79" "$T/out"
ok $? "cube 0 never meets blockIdx.x > 0; at the stop in cube 1 the display shows v = 2i + 1"
hasx "1: print v" "$T/out" && hasx "[the kernel has finished]" "$T/out"; ok $? "info display; the session ends"

debug "start" "stepi" "stepi" "quit"
has "^pc 1: param.ptr.global %r1, in, 0$" "$T/out" && has "^pc 2: " "$T/out"
ok $? "start stops before the first instruction; stepi shows each instruction"

# a fault: n = 48 with out of 40 elements
printf '%s\n' "run" "print i" "continue" >"$T/cmds"
run "$C" debug "$T/k.cu" --grid 2 --block 32 out=zeros:40 in=@"$T/in.npy" n=48 --commands "$T/cmds"
[ $rc -eq 1 ] && has "^Fault: out-of-bounds store" "$T/out" && has "cube (1,0,0) plane 0, lanes 0-15 active, in sq, at k.cu:9" "$T/out" ||
    has "cube (1,0,0) plane 0, lanes 0-15 active, at k.cu:9" "$T/out"
ok $? "a fault stops the session where it happens (cube 1, lanes 0-15)"
hasx "  [ 8] 40 41 42 43 44 45 46 47" "$T/out" && has "^cubevm: error: .*out-of-bounds store" "$T/err"
ok $? "the faulting lanes' i can be printed; continue ends with the fault (exit 1)"

# shared memory and a loop: a tree sum of in[t] = 2t over 64 units (lines below)
cat >"$T/r.cu" <<'EOF'
__global__ void r(const int *in, int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    for (int st = 32; st > 0; st >>= 1) {
        if (t < st)
            s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0)
        out[0] = s[0];
}
EOF
# line 8 runs for t < st: st = 32 in plane 0 (plane 1 has t >= 32), then 16, 8, 4, 2, 1: six stops
printf '%s\n' "break 6" "run" "print (int)s[t]" "delete" "break 8" "continue" "print (int)s[t+st]" \
    "print (float)s[t]" "continue 5" "print st" "info breakpoints" "delete" "continue" "print t" >"$T/cmds"
run "$C" debug "$T/r.cu" --block 64 in=@"$T/in.npy" out=zeros:1 --commands "$T/cmds" --print out:1
[ $rc -eq 0 ] && hasx "  [ 8] 16 18 20 22 24 26 28 30" "$T/out"
ok $? "print (int)s[t] reads the __shared__ array after the barrier: s[t] = 2t"; [ $rc -eq 0 ] || show
hasx "  [ 8] 80 82 84 86 88 90 92 94" "$T/out"; ok $? "print (int)s[t+st]: an index expression (2(t + 32))"
has "^\$3 = 0  (plane 0, all active lanes" "$T/out" || has "^  \[ 0\] 0 2.80259693e-45" "$T/out"
ok $? "print (float)s[t] reads the same bits as floats"
hasx "Breakpoint 2, cube (0,0,0) plane 0, lanes 0 active, at r.cu:8" "$T/out" && has "^\$4 = 1  (plane 0" "$T/out" &&
    has "^2  r.cu:8  (6 hits)$" "$T/out"
ok $? "line 8 stops once per plane and pass: the sixth stop is st = 1 with lane 0 alone"
hasx "out: 4032" "$T/out" && hasx "[1 command after the end of the launch not run]" "$T/out"
ok $? "the sum is 2 * (0 + ... + 63) = 4032; a command after the end is counted, not run"

# second round: displays, exact integer conditions, loop headers, wide indexes, words
printf '%s\n' "display t" "display" "info display" "break 6" "run" "display/x t" "continue 13" \
    "info breakpoints" "print st" "print (int) s[ t - t ]" "print (int)s[1073741824]" "print t = 3" \
    "st" "help print" "delete" "continue" >"$T/cmds"
run "$C" debug "$T/r.cu" --block 64 in=@"$T/in.npy" out=zeros:1 --commands "$T/cmds" --print out:1
[ $rc -eq 0 ] && hasx "display: the kernel is not running ('info display' lists them)" "$T/out" &&
    hasx "1: print t" "$T/out" && has "^2: t = 0x20  (plane 1, all active lanes" "$T/out" ||
    has "^  \[ 0\] 0x20 0x21" "$T/out"
ok $? "displays before the launch wait for it; display/x prints labelled and in hex"; [ $rc -eq 0 ] || show
has "^1  r.cu:6  (14 hits)$" "$T/out" && has "^\$[0-9]* = 1  (plane 1, all active lanes: 0-31)$" "$T/out"
ok $? "the for header stops once per pass: 7 times in each plane, the 14th before st = 1 >>= 1 in plane 1"
has "^\$[0-9]* = 4032  (plane 1, all active lanes: 0-31)$" "$T/out"
ok $? "print (int) s[ t - t ] with spaces: s[0], whose last pass (st = 1) plane 0 has run: 4032"
has "<out of bounds: past the 32-bit offsets of its memory>" "$T/out"
ok $? "a shared index past 2^32 bytes is out of bounds, not wrapped to s[0]"
has "^print: 't=3': the debugger shows values; it does not assign them$" "$T/out" &&
    hasx "ambiguous command 'st': start, step, stepi" "$T/out" && has "^  print\[/x\] EXPR" "$T/out"
ok $? "no assignment; an ambiguous prefix names its commands; help print shows print's lines"

printf '%s\n' "break 8" "run" "next" "next" "next" "next" "next" "next" "next" "next" "next" "next" "quit" >"$T/cmds"
run "$C" debug "$T/r.cu" --block 64 in=@"$T/in.npy" out=zeros:1 --commands "$T/cmds"
[ $rc -eq 0 ] && [ "$(grep -c ', lanes .* active, at r.cu:' "$T/out")" -eq 11 ] && ! has "lanes none active" "$T/out"
ok $? "next never stops where no lane of the plane runs (a skipped if, a loop's exit)"

cat >"$T/u.cu" <<'EOF'
__global__ void u(unsigned long long *out) {
    unsigned long long v = 0xFFFFFFFFFFFFFFFFull - threadIdx.x;
    out[threadIdx.x] = v;
}
EOF
printf '%s\n' "break 3 if v == 18446744073709551614" "info breakpoints" "run" "print/x v" "quit" >"$T/cmds"
run "$C" debug "$T/u.cu" --block 4 out=zeros:4 --commands "$T/cmds"
[ $rc -eq 0 ] && hasx "1  u.cu:3 if v == 18446744073709551614  (0 hits)" "$T/out" &&
    hasx "Breakpoint 1 (lane 1: v == 18446744073709551614), cube (0,0,0) plane 0, lanes 0-3 active, at u.cu:3" "$T/out"
ok $? "conditions compare 64-bit integers exactly (2^64 - 2 is lane 1, not lane 0's 2^64 - 1)"

# a pipe that stays open: the results come when the launch ends, not at the pipe's end
{ echo run; sleep 6; } | "$C" debug "$T/k.cu" --grid 2 --block 32 out=zeros:64 in=@"$T/in.npy" n=40 \
    --print out:4 >"$T/out" 2>"$T/err" &
tries=0
while ! has "^out: 1 9 25 49" "$T/out" && [ $tries -lt 40 ]; do sleep 0.1; tries=$((tries + 1)); done
has "^out: 1 9 25 49" "$T/out"; ok $? "commands from a pipe: the results appear when the kernel ends"
wait
# lane is kept at an unconditional breakpoint; conditions on pointers are refused; no index wraps
debug "break 8" "break 9 if in != 0" "run" "lane 5" "continue" "lane" "info locals" \
    "print in[9223372036854775807+9223372036854775807+2]" "quit"
has "^break: 'in' is no number at the breakpoint" "$T/out" && hasx "lane 5" "$T/out" &&
    has "^i = 37  (lane 5;" "$T/out"
ok $? "lane 5 holds at the next stop (cube 1: i = 37); a pointer condition is refused"
! has "^\$[0-9]* = -53\|^  \[ 0\] 0 " "$T/out" && has "^print: index '9223372036854775807+9223372036854775807+2'" "$T/out"
ok $? "an index that overflows is refused, not wrapped to element 0"

# tbreak and advance; an extern __shared__ array by its address
debug "tbreak 8" "run" "break 8" "advance 9" "info breakpoints" "delete" "continue"
hasx "Temporary breakpoint 1, cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:8" "$T/out" &&
    hasx "Temporary breakpoint 3, cube (0,0,0) plane 0, lanes 0-31 active, at k.cu:9" "$T/out" &&
    has "^2  k.cu:8  (0 hits)$" "$T/out" && ! has "^1  k.cu:8\|^3  k.cu:9" "$T/out" &&
    hasx "[the kernel has finished]" "$T/out"
ok $? "tbreak stops once and goes; advance runs to its line; both are gone after they stop"
cat >"$T/e.cu" <<'EOF'
__global__ void e(float *out) {
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    dyn[t] = t * 0.5f;
    __syncthreads();
    out[t] = dyn[3 - t];
}
EOF
printf '%s\n' "break 6" "run" "print (float)dyn[t]" "x/4f32 dyn" "delete" "continue" >"$T/cmds"
run "$C" debug "$T/e.cu" --block 4 --shared 16 out=zeros:4 --commands "$T/cmds" --print out:4
[ $rc -eq 0 ] && hasx "  [ 0] 0 0.5 1 1.5" "$T/out" && hasx "lane 0: dyn = (shared + 0): 0 0.5 1 1.5" "$T/out" &&
    hasx "out: 1.5 1 0.5 0" "$T/out"
ok $? "an extern __shared__ array is read by its name (dyn[t] = t / 2)"

# a step budget under the debugger is a fault stop; the faulted plane shows so
printf '%s\n' "run" "info planes" "continue" >"$T/cmds"
run "$C" debug "$T/r.cu" --block 64 in=@"$T/in.npy" out=zeros:1 --steps 20 --commands "$T/cmds"
[ $rc -eq 1 ] && has "^Fault (lane 0): step budget of 20 instructions exceeded" "$T/out" &&
    has "^\* plane 0: faulted" "$T/out" && has "step budget" "$T/err"
ok $? "--steps: the budget's fault stops the session; info planes shows the plane faulted"; [ $rc -eq 1 ] || show
# out of bounds, before and after a buffer
debug "break 8" "run" "print in[i+40]" "print in[i-1]" "quit"
has "^  \[24\] <out of bounds: buffer 'in' + 256 (its end)> <out of bounds: buffer 'in' + 260 (past its 256 bytes)>" "$T/out" &&
    has "^  \[ 0\] <out of bounds: buffer 'in' - 4 (before its start)> 0 2 4" "$T/out"
ok $? "an index out of the buffer says where, by the buffer the pointer came from"

# frames: a callee's parameters and locals, and not its caller's names
cat >"$T/inl.cu" <<'EOF'
__device__ int inner(int a) {
    int b = a + 1;
    return b;
}
__device__ int noargs() {
    int z = 42;
    return z;
}
__global__ void f(int *out) {
    int t = threadIdx.x;
    int r = inner(t + 100) + noargs();
    out[t] = r;
}
EOF
printf '%s\n' "break 2" "break 7" "run" "info args" "print t" "up" "print t" "down" "continue" "info args" \
    "info locals" "delete" "continue" >"$T/cmds"
run "$C" debug "$T/inl.cu" --block 4 out=zeros:4 --commands "$T/cmds" --print out:4
[ $rc -eq 0 ] && has "^a = 100  (lane 0;" "$T/out" && has "^print: no variable 't' here" "$T/out" &&
    hasx "no arguments here" "$T/out" && has "^z = 42  (lane 0;" "$T/out" && hasx "out: 143 144 145 146" "$T/out"
ok $? "info args in inner() is a = t + 100; t is the caller's, not visible there; noargs() has z as a local"
hasx "#1  f at inl.cu:11" "$T/out" && hasx "  [ 0] 0 1 2 3" "$T/out" && hasx "#0  inner at inl.cu:2" "$T/out"
ok $? "up selects the caller (its line 11), where print sees t; down goes back"
# the commands must be text, and readable; a session that ends at a fault fails
run "$C" debug "$T/inl.cu" --block 4 out=zeros:4 --commands /dev/zero
[ $rc -eq 1 ] && has "the commands are not text" "$T/err"; ok $? "binary commands are refused (exit 1)"
run "$C" debug "$T/inl.cu" --block 4 out=zeros:4 --commands "$T"
[ $rc -eq 1 ] && has "reading the commands failed" "$T/err"; ok $? "a directory as --commands is an error"
printf 'run\n' >"$T/cmds"
run "$C" debug "$T/k.cu" --grid 2 --block 32 out=zeros:40 in=@"$T/in.npy" n=48 --commands "$T/cmds"
[ $rc -eq 1 ] && has "^Fault (lane 8): out-of-bounds store" "$T/out" &&
    has "kernel fault (the session ended at it): out-of-bounds store" "$T/err"
ok $? "a session whose commands end at a fault exits 1 with the fault (lane 8 is i = 40)"

# output the kernel prints appears once, as it runs
cat >"$T/p.cu" <<'EOF'
__global__ void p() {
    printf("hello %d\n", threadIdx.x);
}
EOF
printf '%s\n' "break 2" "run" "continue" >"$T/cmds"
run "$C" debug "$T/p.cu" --block 2 --commands "$T/cmds"
[ $rc -eq 0 ] && [ "$(grep -c '^hello [01]$' "$T/out")" -eq 2 ]
ok $? "kernel printf appears once under the debugger"

# Ctrl-C (SIGINT) stops a kernel that never ends; the commands go on
cat >"$T/spin.cu" <<'EOF'
__global__ void spin(int *out, int n) {
    int j = 0;
    while (out[0] == 0)
        j++;
    out[1] = j + n;
}
EOF
printf '%s\n' "info breakpoints" "run" "info planes" "quit" >"$T/cmds"
"$C" debug "$T/spin.cu" out=zeros:2 n=1 --commands "$T/cmds" >"$T/out" 2>"$T/err" &
pid=$!
tries=0
while ! has "^no breakpoints$" "$T/out" && [ $tries -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
sleep 0.5 # past the launch: the handler is in place
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] && has "^Interrupted: cube (0,0,0) plane 0, lanes 0 active, at spin.cu:[34]$" "$T/out" &&
    has "^\* plane 0: runnable, pc [0-9]* (spin.cu:[34])" "$T/out" && hasx "[the launch was ended by the debugger]" "$T/out"
ok $? "SIGINT stops a spinning kernel where it is; the next commands run"; [ $rc -eq 0 ] || show

# mistakes get messages, not crashes
debug "step" "break 99" "break k.cu:x" "bogus" "break 8" "run" "print nosuch" "print %r9999" "x/4q32 in" \
    "lane 99" "plane 7" "finish" "continue"
[ $rc -eq 0 ] && has "^step: the kernel is not running" "$T/out" && has "^break: no code at 99" "$T/out" &&
    has "^break: 'k.cu:x': expected LINE" "$T/out" && has "^unknown command 'bogus'" "$T/out" &&
    has "^print: no variable 'nosuch' here" "$T/out" && has "^print: the kernel has no register %r9999" "$T/out" &&
    has "^x: expected x/N<type>" "$T/out" && has "^lane: expected a lane from 0 to 31" "$T/out" &&
    has "^plane: expected a plane from 0 to 0" "$T/out"
ok $? "bad commands are answered and the session goes on"; [ $? -eq 0 ] || show
run "$C" debug "$T/k.cu" --device vulkan out=zeros:4 in=zeros:4 n=4 --commands /dev/null
[ $rc -eq 2 ] && has "debug: kernels run under the debugger on the cpu device only" "$T/err"
ok $? "--device vulkan is refused (exit 2)"
run "$C" debug "$T/k.cu" --schedule random out=zeros:4 in=zeros:4 n=4 --commands /dev/null
[ $rc -eq 2 ] && has "debug: --schedule does not apply" "$T/err"; ok $? "--schedule is refused"
run "$C" debug "$T/k.cu" out=zeros:4 in=zeros:4 n=4 --commands "$T/nonexistent"
[ $rc -eq 1 ] && has "cannot read --commands file" "$T/err"; ok $? "a missing --commands file is an error"
run "$C" debug "$T/k.cu" out=zeros:4 in=zeros:4 --commands /dev/null
[ $rc -eq 2 ] && has "parameter" "$T/err"; ok $? "run's argument checks apply (missing n)"
: >"$T/cmds"
run "$C" debug "$T/k.cu" out=zeros:4 in=zeros:4 n=4 --commands "$T/cmds" --print out:4
[ $rc -eq 0 ] && ! has "^out:" "$T/out"; ok $? "no commands: the session ends before the launch"

echo "1..$n"
[ $failed -eq 0 ]
