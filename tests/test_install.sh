#!/bin/sh
# test_install.sh - `make install` end to end (TAP): installs this build
# ($BUILD) under a temporary PREFIX and a DESTDIR, checks the files, the
# soname, the exported symbols and the self-contained header, builds the
# docs/api.md program (identical to tests/api_example.c) against the
# installed copy through pkg-config, shared and static, runs both and
# checks the output against values worked out by hand; checks that the man
# page covers every command and option of `cubevm --help`.
B=${BUILD:-build}
T=${TEST_TMPDIR:-$(mktemp -d)}
CC=${CC:-cc}
P="$T/prefix"
n=0
failed=0

ok() { # ok EXIT-STATUS NAME
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
has() { grep -q -F -- "$1" "$2"; }

if ! command -v pkg-config >/dev/null 2>&1 || ! command -v "$CC" >/dev/null 2>&1; then
    echo "1..0 # SKIP needs pkg-config and a C compiler"
    exit 0
fi

# ---- install under PREFIX ----
make -s --no-print-directory BUILD="$B" install PREFIX="$P" >"$T/make.out" 2>&1
ok $? "make install PREFIX=..."
[ $failed -eq 0 ] || sed 's/^/# /' "$T/make.out"
for f in bin/cubevm lib/libcubevm.a lib/libcubevm.so lib/libcubevm.so.0 include/cubevm.h \
    lib/pkgconfig/cubevm.pc share/man/man1/cubevm.1; do
    [ -f "$P/$f" ]; ok $? "installed $f"
done
[ -L "$P/lib/libcubevm.so" ] && [ -L "$P/lib/libcubevm.so.0" ]
ok $? "libcubevm.so and libcubevm.so.0 are symlinks"
readelf -d "$P/lib/libcubevm.so" 2>/dev/null | grep -q 'SONAME.*\[libcubevm\.so\.0\]'
ok $? "the soname is libcubevm.so.0"
"$P/bin/cubevm" --version | grep -q '^cubevm [0-9]'
ok $? "installed cubevm --version runs"
tools/check-symbols.sh "$P/lib/libcubevm.so" "$P/include/cubevm.h" >"$T/syms.out" 2>&1
ok $? "installed .so exports exactly the CVM_API functions of the installed header"
sed 's/^/# /' "$T/syms.out"
! grep -q 'include "status.def"' "$P/include/cubevm.h"
ok $? "the installed header does not include status.def"
echo '#include <cubevm.h>
int main(void) { return CVM_OK + (int)CVM_INTERNAL * 0; }' >"$T/hdr.c"
$CC -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$P/include" -c "$T/hdr.c" -o "$T/hdr.o"
ok $? "the installed header compiles alone (-std=c11 -Wpedantic -Werror)"
if command -v c++ >/dev/null 2>&1; then
    cp "$T/hdr.c" "$T/hdr.cc"
    c++ -Wall -Werror -I"$P/include" -c "$T/hdr.cc" -o "$T/hdrcc.o"
    ok $? "the installed header compiles as C++"
fi
grep -q '^prefix='"$P"'$' "$P/lib/pkgconfig/cubevm.pc"
ok $? "cubevm.pc carries the prefix"

# ---- the docs/api.md program ----
sed -n '/^<!-- begin tests\/api_example.c -->$/,/^<!-- end tests\/api_example.c -->$/p' docs/api.md |
    sed '1,2d;$d' | sed '$d' >"$T/api_example.c"
[ -s "$T/api_example.c" ] && cmp -s "$T/api_example.c" tests/api_example.c
ok $? "docs/api.md shows tests/api_example.c verbatim"

export PKG_CONFIG_PATH="$P/lib/pkgconfig"
# shellcheck disable=SC2046,SC2086
$CC -std=c11 -Wall -Wextra -Werror "$T/api_example.c" $(pkg-config --cflags --libs cubevm) \
    $CUBEVM_LDFLAGS -o "$T/ex_shared" 2>"$T/cc.err"
ok $? "the program builds against the shared library through pkg-config"
sed 's/^/# /' "$T/cc.err"
readelf -d "$T/ex_shared" 2>/dev/null | grep -q 'NEEDED.*\[libcubevm\.so\.0\]'
ok $? "it needs libcubevm.so.0"
libdir=$(pkg-config --variable=libdir cubevm)
# shellcheck disable=SC2046,SC2086
$CC -std=c11 -Wall -Wextra -Werror "$T/api_example.c" $(pkg-config --cflags cubevm) \
    "$libdir/libcubevm.a" $(pkg-config --static --libs-only-l cubevm | sed 's/-lcubevm//') \
    $CUBEVM_LDFLAGS -o "$T/ex_static" 2>"$T/cc.err"
ok $? "the program builds against the static library"
sed 's/^/# /' "$T/cc.err"
! readelf -d "$T/ex_static" 2>/dev/null | grep -q 'NEEDED.*libcubevm'
ok $? "the static build does not need libcubevm.so"

# Expected values by hand: a[i] = i, b[i] = 2i, so c[i] = 3i; 32 units store
# into 16 elements, so units 16..31 fault, the lowest is unit 16 = plane 0
# lane 16 at the default width 32.
check_output() { # check_output FILE WHAT
    out=$1
    has "c[1] = 3, c[500] = 1500, c[999] = 2997" "$out"; ok $? "$2: vadd results"
    has "0 of 1000 results differ from the host loop" "$out"; ok $? "$2: every element checked"
    grep -q '^sync: kernel fault: .*out-of-bounds' "$out"; ok $? "$2: the fault diagnostic"
    has "at kernel fill, cube (0,0,0), unit (16,0,0), plane 0, lane 16," "$out"
    ok $? "$2: the fault record names the lowest faulting unit"
    has "; 16 faults" "$out"; ok $? "$2: 16 units faulted"
    has "after the fault: c[999] = 0 (the vadd was skipped)" "$out"; ok $? "$2: the skipped launch"
    has "relaunched: c[999] = 2997" "$out"; ok $? "$2: the stream works after the fault"
    grep -q ', 0 bytes held after cleanup$' "$out"; ok $? "$2: every byte given back"
}
LD_LIBRARY_PATH="$libdir" "$T/ex_shared" >"$T/shared.out" 2>&1
ok $? "the shared build runs (exit 0)"
sed 's/^/# /' "$T/shared.out"
check_output "$T/shared.out" shared
"$T/ex_static" >"$T/static.out" 2>&1
ok $? "the static build runs (exit 0)"
check_output "$T/static.out" static

# ---- DESTDIR staging and uninstall ----
make -s --no-print-directory BUILD="$B" install PREFIX=/opt/cubevm DESTDIR="$T/stage" >/dev/null 2>&1 &&
    [ -f "$T/stage/opt/cubevm/lib/libcubevm.so.0" ] &&
    grep -q '^prefix=/opt/cubevm$' "$T/stage/opt/cubevm/lib/pkgconfig/cubevm.pc"
ok $? "DESTDIR stages the tree; cubevm.pc names the final prefix"
make -s --no-print-directory BUILD="$B" uninstall PREFIX="$P" >/dev/null 2>&1 &&
    [ -z "$(find "$P" -type f -o -type l)" ]
ok $? "make uninstall removes every installed file"

# ---- the man page covers --help ----
man_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(dq/"/g' tools/cubevm.1; }
man_text >"$T/man.txt"
"${CUBEVM:-$B/bin/cubevm}" --help >"$T/help.txt"
words=$( { grep -o '^  cubevm [a-z]*' "$T/help.txt" | sed 's/^  cubevm //'
           grep -o -- '--[a-z][a-z-]*' "$T/help.txt"
           grep -o -- '^  -[A-Za-z] ' "$T/help.txt"; } | sort -u)
[ -n "$words" ]; ok $? "--help lists commands and options"
for w in $words; do
    has "$w" "$T/man.txt"; ok $? "man page mentions $w"
done
for w in $(grep -o -- '`--[a-z][a-z-]*' docs/cli.md | tr -d '`' | sort -u); do
    has "$w" "$T/man.txt"; ok $? "man page mentions $w (docs/cli.md)"
done

echo "1..$n"
[ $failed -eq 0 ]
