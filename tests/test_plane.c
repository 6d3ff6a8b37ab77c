/*
 * test_plane.c - plane ops (docs/design.md "The bytecode" item 7): shuffles,
 * votes, ballot, reductions, scans, match, activemask and sync_plane, with
 * full and partial member masks, at plane widths 8, 16, 32 and 64 with a
 * partial last plane; and synccheck faults when a named lane is inactive
 * (not exited: CUDA's rule binds the non-exited named lanes) or when a
 * shuffle reads a named lane that exited or does not exist. Expected
 * values come from the C model `model` below or are written by hand.
 *
 * The kernel ANDs the mask parameter with plane_fullmask (so missing lanes
 * of the partial plane are never named) and only member lanes execute the
 * ops. A shuffle whose source lane is outside the member mask (or out of
 * range) returns the reader's own value.
 */
#include "kern.h"

#define NOUT 20

/* out[t * NOUT + j] = r */
#define ST(j) "        const.i64 %off, " #j "\n        mul.i64 %off, %off, %eight\n" \
              "        ptr.add.ptr.global %pp, %pb, %off\n        st.u64 [%pp], %r\n"

static const char *const planeops_parts[] = {
    ".kernel planeops\n.param out buffer u64 write\n.param mask scalar u64\n"
    ".reg u32 %t, %lane, %src, %c3, %c5, %c2, %zero, %s37, %tmp\n"
    ".reg u64 %a, %a1, %k1, %m, %full, %bit, %r, %z64, %one64, %key, %pl\n"
    ".reg bool %member, %p, %q\n.reg i64 %off, %stride, %eight\n.reg ptr.global %pb, %pp\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %lane, unit_pos_plane\n"
    "    sreg.u64 %full, plane_fullmask\n    param.u64 %m, mask, 0\n    and.u64 %m, %m, %full\n"
    /* a = t * 0x9e3779b1 ^ (t << 37) */
    "    cvt.u64 %a, %t\n    const.u64 %k1, 0x9e3779b1\n    mul.u64 %a1, %a, %k1\n"
    "    const.u32 %s37, 37\n    shl.u64 %a, %a, %s37\n    xor.u64 %a, %a, %a1\n"
    "    cvt.i64 %off, %t\n    const.i64 %stride, 160\n    mul.i64 %off, %off, %stride\n"
    "    param.ptr.global %pb, out, 0\n    ptr.add.ptr.global %pb, %pb, %off\n"
    "    const.i64 %eight, 8\n    const.u64 %z64, 0\n    const.u64 %one64, 1\n"
    "    shr.u64 %bit, %m, %lane\n    and.u64 %bit, %bit, %one64\n    ne.u64 %member, %bit, %z64\n"
    "    if %member\n"
    "        const.u32 %c5, 5\n        mul.u32 %src, %lane, %c5\n        const.u32 %c3, 3\n"
    "        add.u32 %src, %src, %c3\n",
    "        shfl.idx.u64 %r, %a, %src, %m\n" ST(0)
    "        shfl.up.u64 %r, %a, %c3, %m\n" ST(1)
    "        const.u32 %c2, 2\n        shfl.down.u64 %r, %a, %c2, %m\n" ST(2)
    "        shfl.xor.u64 %r, %a, %c5, %m\n" ST(3)
    "        const.u64 %key, 5\n        rem.u64 %key, %a, %key\n        ne.u64 %p, %key, %z64\n"
    "        vote.all %q, %p, %m\n        select.u64 %r, %one64, %z64, %q\n" ST(4)
    "        const.u64 %key, 11\n        rem.u64 %key, %a, %key\n        eq.u64 %p, %key, %z64\n"
    "        vote.any %q, %p, %m\n        select.u64 %r, %one64, %z64, %q\n" ST(5)
    "        and.u64 %key, %a, %one64\n        ne.u64 %p, %key, %z64\n"
    "        vote.ballot.u64 %r, %p, %m\n" ST(6),
    "        reduce.add.u64 %r, %a, %m\n" ST(7)
    "        reduce.min.u64 %r, %a, %m\n" ST(8)
    "        reduce.max.u64 %r, %a, %m\n" ST(9)
    "        reduce.and.u64 %r, %a, %m\n" ST(10)
    "        reduce.or.u64 %r, %a, %m\n" ST(11)
    "        reduce.xor.u64 %r, %a, %m\n" ST(12)
    "        scan.add.u64 %r, %a, %m\n" ST(13)
    "        exscan.add.u64 %r, %a, %m\n" ST(14)
    "        const.u64 %key, 3\n        and.u64 %key, %a, %key\n"
    "        match.any.u64 %r, %key, %m\n" ST(15)
    "        sreg.u64 %pl, plane_pos\n        match.all.u64 %r, %pl, %m\n" ST(16)
    "        and.u64 %key, %a, %one64\n        match.all.u64 %r, %key, %m\n" ST(17)
    "        sync_plane %m\n        mov.u64 %r, %one64\n" ST(19)
    "    end\n"
    /* activemask under divergence: lanes with lane % 3 != 0 */
    "    const.u32 %c3, 3\n    rem.u32 %tmp, %lane, %c3\n    const.u32 %zero, 0\n"
    "    ne.u32 %p, %tmp, %zero\n"
    "    if %p\n        activemask.u64 %r\n" ST(18) "    end\n"
    "    return\n.end\n",
    NULL};
