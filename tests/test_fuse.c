/*
 * test_fuse.c - the interpreter's fused chains (vm/fuse.c) and its
 * register zeroing (decode.c zero_ranges) against plain C models.
 *
 * The kernels below are written the way the CUDA frontend writes code:
 * single-use temporaries in address arithmetic (`cvt.i64; const.i64;
 * mul.i64; ptr.add`), sign extensions feeding a 64-bit add or mul, and
 * compares feeding `if` and loop exits (`cmp; not; if; break; end`, two
 * compares joined by and/or, `continue`), `op t; mov v, t`, and casts
 * between i32 and u32 (the next instruction reads the source instead;
 * `op t; cvt v, t` writes v); a second kernel has `rem` then `div` of one
 * dividend by a divisor converted twice (one division), next to a pair
 * whose dividend changes between them and a pair with different divisors;
 * others have float multiply-adds whose products round (never an FMA)
 * and integer values computed from launch constants alone.
 * Each runs on several cubes at
 * plane widths 32, 8 and 64, once without a step budget (the fused code)
 * and once with a large one (the exact code, one step per instruction);
 * every unit's result must match the C model both times. Constants,
 * parameters and launch-wide special registers are filled once per launch
 * (fuse.c presettable), and so are integer values computed from them
 * alone (the presets kernel); a parameter that changes between the
 * launches shows a stale fill. A register first
 * written inside an `if` and read after its `end` must read zero in the
 * lanes that skipped the write, whatever an earlier cube left there.
 * A cast feeding a switch whose body writes the cast's source must not be
 * forwarded (the cases read the selector again).
 */
#include "kern.h"

#define BLOCK 64u
#define GRID 3u
#define N (BLOCK * GRID)

/* src[i] for the loads (negative values exercise sign extension). */
static int32_t src_val(uint32_t i) { return (int32_t)(i * 3u) - 50; }

