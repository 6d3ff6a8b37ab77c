#!/bin/sh
# Installs the benchmark anchors (LibTorch, PoCL, OpenCL headers, OpenBLAS,
# oneDNN) for `make bench`. Not part of `make deps` or CI: the anchors are
# large and only the benchmark needs them. A package that cannot be
# installed is not fatal: the bench reports that contender as unavailable.
# Waits for the dpkg lock when another install is running.
pkgs="python3-torch pocl-opencl-icd ocl-icd-opencl-dev opencl-headers libopenblas-dev libdnnl-dev"
need=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
APT="$SUDO apt-get -o DPkg::Lock::Timeout=600"
echo "bench deps: installing$need"
$APT update -qq || echo "bench deps: apt-get update failed; trying the install anyway" >&2
if ! DEBIAN_FRONTEND=noninteractive $APT install -y -qq --no-install-recommends $need >/dev/null; then
    # One by one, so one missing package does not block the others.
    for p in $need; do
        DEBIAN_FRONTEND=noninteractive $APT install -y -qq --no-install-recommends "$p" >/dev/null \
            || echo "bench deps: could not install $p (its contender will be reported unavailable)" >&2
    done
fi
exit 0
