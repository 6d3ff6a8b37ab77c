#!/bin/sh
# Builds the fuzz seed corpora from the repository's modules, CUDA sources
# and .npy files:
#   tests/fuzz/seeds.sh CUBEVM OUTDIR
# OUTDIR/load and OUTDIR/spirv get each .cbs as text, each .cbc, and each
# .cbs that assembles as .cbc (these harnesses read their input both ways);
# OUTDIR/exec gets the .cbc files only (fuzz_exec loads bytes); OUTDIR/cuda
# every .cu; OUTDIR/npy every .npy. Files under build*/ are outputs, not seeds.
set -eu
cubevm="$1"
out="$2"
rm -rf "$out"
mkdir -p "$out/load" "$out/exec" "$out/cuda" "$out/npy"
sources() {
    find . -path './build*' -prune -o -path ./.git -prune -o -name "$1" -print | sort
}
for f in $(sources '*.cu'); do
    cp "$f" "$out/cuda/$(echo "${f#./}" | tr '/' '_')"
done
for f in $(sources '*.npy'); do
    cp "$f" "$out/npy/$(echo "${f#./}" | tr '/' '_')"
done
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
cp -r "$out/load" "$out/spirv"
echo "seeds: $n module files ($(ls "$out/exec" | wc -l) modules), $(ls "$out/cuda" | wc -l) .cu, $(ls "$out/npy" | wc -l) .npy"