static char *planeops_src;

static uint64_t val(uint32_t t) { return ((uint64_t)t * 0x9e3779b1u) ^ ((uint64_t)t << 37); }

static int has(uint64_t m, uint32_t lane) { return lane < 64 && ((m >> lane) & 1); }

/* Values for unit `lane` of the plane starting at unit `base`, member mask mm. */
static void model_lane(uint64_t *o, uint32_t base, uint32_t lane, uint32_t W, uint64_t mm)
{
    uint64_t a = val(base + lane), sum = 0, mn = UINT64_MAX, mx = 0, an = UINT64_MAX, orr = 0,
             xr = 0, scan = 0, ballot = 0, any = 0, same = 0;
    int all = 1, anyv = 0;
    uint32_t src = (lane * 5 + 3) % W;
    o[0] = has(mm, src) ? val(base + src) : a;
    o[1] = (lane >= 3 && has(mm, lane - 3)) ? val(base + lane - 3) : a;
    o[2] = (lane + 2 < W && has(mm, lane + 2)) ? val(base + lane + 2) : a;
    o[3] = ((lane ^ 5) < W && has(mm, lane ^ 5)) ? val(base + (lane ^ 5)) : a;
    for (uint32_t l = 0; l < W; l++) {
        if (!has(mm, l))
            continue;
        uint64_t b = val(base + l);
        all &= (b % 5) != 0;
        anyv |= (b % 11) == 0;
        if (b & 1)
            ballot |= 1ull << l;
        sum += b;
        mn = b < mn ? b : mn;
        mx = b > mx ? b : mx;
        an &= b;
        orr |= b;
        xr ^= b;
        if (l <= lane)
            scan += b;
        if ((b & 3) == (a & 3))
            any |= 1ull << l;
        if ((b & 1) == (a & 1))
            same |= 1ull << l;
    }
    o[4] = (uint64_t)all;
    o[5] = (uint64_t)anyv;
    o[6] = ballot;
    o[7] = sum, o[8] = mn, o[9] = mx, o[10] = an, o[11] = orr, o[12] = xr;
    o[13] = scan;
    o[14] = scan - a;
    o[15] = any;
    o[16] = mm;
    o[17] = same == mm ? mm : 0;
    o[19] = 1;
}

static void model(uint32_t B, uint32_t W, uint64_t m, uint64_t *out)
{
    memset(out, 0, (size_t)B * NOUT * 8);
    for (uint32_t base = 0; base < B; base += W) {
        uint32_t n = B - base < W ? B - base : W;
        uint64_t full = n == 64 ? UINT64_MAX : (1ull << n) - 1, mm = m & full, act = 0;
        for (uint32_t lane = 0; lane < n; lane++)
            if (lane % 3)
                act |= 1ull << lane;
        for (uint32_t lane = 0; lane < n; lane++) {
            uint64_t *o = out + (size_t)(base + lane) * NOUT;
            if (has(mm, lane))
                model_lane(o, base, lane, W, mm);
            if (lane % 3)
                o[18] = act;
        }
    }
}

