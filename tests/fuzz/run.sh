#!/bin/sh
# Runs the libFuzzer harnesses of a fuzz build for a bounded time each:
#   tests/fuzz/run.sh BUILD SECONDS [MIN_EXECS]
# Seeds come from every .cbs/.cbc of the repository (tests/fuzz/seeds.sh,
# assembled with BUILD/bin/cubevm) plus tests/fuzz/regress/; new inputs go to
# BUILD/fuzz/corpus-NAME, crashes to BUILD/fuzz/artifacts/. Prints each
# fuzzer's execution count and the total; fails on a finding, or when the
# total is below MIN_EXECS.
#
# FUZZ_RUNS=N makes each harness stop after N inputs (or SECONDS, whichever
# comes first) with a fixed seed (FUZZ_SEED, default 1): the same inputs on
# every run, so a gate like CI fails only on a change, never on luck.
# Without it the harnesses run for SECONDS with a random seed, for exploring.
set -eu
build="$1"
secs="$2"
min="${3:-0}"
dir="$build/fuzz"
tests/fuzz/seeds.sh "$build/bin/cubevm" "$dir/seeds"
mkdir -p "$dir/artifacts"
# The harnesses run side by side (each libFuzzer process is one thread; CI
# machines have two cores); their reports are printed in order afterwards.
run_harness() {
    name="$1"
    corpus="$dir/corpus-$name"
    mkdir -p "$corpus"
    # -timeout: one input running longer than this is a hang (the harness's
    # launches stop themselves after a step budget and 0.25 s).
    if [ -n "${FUZZ_RUNS:-}" ]; then
        runs="$FUZZ_RUNS"
        # fuzz_cuda parses the built-in cuda_runtime.h before every input
        # (about 50 ms an input in the fuzz build): a hundredth of the runs.
        [ "$name" = cuda ] && runs=$((runs / 100 + 1))
        bound="-runs=$runs -seed=${FUZZ_SEED:-1}"
    else
        bound=""
    fi
    # The CUDA harness's comparisons are not traced (Makefile, FE_CFLAGS):
    # the keywords and punctuators come from a dictionary instead.
    [ "$name" = cuda ] && bound="$bound -dict=tests/fuzz/cuda.dict"
    # shellcheck disable=SC2086 # $bound is a list of options
    "$dir/fuzz_$name" $bound -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-" \
        "$corpus" "$dir/seeds/$name" tests/fuzz/regress >"$dir/$name.log" 2>&1
}
pids=""
for name in ${FUZZ_HARNESSES:-load exec spirv cuda npy}; do
    echo "== fuzz_$name: at most $secs s"
    run_harness "$name" &
    pids="$pids $!"
done
total=0
failed=0
set -- $pids
for name in ${FUZZ_HARNESSES:-load exec spirv cuda npy}; do
    pid="$1"; shift
    log="$dir/$name.log"
    if ! wait "$pid"; then
        tail -n 60 "$log"
        echo "fuzz_$name: finding saved under $dir/artifacts/"
        failed=1
        continue
    fi
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "fuzz_$name: ${n:-0} executions, $cov, corpus $(ls "$dir/corpus-$name" | wc -l) files"
    total=$((total + ${n:-0}))
done
[ "$failed" -eq 0 ] || exit 1
echo "fuzz: $total executions in total"
if [ "$total" -lt "$min" ]; then
    echo "fuzz: fewer than $min executions"
    exit 1
fi
