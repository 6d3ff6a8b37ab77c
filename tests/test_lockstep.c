/*
 * test_lockstep.c - the planes of a cube in lockstep (vm/interp_lockstep.c)
 * against plain C models: planes that part at a branch only some of them
 * take and meet again at a barrier, loops whose trip count differs by
 * plane, loads and stores consecutive across the whole cube (one range
 * check; also straight from the index when only the access reads the
 * address, for a 32- or a 64-bit index) and not, branches on unsigned
 * and cube-uniform compares, faults inside lockstep code (the lowest unit is
 * reported), and a timeout in a loop every plane runs. `make check` runs
 * this with lockstep on (the default) and tests/test_lockstep.sh runs the
 * interpreter's tests again with CUBEVM_LOCKSTEP=0.
 */
#include "kern.h"

#include <math.h>

#define BLOCK 256u
#define GRID 3u
#define N (BLOCK * GRID)

/* out[g] from in[g + shift], with plane-dependent work around a barrier. */
static const char part_src[] =
    ".kernel part\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param shift scalar u32\n"
    ".reg u32 %t, %c, %cd, %g, %pp, %one, %v, %k, %lim, %tmp, %x, %gi\n"
    ".reg bool %b, %b2\n"
    ".reg i64 %a, %s, %u, %a2, %s2, %u2\n"
    ".reg ptr.global %po, %pi, %p, %q\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    sreg.u32 %pp, plane_pos\n"
    "    param.ptr.global %po, out, 0\n    param.ptr.global %pi, in, 0\n"
    "    param.u32 %tmp, shift, 0\n    add.u32 %gi, %g, %tmp\n"
    "    cvt.i64 %a, %gi\n    const.i64 %s, 4\n    mul.i64 %u, %a, %s\n"
    "    ptr.add.ptr.global %p, %pi, %u\n    ld.u32 %x, [%p]\n"
    "    const.u32 %one, 1\n    const.u32 %v, 7\n"
    /* odd planes only: the planes part here and meet at sync_cube */
    "    and.u32 %tmp, %pp, %one\n    eq.u32 %b, %tmp, %one\n"
    "    if %b\n        mul.u32 %v, %x, %x\n    end\n"
    "    sync_cube\n"
    "    add.u32 %v, %v, %x\n"
    /* plane_pos + 1 rounds: every plane a different trip count */
    "    const.u32 %k, 0\n    add.u32 %lim, %pp, %one\n"
    "    loop\n"
    "        ge.u32 %b2, %k, %lim\n        if %b2\n            break\n        end\n"
    "        mul.u32 %v, %v, %lim\n        add.u32 %v, %v, %k\n"
    "    continuing\n        add.u32 %k, %k, %one\n"
    "    end\n"
    "    cvt.i64 %a2, %g\n    const.i64 %s2, 4\n    mul.i64 %u2, %a2, %s2\n"
    "    ptr.add.ptr.global %q, %po, %u2\n    st.u32 [%q], %v\n"
    "    return\n.end\n";

static uint32_t in_val(uint32_t i) { return i * 2654435761u ^ 0x5bd1e995u; }

static uint32_t part_model(uint32_t g, uint32_t shift)
{
    const uint32_t pp = g % BLOCK / 32, x = in_val(g + shift);
    uint32_t v = pp & 1 ? x * x : 7;
    v += x;
    for (uint32_t k = 0; k < pp + 1; k++)
        v = v * (pp + 1) + k;
    return v;
}

/*
 * Runs kernel `name` of src over `grid` cubes of bx x by units with out
 * (one u32 per unit, in launch order) and in (in_n elements, in_val(i)) as
 * its first arguments and `extra` after them. `what` names the case in the
 * messages. Expecting a fault: checks that the lowest faulting unit is
 * fault_unit (in the cube's order) of fault_cube. Else checks every unit's
 * out against want(g, ctx).
 */
static void check_launch(const char *src, const char *name, const char *what, uint32_t grid,
                         uint32_t bx, uint32_t by, uint32_t in_n, const cvm_arg *extra,
                         unsigned nextra, int expect_fault, uint32_t fault_cube,
                         uint32_t fault_unit, uint32_t (*want)(uint32_t g, const void *ctx),
                         const void *ctx)
{
    const uint32_t n = grid * bx * by;
    uint32_t *got = calloc(n, sizeof *got), *data = calloc(in_n, sizeof *data);
    cvm_diag d;
    for (uint32_t i = 0; i < in_n; i++)
        data[i] = in_val(i);
    cvm_buffer *out = kern_buf("out", n * sizeof *got, NULL);
    cvm_buffer *in = kern_buf("in", in_n * sizeof *data, data);
    cvm_arg args[8] = {kern_arg_buf(out), kern_arg_buf(in)};
    for (unsigned i = 0; i < nextra && i < 6; i++)
        args[2 + i] = extra[i];
    cvm_launch_config cfg = kern_cfg(grid, bx);
    cfg.block[1] = by;
    cvm_status st = kern_exec(src, name, &cfg, args, 2 + nextra, &d);
    if (expect_fault) {
        ok(st == CVM_FAULT && d.has_fault, "%s, %u inputs: faults (%s: %s)", what, in_n,
           cvm_status_str(st), d.message);
        const uint32_t unit = d.fault.unit[0] + bx * d.fault.unit[1];
        ok(d.has_fault && d.fault.cube[0] == fault_cube && unit == fault_unit,
           "%s: the lowest faulting unit is cube %u unit %u (got cube %u unit %u)", what,
           fault_cube, fault_unit, d.fault.cube[0], unit);
    } else if (ok(st == CVM_OK, "%s: runs (%s)", what, st ? d.message : "ok")) {
        int read = kern_read(out, got, n * sizeof *got);
        uint32_t bad = n;
        for (uint32_t g = 0; g < n && bad == n; g++)
            if (!read || got[g] != want(g, ctx))
                bad = g;
        if (!ok(read && bad == n, "%s: every unit matches the C model", what) && bad < n)
            diag("  unit %u: got 0x%x, want 0x%x", bad, got[bad], want(bad, ctx));
    }
    cvm_buffer_free(out);
    cvm_buffer_free(in);
    free(got);
    free(data);
}

/* check_launch over GRID cubes of BLOCK units */
static void check_in_out(const char *src, const char *name, const char *what, uint32_t in_n,
                         const cvm_arg *extra, unsigned nextra, int expect_fault,
                         uint32_t fault_cube, uint32_t fault_unit,
                         uint32_t (*want)(uint32_t g, const void *ctx), const void *ctx)
{
    check_launch(src, name, what, GRID, BLOCK, 1, in_n, extra, nextra, expect_fault, fault_cube,
                 fault_unit, want, ctx);
}

static uint32_t part_want(uint32_t g, const void *ctx)
{
    return part_model(g, *(const uint32_t *)ctx);
}

static void check_part(uint32_t shift, uint32_t in_n, int expect_fault, uint32_t fault_unit,
                       uint32_t fault_cube)
{
    char what[64];
    snprintf(what, sizeof what, "shift %u", shift);
    const cvm_arg extra[] = {kern_arg_u32(&shift)};
    check_in_out(part_src, "part", what, in_n, extra, 1, expect_fault, fault_cube, fault_unit,
                 part_want, &shift);
}

/* out[g] = in[g * stride + shift] through a 64-bit index (`add.i64` then
 * the scale: decode's INDEX of an i64, which lockstep does with the load
 * when the cube's indexes count up by one); shift may be negative, and
 * stride 2 must not be taken for consecutive. */
static const char wide_src[] =
    ".kernel wide\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param shift scalar i64\n"
    ".param stride scalar i64\n"
    ".reg u32 %t, %c, %cd, %g, %x\n.reg i64 %gi, %sh, %st, %i, %s, %u, %u2\n"
    ".reg ptr.global %pi, %p, %po, %q\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i64 %gi, %g\n"
    "    param.i64 %sh, shift, 0\n    param.ptr.global %pi, in, 0\n    param.ptr.global %po, out, 0\n"
    "    param.i64 %st, stride, 0\n    mul.i64 %i, %gi, %st\n"
    "    const.i64 %s, 4\n    add.i64 %i, %i, %sh\n"
    "    mul.i64 %u, %i, %s\n    ptr.add.ptr.global %p, %pi, %u\n    ld.u32 %x, [%p]\n"
    "    mul.i64 %u2, %gi, %s\n    ptr.add.ptr.global %q, %po, %u2\n    st.u32 [%q], %x\n"
    "    return\n.end\n";

struct wide_ctx {
    int64_t stride, shift;
};

static uint32_t wide_want(uint32_t g, const void *ctx)
{
    const struct wide_ctx *w = ctx;
    return in_val((uint32_t)(g * w->stride + w->shift));
}

static void check_wide(int64_t stride, int64_t shift, uint32_t in_n, int expect_fault,
                       uint32_t fault_unit)
{
    char what[96];
    snprintf(what, sizeof what, "i64 index in[g * %lld + %lld]", (long long)stride, (long long)shift);
    const struct wide_ctx w = {stride, shift};
    const cvm_arg extra[] = {kern_arg_bytes(&shift, 8), kern_arg_bytes(&stride, 8)};
    check_in_out(wide_src, "wide", what, in_n, extra, 2, expect_fault, shift < 0 ? 0 : GRID - 1,
                 fault_unit, wide_want, &w);
}

/* 32-bit shifts in lockstep: unit g shifts x = in[g] by y = g % 41 (counts
 * of 32 and more included) left, right arithmetic and right logical, odd
 * units through the register count, even ones too but under an `if` that
 * leaves every third unit out (its result stays x):
 *   out[g] = shl(x, y) ^ 3 shr.i32(x, y) ^ 5 shr.u32(x, y) */
static const char shifts_src[] =
    ".kernel shifts\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n"
    ".reg u32 %t, %c, %cd, %g, %k, %y, %x, %a, %b, %r\n.reg i32 %xs, %bs\n.reg bool %on\n"
    ".reg i64 %o, %four\n.reg ptr.global %pi, %po, %p, %q\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    const.i64 %four, 4\n"
    "    param.ptr.global %pi, in, 0\n    param.ptr.global %po, out, 0\n"
    "    cvt.i64 %o, %g\n    mul.i64 %o, %o, %four\n    ptr.add.ptr.global %p, %pi, %o\n"
    "    ld.u32 %x, [%p]\n    const.u32 %k, 41\n    rem.u32 %y, %g, %k\n    mov.u32 %r, %x\n"
    "    const.u32 %k, 3\n    rem.u32 %a, %g, %k\n    const.u32 %k, 0\n    ne.u32 %on, %a, %k\n"
    "    if %on\n"
    "        shl.u32 %r, %x, %y\n        cvt.i32 %xs, %x\n        shr.i32 %bs, %xs, %y\n"
    "        cvt.u32 %b, %bs\n        const.u32 %k, 3\n        mul.u32 %b, %b, %k\n"
    "        xor.u32 %r, %r, %b\n        shr.u32 %b, %x, %y\n        const.u32 %k, 5\n"
    "        mul.u32 %b, %b, %k\n        xor.u32 %r, %r, %b\n"
    "    end\n"
    "    ptr.add.ptr.global %q, %po, %o\n    st.u32 [%q], %r\n"
    "    return\n.end\n";

static uint32_t shifts_want(uint32_t g, const void *ctx)
{
    (void)ctx;
    const uint32_t x = in_val(g), y = g % 41;
    if (g % 3 == 0)
        return x;
    const uint32_t shl = y >= 32 ? 0 : x << y, lshr = y >= 32 ? 0 : x >> y;
    /* arithmetic: by halving, rounding toward minus infinity */
    int64_t a = (int32_t)x;
    for (uint32_t i = 0; i < (y >= 32 ? 31 : y); i++)
        a = a >= 0 ? a / 2 : (a - 1) / 2;
    return shl ^ 3 * (uint32_t)a ^ 5 * lshr;
}