static const char chains_src[] =
    ".kernel chains\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".shared 1024\n"
    ".reg u32 %t, %c, %cd, %cg, %g, %v, %k, %lim, %acc, %one, %nine, %z, %zc, %tmp, %three, %five, %ak, %salt\n"
    ".reg u32 %fw, %fw2, %v2\n"
    ".reg i32 %ti, %x, %y, %w, %neg0, %v32, %pr, %xi\n"
    ".reg i64 %a0, %s0, %u0, %a1, %s1, %u1, %a2, %s2, %u2, %i3, %s3, %u3, %a4, %s4, %u4\n"
    ".reg i64 %e0, %e1, %m0, %e2, %r0, %e3, %r1, %e4, %r2, %bm1, %tt\n"
    ".reg ptr.global %po, %ps, %p0, %p1, %p2\n.reg ptr.shared %sh, %q3, %q4\n"
    ".reg bool %b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %cg, %c, %cd\n    add.u32 %g, %cg, %t\n    cvt.i32 %ti, %g\n"
    "    param.ptr.global %po, out, 0\n    param.ptr.global %ps, src, 0\n"
    /* x = src[g]: sign-extended index, power-of-two scale */
    "    cvt.i64 %a0, %ti\n    const.i64 %s0, 4\n    mul.i64 %u0, %a0, %s0\n"
    "    ptr.add.ptr.global %p0, %ps, %u0\n    ld.i32 %x, [%p0]\n"
    /* y = src[3 g]: zero-extended index, scale 12 (not a power of two), const first */
    "    cvt.i64 %a1, %g\n    const.i64 %s1, 12\n    mul.i64 %u1, %s1, %a1\n"
    "    ptr.add.ptr.global %p1, %ps, %u1\n    ld.i32 %y, [%p1]\n"
    /* shared[t] = x, then w = shared[BLOCK - 1 - t] through an i64 index */
    "    const.ptr.shared %sh, 0x0\n    cvt.i64 %tt, %t\n"
    "    const.i64 %s3, 4\n    mul.i64 %u3, %tt, %s3\n    ptr.add.ptr.shared %q3, %sh, %u3\n"
    "    st.i32 [%q3], %x\n    sync_cube\n"
    "    const.i64 %bm1, 63\n    sub.i64 %i3, %bm1, %tt\n"
    "    const.i64 %s4, 4\n    mul.i64 %u4, %i3, %s4\n    ptr.add.ptr.shared %q4, %sh, %u4\n"
    "    ld.i32 %w, [%q4]\n"
    /* r2 = (x + (ti * y + ti)) * ti  in 64 bits: both, second and first operand extended */
    "    cvt.i64 %e0, %ti\n    cvt.i64 %e1, %y\n    mul.i64 %m0, %e0, %e1\n"
    "    cvt.i64 %e2, %ti\n    add.i64 %r0, %m0, %e2\n"
    "    cvt.i64 %e3, %x\n    add.i64 %r1, %e3, %r0\n"
    "    cvt.i64 %e4, %ti\n    mul.i64 %r2, %e4, %r1\n"
    "    cvt.i32 %v32, %r2\n    add.i32 %v32, %v32, %w\n    cvt.u32 %v, %v32\n"
    /* if (x < 0) v ^= 0x100 else v ^= 0x200 */
    "    const.i32 %neg0, 0\n    lt.i32 %b0, %x, %neg0\n"
    "    if %b0\n        const.u32 %tmp, 256\n        xor.u32 %v, %v, %tmp\n"
    "    else\n        const.u32 %tmp, 512\n        xor.u32 %v, %v, %tmp\n    end\n"
    /* acc = sum of k in [0, t % 9) but not in [3, 5) */
    "    const.u32 %one, 1\n    const.u32 %nine, 9\n    rem.u32 %lim, %t, %nine\n"
    "    const.u32 %acc, 0\n    const.u32 %k, 0\n"
    "    loop\n"
    "        lt.u32 %b1, %k, %lim\n        not.bool %b2, %b1\n        if %b2\n            break\n        end\n"
    "        const.u32 %three, 3\n        const.u32 %five, 5\n"
    "        ge.u32 %b3, %k, %three\n        lt.u32 %b4, %k, %five\n        and.bool %b5, %b3, %b4\n"
    "        if %b5\n            continue\n        end\n"
    "        add.u32 %ak, %acc, %k\n        mov.u32 %acc, %ak\n"
    "    continuing\n        add.u32 %k, %k, %one\n"
    "    end\n"
    "    const.u32 %tmp, 16\n    shl.u32 %acc, %acc, %tmp\n    xor.u32 %v, %v, %acc\n"
    /* an or of two compares, negated, leaves a loop: k counts up until k == 2 or k == t % 4 */
    "    const.u32 %k, 0\n    const.u32 %tmp, 4\n    rem.u32 %lim, %t, %tmp\n"
    "    loop\n"
    "        const.u32 %tmp, 2\n        eq.u32 %b6, %k, %tmp\n        eq.u32 %b7, %k, %lim\n"
    "        or.bool %b8, %b6, %b7\n        if %b8\n            break\n        end\n"
    "        add.u32 %k, %k, %one\n"
    "    end\n"
    "    const.u32 %tmp, 24\n    shl.u32 %k, %k, %tmp\n    xor.u32 %v, %v, %k\n"
    /* z is written only in some lanes, in a segment its read is not in */
    "    add.u32 %tmp, %t, %c\n    and.u32 %tmp, %tmp, %one\n    eq.u32 %b9, %tmp, %one\n"
    "    if %b9\n        const.u32 %zc, 5\n        add.u32 %z, %zc, %c\n    end\n"
    "    const.u32 %tmp, 28\n    shl.u32 %z, %z, %tmp\n    xor.u32 %v, %v, %z\n"
    /* same-width integer cvts: one read by the next instruction alone (it
     * reads x instead), one of a temporary not read next (the mul writes
     * v2), one whose source changes before its reader (kept) */
    "    cvt.u32 %fw, %x\n    add.u32 %v, %v, %fw\n"
    "    mul.i32 %pr, %x, %y\n    cvt.u32 %v2, %pr\n    const.u32 %tmp, 3\n"
    "    xor.u32 %v, %v, %v2\n"
    "    cvt.u32 %fw2, %y\n    const.i32 %xi, 7\n    add.i32 %y, %y, %xi\n"
    "    xor.u32 %v, %v, %fw2\n"
    /* out[g] = v ^ salt (a parameter that differs between launches) */
    "    param.u32 %salt, salt, 0\n    xor.u32 %v, %v, %salt\n"
    "    cvt.i64 %a2, %g\n    const.i64 %s2, 4\n    mul.i64 %u2, %a2, %s2\n"
    "    ptr.add.ptr.global %p2, %po, %u2\n    st.u32 [%p2], %v\n"
    "    return\n.end\n";

