# tests/lib/rerun.sh - sourced by the test scripts that run other test
# programs once more in another setting (test_lockstep.sh,
# test_checkers_corpus.sh, test_native_corpus.sh):
#
#   rerun "ENV=VALUE ..." "WHAT" "MARK" JOB...
#
# runs each JOB, a program $BUILD/tests/PROGRAM, or PROGRAM:VAR=VALUE for
# that program with one assignment more (a shard of its work), with the
# environment assignments; one TAP line per job, in the order given
# (numbered on from earlier calls; the script prints the plan,
# "1..$tap_n", at its end): ok when it exits 0, prints no "not ok" and,
# when MARK is not empty, prints a line matching MARK (the proof the
# setting took effect). The jobs run $RERUN_JOBS at a time (default: one
# per core), each of those lanes taking the next job that no lane has
# taken yet, so a caller lists the longest first.
tap_n=0
rerun_lanes=${RERUN_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $rerun_lanes in
'' | *[!0-9]* | 0) echo "# RERUN_JOBS='$rerun_lanes' is not a count of lanes: running one job at a time"; rerun_lanes=1 ;;
esac

# One TAP line for the run named $1 from its exit status $2 and output $3.
judge() {
    tap_n=$((tap_n + 1))
    if [ "$2" -eq 0 ] && ! printf '%s\n' "$3" | grep -q '^not ok' &&
        { [ -z "$mark" ] || printf '%s\n' "$3" | grep -q "$mark"; }; then
        echo "ok $tap_n - $1 passes $what"
    else
        echo "not ok $tap_n - $1 fails $what${mark:+ (or did not turn it on)}"
        printf '%s\n' "$3" | grep '^not ok\|^#' | head -20 | sed 's/^/# /'
    fi
}

# One lane: each job of "$@" not yet claimed (mkdir either makes the
# claim or finds another lane's), its output to $dir/N and its exit
# status to $dir/N.rc for the N-th job.
lane() {
    i=0
    for job in "$@"; do
        i=$((i + 1))
        mkdir "$dir/$i.claim" 2>/dev/null || continue
        more=
        [ "${job%%:*}" = "$job" ] || more=${job#*:}
        rc=0
        env $env_set $more "$BUILD/tests/${job%%:*}" >"$dir/$i" 2>&1 || rc=$?
        echo "$rc" >"$dir/$i.rc"
    done
}

rerun() {
    env_set=$1 what=$2 mark=$3
    shift 3
    if ! dir=$(mktemp -d "${TMPDIR:-/tmp}/rerun.XXXXXX"); then
        tap_n=$((tap_n + 1))
        echo "not ok $tap_n - no temporary directory for the runs $what"
        return
    fi
    i=0
    for job in "$@"; do # a program not built is claimed here, never run
        i=$((i + 1))
        [ -x "$BUILD/tests/${job%%:*}" ] || mkdir "$dir/$i.claim"
    done
    # an interrupted script stops its lanes and removes their outputs
    pids=
    trap 'kill $pids 2>/dev/null; rm -rf "$dir"; exit 1' INT TERM
    k=0
    while [ "$k" -lt "$rerun_lanes" ]; do
        lane "$@" &
        pids="$pids $!"
        k=$((k + 1))
    done
    wait
    trap - INT TERM
    i=0
    for job in "$@"; do
        i=$((i + 1))
        t=${job%%:*} name=$job
        [ "$t" = "$job" ] || name="$t (${job#*:})"
        if [ -x "$BUILD/tests/$t" ]; then
            judge "$name" "$(cat "$dir/$i.rc" 2>/dev/null || echo 1)" "$(cat "$dir/$i" 2>/dev/null)"
        else
            tap_n=$((tap_n + 1))
            echo "not ok $tap_n - $t: $BUILD/tests/$t not built"
        fi
    done
    rm -rf "$dir"
}