/* Planes that read and write rows of their own: plane p of cube c reads
 * row r(p) = p M mod 8 of its cube's 8 rows of 32 (each plane consecutive,
 * the planes in any order: one range check for the cube, a block copy per
 * plane), through the index (x, shifted by `shift` elements) and through
 * an address the index chain does not end in (y), and writes
 * x ^ 3y to row w(p) (r(p), or with `dup` set the even row p & ~1, which
 * planes 2k and 2k+1 both write: the later plane's values stay), through
 * the index when `via` is set, else through the plain address. */
static const char rows_src[] =
    ".kernel rows\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param shift scalar u32\n"
    ".param M scalar u32\n.param dup scalar u32\n.param via scalar u32\n"
    ".reg u32 %t, %c, %l, %pp, %k, %r, %w, %i, %x, %y, %sh, %M, %dup, %via\n.reg bool %b\n"
    ".reg i64 %a1, %a2, %a3, %a4, %s, %u1, %u2, %u3, %u4, %z\n"
    ".reg ptr.global %pi, %po, %p1, %p2, %p3, %p4, %q1, %q4\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %pp, plane_pos\n"
    "    param.u32 %sh, shift, 0\n    param.u32 %M, M, 0\n    param.u32 %dup, dup, 0\n"
    "    param.u32 %via, via, 0\n    param.ptr.global %pi, in, 0\n    param.ptr.global %po, out, 0\n"
    "    const.u32 %k, 31\n    and.u32 %l, %t, %k\n    mul.u32 %r, %pp, %M\n    const.u32 %k, 7\n"
    "    and.u32 %r, %r, %k\n    const.u32 %k, 8\n    mul.u32 %i, %c, %k\n    add.u32 %i, %i, %r\n"
    "    const.u32 %k, 32\n    mul.u32 %i, %i, %k\n    add.u32 %i, %i, %l\n"
    "    const.i64 %s, 4\n    const.i64 %z, 0\n"
    /* y: the address goes through one more ptr.add, so no INDEX ends in the load */
    "    cvt.i64 %a1, %i\n    mul.i64 %u1, %a1, %s\n    ptr.add.ptr.global %p1, %pi, %u1\n"
    "    ptr.add.ptr.global %q1, %p1, %z\n    ld.u32 %y, [%q1]\n"
    /* x: the INDEX and its load together */
    "    add.u32 %i, %i, %sh\n    cvt.i64 %a2, %i\n    mul.i64 %u2, %a2, %s\n"
    "    ptr.add.ptr.global %p2, %pi, %u2\n    ld.u32 %x, [%p2]\n"
    "    const.u32 %k, 3\n    mul.u32 %y, %y, %k\n    xor.u32 %x, %x, %y\n"
    "    mov.u32 %w, %r\n    const.u32 %k, 0\n    ne.u32 %b, %dup, %k\n"
    "    if %b\n        const.u32 %k, 6\n        and.u32 %w, %pp, %k\n    end\n"
    "    const.u32 %k, 8\n    mul.u32 %i, %c, %k\n    add.u32 %i, %i, %w\n"
    "    const.u32 %k, 32\n    mul.u32 %i, %i, %k\n    add.u32 %i, %i, %l\n"
    "    const.u32 %k, 0\n    ne.u32 %b, %via, %k\n"
    "    if %b\n"
    "        cvt.i64 %a3, %i\n        mul.i64 %u3, %a3, %s\n        ptr.add.ptr.global %p3, %po, %u3\n"
    "        st.u32 [%p3], %x\n"
    "    else\n"
    "        cvt.i64 %a4, %i\n        mul.i64 %u4, %a4, %s\n        ptr.add.ptr.global %p4, %po, %u4\n"
    "        ptr.add.ptr.global %q4, %p4, %z\n        st.u32 [%q4], %x\n"
    "    end\n"
    "    return\n.end\n";

struct rows_ctx {
    uint32_t shift, M, dup;
};

static uint32_t rows_want(uint32_t o, const void *ctx)
{
    const struct rows_ctx *w = ctx;
    const uint32_t c = o / BLOCK, row = o % BLOCK / 32, l = o % 32;
    uint32_t v = 0;
    for (uint32_t p = 0; p < BLOCK / 32; p++) { /* the last plane writing the row */
        const uint32_t r = p * w->M % 8, wr = w->dup ? p & 6 : r;
        const uint32_t i = (c * 8 + r) * 32 + l;
        if (wr == row)
            v = in_val(i + w->shift) ^ 3 * in_val(i);
    }
    return v;
}

static void check_rows(uint32_t shift, uint32_t M, uint32_t dup, uint32_t via, uint32_t in_n,
                       int expect_fault, uint32_t fault_unit)
{
    char what[96];
    snprintf(what, sizeof what, "plane rows (shift %u, M %u, dup %u, via %s)", shift, M, dup,
             via ? "index" : "address");
    const struct rows_ctx w = {shift, M, dup};
    const cvm_arg extra[] = {kern_arg_u32(&shift), kern_arg_u32(&M), kern_arg_u32(&dup),
                             kern_arg_u32(&via)};
    check_in_out(rows_src, "rows", what, in_n, extra, 4, expect_fault, GRID - 1, fault_unit,
                 rows_want, &w);
}

/* Faults after rounds of lockstep loop control (tests no lane takes,
 * `continuing`, `end`), which leave the planes' own pcs behind the
 * lockstep's: at round `round`, unit `unit` of cube 1 divides by zero
 * (how = 0: the plane interpreter's step) or loads past the input (how =
 * 1: the memory path). The fault must name that unit and the faulting
 * instruction's pc. */
static const char late_src[] =
    ".kernel late\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param round scalar u32\n"
    ".param unit scalar u32\n.param how scalar u32\n"
    ".reg u32 %t, %c, %i, %k, %v, %dv, %ix, %rd, %un, %how, %one\n.reg bool %b, %hit\n"
    ".reg i64 %o, %four\n.reg ptr.global %pi, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    param.u32 %rd, round, 0\n"
    "    param.u32 %un, unit, 0\n    param.u32 %how, how, 0\n    param.ptr.global %pi, in, 0\n"
    "    const.i64 %four, 4\n    const.u32 %one, 1\n    const.u32 %i, 0\n    mov.u32 %v, %t\n"
    "    loop\n"
    "        const.u32 %k, 9\n        gt.u32 %b, %i, %k\n        if %b\n            break\n        end\n"
    "        eq.u32 %hit, %i, %rd\n        eq.u32 %b, %t, %un\n        and.bool %hit, %hit, %b\n"
    "        eq.u32 %b, %c, %one\n        and.bool %hit, %hit, %b\n"
    "        mov.u32 %dv, %one\n        mov.u32 %ix, %t\n"
    "        if %hit\n            const.u32 %k, 0\n            eq.u32 %b, %how, %k\n"
    "            if %b\n                mov.u32 %dv, %k\n            else\n"
    "                const.u32 %ix, 100000\n            end\n        end\n"
    "        div.u32 %v, %v, %dv\n" /* DIV */
    "        cvt.i64 %o, %ix\n        mul.i64 %o, %o, %four\n        ptr.add.ptr.global %p, %pi, %o\n"
    "        ld.u32 %k, [%p]\n" /* LOAD */
    "        add.u32 %v, %v, %k\n"
    "    continuing\n        add.u32 %i, %i, %one\n"
    "    end\n"
    "    return\n.end\n";

/* The pc of the instruction line of src that contains `mark`: instruction
 * lines (not directives, not blank) counted from the kernel's first. */
static uint32_t line_pc(const char *src, const char *mark)
{
    uint32_t pc = 0;
    for (const char *l = src; *l;) {
        const char *e = strchr(l, '\n');
        const size_t n = e ? (size_t)(e - l) : strlen(l);
        const char *f = l;
        while (f < l + n && *f == ' ')
            f++;
        const char *m = strstr(l, mark);
        if (m && m < l + n)
            return pc;
        if (f < l + n && *f != '.')
            pc++;
        l += n + (e != NULL);
    }
    return UINT32_MAX;
}

static void check_late(uint32_t round, uint32_t unit, uint32_t how)
{
    uint32_t *data = calloc(N, sizeof *data);
    cvm_buffer *out = kern_buf("out", N * 4, NULL), *in = kern_buf("in", N * 4, data);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in), kern_arg_u32(&round),
                      kern_arg_u32(&unit), kern_arg_u32(&how)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_diag d;
    cvm_status st = kern_exec(late_src, "late", &cfg, args, 5, &d);
    const uint32_t pc = line_pc(late_src, how ? "ld.u32 %k, [%p]" : "div.u32 %v, %v, %dv");
    ok(st == CVM_FAULT && d.has_fault && d.fault.cube[0] == 1 && d.fault.unit[0] == unit &&
           d.fault.pc == pc,
       "a %s at round %u of a lockstep loop names unit %u and pc %u (%s)",
       how ? "load past the input" : "zero divisor", round, unit, pc, d.message);
    cvm_buffer_free(out);
    cvm_buffer_free(in);
    free(data);
}

/*
 * Planes that ride along without lanes: units at or past n return first
 * (the last cube's upper planes entirely; exited units count as arrived at
 * the barrier), a loop whose lanes break and
 * continue at different rounds, then a barrier and a shared-memory
 * exchange with the unit 32 places on (0 for units past n).
 */
static const char ride_src[] =
    ".kernel ride\n"
    ".param out buffer u32 write\n.param n scalar u32\n"
    ".shared 1024\n"
    ".reg u32 %t, %c, %cd, %g, %n, %one, %k, %v, %tmp, %lim, %nb, %w\n"
    ".reg bool %b, %b2, %b3, %b4\n"
    ".reg i64 %a, %s, %u\n.reg i32 %o, %o2\n"
    ".reg ptr.global %po, %p\n.reg ptr.shared %sh, %q, %q2\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    param.u32 %n, n, 0\n"
    "    const.u32 %one, 1\n    const.u32 %v, 0\n"
    "    const.ptr.shared %sh, 0x0\n    const.u32 %tmp, 4\n    mul.u32 %tmp, %t, %tmp\n"
    "    cvt.i32 %o, %tmp\n    ptr.add.ptr.shared %q, %sh, %o\n    st.u32 [%q], %v\n"
    "    ge.u32 %b, %g, %n\n"
    "    if %b\n        return\n    end\n"
    /* lim = g % 7 + 3 rounds; k odd: continue; k == g % 5 + 1: break */
    "    const.u32 %tmp, 7\n    rem.u32 %lim, %g, %tmp\n    add.u32 %lim, %lim, %one\n"
    "    add.u32 %lim, %lim, %one\n    add.u32 %lim, %lim, %one\n"
    "    const.u32 %tmp, 5\n    rem.u32 %nb, %g, %tmp\n    add.u32 %nb, %nb, %one\n"
    "    const.u32 %k, 0\n"
    "    loop\n"
    "        ge.u32 %b2, %k, %lim\n        if %b2\n            break\n        end\n"
    "        eq.u32 %b3, %k, %nb\n        if %b3\n            break\n        end\n"
    "        and.u32 %tmp, %k, %one\n        eq.u32 %b4, %tmp, %one\n"
    "        if %b4\n            continue\n        end\n"
    "        mul.u32 %v, %v, %lim\n        add.u32 %v, %v, %k\n        add.u32 %v, %v, %one\n"
    "    continuing\n        add.u32 %k, %k, %one\n"
    "    end\n"
    "    st.u32 [%q], %v\n    sync_cube\n"
    /* w = shared[(t + 32) % cube] */
    "    const.u32 %tmp, 32\n    add.u32 %w, %t, %tmp\n    rem.u32 %w, %w, %cd\n"
    "    const.u32 %tmp, 4\n    mul.u32 %w, %w, %tmp\n    cvt.i32 %o2, %w\n"
    "    ptr.add.ptr.shared %q2, %sh, %o2\n"
    "    ld.u32 %w, [%q2]\n    const.u32 %tmp, 16\n    shl.u32 %w, %w, %tmp\n    xor.u32 %v, %v, %w\n"
    "    cvt.i64 %a, %g\n    const.i64 %s, 4\n    mul.i64 %u, %a, %s\n"
    "    param.ptr.global %po, out, 0\n    ptr.add.ptr.global %p, %po, %u\n    st.u32 [%p], %v\n"
    "    return\n.end\n";