static uint32_t chains_sim(uint32_t g, uint32_t salt)
{
    const uint32_t t = g % BLOCK, c = g / BLOCK;
    const int32_t ti = (int32_t)g, x = src_val(g), y = src_val(3 * g);
    const int32_t w = src_val(c * BLOCK + (BLOCK - 1 - t));
    const int64_t r0 = (int64_t)ti * y + ti, r1 = x + r0, r2 = ti * r1;
    uint32_t v = (uint32_t)((int32_t)(uint32_t)(uint64_t)r2 + w);
    v ^= x < 0 ? 0x100u : 0x200u;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < t % 9; k++)
        if (!(k >= 3 && k < 5))
            acc += k;
    v ^= acc << 16;
    uint32_t k = 0;
    while (!(k == 2 || k == t % 4))
        k++;
    v ^= k << 24;
    uint32_t z = ((t + c) & 1) ? 5 + c : 0;
    v ^= z << 28;
    v += (uint32_t)x;
    v ^= (uint32_t)x * (uint32_t)y;
    v ^= (uint32_t)y;
    return v ^ salt;
}

/* out[g] from x = src[g] and d = g % 9 + 1 through five rem/div pairs */
static const char divrem_src[] =
    ".kernel divrem\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %v, %tmp, %w1, %w2, %salt\n.reg i32 %ti, %x, %n9, %dvi, %one_i\n"
    ".reg i64 %a0, %s0, %u0, %xl, %dA, %dB, %rr, %qq, %rr2, %qq2, %dE, %rr3, %qq3, %one64\n"
    ".reg i64 %rr4, %rr5\n"
    ".reg ptr.global %ps, %po, %p0\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i32 %ti, %g\n"
    "    param.ptr.global %ps, src, 0\n    param.ptr.global %po, out, 0\n"
    "    cvt.i64 %a0, %ti\n    const.i64 %s0, 4\n    mul.i64 %u0, %a0, %s0\n"
    "    ptr.add.ptr.global %p0, %ps, %u0\n    ld.i32 %x, [%p0]\n    const.u32 %v, 0\n"
    /* x % d then x / d through two conversions of d (the frontend's
     * `i % c; i / c`): one division for both; then a pair whose dividend
     * changes between them (kept apart) */
    "    const.i32 %n9, 9\n    rem.i32 %dvi, %ti, %n9\n    const.i32 %one_i, 1\n"
    "    const.i64 %one64, 1\n"
    "    add.i32 %dvi, %dvi, %one_i\n    cvt.i64 %xl, %x\n"
    "    cvt.i64 %dA, %dvi\n    rem.i64 %rr, %xl, %dA\n    cvt.u32 %w1, %rr\n"
    "    cvt.i64 %dB, %dvi\n    div.i64 %qq, %xl, %dB\n    cvt.u32 %w2, %qq\n"
    "    const.u32 %tmp, 1000\n    mul.u32 %w2, %w2, %tmp\n    add.u32 %w1, %w1, %w2\n"
    "    xor.u32 %v, %v, %w1\n"
    "    rem.i64 %rr2, %xl, %dA\n    add.i64 %xl, %xl, %dA\n    div.i64 %qq2, %xl, %dA\n"
    "    cvt.u32 %w1, %rr2\n    const.u32 %tmp, 7\n    mul.u32 %w1, %w1, %tmp\n"
    "    cvt.u32 %w2, %qq2\n    add.u32 %w1, %w1, %w2\n    xor.u32 %v, %v, %w1\n"
    /* and a pair whose divisors differ (kept apart) */
    "    add.i64 %dE, %dA, %one64\n    rem.i64 %rr3, %xl, %dA\n    div.i64 %qq3, %xl, %dE\n"
    "    cvt.u32 %w1, %rr3\n    cvt.u32 %w2, %qq3\n    const.u32 %tmp, 13\n"
    "    mul.u32 %w2, %w2, %tmp\n    add.u32 %w1, %w1, %w2\n    xor.u32 %v, %v, %w1\n"
    /* the quotient replaces the dividend (`c = t % w; t = t / w`): one
     * division; then the same with the dividend read between (kept apart) */
    "    rem.i64 %rr4, %xl, %dA\n    cvt.u32 %w1, %rr4\n    div.i64 %xl, %xl, %dB\n"
    "    cvt.u32 %w2, %xl\n    const.u32 %tmp, 17\n    mul.u32 %w2, %w2, %tmp\n"
    "    add.u32 %w1, %w1, %w2\n    xor.u32 %v, %v, %w1\n"
    "    rem.i64 %rr5, %xl, %dA\n    cvt.u32 %w2, %xl\n    div.i64 %xl, %xl, %dA\n"
    "    cvt.u32 %w1, %rr5\n    add.u32 %w1, %w1, %w2\n    cvt.u32 %w2, %xl\n"
    "    const.u32 %tmp, 23\n    mul.u32 %w2, %w2, %tmp\n    add.u32 %w1, %w1, %w2\n"
    "    xor.u32 %v, %v, %w1\n"
    "    param.u32 %salt, salt, 0\n    xor.u32 %v, %v, %salt\n"
    "    ptr.add.ptr.global %p0, %po, %u0\n    st.u32 [%p0], %v\n"
    "    return\n.end\n";

