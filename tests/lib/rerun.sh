# tests/lib/rerun.sh - sourced by the test scripts that run other test
# programs once more in another setting (test_lockstep.sh,
# test_checkers_corpus.sh): `rerun "ENV=VALUE ..." "WHAT" "MARK" PROGRAM...`
# runs each $BUILD/tests/PROGRAM with the environment assignments, one TAP
# line each (numbered on from earlier calls; the script prints the plan,
# "1..$tap_n", at its end): ok when it exits 0, prints no "not ok" and,
# when MARK is not empty, prints a line matching MARK (the proof the
# setting took effect).
tap_n=0
rerun() {
    env_set=$1 what=$2 mark=$3
    shift 3
    for t in "$@"; do
        tap_n=$((tap_n + 1))
        if [ ! -x "$BUILD/tests/$t" ]; then
            echo "not ok $tap_n - $t: $BUILD/tests/$t not built"
            continue
        fi
        if out=$(env $env_set "$BUILD/tests/$t" 2>&1) && ! printf '%s\n' "$out" | grep -q '^not ok' &&
            { [ -z "$mark" ] || printf '%s\n' "$out" | grep -q "$mark"; }; then
            echo "ok $tap_n - $t passes $what"
        else
            echo "not ok $tap_n - $t fails $what${mark:+ (or did not turn it on)}"
            printf '%s\n' "$out" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
        fi
    done
}