static uint32_t ride_unit(uint32_t g, uint32_t n)
{
    if (g >= n)
        return 0;
    const uint32_t lim = g % 7 + 3, nb = g % 5 + 1;
    uint32_t v = 0;
    for (uint32_t k = 0; k < lim && k != nb; k++)
        if (!(k & 1))
            v = v * lim + k + 1;
    return v;
}

static void check_ride(uint32_t n)
{
    uint32_t *got = calloc(N, sizeof *got);
    cvm_diag d;
    cvm_buffer *out = kern_buf("out", N * sizeof *got, NULL);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_u32(&n)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_status st = kern_exec(ride_src, "ride", &cfg, args, 2, &d);
    if (ok(st == CVM_OK, "ride n=%u: runs (%s)", n, st ? d.message : "ok")) {
        int read = kern_read(out, got, N * sizeof *got);
        uint32_t bad = N;
        for (uint32_t g = 0; g < N && bad == N; g++) {
            const uint32_t c = g / BLOCK, t = g % BLOCK, o = c * BLOCK + (t + 32) % BLOCK;
            const uint32_t want = g < n ? ride_unit(g, n) ^ ride_unit(o, n) << 16 : 0;
            if (!read || got[g] != want)
                bad = g;
        }
        if (!ok(read && bad == N, "ride n=%u: every unit matches the C model", n) && bad < N)
            diag("  unit %u: got 0x%x", bad, got[bad]);
    } else {
        diag("  %s", cvm_status_str(st));
    }
    cvm_buffer_free(out);
    free(got);
}

/* An f32 math op (exp, tanh, log, sin, cos, rsqrt, exp2, expm1, log2,
 * log10, log1p, erf: evaluated in f64 without branches, so the lane loops
 * over them vectorize in lockstep, all but erf's; and floor, ceil, trunc,
 * rint) on every unit; %s is the op's line (math_full, or math_part: units
 * whose unit_pos.x is a multiple of 3 keep 7 and skip it). */
static const char math_fmt[] =
    ".kernel mathk\n.param out buffer f32 write\n.param in buffer f32 read\n"
    ".reg u32 %%t, %%c, %%cd, %%g\n.reg i64 %%a, %%s, %%u, %%a2, %%s2, %%u2\n"
    ".reg ptr.global %%pi, %%po, %%p, %%q\n.reg f32 %%x, %%y\n.reg u32 %%k, %%three, %%zero\n"
    ".reg bool %%b\n"
    "    sreg.u32 %%t, unit_pos.x\n    sreg.u32 %%c, cube_pos.x\n    sreg.u32 %%cd, cube_dim.x\n"
    "    mul.u32 %%g, %%c, %%cd\n    add.u32 %%g, %%g, %%t\n"
    "    param.ptr.global %%pi, in, 0\n    param.ptr.global %%po, out, 0\n"
    "    cvt.i64 %%a, %%g\n    const.i64 %%s, 4\n    mul.i64 %%u, %%a, %%s\n    ptr.add.ptr.global %%p, %%pi, %%u\n"
    "    ld.f32 %%x, [%%p]\n%s"
    "    cvt.i64 %%a2, %%g\n    const.i64 %%s2, 4\n    mul.i64 %%u2, %%a2, %%s2\n    ptr.add.ptr.global %%q, %%po, %%u2\n"
    "    st.f32 [%%q], %%y\n    return\n.end\n";

static const char math_full[] = "    %s.f32 %%y, %%x\n";
static const char math_part[] =
    "    const.f32 %%y, 0x1.cp+2\n    const.u32 %%three, 3\n    const.u32 %%zero, 0\n"
    "    rem.u32 %%k, %%t, %%three\n    ne.u32 %%b, %%k, %%zero\n"
    "    if %%b\n        %s.f32 %%y, %%x\n    end\n";

/* 1/sqrt in long double, rounded twice: within 2^-63 relative. */
static long double rsqrt_ref(long double x)
{
    return 1.0L / sqrtl(x);
}

/* Inputs uniform in [lo, lo + span] and the edges; every unit's result
 * must be ref(x) rounded to f32 (the long double functions are exact
 * enough here; the ops are within 0.5 + 2^-17 ulp). */
static void check_math_in(const char *op, long double (*ref)(long double), float lo, float span,
                          uint32_t grid, uint32_t block, int partial)
{
    const uint32_t N_ = grid * block;
    float *x = calloc(N_, sizeof *x), *y = calloc(N_, sizeof *y);
    char line[sizeof math_part + 16], src[sizeof math_fmt + sizeof line];
    snprintf(line, sizeof line, partial ? math_part : math_full, op);
    snprintf(src, sizeof src, math_fmt, line);
    cvm_diag d;
    uint32_t seed = 12345;
    for (uint32_t i = 0; i < N_; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = lo + span * (float)(seed >> 8) / 16777216.0f;
    }
    x[0] = NAN, x[1] = INFINITY, x[2] = -INFINITY, x[3] = 0.0f, x[4] = -0.0f, x[5] = 88.72283f;
    x[6] = -103.97f, x[7] = 1e-30f, x[8] = 0.125f, x[9] = -0.124999993f, x[10] = 10.0f;
    x[11] = -9.99999905f, x[12] = 0x1p-149f, x[13] = 0x1.fffffep127f, x[14] = -1e20f;
    cvm_buffer *out = kern_buf("out", N_ * sizeof *y, NULL), *in = kern_buf("in", N_ * sizeof *x, x);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(in)};
    cvm_launch_config cfg = kern_cfg(grid, block);
    cvm_status st = kern_exec(src, "mathk", &cfg, args, 2, &d);
    if (ok(st == CVM_OK, "%s.f32, cubes of %u: runs (%s)", op, block, st ? d.message : "ok")) {
        int read = kern_read(out, y, N_ * sizeof *y);
        uint32_t bad = N_;
        float want = 0;
        for (uint32_t i = 0; i < N_ && bad == N_; i++) {
            want = partial && i % block % 3 == 0 ? 7.0f : (float)ref((long double)x[i]);
            if (!read || !(memcmp(&y[i], &want, sizeof want) == 0 || (y[i] != y[i] && want != want)))
                bad = i;
        }
        if (!ok(read && bad == N_, "%s.f32, cubes of %u%s: every unit is the exact value rounded to f32",
                op, block, partial ? ", two lanes in three" : "") &&
            bad < N_)
            diag("  unit %u: %s(%a) = %a, want %a", bad, op, x[bad], y[bad], want);
    }
    cvm_buffer_free(out);
    cvm_buffer_free(in);
    free(x);
    free(y);
}

static void check_math(const char *op, long double (*ref)(long double), float lo, float span,
                       uint32_t grid, uint32_t block)
{
    check_math_in(op, ref, lo, span, grid, block, 0);
}

/* pow.f32 of two inputs on every unit: planes whose pairs are all
 * ordinary (x > 0 finite, y finite) take the branch-free routine, the
 * others the full one lane by lane; every result must be powl rounded to
 * f32 (within 2^-63 relative: the routines are within 2^-51). */
static const char pow_src[] =
    ".kernel powk\n.param out buffer f32 write\n.param xs buffer f32 read\n.param ys buffer f32 read\n"
    ".reg u32 %t, %c, %cd, %g\n.reg i64 %a, %s, %u\n.reg ptr.global %p\n.reg f32 %x, %y, %z\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i64 %a, %g\n    const.i64 %s, 4\n"
    "    mul.i64 %u, %a, %s\n    param.ptr.global %p, xs, 0\n    ptr.add.ptr.global %p, %p, %u\n"
    "    ld.f32 %x, [%p]\n    param.ptr.global %p, ys, 0\n    ptr.add.ptr.global %p, %p, %u\n"
    "    ld.f32 %y, [%p]\n    pow.f32 %z, %x, %y\n    param.ptr.global %p, out, 0\n"
    "    ptr.add.ptr.global %p, %p, %u\n    st.f32 [%p], %z\n    return\n.end\n";

static void check_pow(uint32_t grid, uint32_t block)
{
    const uint32_t N_ = grid * block;
    float *x = calloc(N_, sizeof *x), *y = calloc(N_, sizeof *y), *z = calloc(N_, sizeof *z);
    uint32_t seed = 777;
    for (uint32_t i = 0; i < N_; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = 12.0f * (float)(seed >> 8) / 16777216.0f;
        seed = seed * 1103515245u + 12345u;
        y[i] = -40.0f + 80.0f * (float)(seed >> 8) / 16777216.0f;
    }
    /* plane 1 and the last plane: non-ordinary pairs among ordinary ones */
    x[32] = 0.0f, x[33] = -2.0f, y[33] = 3.0f, x[34] = -2.0f, y[34] = 0.5f, x[35] = INFINITY;
    y[36] = NAN, x[37] = 1.0f, y[37] = INFINITY, y[38] = -INFINITY, x[39] = -0.0f, y[39] = -3.0f;
    x[N_ - 1] = NAN, y[N_ - 2] = 0.0f, x[N_ - 3] = 0x1p-149f, y[N_ - 3] = 0.75f;
    x[40] = 1.0001f, y[40] = 30000.0f; /* near 1 with a large y: overflows */
    x[41] = 0.5f, y[41] = 149.0f;     /* 2^-149 exactly */
    x[42] = 0.5f, y[42] = 149.5f;     /* below the smallest subnormal: rounds to 2^-149 */
    cvm_buffer *out = kern_buf("out", N_ * sizeof *z, NULL), *bx = kern_buf("xs", N_ * sizeof *x, x);
    cvm_buffer *by = kern_buf("ys", N_ * sizeof *y, y);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(bx), kern_arg_buf(by)};
    cvm_launch_config cfg = kern_cfg(grid, block);
    cvm_diag d;
    cvm_status st = kern_exec(pow_src, "powk", &cfg, args, 3, &d);
    if (ok(st == CVM_OK, "pow.f32, cubes of %u: runs (%s)", block, st ? d.message : "ok")) {
        int read = kern_read(out, z, N_ * sizeof *z);
        uint32_t bad = N_;
        for (uint32_t i = 0; i < N_ && bad == N_; i++) {
            const float want = (float)powl((long double)x[i], (long double)y[i]);
            if (!read || !(memcmp(&z[i], &want, sizeof want) == 0 || (z[i] != z[i] && want != want)))
                bad = i;
        }
        if (!ok(read && bad == N_, "pow.f32, cubes of %u: every unit is powl rounded to f32", block) &&
            bad < N_)
            diag("  unit %u: pow(%a, %a) = %a, want %a", bad, x[bad], y[bad], z[bad],
                 (float)powl((long double)x[bad], (long double)y[bad]));
    }
    cvm_buffer_free(out);
    cvm_buffer_free(bx);
    cvm_buffer_free(by);
    free(x);
    free(y);
    free(z);
}

