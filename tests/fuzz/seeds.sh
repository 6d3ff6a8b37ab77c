#!/bin/sh
# Builds the fuzz seed corpora from every .cbs and .cbc in the repository:
#   tests/fuzz/seeds.sh CUBEVM OUTDIR
# OUTDIR/load gets each .cbs as text, each .cbc, and each .cbs that assembles
# as .cbc (fuzz_load reads its input both ways); OUTDIR/exec gets the .cbc
# files only (fuzz_exec loads bytes). Files under build*/ are outputs, not seeds.
set -eu
cubevm="$1"
out="$2"
rm -rf "$out"
mkdir -p "$out/load" "$out/exec"
n=0
for f in $(find . -path './build*' -prune -o -path ./.git -prune -o \( -name '*.cbs' -o -name '*.cbc' \) -print | sort); do
    name=$(echo "${f#./}" | tr '/' '_')
    case "$f" in
    *.cbc)
        cp "$f" "$out/load/$name"
        cp "$f" "$out/exec/$name" ;;
    *.cbs)
        cp "$f" "$out/load/$name"
        if "$cubevm" asm "$f" -o "$out/exec/${name%.cbs}.cbc" 2>/dev/null; then
            cp "$out/exec/${name%.cbs}.cbc" "$out/load/${name%.cbs}.cbc"
        fi ;;
    esac
    n=$((n + 1))
done
echo "seeds: $n files, $(ls "$out/exec" | wc -l) modules"