static uint32_t divrem_sim(uint32_t g, uint32_t salt)
{
    const int64_t xl = src_val(g), dv = (int64_t)(g % 9) + 1;
    uint32_t v = 0;
    v ^= (uint32_t)(xl % dv) + (uint32_t)(xl / dv) * 1000u;
    v ^= (uint32_t)(xl % dv) * 7u + (uint32_t)((xl + dv) / dv);
    const int64_t xl2 = xl + dv; /* the dividend the third pair reads */
    v ^= (uint32_t)(xl2 % dv) + (uint32_t)(xl2 / (dv + 1)) * 13u;
    const int64_t xl3 = xl2 / dv, xl4 = xl3 / dv; /* the dividends replaced */
    v ^= (uint32_t)(xl2 % dv) + (uint32_t)xl3 * 17u;
    v ^= (uint32_t)(xl3 % dv) + (uint32_t)xl3 + (uint32_t)xl4 * 23u;
    return v ^ salt;
}

/* Launch constants computed from a parameter (fuse.c presettable, filled
 * once per launch by interp.c preset_value): a negation, sign and zero
 * extensions of a negative value, an i32 multiply that wraps, i64 sums
 * and a truncation, each from the ones before, then read by a lane's own
 * multiply and adds. The salt differs between launches. */