/* A loop every plane runs for ever: the timeout stops it. */
static const char spin_src[] =
    ".kernel spin\n.reg u32 %k, %one\n"
    "    const.u32 %k, 0\n    const.u32 %one, 1\n"
    "    loop\n        add.u32 %k, %k, %one\n    end\n    return\n.end\n";

/* The division kernels' four 32-bit results (qi, ri, qu, ru), widened, to
 * consecutive u64 at %p, which moves on past them. */
#define STORE_32BIT_RESULTS                                                                \
    "        bitcast.u32 %xu, %qi\n        cvt.u64 %w, %xu\n        st.u64 [%p], %w\n"          \
    "        ptr.add.ptr.global %p, %p, %eight\n"                                            \
    "        bitcast.u32 %xu, %ri\n        cvt.u64 %w, %xu\n        st.u64 [%p], %w\n"          \
    "        ptr.add.ptr.global %p, %p, %eight\n"                                            \
    "        cvt.u64 %w, %qu\n        st.u64 [%p], %w\n        ptr.add.ptr.global %p, %p, %eight\n" \
    "        cvt.u64 %w, %ru\n        st.u64 [%p], %w\n        ptr.add.ptr.global %p, %p, %eight\n"

/* Integer division and remainder of all four types (lockstep's f64 form
 * where every lane of a plane holds 0 <= x < 2^31 and 0 < y < 2^31, the
 * exact form elsewhere) against C; units with skip[g] != 0 do not divide,
 * so a zero divisor there must not fault. */
static const char divs_src[] =
    ".kernel divs\n"
    ".param out buffer u64 write\n.param xs buffer u64 read\n.param ys buffer u64 read\n"
    ".param skip buffer u32 read\n"
    ".reg u32 %t, %c, %cd, %g, %sk, %zero, %xu, %yu, %qu, %ru\n"
    ".reg i32 %xi, %yi, %qi, %ri\n"
    ".reg u64 %x, %y, %qU, %rU, %w\n.reg i64 %xs, %ys, %qs, %rs, %gi, %eight, %off, %four, %o4\n"
    ".reg bool %b\n.reg ptr.global %po, %px, %py, %pk, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i64 %gi, %g\n"
    "    param.ptr.global %po, out, 0\n    param.ptr.global %px, xs, 0\n"
    "    param.ptr.global %py, ys, 0\n    param.ptr.global %pk, skip, 0\n"
    "    const.i64 %eight, 8\n    mul.i64 %off, %gi, %eight\n"
    "    ptr.add.ptr.global %p, %px, %off\n    ld.u64 %x, [%p]\n"
    "    ptr.add.ptr.global %p, %py, %off\n    ld.u64 %y, [%p]\n"
    "    const.i64 %four, 4\n    mul.i64 %o4, %gi, %four\n"
    "    ptr.add.ptr.global %p, %pk, %o4\n    ld.u32 %sk, [%p]\n"
    "    const.u32 %zero, 0\n    eq.u32 %b, %sk, %zero\n"
    "    if %b\n"
    "        cvt.u32 %xu, %x\n        cvt.u32 %yu, %y\n"
    "        bitcast.i32 %xi, %xu\n        bitcast.i32 %yi, %yu\n"
    "        bitcast.i64 %xs, %x\n        bitcast.i64 %ys, %y\n"
    "        div.i32 %qi, %xi, %yi\n        rem.i32 %ri, %xi, %yi\n"
    "        div.u32 %qu, %xu, %yu\n        rem.u32 %ru, %xu, %yu\n"
    "        div.i64 %qs, %xs, %ys\n        rem.i64 %rs, %xs, %ys\n"
    "        div.u64 %qU, %x, %y\n        rem.u64 %rU, %x, %y\n"
    "        mul.i64 %off, %gi, %eight\n        mul.i64 %off, %off, %eight\n"
    "        ptr.add.ptr.global %p, %po, %off\n"
    STORE_32BIT_RESULTS
    "        bitcast.u64 %w, %qs\n        st.u64 [%p], %w\n        ptr.add.ptr.global %p, %p, %eight\n"
    "        bitcast.u64 %w, %rs\n        st.u64 [%p], %w\n        ptr.add.ptr.global %p, %p, %eight\n"
    "        st.u64 [%p], %qU\n        ptr.add.ptr.global %p, %p, %eight\n"
    "        st.u64 [%p], %rU\n"
    "    end\n"
    "    return\n.end\n";

/* Dividend and divisor of unit g: planes 0-3 small (0 <= x < 2^31,
 * 0 < y < 2^31, with the extremes), plane 4 negative dividends, plane 5
 * divisors >= 2^31, plane 6 small but one huge lane, plane 7 64-bit values;
 * zero divisors only where skip is set. */
static void div_operands(uint32_t g, uint64_t *x, uint64_t *y, uint32_t *skip)
{
    const uint32_t plane = g % BLOCK / 32, l = g % 32, h = g * 2654435761u;
    *skip = 0;
    switch (plane) {
    case 0: *x = h % 0x80000000u, *y = 1 + l; break;
    case 1: *x = 0x7fffffffu - l, *y = 0x7fffffffu - 3 * l; break;
    case 2: *x = h % 1000, *y = 1 + h % 97; break;
    case 3: *x = l * 7, *y = 32; *skip = l == 5; if (*skip) *y = 0; break;
    case 4: *x = (uint64_t)-(int64_t)(h % 100000), *y = 3 + l; break;
    case 5: *x = h, *y = 0x80000000u + l; break;
    case 6: *x = l == 17 ? 0x80000000u : h % 5000, *y = 7; break;
    default: *x = (uint64_t)h << 20 | l, *y = (uint64_t)(l + 1) << 33 | 5; break;
    }
}