static void check_planeops(uint32_t W, uint64_t mask)
{
    uint32_t B = 2 * W + W / 2 + 1; /* two full planes and a partial one */
    size_t bytes = (size_t)B * NOUT * 8;
    uint64_t *got = calloc(1, bytes), *want = calloc(1, bytes);
    cvm_buffer *out = kern_buf("out", bytes, NULL);
    cvm_diag d;
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_bytes(&mask, 8)};
    cvm_launch_config cfg = kern_cfg(1, B);
    cfg.plane_width = W;
    cvm_status st = got && want && out && planeops_src ? kern_exec(planeops_src, "planeops", &cfg, args, 2, &d)
                                       : CVM_OUT_OF_MEMORY;
    if (ok(st == CVM_OK, "planeops width %u mask %016llx: runs", W, (unsigned long long)mask) &&
        kern_read(out, got, bytes)) {
        model(B, W, mask, want);
        size_t bad = SIZE_MAX;
        for (size_t i = 0; i < (size_t)B * NOUT && bad == SIZE_MAX; i++)
            if (got[i] != want[i])
                bad = i;
        if (!ok(bad == SIZE_MAX, "planeops width %u mask %016llx: every op matches the C model", W,
                (unsigned long long)mask))
            diag("  unit %zu output %zu: got %016llx, want %016llx", bad / NOUT, bad % NOUT,
                 (unsigned long long)got[bad], (unsigned long long)want[bad]);
    } else if (st != CVM_OK) {
        diag("  %s: %s", cvm_status_str(st), d.message);
    }
    if (out)
        cvm_buffer_free(out);
    free(got);
    free(want);
}

/* Lane 3 is named by the full mask but does not execute the shuffle. */
static const char inactive_src[] =
    ".kernel inactive\n.param out buffer u32 write\n"
    ".reg u32 %lane, %three, %v\n.reg u64 %m\n.reg bool %p\n"
    "    sreg.u32 %lane, unit_pos_plane\n    sreg.u64 %m, plane_fullmask\n"
    "    const.u32 %three, 3\n    ne.u32 %p, %lane, %three\n"
    "    if %p\n        shfl.idx.u32 %v, %lane, %three, %m\n    end\n"
    "    return\n.end\n";

/* Lanes 3 and 6 have returned; the others name them (u32 mask 0xffffffff,
 * also naming lanes 20-31 that do not exist in a cube of 20) in a ballot of
 * lane & 1, a sync_plane, an add reduction of the lane and a shuffle down
 * by 2 (by 0 with `shift` 0): out[lane] = ballot, out[32 + lane] = sum,
 * out[64 + lane] = shuffled lane * 10. */
static const char exited_src[] =
    ".kernel exited\n.param out buffer u32 write\n.param shift scalar u32\n"
    ".reg u32 %lane, %three, %six, %one, %zero, %v, %sum, %sh, %s, %ten, %tl, %m\n"
    ".reg bool %p, %q, %odd\n.reg i64 %off, %four, %k128\n.reg ptr.global %pb, %pp\n"
    "    sreg.u32 %lane, unit_pos_plane\n    const.u32 %m, 0xffffffff\n"
    "    const.u32 %three, 3\n    const.u32 %six, 6\n    eq.u32 %p, %lane, %three\n"
    "    eq.u32 %q, %lane, %six\n    or.bool %p, %p, %q\n"
    "    if %p\n        return\n    end\n"
    "    const.u32 %one, 1\n    const.u32 %zero, 0\n    and.u32 %v, %lane, %one\n"
    "    ne.u32 %odd, %v, %zero\n"
    "    vote.ballot.u32 %v, %odd, %m\n    sync_plane %m\n"
    "    reduce.add.u32 %sum, %lane, %m\n"
    "    const.u32 %ten, 10\n    mul.u32 %tl, %lane, %ten\n    param.u32 %sh, shift, 0\n"
    "    shfl.down.u32 %s, %tl, %sh, %m\n"
    "    param.ptr.global %pb, out, 0\n    cvt.i64 %off, %lane\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    ptr.add.ptr.global %pb, %pb, %off\n"
    "    const.i64 %k128, 128\n    st.u32 [%pb], %v\n"
    "    ptr.add.ptr.global %pp, %pb, %k128\n    st.u32 [%pp], %sum\n"
    "    ptr.add.ptr.global %pp, %pp, %k128\n    st.u32 [%pp], %s\n"
    "    return\n.end\n";

