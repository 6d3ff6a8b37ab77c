#!/bin/sh
# Installs the Debian packages that building and testing cubevm needs
# (not the benchmark anchors). Waits for the dpkg lock if another install runs.
set -e
need=""
# Vulkan: the loader, volk (compiled into the vulkan device), Mesa's lavapipe
# (the device the tests run on), glslang (test shaders), the validation layers
# and vulkaninfo for diagnosis; locales for the de_DE sources a test builds
# with localedef. Without volk.h the vulkan device is left out
# of the build; without a loader or driver it reports "unavailable".
# llvm-14-dev: the native tier (jit/native.c); without llvm-config the build
# leaves it out (LLVM=off) and kernels run on the interpreter.
for p in build-essential clang libclang-rt-14-dev llvm-14-dev make perl pkg-config libffi-dev python3 python3-numpy \
         valgrind locales spirv-headers spirv-tools libvulkan-dev libvulkan1 libvulkan-volk-dev \
         mesa-vulkan-drivers glslang-tools vulkan-tools vulkan-validationlayers; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "installing:$need"
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq $need >/dev/null
