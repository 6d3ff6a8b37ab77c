#!/bin/sh
# test_isa_doc.sh - docs/isa.md stays in step with bytecode/ops.def and
# sregs.def, and the lowering table keeps a row for every construct of the
# CUDA frontend's language list. Prints TAP; run from the repository root
# (make check does). Fix a stale reference with `make docs`.

tmp=${TEST_TMPDIR:-}
own_tmp=0
if [ -z "$tmp" ]; then
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/isa-doc.XXXXXX") || exit 1
    own_tmp=1
fi
cc=${CC:-cc}
n=0
fails=0

ok() {
    n=$((n + 1))
    echo "ok $n - $1"
}
not_ok() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
}
finish() {
    echo "1..$n"
    [ $own_tmp -eq 1 ] && rm -rf "$tmp"
    [ $fails -eq 0 ]
    exit $?
}

if $cc -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Werror -I. tools/gen_isa.c \
    -o "$tmp/gen_isa" 2>"$tmp/cc.err"; then
    ok "tools/gen_isa.c builds with -Werror"
else
    sed 's/^/# /' "$tmp/cc.err"
    not_ok "tools/gen_isa.c builds with -Werror"
    finish
fi

if "$tmp/gen_isa" --check docs/isa.md 2>"$tmp/check.err"; then
    ok "docs/isa.md op reference is up to date with ops.def"
else
    sed 's/^/# /' "$tmp/check.err"
    echo "# docs/isa.md is out of date: run \`make docs\` and commit the result"
    not_ok "docs/isa.md op reference is up to date with ops.def"
fi

# The generated region alone, to look for names in it (not in the prose).
"$tmp/gen_isa" >"$tmp/region.md"

# Mnemonics and special registers read straight from the .def files, not
# through the generator, so a generator that drops rows is caught.
missing=""
for m in $(sed -n 's/^CVM_OP([^,]*,[^,]*, *"\([^"]*\)".*/\1/p' bytecode/ops.def); do
    grep -q "| \`$m\` |" "$tmp/region.md" || missing="$missing $m"
done
count=$(grep -c '^CVM_OP(' bytecode/ops.def)
rows=$(grep -c '^| 0x' "$tmp/region.md")
if [ -z "$missing" ] && [ "$count" -eq "$rows" ] && [ "$count" -gt 0 ]; then
    ok "every op of ops.def ($count) has one row"
else
    echo "# missing:$missing; ops.def rows $count, table rows $rows"
    not_ok "every op of ops.def has one row"
fi

missing=""
for s in $(sed -n 's/^CVM_SREG([^,]*,[^,]*, *"\([^"]*\)".*/\1/p' bytecode/sregs.def); do
    grep -q "| \`$s\` |" "$tmp/region.md" || missing="$missing $s"
done
if [ -z "$missing" ]; then
    ok "every special register of sregs.def has a row"
else
    echo "# missing:$missing"
    not_ok "every special register of sregs.def has a row"
fi

# Semantics strings survive escaping: the add row carries its text.
if grep -q '^| 0x40 | `add` | `%d, %a, %b` | int float | SAME | — | d = a + b' "$tmp/region.md"; then
    ok "the add row reads as ops.def says"
else
    grep '`add`' "$tmp/region.md" | sed 's/^/# /'
    not_ok "the add row reads as ops.def says"
fi

# --check must notice a stale file, and --update must repair it.
sed '/^| 0x41 |/d' docs/isa.md >"$tmp/stale.md"
if "$tmp/gen_isa" --check "$tmp/stale.md" 2>/dev/null; then
    not_ok "--check reports a file with a deleted row"
else
    ok "--check reports a file with a deleted row"
fi
"$tmp/gen_isa" --update "$tmp/stale.md" && cmp -s "$tmp/stale.md" docs/isa.md
if [ $? -eq 0 ]; then
    ok "--update restores the reference"
else
    not_ok "--update restores the reference"
fi

printf '# no markers\n' >"$tmp/nomark.md"
"$tmp/gen_isa" --check "$tmp/nomark.md" 2>/dev/null
if [ $? -eq 2 ]; then
    ok "a file without markers is an error, not a silent pass"
