# tests/lib/rerun.sh - sourced by the test scripts that run other test
# programs once more in another setting (test_lockstep.sh,
# test_checkers_corpus.sh): `rerun "ENV=VALUE ..." "WHAT" "MARK" PROGRAM...`
# runs each $BUILD/tests/PROGRAM with the environment assignments, one TAP
# line each (numbered on from earlier calls; the script prints the plan,
# "1..$tap_n", at its end): ok when it exits 0, prints no "not ok" and,
# when MARK is not empty, prints a line matching MARK (the proof the
# setting took effect). `rerun_shards "ENV=VALUE ..." "WHAT" "MARK" VAR N
# PROGRAM` runs PROGRAM N times at once, the k-th with VAR=k/N more (its
# share of the work), one TAP line each, judged as rerun judges.
tap_n=0
# One TAP line for the run named $2 (of program $1) from its exit status $3 and output $4.
judge() {
    tap_n=$((tap_n + 1))
    if [ "$3" -eq 0 ] && ! printf '%s\n' "$4" | grep -q '^not ok' &&
        { [ -z "$mark" ] || printf '%s\n' "$4" | grep -q "$mark"; }; then
        echo "ok $tap_n - $2 passes $what"
    else
        echo "not ok $tap_n - $2 fails $what${mark:+ (or did not turn it on)}"
        printf '%s\n' "$4" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
    fi
}

# Whether program $1 is built, else its TAP line saying not.
built() {
    [ -x "$BUILD/tests/$1" ] && return 0
    tap_n=$((tap_n + 1))
    echo "not ok $tap_n - $1: $BUILD/tests/$1 not built"
    return 1
}

rerun() {
    env_set=$1 what=$2 mark=$3
    shift 3
    for t in "$@"; do
        built "$t" || continue
        rc=0
        out=$(env $env_set "$BUILD/tests/$t" 2>&1) || rc=$?
        judge "$t" "$t" "$rc" "$out"
    done
}

rerun_shards() {
    env_set=$1 what=$2 mark=$3 var=$4 n=$5 t=$6
    built "$t" || return
    if ! dir=$(mktemp -d "${TMPDIR:-/tmp}/shards.XXXXXX"); then
        tap_n=$((tap_n + 1))
        echo "not ok $tap_n - $t: no temporary directory for its shards"
        return
    fi
    # an interrupted script stops its shards and removes their outputs
    pids=
    trap 'kill $pids 2>/dev/null; rm -rf "$dir"; exit 1' INT TERM
    k=0
    while [ "$k" -lt "$n" ]; do
        (rc=0; env $env_set "$var=$k/$n" "$BUILD/tests/$t" >"$dir/$k" 2>&1 || rc=$?; echo "$rc" >"$dir/$k.rc") &
        pids="$pids $!"
        k=$((k + 1))
    done
    wait
    trap - INT TERM
    k=0
    while [ "$k" -lt "$n" ]; do
        judge "$t" "$t ($var=$k/$n)" "$(cat "$dir/$k.rc" 2>/dev/null || echo 1)" "$(cat "$dir/$k")"
        k=$((k + 1))
    done
    rm -rf "$dir"
}