/* exited_src in a cube of `units` (at most 32) at plane width 32; shift 0
 * runs (every lane reads itself), shift 2 reads lane 3 + 2 ... and faults. */
static void check_exited(uint32_t units)
{
    cvm_diag d;
    uint32_t got[96], want[96];
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    uint32_t ballot = 0, sum = 0;
    for (uint32_t l = 0; l < units; l++) /* by hand: the lanes that did not return */
        if (l != 3 && l != 6) {
            ballot |= (l & 1u) << l;
            sum += l;
        }
    for (uint32_t l = 0; l < units; l++)
        if (l != 3 && l != 6)
            want[l] = ballot, want[32 + l] = sum, want[64 + l] = l * 10;
    cvm_buffer *out = kern_buf("out", sizeof got, NULL);
    uint32_t shift = 0;
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_u32(&shift)};
    cvm_launch_config cfg = kern_cfg(1, units);
    cfg.plane_width = 32;
    cvm_status st = kern_exec(exited_src, "exited", &cfg, args, 2, &d);
    ok(st == CVM_OK, "exited, %u units: a mask naming exited and missing lanes runs (%s: %s)", units,
       cvm_status_str(st), d.message);
    kern_read(out, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < 96 && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    ok(bad < 0, "exited, %u units: ballot, reduction and shuffle over the lanes that remain", units);
    if (bad >= 0)
        diag("  out[%d]: got %u, want %u", bad, got[bad], want[bad]);
    /* lane 1 reads lane 3 (exited); with 20 units, lane 18 would read 20 */
    shift = 2;
    st = kern_exec(exited_src, "exited", &cfg, args, 2, &d);
    ok(st == CVM_FAULT && d.has_fault && strstr(d.message, "synccheck") &&
           strstr(d.message, "reads lane 3, which has exited"),
       "exited, %u units: a shuffle reading an exited lane faults (got %s: %s)", units,
       cvm_status_str(st), d.message);
    cvm_buffer_free(out);
}

/* A shuffle down by 4 in a cube of 20 units under a full mask: lane 16
 * reads lane 20, which does not exist. */
static const char missing_src[] =
    ".kernel missing\n.param out buffer u32 write\n"
    ".reg u32 %lane, %four, %v, %m\n"
    "    sreg.u32 %lane, unit_pos_plane\n    const.u32 %m, 0xffffffff\n    const.u32 %four, 4\n"
    "    shfl.down.u32 %v, %lane, %four, %m\n"
    "    return\n.end\n";

/* Every lane runs the shuffle; lane 5 names a mask without lane 31 (u32
 * masks, as CUDA's; the u64 ones are planeops'). */
static const char differ_src[] =
    ".kernel differ\n.param out buffer u32 write\n"
    ".reg u32 %lane, %five, %v, %one, %m, %m31\n.reg bool %p\n"
    "    sreg.u32 %lane, unit_pos_plane\n    const.u32 %m, 0xffffffff\n"
    "    const.u32 %m31, 0x7fffffff\n    const.u32 %five, 5\n    const.u32 %one, 1\n"
    "    eq.u32 %p, %lane, %five\n    select.u32 %m, %m31, %m, %p\n"
    "    shfl.down.u32 %v, %lane, %one, %m\n"
    "    return\n.end\n";

/* Every lane of the plane runs shuffles whose member mask names lanes 0-15
 * alone: out[lane] = down by 1, out[32 + lane] = xor 1, out[64 + lane] =
 * up by 1, of lane * 10 + 1. Checked mode faults (lanes outside the mask
 * executed it); unchecked, a source outside the mask gives the reader's
 * own value (docs/isa.md "Plane ops and member masks"). */
