# tests/lib/rerun.sh - sourced by the test scripts that run other test
# programs once more in another setting (test_lockstep.sh,
# test_checkers_corpus.sh): `rerun "ENV=VALUE ..." "WHAT" "MARK" PROGRAM...`
# runs each $BUILD/tests/PROGRAM with the environment assignments, one TAP
# line each: ok when it exits 0, prints no "not ok" and, when MARK is not
# empty, prints a line matching MARK (the proof the setting took effect).
rerun() {
    env_set=$1 what=$2 mark=$3
    shift 3
    echo "1..$#"
    i=0
    for t in "$@"; do
        i=$((i + 1))
        if [ ! -x "$BUILD/tests/$t" ]; then
            echo "not ok $i - $t: $BUILD/tests/$t not built"
            continue
        fi
        if out=$(env $env_set "$BUILD/tests/$t" 2>&1) && ! printf '%s\n' "$out" | grep -q '^not ok' &&
            { [ -z "$mark" ] || printf '%s\n' "$out" | grep -q "$mark"; }; then
            echo "ok $i - $t passes $what"
        else
            echo "not ok $i - $t fails $what${mark:+ (or did not turn it on)}"
            printf '%s\n' "$out" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
        fi
    done
}
