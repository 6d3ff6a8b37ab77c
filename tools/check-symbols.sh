#!/bin/sh
# check-symbols.sh SO HEADER - the shared library exports exactly the
# functions that HEADER declares with CVM_API: no symbol outside cvm_ (the
# build hides everything else with -fvisibility=hidden), no internal
# cvm_bc_/cvm_vm_ helper, and no declared function missing. Used by
# `make check-symbols` and tests/test_install.sh.
set -eu
so=$1
hdr=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubevm-syms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Declarations keep the function name on the CVM_API line.
sed -n 's/^CVM_API[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$hdr" | sort -u >"$tmp/declared"
nm -D --defined-only "$so" | awk '{ print $NF }' | sort -u >"$tmp/exported"

bad=0
if [ ! -s "$tmp/declared" ]; then
    echo "check-symbols: no CVM_API declarations found in $hdr"; exit 1
fi
grep -v '^cvm_' "$tmp/exported" >"$tmp/foreign" || true
if [ -s "$tmp/foreign" ]; then
    echo "check-symbols: $so exports symbols outside cvm_:"; sed 's/^/  /' "$tmp/foreign"; bad=1
fi
comm -23 "$tmp/exported" "$tmp/declared" | grep '^cvm_' >"$tmp/extra" || true
if [ -s "$tmp/extra" ]; then
    echo "check-symbols: $so exports cvm_ symbols that $hdr does not declare:"
    sed 's/^/  /' "$tmp/extra"; bad=1
fi
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "check-symbols: functions declared in $hdr missing from $so:"; sed 's/^/  /' "$tmp/missing"; bad=1
fi
[ $bad -eq 0 ] && echo "check-symbols: $so exports the $(wc -l <"$tmp/declared") functions of $hdr, nothing else"
exit $bad