static const char outside_src[] =
    ".kernel outside\n.param out buffer u32 write\n"
    ".reg u32 %lane, %v, %r, %one, %ten\n.reg u64 %m\n.reg i64 %off, %four, %k32\n"
    ".reg ptr.global %pb, %pp\n"
    "    sreg.u32 %lane, unit_pos_plane\n    const.u64 %m, 0xffff\n    const.u32 %one, 1\n"
    "    const.u32 %ten, 10\n    mul.u32 %v, %lane, %ten\n    add.u32 %v, %v, %one\n"
    "    param.ptr.global %pb, out, 0\n    cvt.i64 %off, %lane\n    const.i64 %four, 4\n"
    "    mul.i64 %off, %off, %four\n    ptr.add.ptr.global %pb, %pb, %off\n"
    "    const.i64 %k32, 128\n"
    "    shfl.down.u32 %r, %v, %one, %m\n    st.u32 [%pb], %r\n"
    "    ptr.add.ptr.global %pp, %pb, %k32\n"
    "    shfl.xor.u32 %r, %v, %one, %m\n    st.u32 [%pp], %r\n"
    "    ptr.add.ptr.global %pp, %pp, %k32\n"
    "    shfl.up.u32 %r, %v, %one, %m\n    st.u32 [%pp], %r\n"
    "    return\n.end\n";

static void check_outside(void)
{
    cvm_diag d;
    uint32_t got[96], want[96];
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t own = l * 10 + 1;
        want[l] = l < 15 ? own + 10 : own;                   /* down: 15 reads 16, outside */
        want[32 + l] = l < 16 ? (l ^ 1) * 10 + 1 : own;      /* xor: pairs inside the mask */
        want[64 + l] = l >= 1 && l <= 16 ? own - 10 : own;   /* up: 16 reads 15, inside */
    }
    cvm_buffer *out = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(out)};
    cvm_launch_config cfg = kern_cfg(1, 32);
    cfg.plane_width = 32;
    cfg.unchecked = 1;
    cvm_status st = kern_exec(outside_src, "outside", &cfg, args, 1, &d);
    ok(st == CVM_OK, "outside: unchecked launch runs (%s: %s)", cvm_status_str(st), d.message);
    kern_read(out, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < 96 && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    ok(bad < 0, "outside: shuffles by lanes outside the member mask read their own value");
    if (bad >= 0)
        diag("  out[%d] = %u, expected %u", bad, got[bad], want[bad]);
    cvm_buffer_free(out);
}

/* Add reductions and scans of f32 (whose sums depend on the order: lane
 * order over the members) and u32, 3 outputs each per unit: reduce, scan,
 * exscan. Member lanes only execute them; mask is a u32 member mask. */
static const char sums_src[] =
    ".kernel sums\n.param out buffer u32 write\n.param mask scalar u32\n"
    ".reg u32 %t, %lane, %m, %bit, %one, %v, %r, %k\n.reg f32 %f, %g, %fk\n.reg bool %p\n"
    ".reg i64 %off, %four, %step\n.reg ptr.global %pb\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %lane, unit_pos_plane\n    param.u32 %m, mask, 0\n"
    "    const.u32 %one, 1\n    shr.u32 %bit, %m, %lane\n    and.u32 %bit, %bit, %one\n"
    "    ne.u32 %p, %bit, %one\n    if %p\n        return\n    end\n"
    /* v = t * 2654435761, f = (t + 1) * 1.1e-3 + (t & 7) * 1e5 (mixed magnitudes) */
    "    const.u32 %k, 2654435761\n    mul.u32 %v, %t, %k\n"
    "    add.u32 %r, %t, %one\n    cvt.f32 %f, %r\n    const.f32 %fk, 0x1.205bc00000000p-10\n"
    "    mul.f32 %f, %f, %fk\n    const.u32 %k, 7\n    and.u32 %r, %t, %k\n    cvt.f32 %g, %r\n"
    "    const.f32 %fk, 100000.0\n    mul.f32 %g, %g, %fk\n    add.f32 %f, %f, %g\n"
    "    param.ptr.global %pb, out, 0\n    cvt.i64 %off, %t\n    const.i64 %four, 24\n"
    "    mul.i64 %off, %off, %four\n    ptr.add.ptr.global %pb, %pb, %off\n    const.i64 %step, 4\n"
    "    reduce.add.f32 %g, %f, %m\n    st.f32 [%pb], %g\n    ptr.add.ptr.global %pb, %pb, %step\n"
    "    scan.add.f32 %g, %f, %m\n    st.f32 [%pb], %g\n    ptr.add.ptr.global %pb, %pb, %step\n"
    "    exscan.add.f32 %g, %f, %m\n    st.f32 [%pb], %g\n    ptr.add.ptr.global %pb, %pb, %step\n"
    "    reduce.add.u32 %r, %v, %m\n    st.u32 [%pb], %r\n    ptr.add.ptr.global %pb, %pb, %step\n"
    "    scan.add.u32 %r, %v, %m\n    st.u32 [%pb], %r\n    ptr.add.ptr.global %pb, %pb, %step\n"
    "    exscan.add.u32 %r, %v, %m\n    st.u32 [%pb], %r\n"
    "    return\n.end\n";

