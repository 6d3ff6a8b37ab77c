#!/bin/sh
# vk_gpu_check.sh - the vulkan device tests on a GPU's Vulkan driver, for a
# machine lent for a short time (docs/testing.md).
#
#   tools/vk_gpu_check.sh prepare   here: builds the five device tests and the
#                                   CLI, strips them into .devrun/, and downloads
#                                   the Vulkan loader and libglvnd (Debian
#                                   packages) into .gl/ (both git-ignored via
#                                   .git/info/exclude)
#   tools/vk_gpu_check.sh run OUT   there, from the repository root, with .devrun
#                                   and .gl carried: unpacks the packages, finds
#                                   the driver's ICD manifest, runs each test with
#                                   CUBEVM_TEST_VK_DRIVER set and writes its TAP
#                                   output to OUT/<test>.log; prints the failures
set -e
tests="test_vulkan test_vulkan_params test_vulkan_mem test_spirv_vk test_vulkan_cuda"
case "$1" in
prepare)
    build=${BUILD:-build}
    make -j2 BUILD="$build" WERROR=1 all $(for t in $tests; do echo "$build/tests/$t"; done)
    mkdir -p .devrun .gl
    for t in $tests; do strip -o ".devrun/$t" "$build/tests/$t"; done
    strip -o .devrun/cubevm "$build/bin/cubevm"
    ex=$(git rev-parse --git-dir)/info/exclude
    mkdir -p "$(dirname "$ex")"
    for d in /.devrun/ /.gl/; do grep -qx "$d" "$ex" 2>/dev/null || echo "$d" >> "$ex"; done
    o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    mkdir -p /tmp/amd64/partial
    # shellcheck disable=SC2086 # $o is a list of options
    apt-get $o update >/dev/null
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
    echo "prepared: carry .devrun and .gl; run: tools/vk_gpu_check.sh run \$OUT"
    ;;
run)
    out=${2:?usage: vk_gpu_check.sh run OUT}
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    icd=
    for c in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
             /etc/vulkan/icd.d/nvidia_icd.json; do
        [ -f "$c" ] && icd=$c && break
    done
    [ -n "$icd" ] || { echo "no GPU driver manifest found"; exit 1; }
    export CUBEVM_TEST_VK_DRIVER="$icd" VK_DRIVER_FILES="$icd" CUBEVM="$PWD/.devrun/cubevm" BUILD=build
    .devrun/cubevm devices
    set +e
    for t in $tests; do
        CUBEVM_TEST_TIMEOUT=200 sh tests/run-one ".devrun/$t" > "$out/$t.log" 2>&1
        echo "== $t: exit $?, $(grep -c '^ok' "$out/$t.log") ok, $(grep -c '^not ok' "$out/$t.log") not ok"
        grep -A3 '^not ok' "$out/$t.log" | head -40
    done
    ;;
*)
    echo "usage: tools/vk_gpu_check.sh prepare | run OUT" >&2
    exit 2
    ;;
esac