static const char presets_src[] =
    ".kernel presets\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %v, %salt, %nu, %w, %k3, %k5\n"
    ".reg i32 %si, %zero, %neg, %k7, %m, %tr\n"
    ".reg i64 %sl, %su, %d, %e, %d2, %gl, %x, %a0, %s0, %u0\n.reg u64 %d2u, %sh, %hi\n"
    ".reg ptr.global %po, %p0\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n"
    "    param.u32 %salt, salt, 0\n    cvt.i32 %si, %salt\n    const.i32 %zero, 0\n"
    "    sub.i32 %neg, %zero, %si\n    cvt.i64 %sl, %neg\n    cvt.u32 %nu, %neg\n"
    "    cvt.i64 %su, %nu\n    const.i32 %k7, 2147483647\n    mul.i32 %m, %neg, %k7\n"
    "    sub.i64 %d, %su, %sl\n    add.i64 %e, %d, %sl\n    cvt.i32 %tr, %e\n"
    "    sub.i64 %d2, %d, %sl\n"
    "    cvt.i64 %gl, %g\n    mul.i64 %x, %gl, %d2\n    cvt.u32 %v, %x\n"
    "    cvt.u32 %w, %m\n    const.u32 %k3, 3\n    mul.u32 %w, %w, %k3\n    add.u32 %v, %v, %w\n"
    "    cvt.u32 %w, %tr\n    const.u32 %k5, 5\n    mul.u32 %w, %w, %k5\n    add.u32 %v, %v, %w\n"
    "    cvt.u32 %w, %su\n    add.u32 %v, %v, %w\n"
    /* the high half too: the extensions differ there alone */
    "    cvt.u64 %d2u, %d2\n    const.u64 %sh, 32\n    shr.u64 %hi, %d2u, %sh\n"
    "    cvt.u32 %w, %hi\n    mul.u32 %w, %w, %k3\n    xor.u32 %v, %v, %w\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %a0, %g\n    const.i64 %s0, 4\n"
    "    mul.i64 %u0, %a0, %s0\n    ptr.add.ptr.global %p0, %po, %u0\n    st.u32 [%p0], %v\n"
    "    return\n.end\n";

static uint32_t presets_sim(uint32_t g, uint32_t salt)
{
    const int32_t neg = (int32_t)(0u - salt);
    const int64_t sl = neg;
    const uint64_t su = (uint32_t)neg, d = su - (uint64_t)sl, e = d + (uint64_t)sl;
    const uint32_t m = (uint32_t)neg * 0x7fffffffu, tr = (uint32_t)e;
    const uint64_t d2 = d - (uint64_t)sl, x = (uint64_t)g * d2;
    return ((uint32_t)x + m * 3u + tr * 5u + (uint32_t)su) ^ (uint32_t)(d2 >> 32) * 3u;
}

/* `mul t, x, y; add d, p, t` as one handler (fuse.c fuse_muladd): rounded
 * twice as the two instructions are, never contracted to a fused
 * multiply-add: with e = 1 + 2^-12, -1 + e * e is 2^-11 (e * e rounds to
 * 1 + 2^-11), where an FMA gives 2^-11 + 2^-24 (in f64, e = 1 + 2^-27
 * and 2^-54 the part an FMA would keep). Both orders of the add's
 * operands, a sum into another register, a NaN from inf * 0 (the
 * canonical NaN, 0x7fc00000), and an f64 dot product step; x a lane's
 * own value. (Each product its own register: a temporary is written once.) */