static void check_sums(uint32_t mask)
{
    enum { B = 64, NO = 6 };
    uint32_t got[B * NO], want[B * NO], k1b = 0x3a902de0u, k2b = 0x47c35000u; /* the kernel's */
    float k1, k2;
    memcpy(&k1, &k1b, 4), memcpy(&k2, &k2b, 4);
    memset(want, 0, sizeof want);
    for (uint32_t base = 0; base < B; base += 32) {
        float fa = 0, fbefore;
        uint32_t ua = 0, ubefore;
        int have = 0;
        for (uint32_t lane = 0; lane < 32; lane++) { /* lane order over the members */
            const uint32_t t = base + lane;
            if (!(mask >> lane & 1))
                continue;
            const float f = (float)(t + 1) * k1 + (float)(t & 7) * k2;
            fbefore = have ? fa : 0.0f, ubefore = have ? ua : 0;
            fa = have ? fa + f : f, ua = have ? ua + t * 2654435761u : t * 2654435761u;
            have = 1;
            memcpy(&want[t * NO + 1], &fa, 4);
            memcpy(&want[t * NO + 2], &fbefore, 4);
            want[t * NO + 4] = ua, want[t * NO + 5] = ubefore;
        }
        for (uint32_t lane = 0; lane < 32; lane++)
            if (mask >> lane & 1) {
                memcpy(&want[(base + lane) * NO], &fa, 4);
                want[(base + lane) * NO + 3] = ua;
            }
    }
    cvm_buffer *out = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_u32(&mask)};
    cvm_launch_config cfg = kern_cfg(1, B);
    cfg.plane_width = 32;
    cvm_diag d;
    cvm_status st = kern_exec(sums_src, "sums", &cfg, args, 2, &d);
    ok(st == CVM_OK, "sums mask %08x: runs (%s)", mask, st ? d.message : "ok");
    memset(got, 0, sizeof got);
    kern_read(out, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < B * NO && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    ok(bad < 0, "sums mask %08x: f32 and u32 reduce/scan/exscan add in lane order over the members", mask);
    if (bad >= 0)
        diag("  unit %d output %d: got %08x, want %08x", bad / NO, bad % NO, got[bad], want[bad]);
    cvm_buffer_free(out);
}

/* f32 add reductions and scans over NaNs of different payloads and signs:
 * each addition whose sum is a NaN gives the canonical NaN (0x7fc00000,
 * docs/numerics.md), so the result does not depend on which operand a
 * host instruction would propagate. A scan's first member is its own
 * value (no addition), payload and all. Lane l holds in[l]. */
static const char nan_sums_src[] =
    ".kernel nansums\n.param in buffer u32 read\n.param out buffer u32 write\n"
    ".reg u32 %t, %m\n.reg f32 %f, %g\n.reg i64 %off, %k\n.reg ptr.global %pi, %po\n"
    "    sreg.u32 %t, unit_pos.x\n    const.u32 %m, 4294967295\n    cvt.i64 %off, %t\n"
    "    const.i64 %k, 4\n    mul.i64 %off, %off, %k\n    param.ptr.global %pi, in, 0\n"
    "    ptr.add.ptr.global %pi, %pi, %off\n    ld.f32 %f, [%pi]\n"
    "    param.ptr.global %po, out, 0\n    const.i64 %k, 3\n    mul.i64 %off, %off, %k\n"
    "    ptr.add.ptr.global %po, %po, %off\n    reduce.add.f32 %g, %f, %m\n    st.f32 [%po], %g\n"
    "    const.i64 %k, 4\n    ptr.add.ptr.global %po, %po, %k\n    scan.add.f32 %g, %f, %m\n"
    "    st.f32 [%po], %g\n    ptr.add.ptr.global %po, %po, %k\n    exscan.add.f32 %g, %f, %m\n"
    "    st.f32 [%po], %g\n    return\n.end\n";