else
    not_ok "a file without markers is an error, not a silent pass"
fi

# The lowering table: one row per construct of the frontend's language list
# (issue 4). Each name below must appear in the construct column of
# docs/lowering.md.
awk '/^\| /{ s = substr($0, 3); i = index(s, " | "); if (i) print substr(s, 1, i - 1) }' \
    docs/lowering.md >"$tmp/constructs.txt"
# has NAME: the name occurs with no identifier character right after it,
# so `__syncthreads()` rows do not count for `__syncthreads_count`.
has() {
    awk -v c="$1" '
        { s = $0
          while ((i = index(s, c)) > 0) {
              nx = substr(s, i + length(c), 1)
              if (nx !~ /[A-Za-z0-9_]/) { found = 1; exit }
              s = substr(s, i + 1)
          } }
        END { exit !found }' "$tmp/constructs.txt"
}
missing=""
while read -r c; do
    [ -z "$c" ] && continue
    has "$c" || missing="$missing [$c]"
done <<'EOF'
`__global__
`__device__` function
`__forceinline__
`__launch_bounds__
recursion
references
`__half
`__nv_bfloat16
`float2
`make_float4
`reinterpret_cast
struct
operator overloading
conversion operator
enum
`volatile
`__shared__
`extern __shared__
local array
`__device__` variable
`__constant__
`a && b
`c ? a : b
`switch
fallthrough
`for
`while
`do
`break
`continue
`return
`goto
`threadIdx
`warpSize
`UNIT_POS
`ABSOLUTE_POS
`__syncthreads()
`__syncthreads_count
`__syncthreads_and
`__syncthreads_or
`__syncwarp
`__threadfence_block()
`__threadfence()
`__threadfence_system()
`atomicAdd
`atomicSub
`atomicExch
`atomicMin
`atomicMax
`atomicInc
`atomicDec
`atomicCAS
`atomicAnd
`atomicOr
`atomicXor
`cuda::atomic_ref
`__shfl_sync
`__shfl_up_sync
`__shfl_down_sync
`__shfl_xor_sync
`__ballot_sync
`__any_sync
`__all_sync
`__activemask
`__match_any_sync
`__match_all_sync
`__reduce_add_sync
`__popc
`__clz
`__ffs
`__brev
`__byte_perm
`this_thread_block()
`tiled_partition<N>
`cg::reduce
`sqrtf
`rsqrtf
`expf
`sincosf
`powf
`erff
`fmodf
`fmaf
`rintf
`__expf
`__fdividef
`__saturatef
`__fmul_rn
`__float_as_int
`__double_as_longlong
`__umulhi
`__mul24
`__sad
`__ldg
`min` / `max`
`INFINITY
`assert
`__trap()
`printf
dynamic parallelism
grid-wide sync
device `malloc`
virtual functions
exceptions
EOF
if [ -z "$missing" ]; then
    ok "the lowering table has a row for every frontend construct"
else
    echo "# no row in docs/lowering.md for:$missing"
    not_ok "the lowering table has a row for every frontend construct"
fi

# Every mnemonic the lowering table names in its bytecode column exists.
bad=""
for m in $(sed -n 's/^|[^|]*| *`\([a-z_0-9.]*\)[ `].*/\1/p' docs/lowering.md | sort -u); do
    # directives and type names are not ops
    case $m in .*) continue ;; esac
    echo "$m" | grep -Eq '^(bool|[iu](8|16|32|64)|f(16|32|64)|bf16|ptr\..*)(x[0-9]+)?$' && continue
    base=$m
    found=0
    while [ -n "$base" ]; do
        if grep -q "^CVM_OP([^,]*,[^,]*, *\"$base\"" bytecode/ops.def; then
            found=1
            break
        fi
        case $base in *.*) base=${base%.*} ;; *) base="" ;; esac
    done
    [ $found -eq 1 ] || bad="$bad $m"
done
if [ -z "$bad" ]; then
    ok "bytecode column of the lowering table names real ops"
else
    echo "# not in ops.def:$bad"
    not_ok "bytecode column of the lowering table names real ops"
fi

finish