static const char muladd_src[] =
    ".kernel muladd\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %v, %w, %salt, %k3\n.reg i32 %si\n"
    ".reg f32 %x, %e, %acc, %m1, %m2, %m3, %m4, %r2, %inf, %zero\n"
    ".reg f64 %dx, %de, %dacc, %dm, %dm2\n"
    ".reg u64 %wb\n.reg i64 %a0, %s0, %u0\n.reg ptr.global %ps, %po, %p0\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i32 %si, %g\n"
    "    param.ptr.global %ps, src, 0\n    param.ptr.global %po, out, 0\n"
    "    cvt.i64 %a0, %si\n    const.i64 %s0, 4\n    mul.i64 %u0, %a0, %s0\n"
    "    ptr.add.ptr.global %p0, %ps, %u0\n    ld.i32 %si, [%p0]\n    cvt.f32 %x, %si\n"
    "    const.f32 %e, 0x1.001p+0\n    const.f32 %acc, -0x1p+0\n"
    "    mul.f32 %m1, %e, %e\n    add.f32 %acc, %acc, %m1\n"
    "    mul.f32 %m2, %x, %e\n    add.f32 %acc, %m2, %acc\n"
    "    mul.f32 %m3, %x, %x\n    add.f32 %r2, %acc, %m3\n"
    "    bitcast.u32 %v, %acc\n    bitcast.u32 %w, %r2\n    const.u32 %k3, 3\n"
    "    mul.u32 %w, %w, %k3\n    xor.u32 %v, %v, %w\n"
    "    const.f32 %inf, 0x1p+128\n    const.f32 %zero, 0x0p+0\n"
    "    mul.f32 %m4, %inf, %zero\n    add.f32 %r2, %x, %m4\n"
    "    bitcast.u32 %w, %r2\n    add.u32 %v, %v, %w\n"
    "    cvt.f64 %dx, %si\n    const.f64 %de, 0x1.0000002p+0\n    const.f64 %dacc, -0x1p+0\n"
    "    mul.f64 %dm, %de, %de\n    add.f64 %dacc, %dacc, %dm\n"
    "    bitcast.u64 %wb, %dacc\n    cvt.u32 %w, %wb\n    xor.u32 %v, %v, %w\n"
    "    mul.f64 %dm2, %dx, %de\n    add.f64 %dacc, %dacc, %dm2\n"
    "    bitcast.u64 %wb, %dacc\n    cvt.u32 %w, %wb\n    mul.u32 %w, %w, %k3\n"
    "    xor.u32 %v, %v, %w\n"
    "    param.u32 %salt, salt, 0\n    xor.u32 %v, %v, %salt\n"
    "    ptr.add.ptr.global %p0, %po, %u0\n    st.u32 [%p0], %v\n"
    "    return\n.end\n";

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint32_t muladd_sim(uint32_t g, uint32_t salt)
{
    /* volatile products: each rounds to float before the add, whatever
     * the compiler's contraction setting */
    const float x = (float)src_val(g), e = 0x1.001p+0f;
    volatile float m = e * e;
    float acc = -1.0f + m;
    m = x * e;
    acc = m + acc;
    m = x * x;
    const float r2 = acc + m;
    uint32_t v = f32_bits(acc) ^ f32_bits(r2) * 3u;
    v += UINT32_C(0x7fc00000); /* x + inf * 0: the canonical NaN */
    const double dx = (double)src_val(g), de = 0x1.0000002p+0;
    volatile double dm = de * de;
    double dacc = -1.0 + dm;
    uint64_t db;
    memcpy(&db, &dacc, sizeof db);
    v ^= (uint32_t)db;
    dm = dx * de;
    dacc = dacc + dm;
    memcpy(&db, &dacc, sizeof db);
    v ^= (uint32_t)db * 3u;
    return v ^ salt;
}

/* Address chains whose access waits a few instructions (fuse.c
 * index_reader: the access computes the address, "late"): out[g]'s
 * address before the value is done, a load after a quiet op, one under a
 * per-lane if; and three chains whose index or base is written between
 * them and their load (by an add, a ptr.add and a load), which must read
 * the address of their own pc. */