static void check_nan_sums(void)
{
    enum { B = 64 };
    uint32_t in[B], got[B * 3], want[B * 3];
    for (unsigned l = 0; l < B; l++) /* 1.0, but NaNs in plane 0 lanes 0 and 9, plane 1 lane 17 */
        in[l] = l == 0 ? 0xffc01234u : l == 9 ? 0x7f812345u : l == 49 ? 0xff800001u : 0x3f800000u;
    for (unsigned l = 0; l < B; l++) {
        const unsigned lane = l % 32, p = l / 32;
        /* plane 0: lane 0 alone is its NaN; every sum that adds it is a NaN */
        const uint32_t nan = 0x7fc00000u;
        if (p == 0) {
            want[l * 3] = nan;
            want[l * 3 + 1] = lane == 0 ? 0xffc01234u : nan;
            want[l * 3 + 2] = lane == 0 ? 0u : lane == 1 ? 0xffc01234u : nan;
        } else { /* plane 1: 1.0 per lane until lane 17's NaN */
            float sc = (float)(lane + 1), ex = (float)lane;
            uint32_t scb, exb;
            memcpy(&scb, &sc, 4), memcpy(&exb, &ex, 4);
            want[l * 3] = nan;
            want[l * 3 + 1] = lane >= 17 ? nan : scb;
            want[l * 3 + 2] = lane >= 18 ? nan : exb;
        }
    }
    cvm_buffer *bi = kern_buf("in", sizeof in, in), *bo = kern_buf("out", sizeof got, NULL);
    cvm_arg args[] = {kern_arg_buf(bi), kern_arg_buf(bo)};
    cvm_launch_config cfg = kern_cfg(1, B);
    cfg.plane_width = 32;
    cvm_diag d;
    cvm_status st = kern_exec(nan_sums_src, "nansums", &cfg, args, 2, &d);
    ok(st == CVM_OK, "NaN sums: runs (%s)", st ? d.message : "ok");
    memset(got, 0, sizeof got);
    kern_read(bo, got, sizeof got);
    int bad = -1;
    for (int i = 0; i < B * 3 && bad < 0; i++)
        if (got[i] != want[i])
            bad = i;
    ok(bad < 0, "NaN sums: f32 reduce/scan/exscan additions that give a NaN give the canonical one");
    if (bad >= 0)
        diag("  unit %d output %d: got %08x, want %08x", bad / 3, bad % 3, got[bad], want[bad]);
    cvm_buffer_free(bi);
    cvm_buffer_free(bo);
}

/* want: a word the fault's message must hold (which check fired) */
static void check_fault(const char *src, const char *name, const char *want, uint32_t units)
{
    cvm_diag d;
    cvm_buffer *out = kern_buf("out", 256, NULL);
    cvm_arg args[] = {kern_arg_buf(out)};
    cvm_launch_config cfg = kern_cfg(1, units);
    cfg.plane_width = 32;
    cvm_status st = kern_exec(src, name, &cfg, args, 1, &d);
    ok(st == CVM_FAULT && d.has_fault && strstr(d.message, "synccheck") && strstr(d.message, want),
       "%s: synccheck fault naming '%s' (got %s: %s)", name, want, cvm_status_str(st), d.message);
    if (d.has_fault)
        is_int(d.fault.plane, 0, "%s: fault in plane 0", name);
    cvm_buffer_free(out);
}

int main(void)
{
    static const uint32_t widths[] = {8, 16, 32, 64};
    static const uint64_t masks[] = {UINT64_MAX, 0xf0f0f0f0f0f0f0f3ull, 0x8000000000000006ull};
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    planeops_src = kern_join(planeops_parts);
    for (size_t w = 0; w < 4; w++)
        for (size_t m = 0; m < 3; m++)
            check_planeops(widths[w], masks[m]);
    check_fault(inactive_src, "inactive", "not active", 32);
    check_fault(missing_src, "missing", "reads lane 20, which does not exist", 20);
    check_fault(differ_src, "differ", "differs", 32);
    check_fault(outside_src, "outside", "outside the member mask", 32);
    check_exited(32);
    check_exited(20);
    check_outside();
    check_sums(0xffffffffu);
    check_sums(0x8f00f0f6u);
    check_nan_sums();
    free(planeops_src);
    kern_close();
    return done_testing();
}