static void check_divs(void)
{
    uint64_t *xs = calloc(N, 8), *ys = calloc(N, 8), *got = calloc(8 * (size_t)N, 8);
    uint32_t *skip = calloc(N, 4);
    for (uint32_t g = 0; g < N; g++)
        div_operands(g, &xs[g], &ys[g], &skip[g]);
    cvm_buffer *out = kern_buf("out", 64 * (size_t)N, NULL), *bx = kern_buf("xs", 8 * (size_t)N, xs);
    cvm_buffer *by = kern_buf("ys", 8 * (size_t)N, ys), *bk = kern_buf("skip", 4 * (size_t)N, skip);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(bx), kern_arg_buf(by), kern_arg_buf(bk)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_diag d;
    cvm_status st = kern_exec(divs_src, "divs", &cfg, args, 4, &d);
    ok(st == CVM_OK, "divisions run; zero divisors only in units that skip (%s: %s)",
       cvm_status_str(st), d.message);
    kern_read(out, got, 64 * (size_t)N);
    int bad = -1;
    for (uint32_t g = 0; g < N && bad < 0; g++) {
        if (skip[g])
            continue;
        const uint32_t xu = (uint32_t)xs[g], yu = (uint32_t)ys[g];
        const int32_t xi = (int32_t)xu, yi = (int32_t)yu;
        const int64_t xl = (int64_t)xs[g], yl = (int64_t)ys[g];
        const uint64_t want[8] = {(uint32_t)(xi / yi), (uint32_t)(xi % yi), xu / yu, xu % yu,
                                  (uint64_t)(xl / yl), (uint64_t)(xl % yl), xs[g] / ys[g],
                                  xs[g] % ys[g]};
        if (memcmp(want, &got[8 * (size_t)g], sizeof want) != 0)
            bad = (int)g;
    }
    ok(bad < 0, "div and rem of i32, u32, i64, u64 match C in every unit%s",
       bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("unit %d: x %llu y %llu", bad, (unsigned long long)xs[bad], (unsigned long long)ys[bad]);
    /* an active lane dividing by zero faults, checked, even among small ones */
    skip[3 * 32 + 5] = 0;
    cvm_buffer_write(kern_stream(), bk, 0, skip, 4 * (size_t)N, &d);
    st = kern_exec(divs_src, "divs", &cfg, args, 4, &d);
    ok(st == CVM_FAULT && d.has_fault && d.fault.unit[0] == 3 * 32 + 5,
       "an active lane's zero divisor faults at that unit (%s: %s)", cvm_status_str(st), d.message);
    cvm_buffer_free(out), cvm_buffer_free(bx), cvm_buffer_free(by), cvm_buffer_free(bk);
    free(xs), free(ys), free(got), free(skip);
}

/* Division and remainder by a divisor that is one value in every lane (a
 * parameter): where it is a positive power of two, lockstep shifts
 * (interp_lockstep.c POW2_DIVISOR), signed quotients truncating toward
 * zero; 2^31 as an i32 and 2^63 as an i64 are negative, and 3 and 24 no
 * powers, so those take the division. The 32-bit pairs are adjacent (one
 * fused divrem), the 64-bit ones apart (a div and a rem). Units with
 * skip set do not divide (planes with lanes off). Against C's / and %. */
static const char pow2_src[] =
    ".kernel pdivs\n"
    ".param out buffer u64 write\n.param xs buffer u64 read\n.param skip buffer u32 read\n"
    ".param y32 scalar u32\n.param y64 scalar u64\n"
    ".reg u32 %t, %c, %cd, %g, %sk, %zero, %xu, %yu, %qu, %ru\n"
    ".reg i32 %xi, %yi, %qi, %ri\n"
    ".reg u64 %x, %y, %qU, %rU, %w\n.reg i64 %xs, %ys, %qs, %rs, %gi, %eight, %off, %four, %o4\n"
    ".reg bool %b\n.reg ptr.global %po, %px, %pk, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i64 %gi, %g\n"
    "    param.ptr.global %po, out, 0\n    param.ptr.global %px, xs, 0\n"
    "    param.ptr.global %pk, skip, 0\n    param.u32 %yu, y32, 0\n    param.u64 %y, y64, 0\n"
    "    bitcast.i32 %yi, %yu\n    bitcast.i64 %ys, %y\n" /* before the if: one value in every lane */
    "    const.i64 %eight, 8\n    mul.i64 %off, %gi, %eight\n"
    "    ptr.add.ptr.global %p, %px, %off\n    ld.u64 %x, [%p]\n"
    "    const.i64 %four, 4\n    mul.i64 %o4, %gi, %four\n"
    "    ptr.add.ptr.global %p, %pk, %o4\n    ld.u32 %sk, [%p]\n"
    "    const.u32 %zero, 0\n    eq.u32 %b, %sk, %zero\n"
    "    if %b\n"
    "        cvt.u32 %xu, %x\n        bitcast.i32 %xi, %xu\n        bitcast.i64 %xs, %x\n"
    "        div.i32 %qi, %xi, %yi\n        rem.i32 %ri, %xi, %yi\n"
    "        rem.u32 %ru, %xu, %yu\n        div.u32 %qu, %xu, %yu\n"
    "        mul.i64 %off, %gi, %eight\n        mul.i64 %off, %off, %eight\n"
    "        ptr.add.ptr.global %p, %po, %off\n"
    "        div.i64 %qs, %xs, %ys\n        bitcast.u64 %w, %qs\n        st.u64 [%p], %w\n"
    "        ptr.add.ptr.global %p, %p, %eight\n"
    "        div.u64 %qU, %x, %y\n        st.u64 [%p], %qU\n        ptr.add.ptr.global %p, %p, %eight\n"
    STORE_32BIT_RESULTS
    "        rem.i64 %rs, %xs, %ys\n        bitcast.u64 %w, %rs\n        st.u64 [%p], %w\n"
    "        ptr.add.ptr.global %p, %p, %eight\n"
    "        rem.u64 %rU, %x, %y\n        st.u64 [%p], %rU\n"
    "    end\n"
    "    return\n.end\n";

static void check_pow2_divs(void)
{
    static const uint64_t extremes[] = {0, 1, UINT64_MAX, 0x80000000u, 0x7fffffffu, UINT64_C(1) << 63,
                                        ~(UINT64_C(1) << 63), 0xffffffff80000000u, 31, (uint64_t)-33};
    static const struct { uint32_t y32; uint64_t y64; } ys[] = {
        {1, 1}, {2, 2}, {32, UINT64_C(1) << 40}, {1u << 30, UINT64_C(1) << 62},
        {1u << 31, UINT64_C(1) << 63}, {3, 24}, {1u << 29, 3}};
    uint64_t *xs = calloc(N, 8), *got = calloc(8 * (size_t)N, 8);
    uint32_t *skip = calloc(N, 4);
    for (uint32_t g = 0; g < N; g++) {
        const uint64_t h = (uint64_t)g * 0x9E3779B97F4A7C15u;
        const uint32_t l = g % 32;
        xs[g] = l < 10 ? extremes[l] : l < 20 ? h : (uint64_t)-(int64_t)(h >> (l % 40));
        skip[g] = g % BLOCK / 32 == 2 && g % 3 == 0; /* plane 2 of each cube: lanes off */
    }
    cvm_buffer *out = kern_buf("out", 64 * (size_t)N, NULL), *bx = kern_buf("xs", 8 * (size_t)N, xs);
    cvm_buffer *bk = kern_buf("skip", 4 * (size_t)N, skip);
    int bad = -1, failed = -1;
    uint32_t bad_case = 0;
    for (uint32_t c = 0; c < sizeof ys / sizeof ys[0] && bad < 0 && failed < 0; c++) {
        cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(bx), kern_arg_buf(bk), kern_arg_u32(&ys[c].y32),
                          kern_arg_bytes(&ys[c].y64, 8)};
        cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
        cvm_diag d;
        if (kern_exec(pow2_src, "pdivs", &cfg, args, 5, &d) != CVM_OK) {
            failed = (int)c;
            diag("divisors %u, %llu: %s", ys[c].y32, (unsigned long long)ys[c].y64, d.message);
            break;
        }
        kern_read(out, got, 64 * (size_t)N);
        const int32_t yi = (int32_t)ys[c].y32;
        const int64_t yl = (int64_t)ys[c].y64;
        for (uint32_t g = 0; g < N && bad < 0; g++) {
            if (skip[g])
                continue;
            const uint32_t xu = (uint32_t)xs[g];
            const int32_t xi = (int32_t)xu;
            const int64_t xl = (int64_t)xs[g];
            const uint64_t want[8] = {(uint64_t)(xl / yl), xs[g] / ys[c].y64, (uint32_t)(xi / yi),
                                      (uint32_t)(xi % yi), xu / ys[c].y32, xu % ys[c].y32,
                                      (uint64_t)(xl % yl), xs[g] % ys[c].y64};
            if (memcmp(want, &got[8 * (size_t)g], sizeof want) != 0)
                bad = (int)g, bad_case = c;
        }
    }
    ok(failed < 0 && bad < 0, "div and rem by one divisor of every lane (powers of two and not) match C%s",
       bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("divisors %u, %llu, unit %d: x %llu", ys[bad_case].y32, (unsigned long long)ys[bad_case].y64, bad,
             (unsigned long long)xs[bad]);
    /* a zero divisor in every lane: the first active lane's faults */
    const uint32_t zero32 = 0;
    const uint64_t five = 5;
    cvm_arg zargs[] = {kern_arg_buf(out), kern_arg_buf(bx), kern_arg_buf(bk), kern_arg_u32(&zero32),
                       kern_arg_bytes(&five, 8)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_diag d;
    cvm_status st = kern_exec(pow2_src, "pdivs", &cfg, zargs, 5, &d);
    ok(st == CVM_FAULT && d.has_fault && d.fault.unit[0] == 0 && strstr(d.message, "division by zero"),
       "one zero divisor of every lane faults at the first unit (%s: %s)", cvm_status_str(st), d.message);
    cvm_buffer_free(out), cvm_buffer_free(bx), cvm_buffer_free(bk);
    free(xs), free(got), free(skip);
}

/* Shared-memory loads whose addresses are neither consecutive nor one
 * (the full-plane gathers of interp_mem.c: AVX2 gathers where built for
 * it) of 8- and 4-byte elements: unit t writes sh64[t] and sh32[t], then
 * reads element (37 t + 11) mod BLOCK of each. */
static const char gather_src[] =
    ".kernel gather\n"
    ".param out buffer u64 write\n"
    ".shared 3072\n"
    ".reg u32 %t, %c, %cd, %g, %k37, %k11, %kb, %j, %v32, %hi\n"
    ".reg u64 %v64, %w64, %x\n"
    ".reg i64 %ti, %ji, %gi, %eight, %four, %o, %o2\n"
    ".reg ptr.shared %s64, %s32, %p\n.reg ptr.global %po, %q\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n"
    "    cvt.i64 %ti, %t\n    const.i64 %eight, 8\n    const.i64 %four, 4\n"
    "    const.ptr.shared %s64, 0x0\n    const.ptr.shared %s32, 0x800\n"
    /* sh64[t] = (g << 32) | (t * 3 + 1), sh32[t] = g * 7 */
    "    cvt.u64 %v64, %g\n    const.u32 %hi, 32\n    shl.u64 %v64, %v64, %hi\n"
    "    const.u32 %k11, 3\n    mul.u32 %v32, %t, %k11\n"
    "    const.u32 %k37, 1\n    add.u32 %v32, %v32, %k37\n    cvt.u64 %w64, %v32\n"
    "    or.u64 %v64, %v64, %w64\n"
    "    mul.i64 %o, %ti, %eight\n    ptr.add.ptr.shared %p, %s64, %o\n    st.u64 [%p], %v64\n"
    "    const.u32 %k37, 7\n    mul.u32 %v32, %g, %k37\n"
    "    mul.i64 %o, %ti, %four\n    ptr.add.ptr.shared %p, %s32, %o\n    st.u32 [%p], %v32\n"
    "    sync_cube\n"
    /* j = (37 t + 11) mod BLOCK */
    "    const.u32 %k37, 37\n    mul.u32 %j, %t, %k37\n    const.u32 %k11, 11\n    add.u32 %j, %j, %k11\n"
    "    rem.u32 %j, %j, %cd\n    cvt.i64 %ji, %j\n"
    "    mul.i64 %o, %ji, %eight\n    ptr.add.ptr.shared %p, %s64, %o\n    ld.u64 %x, [%p]\n"
    "    mul.i64 %o2, %ji, %four\n    ptr.add.ptr.shared %p, %s32, %o2\n    ld.u32 %v32, [%p]\n"
    "    cvt.u64 %w64, %v32\n    xor.u64 %x, %x, %w64\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %gi, %g\n    mul.i64 %o, %gi, %eight\n"
    "    ptr.add.ptr.global %q, %po, %o\n    st.u64 [%q], %x\n"
    "    return\n.end\n";

static void check_gather(void)
{
    uint64_t *got = calloc(N, sizeof *got);
    cvm_buffer *out = kern_buf("out", N * sizeof *got, NULL);
    cvm_arg args[] = {kern_arg_buf(out)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_diag d;
    cvm_status st = kern_exec(gather_src, "gather", &cfg, args, 1, &d);
    ok(st == CVM_OK, "shared-memory gathers run (%s: %s)", cvm_status_str(st), d.message);
    kern_read(out, got, N * sizeof *got);
    int bad = -1;
    for (uint32_t g = 0; g < N && bad < 0; g++) {
        const uint32_t t = g % BLOCK, c = g / BLOCK, j = (37 * t + 11) % BLOCK, gj = c * BLOCK + j;
        const uint64_t want = ((uint64_t)gj << 32 | (j * 3 + 1)) ^ (uint64_t)(gj * 7);
        if (got[g] != want)
            bad = (int)g;
    }
    ok(bad < 0, "8- and 4-byte loads from permuted shared addresses match C%s",
       bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("unit %d: got %#llx", bad, (unsigned long long)got[bad]);
    cvm_buffer_free(out);
    free(got);
}

/* f32 min and max of every pair of special values (NaN payloads, infinities,
 * zeros of both signs, a subnormal) on full planes, then again on planes
 * half masked by an `if`: out[4g..4g+1] = min, max of (x, y) on the full
 * planes; out[4g+2..4g+3] = min(min, y), max(max, x) for even t, 7 for
 * odd t (which skip them inside the `if`). */
static const char minmax_src[] =
    ".kernel minmax\n"
    ".param out buffer u32 write\n.param a buffer f32 read\n.param b buffer f32 read\n"
    ".reg u32 %t, %c, %cd, %g, %one, %odd, %v\n.reg f32 %x, %y, %lo, %hi, %lo2, %hi2\n.reg bool %e\n"
    ".reg i64 %gi, %four, %o, %sixteen\n.reg ptr.global %pa, %pb, %po, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    cvt.i64 %gi, %g\n    const.i64 %four, 4\n"
    "    mul.i64 %o, %gi, %four\n    param.ptr.global %pa, a, 0\n    ptr.add.ptr.global %p, %pa, %o\n"
    "    ld.f32 %x, [%p]\n    param.ptr.global %pb, b, 0\n    ptr.add.ptr.global %p, %pb, %o\n"
    "    ld.f32 %y, [%p]\n"
    "    min.f32 %lo, %x, %y\n    max.f32 %hi, %x, %y\n"
    "    const.u32 %one, 1\n    and.u32 %odd, %t, %one\n    eq.u32 %e, %odd, %one\n"
    "    if %e\n        const.u32 %v, 7\n        bitcast.f32 %lo2, %v\n        bitcast.f32 %hi2, %v\n"
    "    else\n        min.f32 %lo2, %lo, %y\n        max.f32 %hi2, %hi, %x\n    end\n"
    "    const.i64 %sixteen, 16\n    mul.i64 %o, %gi, %sixteen\n    param.ptr.global %po, out, 0\n"
    "    ptr.add.ptr.global %p, %po, %o\n    st.f32 [%p], %lo\n"
    "    ptr.add.ptr.global %p, %p, %four\n    st.f32 [%p], %hi\n"
    "    ptr.add.ptr.global %p, %p, %four\n    st.f32 [%p], %lo2\n"
    "    ptr.add.ptr.global %p, %p, %four\n    st.f32 [%p], %hi2\n"
    "    return\n.end\n";

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The documented rules, case by case (docs/isa.md `min`/`max`). */
static uint32_t ref_minmax(uint32_t xa, uint32_t ya, int max)
{
    const float x = u2f(xa), y = u2f(ya);
    if (isnan(x) && isnan(y))
        return 0x7fc00000u; /* the canonical NaN */
    if (isnan(x))
        return ya;
    if (isnan(y))
        return xa;
    if (x == 0 && y == 0) { /* -0 < +0 */
        const int neg = max ? (signbit(x) && signbit(y)) : (signbit(x) || signbit(y));
        return neg ? 0x80000000u : 0;
    }
    return (max ? x > y : x < y) ? xa : ya;
}

static void check_minmax(void)
{
    static const uint32_t v[] = {0x7fc00000u, 0xffc00001u, 0x7fa00002u, 0xff800000u, 0xbfc00000u,
                                 0x80000000u, 0x00000000u, 0x00000001u, 0x40200000u, 0x7f800000u};
    enum { NV = sizeof v / sizeof *v };
    uint32_t *a = calloc(N, 4), *b = calloc(N, 4), *got = calloc(4 * N, 4);
    for (uint32_t g = 0; g < N; g++) {
        a[g] = v[g % NV];
        b[g] = v[g / NV % NV];
    }
    cvm_buffer *out = kern_buf("out", 4 * N * 4, NULL), *ba = kern_buf("a", N * 4, a);
    cvm_buffer *bb = kern_buf("b", N * 4, b);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(ba), kern_arg_buf(bb)};
    cvm_launch_config cfg = kern_cfg(GRID, BLOCK);
    cvm_diag d;
    cvm_status st = kern_exec(minmax_src, "minmax", &cfg, args, 3, &d);
    ok(st == CVM_OK, "f32 min/max of special values run (%s)", st ? d.message : "ok");
    kern_read(out, got, 4 * N * 4);
    int bad = -1;
    for (uint32_t g = 0; g < N && bad < 0; g++) {
        const uint32_t lo = ref_minmax(a[g], b[g], 0), hi = ref_minmax(a[g], b[g], 1);
        /* the else branch: min with y again, max with x again */
        const uint32_t lo2 = g % 2 ? 7 : ref_minmax(lo, b[g], 0);
        const uint32_t hi2 = g % 2 ? 7 : ref_minmax(hi, a[g], 1);
        if (got[4 * g] != lo || got[4 * g + 1] != hi || got[4 * g + 2] != lo2 || got[4 * g + 3] != hi2)
            bad = (int)g;
    }
    ok(bad < 0, "f32 min/max: NaNs give the other operand, two NaNs the canonical one, -0 < +0, "
                "on full and half-masked planes%s", bad < 0 ? "" : " (first mismatch below)");
    if (bad >= 0)
        diag("unit %d: min(%#x, %#x) = %#x, max = %#x, then %#x, %#x", bad, a[bad], b[bad],
             got[4 * bad], got[4 * bad + 1], got[4 * bad + 2], got[4 * bad + 3]);
    cvm_buffer_free(out);
    cvm_buffer_free(ba);
    cvm_buffer_free(bb);
    free(a);
    free(b);
    free(got);
}

/*
 * Compares feeding a branch, unsigned across the sign bit: plane 0 and
 * every fourth unit (each plane's lane 0) return first, then two loops
 * whose counters run from base to base + n as u32 and as u64 (lt.u32 and
 * lt.u64 of cube-uniform registers: lockstep tests one active lane for
 * every plane, and lane 0 of each plane holds a counter that was never
 * set). In the u32 loop a cube-uniform `and` of two compares (rounds
 * base + 2 to base + 4) and a cube-uniform `continue` (round base + 6).
 * Then varying compares of x0 + unit against x0 + 100, x0 = base - 60
 * (true for units below 100 unless x0 + 100 wraps):
 *   v = 1; for k (u32) { v = v * 3 + (k ^ t); v += 1000 in rounds base + 2
 *   to base + 4; round base + 6 ends here; v += k for odd t }
 *   for k (u64) v = v * 5 + hi(k) + lo(k);
 *   for oy < 3 { skip if (t + oy) % 3 == 0; for kx < 4 v = v * 7 + kx }
 *   v ^= 0xabcdef if x0 + t < x0 + 100 (u32); v += 77 if the same in u64
 */
static const char uni_src[] =
    ".kernel uni\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param n scalar u32\n"
    ".param base scalar u32\n.param base64 scalar u64\n"
    ".reg u32 %t, %c, %cd, %g, %v, %k, %lim, %tmp, %x, %four, %zero, %w, %m3, %odd, %one\n"
    ".reg u32 %hi, %lo, %m5, %hund, %xl, %cst, %c77, %nn, %kb, %two, %five, %six, %kmid, %khi\n"
    ".reg u32 %kskip, %c1000, %y, %c60, %oy, %three, %m7, %sel, %sel3, %kx\n"
    ".reg u64 %k64, %lim64, %n64, %one64, %b64, %x64, %t64, %l64, %s32, %h64, %c60w\n"
    ".reg bool %b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8, %b9, %b10, %b11, %b12, %b13, %b14, %b15\n"
    ".reg bool %b16, %b17, %b18\n"
    ".reg i64 %a, %s, %u\n.reg ptr.global %po, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %a, %g\n    const.i64 %s, 4\n"
    "    mul.i64 %u, %a, %s\n    ptr.add.ptr.global %p, %po, %u\n"
    "    const.u32 %v, 1\n    st.u32 [%p], %v\n"
    "    const.u32 %w, 32\n    lt.u32 %b1, %t, %w\n    if %b1\n        return\n    end\n"
    "    const.u32 %four, 4\n    rem.u32 %tmp, %t, %four\n    const.u32 %zero, 0\n"
    "    eq.u32 %b2, %tmp, %zero\n    if %b2\n        return\n    end\n"
    "    param.u32 %k, base, 0\n    param.u32 %kb, base, 0\n    param.u32 %lim, n, 0\n"
    "    add.u32 %lim, %lim, %k\n    const.u32 %two, 2\n    add.u32 %kmid, %kb, %two\n"
    "    const.u32 %five, 5\n    add.u32 %khi, %kb, %five\n    const.u32 %six, 6\n"
    "    add.u32 %kskip, %kb, %six\n    const.u32 %c1000, 1000\n"
    "    const.u32 %m3, 3\n    const.u32 %one, 1\n    and.u32 %odd, %t, %one\n"
    "    loop\n"
    "        lt.u32 %b3, %k, %lim\n        not.bool %b4, %b3\n        if %b4\n            break\n        end\n"
    "        mul.u32 %v, %v, %m3\n        xor.u32 %x, %k, %t\n        add.u32 %v, %v, %x\n"
    "        ge.u32 %b10, %k, %kmid\n        lt.u32 %b11, %k, %khi\n        and.bool %b12, %b10, %b11\n"
    "        if %b12\n            add.u32 %v, %v, %c1000\n        end\n"
    "        eq.u32 %b13, %k, %kskip\n        if %b13\n            continue\n        end\n"
    "        eq.u32 %b5, %odd, %one\n        if %b5\n            add.u32 %v, %v, %k\n        end\n"
    "    continuing\n        add.u32 %k, %k, %one\n"
    "    end\n"
    "    param.u64 %k64, base64, 0\n    param.u32 %nn, n, 0\n    cvt.u64 %n64, %nn\n"
    "    add.u64 %lim64, %k64, %n64\n    const.u64 %one64, 1\n    const.u32 %m5, 5\n"
    "    const.u64 %s32, 32\n"
    "    loop\n"
    "        lt.u64 %b6, %k64, %lim64\n        not.bool %b7, %b6\n        if %b7\n            break\n        end\n"
    "        mul.u32 %v, %v, %m5\n        shr.u64 %h64, %k64, %s32\n        cvt.u32 %hi, %h64\n"
    "        cvt.u32 %lo, %k64\n        add.u32 %v, %v, %hi\n        add.u32 %v, %v, %lo\n"
    "    continuing\n        add.u64 %k64, %k64, %one64\n"
    "    end\n"
    /* a window's two loops: the inner counter is reset after the outer
     * loop's per-lane continue (varying in the analysis; fuse.c
     * loop_counter proves its head test cube-uniform) */
    "    const.u32 %oy, 0\n    const.u32 %three, 3\n    const.u32 %m7, 7\n"
    "    loop\n"
    "        lt.u32 %b14, %oy, %three\n        not.bool %b15, %b14\n        if %b15\n            break\n        end\n"
    "        add.u32 %sel, %t, %oy\n        rem.u32 %sel3, %sel, %three\n"
    "        eq.u32 %b16, %sel3, %zero\n        if %b16\n            continue\n        end\n"
    "        mov.u32 %kx, %zero\n"
    "        loop\n"
    "            lt.u32 %b17, %kx, %four\n            not.bool %b18, %b17\n"
    "            if %b18\n                break\n            end\n"
    "            mul.u32 %v, %v, %m7\n            add.u32 %v, %v, %kx\n"
    "        continuing\n            add.u32 %kx, %kx, %one\n"
    "        end\n"
    "    continuing\n        add.u32 %oy, %oy, %one\n"
    "    end\n"
    "    param.u32 %y, base, 0\n    const.u32 %c60, 60\n    sub.u32 %y, %y, %c60\n"
    "    const.u32 %hund, 100\n    add.u32 %xl, %y, %hund\n"
    "    add.u32 %y, %y, %t\n    lt.u32 %b8, %y, %xl\n"
    "    if %b8\n        const.u32 %cst, 0xabcdef\n        xor.u32 %v, %v, %cst\n    end\n"
    "    param.u64 %b64, base64, 0\n    const.u64 %c60w, 60\n    sub.u64 %b64, %b64, %c60w\n"
    "    cvt.u64 %t64, %t\n    add.u64 %x64, %b64, %t64\n"
    "    cvt.u64 %l64, %hund\n    add.u64 %l64, %b64, %l64\n    lt.u64 %b9, %x64, %l64\n"
    "    if %b9\n        const.u32 %c77, 77\n        add.u32 %v, %v, %c77\n    end\n"
    "    st.u32 [%p], %v\n"
    "    return\n.end\n";

struct uni_ctx {
    uint32_t n, base;
    uint64_t base64;
};

static uint32_t uni_want(uint32_t g, const void *ctx)
{
    const struct uni_ctx *u = ctx;
    const uint32_t t = g % BLOCK, x0 = u->base - 60;
    const uint64_t y0 = u->base64 - 60;
    uint32_t v = 1;
    if (t < 32 || t % 4 == 0)
        return v;
    for (uint32_t k = u->base; k < u->base + u->n; k++) {
        v = v * 3 + (k ^ t);
        if (k >= u->base + 2 && k < u->base + 5)
            v += 1000;
        if (k == u->base + 6)
            continue;
        v += t & 1 ? k : 0;
    }
    for (uint64_t k = u->base64; k < u->base64 + u->n; k++)
        v = v * 5 + (uint32_t)(k >> 32) + (uint32_t)k;
    for (uint32_t oy = 0; oy < 3; oy++) {
        if ((t + oy) % 3 == 0)
            continue;
        for (uint32_t kx = 0; kx < 4; kx++)
            v = v * 7 + kx;
    }
    if (x0 + t < x0 + 100)
        v ^= 0xabcdef;
    if (y0 + t < y0 + 100)
        v += 77;
    return v;
}

static void check_uni(uint32_t n, uint32_t base, uint64_t base64)
{
    char what[96];
    snprintf(what, sizeof what, "unsigned branches from 0x%x and 0x%llx, %u rounds", base,
             (unsigned long long)base64, n);
    const struct uni_ctx u = {n, base, base64};
    const cvm_arg extra[] = {kern_arg_u32(&u.n), kern_arg_u32(&u.base), kern_arg_bytes(&u.base64, 8)};
    check_in_out(uni_src, "uni", what, 1, extra, 3, 0, 0, 0, uni_want, &u);
}

/*
 * Loads whose index is u + unit_pos.x (fuse.c unit_x_plus, written once
 * outside every construct): lockstep takes a cube that is one row as one
 * range from plane 0's first lane (interp_lockstep.c row_indexed); a cube
 * of several rows, or a 32-bit index that would wrap inside the cube, goes
 * lane by lane. With c = cube_pos.x, d = cube_dim.x, t = unit_pos.x:
 *   x = in[(int)(c d + sh + t)], y = in[(unsigned)(c d + sh + t)],
 *   z = in[(long)c d + sh64 + t], out[flat unit] = x + 3 y + 5 z
 */
static const char rowix_src[] =
    ".kernel rowix\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param sh scalar u32\n"
    ".param sh64 scalar i64\n"
    ".reg u32 %t, %c, %cd, %cg0, %cg, %sh, %ug, %x, %y, %z, %k3, %k5, %v\n"
    ".reg u32 %ty, %dy, %units, %cu, %fy, %f0, %f\n.reg i32 %ig\n"
    ".reg i64 %t64, %c64, %cd64, %cg64, %s64, %cg64b, %g64, %a, %s, %u, %a2, %s2, %u2\n"
    ".reg i64 %s3, %u3, %fo, %s4, %u4\n"
    ".reg ptr.global %pi, %po, %p1, %p2, %p3, %p4\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    param.u32 %sh, sh, 0\n    mul.u32 %cg0, %c, %cd\n    add.u32 %cg, %cg0, %sh\n"
    "    add.u32 %ug, %cg, %t\n    cvt.i32 %ig, %ug\n"
    "    param.ptr.global %pi, in, 0\n    param.ptr.global %po, out, 0\n"
    "    cvt.i64 %a, %ig\n    const.i64 %s, 4\n    mul.i64 %u, %a, %s\n"
    "    ptr.add.ptr.global %p1, %pi, %u\n    ld.u32 %x, [%p1]\n"
    "    cvt.i64 %a2, %ug\n    const.i64 %s2, 4\n    mul.i64 %u2, %a2, %s2\n"
    "    ptr.add.ptr.global %p2, %pi, %u2\n    ld.u32 %y, [%p2]\n"
    "    cvt.i64 %t64, %t\n    cvt.i64 %c64, %c\n    cvt.i64 %cd64, %cd\n"
    "    mul.i64 %cg64, %c64, %cd64\n    param.i64 %s64, sh64, 0\n"
    "    add.i64 %cg64b, %cg64, %s64\n    add.i64 %g64, %cg64b, %t64\n"
    "    const.i64 %s3, 4\n    mul.i64 %u3, %g64, %s3\n"
    "    ptr.add.ptr.global %p3, %pi, %u3\n    ld.u32 %z, [%p3]\n"
    "    const.u32 %k3, 3\n    const.u32 %k5, 5\n    mul.u32 %y, %y, %k3\n    mul.u32 %z, %z, %k5\n"
    "    add.u32 %v, %x, %y\n    add.u32 %v, %v, %z\n"
    "    sreg.u32 %ty, unit_pos.y\n    sreg.u32 %dy, cube_dim.y\n    mul.u32 %units, %cd, %dy\n"
    "    mul.u32 %cu, %c, %units\n    mul.u32 %fy, %ty, %cd\n    add.u32 %f0, %cu, %fy\n"
    "    add.u32 %f, %f0, %t\n    cvt.i64 %fo, %f\n    const.i64 %s4, 4\n    mul.i64 %u4, %fo, %s4\n"
    "    ptr.add.ptr.global %p4, %po, %u4\n    st.u32 [%p4], %v\n"
    "    return\n.end\n";

/* A launch of 2-D cubes and its kernel's parameters, for the models below. */
struct cubes_ctx {
    uint32_t grid, bx, units;
    uint32_t sh, n, part;
    int64_t sh64;
};

static uint32_t rowix_want(uint32_t f, const void *ctx)
{
    const struct cubes_ctx *k = ctx;
    const uint32_t c = f / k->units, t = f % k->units % k->bx, ix = c * k->bx + k->sh + t;
    const int64_t iz = (int64_t)c * k->bx + k->sh64 + t;
    return in_val((uint32_t)(int32_t)ix) + 3 * in_val(ix) + 5 * in_val((uint32_t)iz);
}

/* rowix over `grid` cubes of bx x by units with an input of in_n
 * elements: every unit's out by the C model, or (fault_unit below
 * UINT32_MAX) a fault whose lowest unit is fault_unit of cube fault_cube. */
static void check_rowix(uint32_t grid, uint32_t bx, uint32_t by, uint32_t sh, int64_t sh64,
                        uint32_t in_n, uint32_t fault_cube, uint32_t fault_unit)
{
    char what[128];
    snprintf(what, sizeof what, "u + unit_pos.x indexes, %u cubes of %ux%u, shifts %u and %lld",
             grid, bx, by, sh, (long long)sh64);
    const struct cubes_ctx k = {.bx = bx, .units = bx * by, .sh = sh, .sh64 = sh64};
    const cvm_arg extra[] = {kern_arg_u32(&k.sh), kern_arg_bytes(&k.sh64, 8)};
    check_launch(rowix_src, "rowix", what, grid, bx, by, in_n, extra, 2,
                 fault_unit != UINT32_MAX, fault_cube, fault_unit, rowix_want, &k);
}

/* gstride's and resync's inner loop: plane p adds p rounds of 1 to v (and
 * takes p back-edges more than plane 0 each round of the outer loop) */
#define PLANE_ROUNDS                                                                       \
    "        const.u32 %j, 0\n"                                                            \
    "        loop\n"                                                                       \
    "            lt.u32 %b3, %j, %pp\n            not.bool %b4, %b3\n"                     \
    "            if %b4\n                break\n            end\n"                          \
    "            add.u32 %v, %v, %one\n"                                                   \
    "        continuing\n            add.u32 %j, %j, %one\n"                              \
    "        end\n"

/*
 * A grid-stride loop's counter (fuse.c plane_consecutive): i = c d + t
 * outside every construct, i += d g in the loop's continuing, so each
 * plane's lanes read consecutive elements, and in a cube that is one row
 * the whole cube does while its planes are in one round (interp.h
 * synced). Plane p also goes round an inner loop p times a round, and
 * with `part` set a switch on plane_pos parts the planes first: each then
 * runs alone until its own quantum of back-edges (in a cube of two planes,
 * plane 0 at round 1000, plane 1 at 500) and lockstep takes them up again
 * in different rounds, where plane 0's lane 0 says nothing of plane 1's. With c =
 * cube_pos.x, d = cube_dim.x, g = cube_count.x, t = unit_pos.x:
 *   v = (p & part) ? 8 : 7; for (i = c d + t; i < n; i += d g) v += in[i] + p
 *   out[flat unit] = v
 */
static const char gstride_src[] =
    ".kernel gstride\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n.param n scalar u32\n"
    ".param part scalar u32\n"
    ".reg u32 %t, %c, %cd, %cc, %cg, %i, %st, %n, %pp, %part, %sel, %v, %x, %j, %one, %k7, %k8\n"
    ".reg u32 %ty, %dy, %units, %cu, %fy, %f0, %f\n.reg bool %b1, %b2, %b3, %b4\n"
    ".reg i64 %a, %s, %u, %fo, %s4, %u4\n.reg ptr.global %pi, %po, %p, %p4\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    sreg.u32 %cc, cube_count.x\n    mul.u32 %cg, %c, %cd\n    add.u32 %i, %cg, %t\n"
    "    mul.u32 %st, %cd, %cc\n    param.u32 %n, n, 0\n    param.ptr.global %pi, in, 0\n"
    "    sreg.u32 %pp, plane_pos\n    param.u32 %part, part, 0\n    and.u32 %sel, %pp, %part\n"
    "    const.u32 %one, 1\n"
    "    switch %sel\n"
    "    case 0\n        const.u32 %k7, 7\n        mov.u32 %v, %k7\n"
    "    default\n        const.u32 %k8, 8\n        mov.u32 %v, %k8\n"
    "    end\n"
    "    loop\n"
    "        lt.u32 %b1, %i, %n\n        not.bool %b2, %b1\n        if %b2\n            break\n        end\n"
    "        cvt.i64 %a, %i\n        const.i64 %s, 4\n        mul.i64 %u, %a, %s\n"
    "        ptr.add.ptr.global %p, %pi, %u\n        ld.u32 %x, [%p]\n        add.u32 %v, %v, %x\n"
    PLANE_ROUNDS
    "    continuing\n        add.u32 %i, %i, %st\n"
    "    end\n"
    "    sreg.u32 %ty, unit_pos.y\n    sreg.u32 %dy, cube_dim.y\n    mul.u32 %units, %cd, %dy\n"
    "    mul.u32 %cu, %c, %units\n    mul.u32 %fy, %ty, %cd\n    add.u32 %f0, %cu, %fy\n"
    "    add.u32 %f, %f0, %t\n    param.ptr.global %po, out, 0\n    cvt.i64 %fo, %f\n"
    "    const.i64 %s4, 4\n    mul.i64 %u4, %fo, %s4\n    ptr.add.ptr.global %p4, %po, %u4\n"
    "    st.u32 [%p4], %v\n"
    "    return\n.end\n";

static uint32_t gstride_want(uint32_t f, const void *ctx)
{
    const struct cubes_ctx *k = ctx;
    const uint32_t c = f / k->units, t = f % k->units % k->bx, p = f % k->units / 32;
    const uint32_t stride = k->bx * k->grid;
    uint32_t v = (p & k->part) ? 8 : 7;
    for (uint32_t i = c * k->bx + t; i < k->n; i += stride)
        v += in_val(i) + p;
    return v;
}

static void check_gstride(uint32_t grid, uint32_t bx, uint32_t by, uint32_t n, uint32_t part)
{
    char what[128];
    snprintf(what, sizeof what, "grid-stride counter, %u cubes of %ux%u, %u inputs%s", grid, bx,
             by, n, part ? ", planes parted first" : "");
    const struct cubes_ctx k = {.grid = grid, .bx = bx, .units = bx * by, .n = n, .part = part};
    const cvm_arg extra[] = {kern_arg_u32(&k.n), kern_arg_u32(&k.part)};
    check_launch(gstride_src, "gstride", what, grid, bx, by, n, extra, 2, 0, 0, 0, gstride_want,
                 &k);
}

/*
 * Planes that ran alone and meet again at one pc in different rounds of a
 * loop: a switch on plane_pos parts the two planes of a 64-unit cube, and
 * then each runs alone, yielding after its own quantum of back-edges
 * (CVM_VM_QUANTUM): plane 0, whose inner loop takes no round, at round
 * 1000 of the outer loop, plane 1 (one inner round each) at round 500,
 * both at the outer loop's head. Lockstep takes them up again there; the
 * outer counter is cube-uniform to the divergence analysis, but its test
 * must not be taken once for both planes now (interp.h synced):
 *   v = 7 for plane 0, 8 for plane 1; for i < 1500 { for j < pp v++ };
 *   out = v + i
 */
static const char resync_src[] =
    ".kernel resync\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n"
    ".reg u32 %t, %c, %cd, %g, %pp, %v, %i, %j, %one, %lim, %k7, %k8\n"
    ".reg bool %b1, %b2, %b3, %b4\n.reg i64 %a, %s, %u\n.reg ptr.global %po, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n    sreg.u32 %pp, plane_pos\n"
    "    const.u32 %one, 1\n    const.u32 %lim, 1500\n"
    "    switch %pp\n"
    "    case 0\n        const.u32 %k7, 7\n        mov.u32 %v, %k7\n"
    "    default\n        const.u32 %k8, 8\n        mov.u32 %v, %k8\n"
    "    end\n"
    "    const.u32 %i, 0\n"
    "    loop\n"
    "        lt.u32 %b1, %i, %lim\n        not.bool %b2, %b1\n        if %b2\n            break\n        end\n"
    PLANE_ROUNDS
    "    continuing\n        add.u32 %i, %i, %one\n"
    "    end\n"
    "    add.u32 %v, %v, %i\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %a, %g\n    const.i64 %s, 4\n"
    "    mul.i64 %u, %a, %s\n    ptr.add.ptr.global %p, %po, %u\n    st.u32 [%p], %v\n"
    "    return\n.end\n";

/* A counter that starts at a per-lane value through a one-element build
 * (a register list operand): varying, so its loop's head test is not a
 * cube-uniform one (decode.c cube_source):
 *   v = 0; for k = t; k < 4; k++ v++  -> max(0, 4 - t) */
static const char buildctr_src[] =
    ".kernel buildctr\n"
    ".param out buffer u32 write\n.param in buffer u32 read\n"
    ".reg u32 %t, %c, %cd, %g, %v, %k, %n, %one\n.reg bool %b1, %b2\n"
    ".reg i64 %a, %s, %u\n.reg ptr.global %po, %p\n"
    "    sreg.u32 %t, unit_pos.x\n    sreg.u32 %c, cube_pos.x\n    sreg.u32 %cd, cube_dim.x\n"
    "    mul.u32 %g, %c, %cd\n    add.u32 %g, %g, %t\n"
    "    const.u32 %v, 0\n    const.u32 %n, 4\n    const.u32 %one, 1\n"
    "    build.u32 %k, %t\n"
    "    loop\n"
    "        lt.u32 %b1, %k, %n\n        not.bool %b2, %b1\n        if %b2\n            break\n        end\n"
    "        add.u32 %v, %v, %one\n"
    "    continuing\n        add.u32 %k, %k, %one\n"
    "    end\n"
    "    param.ptr.global %po, out, 0\n    cvt.i64 %a, %g\n    const.i64 %s, 4\n"
    "    mul.i64 %u, %a, %s\n    ptr.add.ptr.global %p, %po, %u\n    st.u32 [%p], %v\n"
    "    return\n.end\n";

static uint32_t buildctr_want(uint32_t g, const void *ctx)
{
    (void)ctx;
    return g % BLOCK < 4 ? 4 - g % BLOCK : 0;
}

static void check_resync(void)
{
    enum { CUBES = 2, UNITS = 64 };
    uint32_t got[CUBES * UNITS] = {0}, in = 0;
    cvm_diag d;
    cvm_buffer *out = kern_buf("out", sizeof got, NULL), *inb = kern_buf("in", 4, &in);
    cvm_arg args[] = {kern_arg_buf(out), kern_arg_buf(inb)};
    cvm_launch_config cfg = kern_cfg(CUBES, UNITS);
    cvm_status st = kern_exec(resync_src, "resync", &cfg, args, 2, &d);
    if (ok(st == CVM_OK, "planes meeting again in different rounds: runs (%s)", st ? d.message : "ok")) {
        int read = kern_read(out, got, sizeof got);
        uint32_t bad = CUBES * UNITS;
        for (uint32_t g = 0; g < CUBES * UNITS && bad == CUBES * UNITS; g++) {
            const uint32_t pp = g % UNITS / 32, want = (pp ? 8 : 7) + 1500 * pp + 1500;
            if (!read || got[g] != want)
                bad = g;
        }
        if (!ok(read && bad == CUBES * UNITS,
                "planes meeting again in different rounds: every unit matches the C model") &&
            bad < CUBES * UNITS)
            diag("  unit %u: got %u", bad, got[bad]);
    }
    cvm_buffer_free(out);
    cvm_buffer_free(inb);
}

int main(void)
{
    if (!kern_open()) {
        ok(0, "cpu device opens");
        return done_testing();
    }
    /* consecutive across the cube (one range check), then shifted by one
     * element (still consecutive: the cube's range moves) */
    check_part(0, N, 0, 0, 0);
    check_part(1, N + 1, 0, 0, 0);
    /* the last cube reads one element past the buffer: its last unit faults */
    check_part(1, N, 1, BLOCK - 1, GRID - 1);
    /* 40 elements short: units 216.. of the last cube fault, 216 is reported */
    check_part(0, N - 40, 1, BLOCK - 40, GRID - 1);

    check_wide(1, 0, N, 0, 0);
    check_wide(1, 7, N + 7, 0, 0);
    check_wide(2, 1, 2 * N, 0, 0);
    check_wide(1, -1, N, 1, 0);            /* unit 0 reads before the buffer */
    check_wide(1, 3, N, 1, BLOCK - 3);     /* the last three units read past it */
    check_in_out(shifts_src, "shifts", "32-bit shifts by 0..40", N, NULL, 0, 0, 0, 0, shifts_want,
                 NULL);
    check_rows(0, 1, 0, 1, N, 0, 0);       /* the planes in order */
    check_rows(0, 3, 0, 1, N, 0, 0);       /* rows 0 3 6 1 4 7 2 5 */
    check_rows(0, 3, 0, 0, N, 0, 0);
    check_rows(5, 5, 0, 0, N + 5, 0, 0);
    check_rows(0, 3, 1, 1, N, 0, 0);       /* planes 2k and 2k+1 store to one row */
    check_rows(0, 3, 1, 0, N, 0, 0);
    check_rows(0, 1, 1, 0, N, 0, 0);
    /* row 7 of the last cube is plane 5's: its last lane reads past the input */
    check_rows(1, 3, 0, 1, N, 1, 5 * 32 + 31);
    check_uni(9, 0x7ffffffcu, UINT64_C(0x7ffffffffffffffc)); /* across the sign bits */
    check_uni(9, 0xfffffff0u, UINT64_C(0xfffffffffffffff0)); /* x0 + t wraps at unit 76 */
    check_uni(0, 3, 3);
    check_rowix(3, 256, 1, 0, 0, 3 * 256, 0, UINT32_MAX);     /* cubes of one row, 8 planes */
    check_rowix(2, 96, 1, 5, 5, 2 * 96 + 5, 0, UINT32_MAX);   /* 3 planes, shifted */
    check_rowix(2, 1024, 1, 1, 2, 2048 + 2, 0, UINT32_MAX);   /* 32 planes */
    /* rows of 64 and of 32: unit_pos.x repeats (a range of the cube's 256
     * and 96 units would lie inside the input, and be wrong) */
    check_rowix(3, 64, 4, 0, 0, 3 * 256, 0, UINT32_MAX);
    check_rowix(4, 32, 3, 7, 0, 4 * 96 + 7, 0, UINT32_MAX);
    check_rowix(3, 256, 1, 0, 1, 3 * 256, 2, 255);            /* z reads past the end */
    check_rowix(3, 256, 1, 0, -1, 3 * 256, 0, 0);             /* z reads before the start */
    check_rowix(3, 64, 4, 0, 1, 3 * 64, 2, 63);               /* and with rows of 64 */
    /* 32-bit indexes that cross INT32_MAX, and wrap past UINT32_MAX, inside
     * cube 0: lane by lane, and unit 0 (x's index out of range) is reported */
    check_rowix(3, 256, 1, 0x7fffff80u, 0, 3 * 256, 0, 0);
    check_rowix(3, 256, 1, 0xffffff80u, 0, 3 * 256, 0, 0);
    check_gstride(3, 256, 1, 3 * 256 * 40 - 37, 0);  /* one row: the cube's range */
    check_gstride(2, 64, 2, 2 * 64 * 40 - 5, 0);     /* rows of 64: each plane's range */
    check_gstride(2, 48, 2, 2 * 48 * 40 - 5, 0);     /* rows of 48: lane by lane */
    check_gstride(2, 64, 1, 2 * 64 * 1500 - 3, 1);   /* planes in different rounds */
    check_resync();
    check_in_out(buildctr_src, "buildctr", "a counter from a per-lane build", 1, NULL, 0, 0, 0, 0,
                 buildctr_want, NULL);
    check_minmax();
    check_divs();
    check_pow2_divs();
    check_gather();
    check_math("exp", expl, -110.0f, 205.0f, GRID, BLOCK);
    check_math("exp", expl, -110.0f, 205.0f, 2, 1024); /* the largest cube: 32 planes in lockstep */
    check_math("tanh", tanhl, -12.0f, 24.0f, GRID, BLOCK);
    check_math("tanh", tanhl, -0.25f, 0.5f, 2, 1024);
    check_math("log", logl, 0.0f, 3000.0f, GRID, BLOCK);
    check_math("log", logl, 0.6f, 0.9f, 2, 1024); /* around 1 and the sqrt(2) seam */
    check_math("rsqrt", rsqrt_ref, -1.0f, 5000.0f, GRID, BLOCK);
    check_math("rsqrt", rsqrt_ref, 0.0f, 1e-30f, 2, 1024); /* subnormal and tiny */
    check_math("exp2", exp2l, -155.0f, 290.0f, GRID, BLOCK);
    check_math("exp2", exp2l, -1.0f, 2.0f, 2, 1024);
    check_math("expm1", expm1l, -20.0f, 110.0f, GRID, BLOCK);
    check_math("expm1", expm1l, -0.6f, 1.2f, 2, 1024); /* the series and the seam at 1/2 */
    check_math("log2", log2l, 0.0f, 3000.0f, GRID, BLOCK);
    check_math("log10", log10l, 0.0f, 3000.0f, GRID, BLOCK);
    check_math("log10", log10l, 0.6f, 0.9f, 2, 1024);
    check_math("log1p", log1pl, -1.0f, 3000.0f, GRID, BLOCK);
    check_math("log1p", log1pl, -1e-8f, 2e-8f, 2, 1024); /* 2^-29 and around */
    check_math("erf", erfl, -5.0f, 10.0f, GRID, BLOCK);
    check_math("erf", erfl, -0.6f, 1.2f, 2, 1024); /* the series and the first quarters */
    check_math("floor", floorl, -100.0f, 200.0f, GRID, BLOCK);
    check_math("ceil", ceill, -100.0f, 200.0f, GRID, BLOCK);
    check_math("trunc", truncl, -100.0f, 200.0f, GRID, BLOCK);
    check_math("rint", rintl, -100.0f, 200.0f, GRID, BLOCK);
    check_pow(GRID, BLOCK);
    check_pow(2, 1024);
    check_math("sin", sinl, -300.0f, 600.0f, GRID, BLOCK);
    check_math("cos", cosl, -300.0f, 600.0f, GRID, BLOCK);
    /* just below the branch-free routines' 2^24 limit (1.68e7), and planes
     * with lanes beyond it (the full routine) */
    check_math("sin", sinl, 1.0e7f, 0.6e7f, GRID, BLOCK);
    check_math("cos", cosl, 1.0e7f, 0.6e7f, GRID, BLOCK);
    check_math("sin", sinl, 1.0e7f, 2.0e7f, 2, 1024);
    check_math("cos", cosl, 1.0e7f, 2.0e7f, 2, 1024);
    /* partial planes: the vector loops' inactive lanes keep their values,
     * and out-of-range inputs in inactive lanes (sin's) do not matter */
    check_math_in("sin", sinl, -300.0f, 600.0f, GRID, BLOCK, 1);
    check_math_in("sin", sinl, 1.0e7f, 2.0e7f, GRID, BLOCK, 1);
    check_math_in("erf", erfl, -5.0f, 10.0f, GRID, BLOCK, 1);
    check_math_in("log", logl, 0.0f, 3000.0f, GRID, BLOCK, 1);
    check_math_in("rint", rintl, -100.0f, 200.0f, GRID, BLOCK, 1);
    check_ride(N);
    check_ride(N - 37);  /* the last cube: plane 6 in part, plane 7 whole, return */
    check_ride(N - 200); /* and most of its planes */
    check_late(0, 77, 0);
    check_late(5, 77, 0);
    check_late(9, 200, 0);
    check_late(5, 77, 1);
    check_late(9, 31, 1);

    cvm_diag d;
    cvm_launch_config cfg = kern_cfg(1, 128);
    cfg.timeout_s = 0.2;
    cvm_status st = kern_exec(spin_src, "spin", &cfg, NULL, 0, &d);
    ok(st == CVM_TIMEOUT, "a loop all planes run for ever times out (%s: %s)", cvm_status_str(st),
       d.message);
    kern_close();
    return done_testing();
}