static const char late_src[] =
    ".kernel late\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %v, %one, %zero, %odd, %salt, %w, %k3, %k5, %k7, %k11\n"
    ".reg i32 %ti, %x, %y, %z, %e, %q, %one_i\n"
    ".reg i64 %a1, %s1, %u1, %a2, %s2, %u2, %a3, %s3, %u3, %a4, %s4, %u4, %a5, %s5, %u5\n"
    ".reg i64 %a6, %s6, %u6, %k8\n"
    ".reg ptr.global %po, %ps, %pz, %p1, %pB, %pC, %pD, %pE, %pA\n.reg bool %b\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i32 %ti, %g\n"
    "    param.ptr.global %po, out, 0\n    param.ptr.global %ps, src, 0\n"
    "    param.ptr.global %pz, src, 0\n"
    /* x = src[g], a quiet op between chain and load */
    "    cvt.i64 %a1, %ti\n    const.i64 %s1, 4\n    mul.i64 %u1, %a1, %s1\n"
    "    ptr.add.ptr.global %p1, %ps, %u1\n    const.i32 %one_i, 1\n    ld.i32 %x, [%p1]\n"
    /* y = src[g]: the index becomes g + 1 before the load */
    "    cvt.i64 %a2, %ti\n    const.i64 %s2, 4\n    mul.i64 %u2, %a2, %s2\n"
    "    ptr.add.ptr.global %pB, %ps, %u2\n    add.i32 %ti, %ti, %one_i\n    ld.i32 %y, [%pB]\n"
    /* z = src[g + 1]: the base moves two elements on before the load */
    "    cvt.i64 %a3, %ti\n    const.i64 %s3, 4\n    mul.i64 %u3, %a3, %s3\n"
    "    ptr.add.ptr.global %pC, %ps, %u3\n    const.i64 %k8, 8\n"
    "    ptr.add.ptr.global %ps, %ps, %k8\n    ld.i32 %z, [%pC]\n"
    /* e = src[2 + g + 1]: a load writes the index (src[0]) before the load */
    "    cvt.i64 %a4, %ti\n    const.i64 %s4, 4\n    mul.i64 %u4, %a4, %s4\n"
    "    ptr.add.ptr.global %pD, %ps, %u4\n    ld.i32 %ti, [%pz]\n    ld.i32 %e, [%pD]\n"
    "    cvt.i32 %ti, %g\n"
    "    const.u32 %k3, 3\n    const.u32 %k5, 5\n    const.u32 %k7, 7\n    const.u32 %k11, 11\n"
    "    cvt.u32 %w, %x\n    mul.u32 %v, %w, %k3\n"
    "    cvt.u32 %w, %y\n    mul.u32 %w, %w, %k5\n    add.u32 %v, %v, %w\n"
    "    cvt.u32 %w, %z\n    mul.u32 %w, %w, %k7\n    add.u32 %v, %v, %w\n"
    "    cvt.u32 %w, %e\n    mul.u32 %w, %w, %k11\n    add.u32 %v, %v, %w\n"
    /* odd units: v = (v + 1) ^ src[2 + g], the load late under the if */
    "    const.u32 %one, 1\n    const.u32 %zero, 0\n    and.u32 %odd, %t, %one\n"
    "    ne.u32 %b, %odd, %zero\n"
    "    if %b\n"
    "        cvt.i64 %a5, %ti\n        const.i64 %s5, 4\n        mul.i64 %u5, %a5, %s5\n"
    "        ptr.add.ptr.global %pE, %ps, %u5\n        add.u32 %v, %v, %one\n"
    "        ld.i32 %q, [%pE]\n        cvt.u32 %w, %q\n        xor.u32 %v, %v, %w\n"
    "    end\n"
    /* out[g] = v ^ salt, the address before the last op */
    "    cvt.i64 %a6, %ti\n    const.i64 %s6, 4\n    mul.i64 %u6, %a6, %s6\n"
    "    ptr.add.ptr.global %pA, %po, %u6\n    param.u32 %salt, salt, 0\n"
    "    xor.u32 %v, %v, %salt\n    st.u32 [%pA], %v\n"
    "    return\n.end\n";

static uint32_t late_sim(uint32_t g, uint32_t salt)
{
    const uint32_t x = (uint32_t)src_val(g), y = (uint32_t)src_val(g), z = (uint32_t)src_val(g + 1),
                   e = (uint32_t)src_val(g + 3);
    uint32_t v = x * 3u + y * 5u + z * 7u + e * 11u;
    if (g & 1) /* BLOCK is even: unit_pos.x has g's parity */
        v = (v + 1u) ^ (uint32_t)src_val(g + 2);
    return v ^ salt;
}

/* A same-width cvt feeding a switch is not forwarded: each case reads the
 * selector again, and the switch's body may write the cvt's source (here
 * case 0 adds 1 to x, which would send its lanes on to case 1). */
static const char switch_src[] =
    ".kernel sw\n"
    ".param out buffer u32 write\n.param src buffer i32 read\n.param salt scalar u32\n"
    ".reg u32 %t, %c, %cd, %cg, %g, %three, %m, %r, %sel\n.reg i32 %x, %one\n"
    ".reg ptr.global %po, %pp\n.reg i64 %gi, %k4, %off\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %cg, %c, %cd\n    add.u32 %g, %cg, %t\n"
    "    const.u32 %three, 3\n    and.u32 %m, %g, %three\n    cvt.i32 %x, %m\n"
    "    const.u32 %r, 0\n    cvt.u32 %sel, %x\n"
    "    switch %sel\n"
    "    case 0\n        const.i32 %one, 1\n        add.i32 %x, %x, %one\n"
    "        const.u32 %r, 10\n        break\n"
    "    case 1\n        const.u32 %r, 20\n        break\n"
    "    default\n        const.u32 %r, 30\n"
    "    end\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %gi, %g\n    const.i64 %k4, 4\n"
    "    mul.i64 %off, %gi, %k4\n    ptr.add.ptr.global %pp, %po, %off\n    st.u32 [%pp], %r\n"
    ".end\n";

static uint32_t switch_sim(uint32_t g, uint32_t salt)
{
    (void)salt;
    return (g & 3) == 0 ? 10 : (g & 3) == 1 ? 20 : 30;
}

static void check(const char *kernel, const char *name,
                  uint32_t (*sim)(uint32_t g, uint32_t salt), uint32_t width, uint64_t budget)
{
    uint32_t got[N];
    int32_t src[3 * N];
    cvm_diag d;
    for (uint32_t i = 0; i < 3 * N; i++)
        src[i] = src_val(i);
    cvm_buffer *out = kern_buf("out", sizeof got, NULL), *in = kern_buf("src", sizeof src, src);
    if (!out || !in) {
        ok(0, "%s, width %u budget %llu: buffers", name, width, (unsigned long long)budget);
        cvm_buffer_free(out);
        cvm_buffer_free(in);
        return;
    }
    const uint32_t salt = width * 0x01010101u ^ (budget ? 0x80000000u : 0u);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in), kern_arg_u32(&salt)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cfg.plane_width = width;
    cfg.step_budget = budget;
    cvm_status st = kern_exec(kernel, name, &cfg, args, 3, &d);
    if (ok(st == CVM_OK, "%s, width %u, %s: runs", name, width, budget ? "exact code" : "fused code")) {
        int read = kern_read(out, got, sizeof got);
        uint32_t bad = N;
        for (uint32_t g = 0; g < N && bad == N; g++)
            if (!read || got[g] != sim(g, salt))
                bad = g;
        if (!ok(read && bad == N, "%s, width %u, %s: every unit matches the C model", name, width,
                budget ? "exact code" : "fused code") && bad < N)
            diag("  unit %u: got 0x%x, want 0x%x", bad, got[bad], sim(bad, salt));
    } else {
        diag("  %s: %s", cvm_status_str(st), d.message);
    }
    cvm_buffer_free(out);
    cvm_buffer_free(in);
}

int main(void)
{
    static const uint32_t widths[] = {32, 8, 64};
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        check(chains_src, "chains", chains_sim, widths[w], 0);
        check(chains_src, "chains", chains_sim, widths[w], UINT64_C(1) << 40);
        check(divrem_src, "divrem", divrem_sim, widths[w], 0);
        check(divrem_src, "divrem", divrem_sim, widths[w], UINT64_C(1) << 40);
        check(presets_src, "presets", presets_sim, widths[w], 0);
        check(presets_src, "presets", presets_sim, widths[w], UINT64_C(1) << 40);
        check(muladd_src, "muladd", muladd_sim, widths[w], 0);
        check(muladd_src, "muladd", muladd_sim, widths[w], UINT64_C(1) << 40);
        check(late_src, "late", late_sim, widths[w], 0);
        check(late_src, "late", late_sim, widths[w], UINT64_C(1) << 40);
        check(switch_src, "sw", switch_sim, widths[w], 0);
        check(switch_src, "sw", switch_sim, widths[w], UINT64_C(1) << 40);
    }
    kern_close();
    return done_testing();
}
