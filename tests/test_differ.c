/*
 * test_differ.c - random kernels run twice: as a launch runs by default
 * (fuse.c's fused super-instructions, and the planes of a cube in
 * lockstep: interp_lockstep.c, interp_mem.c's cube and plane paths) and
 * under a step budget (the plain plane interpreter on the unfused code,
 * one plane at a time). Every output must match bit for bit, NaNs
 * included (an arithmetic NaN is the canonical one: numerics.md), and a
 * kernel that faults in one run must fault in the other. The reference shares what both runs rest
 * on: the verifier, the divergence analysis (the plane interpreter
 * computes a uniform instruction's lane once too) and decode's copy
 * forwarding; a wrong fact there would mislead both runs alike.
 *
 * The generator writes .cbs text from a seed, for 1D and 2D cubes of 1 to
 * 8 planes: 32- and 64-bit integer and f32 arithmetic (division, a rem
 * and a div of one pair, `op t; mov v, t`, shifts,
 * min/max, fma, sqrt, exp; 64-bit multiplies by a value the same in every
 * lane and by one that is not), conversions, selects, compares; loads
 * whose indexes are consecutive across the cube, permuted between and
 * within planes, one address for the cube or the plane, runs of equal or
 * consecutive elements, strided, reversed or arbitrary, through 64-bit,
 * sign- and zero-extended and 32-bit offsets (at times a lane op between
 * the address and the access); stores consecutive, permuted
 * or reversed; shared memory across barriers; each unit's local memory;
 * plane ops over the active lanes; integer atomics whose final memory does
 * not depend on the order units run in (their old values go unread);
 * if/else, loops and switches whose conditions (one compare, or two
 * joined by and/or, at times negated) or selectors differ by
 * lane, by plane or not at all, with break, continue, break_if and
 * fallthrough; an early return of some lanes. Kernels are race-free (a
 * unit writes only its own output slots, but for the atomics; shared
 * memory is written and read on either side of a barrier), so the two runs
 * must agree.
 *
 * DIFFER_KERNELS=N runs N kernels instead of the default and DIFFER_SEED=S
 * starts at seed S; a mismatch prints the seed and the kernel text, and
 * DIFFER_PRINT=1 prints every kernel.
 */
#include "kern.h"

#include <stdarg.h>
#include <stdbool.h>

#define NIN 4096u        /* u32 elements of the input buffer */
#define MAX_SLOTS 48u    /* output slots per unit, in each of out32 and out64 */
#define MAX_TEMPS 4000u
#define NLOCAL 16u       /* u32 elements of local memory per unit, zeroed first */

enum { U32, I32, I64, F32, BOOL, PG, PS, PL, NTYPES };
static const char *const tname[NTYPES] = {"u32", "i32", "i64", "f32", "bool", "ptr.global", "ptr.shared",
                                          "ptr.local"};
#define NVARS 4u /* variables per value type: %u0.. %i0.. %l0.. %f0.. */
static const char vprefix[4] = {'u', 'i', 'l', 'f'};

typedef struct gen {
    char *code;
    size_t n, cap;
    uint64_t s;
    uint8_t ttype[MAX_TEMPS];
    unsigned nt;
    unsigned n32, n64;           /* output slots used */
    unsigned block, total;
    unsigned loops, ifs;
    bool returned;               /* some lanes may have returned: no barrier after */
    unsigned stmts;              /* statements left to generate */
} gen;

/* A register's name, by value (`.s` is valid to the end of the full
 * expression that made it, so it can be an argument of emit). */
typedef struct reg {
    char s[12];
} reg;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void emit(gen *g, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(g->code + g->n, g->cap - g->n, fmt, ap);
        va_end(ap);
        if (k < 0)
            return;
        if (g->n + (size_t)k + 1 < g->cap) {
            g->n += (size_t)k;
            return;
        }
        g->cap = g->cap * 2 + (size_t)k + 64;
        g->code = realloc(g->code, g->cap);
        if (!g->code)
            abort();
    }
}

static uint32_t rnd(gen *g, uint32_t n)
{
    g->s ^= g->s << 13, g->s ^= g->s >> 7, g->s ^= g->s << 17;
    return (uint32_t)((g->s >> 11) % n);
}

/* A fresh temporary of type t (declared after generation). */
static reg tmp(gen *g, int t)
{
    reg r;
    if (g->nt >= MAX_TEMPS)
        abort();
    g->ttype[g->nt] = (uint8_t)t;
    snprintf(r.s, sizeof r.s, "%%q%u", g->nt++);
    return r;
}

/* Variable v of value type t (U32, I32, I64, F32). */
static reg var_n(int t, unsigned v)
{
    reg r;
    snprintf(r.s, sizeof r.s, "%%%c%u", vprefix[t], v);
    return r;
}

/* A random variable of value type t. */
static reg var(gen *g, int t) { return var_n(t, rnd(g, NVARS)); }

/* A u32 constant in a fresh temporary (its `const` emitted now: as an
 * argument of emit, before emit's own line). */
static reg kon(gen *g, uint32_t v)
{
    const reg k = tmp(g, U32);
    emit(g, "    const.u32 %s, %u\n", k.s, v);
    return k;
}

static int value_type(gen *g) { return (int)rnd(g, 4); }

/* A bool temporary: compares of variables, or a pattern of lanes, of
 * planes, or of cubes. */
static reg cond(gen *g)
{
    static const char *const cmp[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    static const uint32_t bits[] = {1, 2, 5, 16, 32, 64, 128};
    const reg b = tmp(g, BOOL);
    switch (rnd(g, 6)) {
    case 0: case 1: {
        const int t = value_type(g);
        const reg x = var(g, t), y = var(g, t);
        emit(g, "    %s.%s %s, %s, %s\n", cmp[rnd(g, 6)], tname[t], b.s, x.s, y.s);
        break;
    }
    case 5: { /* two compares joined by and/or, at times negated (decode's
               * CMPBR reads both compares) */
        const int t = value_type(g), u = value_type(g);
        const reg c1 = tmp(g, BOOL), c2 = tmp(g, BOOL);
        emit(g, "    %s.%s %s, %s, %s\n", cmp[rnd(g, 6)], tname[t], c1.s, var(g, t).s, var(g, t).s);
        emit(g, "    %s.%s %s, %s, %s\n", cmp[rnd(g, 6)], tname[u], c2.s, var(g, u).s, var(g, u).s);
        if (rnd(g, 2)) {
            const reg j = tmp(g, BOOL);
            emit(g, "    %s.bool %s, %s, %s\n    not.bool %s, %s\n", rnd(g, 2) ? "and" : "or", j.s, c1.s,
                 c2.s, b.s, j.s);
        } else {
            emit(g, "    %s.bool %s, %s, %s\n", rnd(g, 2) ? "and" : "or", b.s, c1.s, c2.s);
        }
        break;
    }
    case 2: { /* by lane or by plane */
        const reg m = tmp(g, U32);
        emit(g, "    and.u32 %s, %%t, %s\n", m.s, kon(g, bits[rnd(g, 7)]).s);
        emit(g, "    ne.u32 %s, %s, %s\n", b.s, m.s, kon(g, 0).s);
        break;
    }
    case 3: /* planes part */
        emit(g, "    lt.u32 %s, %%pp, %s\n", b.s, kon(g, rnd(g, 5)).s);
        break;
    default: /* the same for the whole cube */
    {
        const char *op = rnd(g, 2) ? "lt" : "eq";
        emit(g, "    %s.u32 %s, %%c, %s\n", op, b.s, kon(g, rnd(g, 3)).s);
    }
        break;
    }
    return b;
}

/* An f32 constant's text (exact decimal forms). */
static const char *fconst(gen *g)
{
    static const char *const f[] = {"0.5", "-2.0", "3.25", "1e30", "-0.0", "0.0", "1.0", "-1e-30"};
    return f[rnd(g, 8)];
}

static void stmts(gen *g, unsigned n);

/* d = a OP b of value type t. */
static void st_arith(gen *g)
{
    const int t = value_type(g);
    const reg d = var(g, t), a = var(g, t), b = var(g, t);
    const char *T = tname[t];
    if (t == F32) {
        static const char *const bin[] = {"add", "sub", "mul", "min", "max", "div"};
        switch (rnd(g, 9)) {
        case 0: emit(g, "    fma.f32 %s, %s, %s, %s\n", d.s, a.s, b.s, var(g, F32).s); break;
        case 1: emit(g, "    %s.f32 %s, %s\n", rnd(g, 2) ? "neg" : "abs", d.s, a.s); break;
        case 2: emit(g, "    %s.f32 %s, %s\n", rnd(g, 2) ? "sqrt" : "exp", d.s, a.s); break;
        default: emit(g, "    %s.f32 %s, %s, %s\n", bin[rnd(g, 6)], d.s, a.s, b.s); break;
        }
        return;
    }
    static const char *const bin[] = {"add", "sub", "mul", "and", "or", "xor", "min", "max"};
    switch (rnd(g, 14)) {
    case 0: case 1: { /* shifts by a u32 count, at times past the width */
        const reg c = rnd(g, 2) ? var(g, U32) : kon(g, rnd(g, 70));
        emit(g, "    %s.%s %s, %s, %s\n", rnd(g, 2) ? "shl" : "shr", T, d.s, a.s, c.s);
        break;
    }
    case 2: { /* division by b | 1: never zero */
        const reg one = tmp(g, t), q = tmp(g, t);
        emit(g, "    const.%s %s, 1\n    or.%s %s, %s, %s\n", T, one.s, T, q.s, b.s, one.s);
        emit(g, "    %s.%s %s, %s, %s\n", rnd(g, 2) ? "div" : "rem", T, d.s, a.s, q.s);
        break;
    }
    case 3: emit(g, "    not.%s %s, %s\n", T, d.s, a.s); break;
    case 4: { /* a rem and a div of one dividend and divisor into
               * temporaries, a lane op between (decode's DIVREM: one
               * division writes both at the first one's pc) */
        const reg one = tmp(g, t), q = tmp(g, t), r1 = tmp(g, t), x = tmp(g, t), r2 = tmp(g, t);
        const reg n = tmp(g, t);
        const bool rem_first = rnd(g, 2);
        emit(g, "    const.%s %s, 1\n    or.%s %s, %s, %s\n", T, one.s, T, q.s, b.s, one.s);
        emit(g, "    not.%s %s, %s\n", T, n.s, b.s);
        emit(g, "    %s.%s %s, %s, %s\n", rem_first ? "rem" : "div", T, r1.s, a.s, q.s);
        emit(g, "    xor.%s %s, %s, %s\n", T, x.s, n.s, one.s);
        emit(g, "    %s.%s %s, %s, %s\n", rem_first ? "div" : "rem", T, r2.s, a.s, q.s);
        emit(g, "    add.%s %s, %s, %s\n    xor.%s %s, %s, %s\n", T, d.s, r1.s, r2.s, T, d.s, d.s, x.s);
        break;
    }
    case 5: { /* `op t; mov d, t` (decode's fuse_mov: op writes d) */
        const reg t1 = tmp(g, t);
        emit(g, "    %s.%s %s, %s, %s\n", bin[rnd(g, 8)], T, t1.s, a.s, b.s);
        emit(g, "    mov.%s %s, %s\n", T, d.s, t1.s);
        break;
    }
    default: emit(g, "    %s.%s %s, %s, %s\n", bin[rnd(g, 8)], T, d.s, a.s, b.s); break;
    }
}

/* A 64-bit multiply by a value the same in every lane of a plane: a
 * constant, or a sign-extended i32 constant, cube or plane position
 * (lockstep reads it once per plane: a shift, two 32-bit multiplies, or
 * the full product); or by a sign-extended i32 of each lane's own (the
 * same fused form, not uniform). The uniform factor comes first or second. */
static void st_mul_uniform(gen *g)
{
    static const char *const ks[] = {"32", "1", "7", "-3", "65536", "0", "2147483647", "-2147483648",
                                     "4294967295", "6"};
    const reg d = var(g, I64), a = var(g, I64), b = tmp(g, I64);
    switch (rnd(g, 4)) {
    case 0: emit(g, "    const.i64 %s, %s\n", b.s, ks[rnd(g, 10)]); break;
    case 1: {
        const reg k = tmp(g, I32);
        emit(g, "    const.i32 %s, %s\n    cvt.i64 %s, %s\n", k.s, ks[rnd(g, 8)], b.s, k.s);
        break;
    }
    case 2: { /* one per cube, or one per plane */
        const reg k = tmp(g, I32);
        const char *src = rnd(g, 2) ? "c" : "pp";
        emit(g, "    cvt.i32 %s, %%%s\n    cvt.i64 %s, %s\n", k.s, src, b.s, k.s);
        break;
    }
    default: /* and one that is not: a lane's own i32 */
        emit(g, "    cvt.i64 %s, %s\n", b.s, var(g, I32).s);
        break;
    }
    if (rnd(g, 2))
        emit(g, "    mul.i64 %s, %s, %s\n", d.s, a.s, b.s);
    else
        emit(g, "    mul.i64 %s, %s, %s\n", d.s, b.s, a.s);
}

static void st_const(gen *g)
{
    const int t = value_type(g);
    static const char *const ints[] = {"0", "1", "7", "-1", "255", "-2147483648", "2147483647", "65536"};
    const reg d = var(g, t);
    if (t == F32)
        emit(g, "    const.f32 %s, %s\n", d.s, fconst(g));
    else if (t == U32)
        emit(g, "    const.u32 %s, %u\n", d.s, rnd(g, 2) ? rnd(g, 300) : 4000000000u);
    else
        emit(g, "    const.%s %s, %s\n", tname[t], d.s, ints[rnd(g, 8)]);
}

static void st_cvt(gen *g)
{
    static const int pairs[][2] = {{I64, I32}, {I64, U32}, {U32, I64}, {I32, I64}, {F32, I32},
                                   {I32, F32}, {F32, U32}, {U32, F32}, {F32, I64}, {I64, F32},
                                   {I32, U32}, {U32, I32}};
    const int *p = pairs[rnd(g, 12)];
    const reg d = var(g, p[0]), a = var(g, p[1]);
    emit(g, "    cvt.%s %s, %s\n", tname[p[0]], d.s, a.s);
}

static void st_select(gen *g)
{
    const int t = value_type(g);
    const reg c = cond(g), d = var(g, t), a = var(g, t), b = var(g, t);
    emit(g, "    select.%s %s, %s, %s, %s\n", tname[t], d.s, a.s, b.s, c.s);
}

/* A u32 index in a fresh temporary: a pattern across the units, masked to
 * [0, mask]. */
static reg index_expr(gen *g, uint32_t mask)
{
    static const uint32_t ks[] = {1, 3, 31, 32, 64, 96};
    const reg r = tmp(g, U32);
    const char *x = r.s;
    switch (rnd(g, 14)) {
    case 0: emit(g, "    mov.u32 %s, %%g\n", x); break;                      /* consecutive */
    case 1: emit(g, "    mov.u32 %s, %%t\n", x); break;                      /* the same in every cube */
    case 2: emit(g, "    xor.u32 %s, %%g, %s\n", x, kon(g, ks[rnd(g, 6)]).s); break; /* permuted */
    case 3: emit(g, "    mov.u32 %s, %s\n", x, kon(g, rnd(g, NIN)).s); break;  /* one address */
    case 4: emit(g, "    mov.u32 %s, %%c\n", x); break;                      /* one per cube */
    case 5: emit(g, "    shr.u32 %s, %%t, %s\n", x, kon(g, rnd(g, 2) ? 4 : 3).s); break; /* runs */
    case 6: emit(g, "    mul.u32 %s, %%g, %s\n", x, kon(g, 2).s); break;       /* strided */
    case 7: emit(g, "    add.u32 %s, %%g, %s\n", x, kon(g, rnd(g, 40)).s); break;
    case 8: emit(g, "    mov.u32 %s, %%pp\n", x); break;                     /* one per plane */
    case 9: emit(g, "    sub.u32 %s, %s, %%g\n", x, kon(g, g->total - 1).s); break; /* reversed */
    case 10: emit(g, "    and.u32 %s, %%t, %s\n", x, kon(g, rnd(g, 2) ? 15 : 7).s); break; /* runs */
    case 11: emit(g, "    min.u32 %s, %%t, %s\n", x, kon(g, rnd(g, g->block)).s); break; /* then one */
    case 12: /* runs of one element, the runs swapped in pairs */
        emit(g, "    shr.u32 %s, %%t, %s\n", x, kon(g, 3).s);
        emit(g, "    xor.u32 %s, %s, %s\n", x, x, kon(g, 1).s);
        break;
    default: emit(g, "    mov.u32 %s, %s\n", x, var(g, U32).s); break;       /* anywhere */
    }
    emit(g, "    and.u32 %s, %s, %s\n", x, x, kon(g, mask).s);
    return r;
}

/* An address in a fresh ptr temporary of space `sp` (PG or PS) from base
 * register `base` and u32 element index x scaled by `size`, in one of the
 * forms decode fuses (sign- or zero-extended, 64-bit) or a 32-bit offset. */
static reg address(gen *g, int sp, const char *base, reg x, unsigned size)
{
    const reg a = tmp(g, sp);
    switch (rnd(g, 4)) {
    case 0: case 1: { /* cvt.i64 (zero-extends a u32), const, mul, ptr.add */
        const reg w = tmp(g, I64), k = tmp(g, I64), o = tmp(g, I64);
        emit(g, "    cvt.i64 %s, %s\n    const.i64 %s, %u\n    mul.i64 %s, %s, %s\n", w.s, x.s, k.s,
             size, o.s, w.s, k.s);
        emit(g, "    ptr.add.%s %s, %s, %s\n", tname[sp], a.s, base, o.s);
        if (rnd(g, 3) == 0) /* a lane op before the access: it computes the address */
            emit(g, "    xor.u32 %s, %%t, %%g\n", tmp(g, U32).s);
        break;
    }
    case 2: { /* through an i32: sign-extended */
        const reg i = tmp(g, I32), w = tmp(g, I64), k = tmp(g, I64), o = tmp(g, I64);
        emit(g, "    cvt.i32 %s, %s\n    cvt.i64 %s, %s\n    const.i64 %s, %u\n", i.s, x.s, w.s, i.s,
             k.s, size);
        emit(g, "    mul.i64 %s, %s, %s\n    ptr.add.%s %s, %s, %s\n", o.s, w.s, k.s, tname[sp], a.s,
             base, o.s);
        break;
    }
    default: { /* a 32-bit byte offset */
        const reg i = tmp(g, I32), k = tmp(g, I32), o = tmp(g, I32);
        emit(g, "    cvt.i32 %s, %s\n    const.i32 %s, %u\n    mul.i32 %s, %s, %s\n", i.s, x.s, k.s,
             size, o.s, i.s, k.s);
        emit(g, "    ptr.add.%s %s, %s, %s\n", tname[sp], a.s, base, o.s);
        break;
    }
    }
    return a;
}

/* A load of the input at an index pattern (8-byte elements for i64). */
static void load_input(gen *g, int t, const char *dst)
{
    const unsigned size = t == I64 ? 8 : 4;
    const reg x = index_expr(g, size == 8 ? NIN / 2 - 1 : NIN - 1);
    emit(g, "    ld.%s %s, [%s]\n", tname[t], dst, address(g, PG, "%pi", x, size).s);
}

static void st_load(gen *g)
{
    const int t = value_type(g);
    load_input(g, t, var(g, t).s);
}

/* The next output slot for a value of type t, out32's or out64's; false
 * when they are used up. */
static bool slot(gen *g, int t, unsigned *j)
{
    const bool wide = t == I64;
    unsigned *n = wide ? &g->n64 : &g->n32;
    if (*n >= MAX_SLOTS)
        return false;
    *j = (*n)++;
    return true;
}

/* Stores value v (type t) to slot j of element x (a u32 register). */
static void store_slot(gen *g, int t, unsigned j, reg x, const char *v)
{
    const bool wide = t == I64;
    emit(g, "    add.u32 %s, %s, %s\n", x.s, x.s, kon(g, j * g->total).s);
    emit(g, "    st.%s [%s], %s\n", tname[t], address(g, PG, wide ? "%po64" : "%po32", x, wide ? 8 : 4).s,
         v);
}

/* A variable to a slot of its own, the units in an order: consecutive,
 * permuted or reversed (one unit per element: no two units share one). */
static void st_store(gen *g)
{
    const int t = value_type(g);
    unsigned j;
    if (!slot(g, t, &j))
        return;
    const reg x = tmp(g, U32);
    switch (rnd(g, 4)) {
    case 0: emit(g, "    xor.u32 %s, %%g, %s\n", x.s, kon(g, rnd(g, g->total)).s); break;
    case 1: emit(g, "    sub.u32 %s, %s, %%g\n", x.s, kon(g, g->total - 1).s); break;
    default: emit(g, "    mov.u32 %s, %%g\n", x.s); break;
    }
    store_slot(g, t, j, x, var(g, t).s);
}

/* Shared memory: each unit stores one element, a barrier, loads from a
 * pattern of others, a barrier. At the top level only. */
static void st_shared(gen *g)
{
    const int t = rnd(g, 2) ? U32 : F32;
    const reg x = tmp(g, U32);
    emit(g, "    mov.u32 %s, %%t\n", x.s);
    const reg a = address(g, PS, "%sb", x, 4);
    emit(g, "    st.%s [%s], %s\n    sync_cube\n", tname[t], a.s, var(g, t).s);
    for (unsigned k = rnd(g, 2); k < 2; k++) {
        /* now and then past the end of shared memory: both runs fault */
        const reg y = index_expr(g, rnd(g, 50) ? g->block - 1 : 2 * g->block - 1);
        const reg b = address(g, PS, "%sb", y, 4);
        emit(g, "    ld.%s %s, [%s]\n", tname[t], var(g, t).s, b.s);
    }
    emit(g, "    sync_cube\n");
}

/* A plane op over the lanes active here (activemask as the member mask,
 * valid under any divergence): shuffles, votes, ballot, reductions in
 * lane order, scans, match. */
static void st_plane(gen *g)
{
    static const char *const shfl[] = {"idx", "up", "down", "xor"};
    static const char *const red[] = {"reduce.add", "reduce.min", "reduce.max", "scan.add",
                                      "exscan.add"};
    const reg m = tmp(g, U32);
    emit(g, "    activemask.u32 %s\n", m.s);
    const int t = value_type(g);
    const reg d = var(g, t), a = var(g, t);
    switch (rnd(g, 5)) {
    case 0: case 1: {
        const reg b = rnd(g, 2) ? var(g, U32) : kon(g, rnd(g, 40));
        emit(g, "    shfl.%s.%s %s, %s, %s, %s\n", shfl[rnd(g, 4)], tname[t], d.s, a.s, b.s, m.s);
        break;
    }
    case 2: { /* a vote to a bool, then a select; or a ballot */
        const reg c = cond(g), q = tmp(g, BOOL);
        if (rnd(g, 2)) {
            emit(g, "    vote.%s %s, %s, %s\n", rnd(g, 2) ? "all" : "any", q.s, c.s, m.s);
            emit(g, "    select.%s %s, %s, %s, %s\n", tname[t], d.s, a.s, var(g, t).s, q.s);
        } else {
            emit(g, "    vote.ballot.u32 %s, %s, %s\n", var(g, U32).s, c.s, m.s);
        }
        break;
    }
    case 3: /* f32 sums in lane order: the same bits in both runs */
        emit(g, "    %s.%s %s, %s, %s\n", red[rnd(g, 5)], tname[t], d.s, a.s, m.s);
        break;
    default:
    {
        const reg md = var(g, U32), ma = var(g, U32);
        emit(g, "    match.any.u32 %s, %s, %s\n", md.s, ma.s, m.s);
    }
        break;
    }
}

/* Atomics whose final memory does not depend on the order units run in
 * (integer add, and, or, xor, min, max on u32) on a slot of their own,
 * eight elements per 32 units; the old values go to a temporary nobody
 * reads (they do depend on the order). */
static void st_atomic(gen *g)
{
    static const char *const ops[] = {"add", "and", "or", "xor", "min", "max"};
    unsigned j;
    if (!slot(g, U32, &j))
        return;
    const reg x = tmp(g, U32);
    emit(g, "    and.u32 %s, %%g, %s\n", x.s, kon(g, 7).s);
    emit(g, "    add.u32 %s, %s, %s\n", x.s, x.s, kon(g, j * g->total).s);
    const reg a = address(g, PG, "%po32", x, 4);
    const char *op = ops[rnd(g, 6)];
    emit(g, "    atom.%s.relaxed.device.u32 %s, [%s], %s\n", op, tmp(g, U32).s, a.s, var(g, U32).s);
}

/* A marker (`else`, `case ...`, `default`) and one to `most` statements. */
static void part(gen *g, const char *marker, unsigned most)
{
    emit(g, "    %s\n", marker);
    stmts(g, 1 + rnd(g, most));
}

/* A switch on a selector that differs by lane, by plane or not at all,
 * with a case of two values, fallthrough and default at times. */
static void st_switch(gen *g)
{
    const reg sel = tmp(g, U32);
    switch (rnd(g, 3)) {
    case 0: emit(g, "    and.u32 %s, %s, %s\n", sel.s, var(g, U32).s, kon(g, 3).s); break;
    case 1: emit(g, "    and.u32 %s, %%t, %s\n", sel.s, kon(g, 3).s); break;
    default: emit(g, "    and.u32 %s, %%pp, %s\n", sel.s, kon(g, 3).s); break;
    }
    emit(g, "    switch %s\n", sel.s);
    g->ifs++;
    part(g, "case 0", 3);
    if (rnd(g, 2))
        emit(g, "    fallthrough\n");
    part(g, "case 1, 3", 3);
    if (rnd(g, 2))
        part(g, "default", 2);
    g->ifs--;
    emit(g, "    end\n");
}

/* Local memory (each unit's own, zeroed in the prologue): a store and a
 * load at index patterns, of u32. */
static void st_local(gen *g)
{
    const reg x = index_expr(g, NLOCAL - 1), y = index_expr(g, NLOCAL - 1);
    const reg v = var(g, U32), w = var(g, U32);
    emit(g, "    st.u32 [%s], %s\n", address(g, PL, "%lb", x, 4).s, v.s);
    emit(g, "    ld.u32 %s, [%s]\n", w.s, address(g, PL, "%lb", y, 4).s);
}

static void st_if(gen *g)
{
    emit(g, "    if %s\n", cond(g).s);
    g->ifs++;
    stmts(g, 1 + rnd(g, 4));
    if (rnd(g, 2))
        part(g, "else", 3);
    g->ifs--;
    emit(g, "    end\n");
}

/* A loop of k = 0, 1, ... while k < limit (a few rounds, the count by
 * lane, by plane or the same), with break, continue and break_if at times. */
static void st_loop(gen *g)
{
    const reg k = tmp(g, U32), b = tmp(g, BOOL);
    reg lim = tmp(g, U32);
    switch (rnd(g, 4)) {
    case 0: emit(g, "    and.u32 %s, %s, %s\n", lim.s, var(g, U32).s, kon(g, 3).s); break;
    case 1: emit(g, "    and.u32 %s, %%pp, %s\n", lim.s, kon(g, 3).s); break;
    case 2: emit(g, "    mov.u32 %s, %s\n", lim.s, kon(g, 1 + rnd(g, 4)).s); break;
    /* a limit and a step from the prologue, the same in every lane of the
     * launch: under a per-lane branch the counter is still varying to the
     * divergence analysis, and fuse.c loop_counter proves the head test
     * cube-uniform */
    default: snprintf(lim.s, sizeof lim.s, "%%kc%u", 1 + rnd(g, 4)); break;
    }
    emit(g, "    const.u32 %s, 0\n    loop\n", k.s);
    emit(g, "    ge.u32 %s, %s, %s\n    if %s\n    break\n    end\n", b.s, k.s, lim.s, b.s);
    g->loops++;
    stmts(g, 1 + rnd(g, 4));
    if (rnd(g, 3) == 0) {
        const reg c = cond(g);
        emit(g, "    if %s\n    %s\n    end\n", c.s, rnd(g, 2) ? "continue" : "break");
        stmts(g, 1 + rnd(g, 2));
    }
    g->loops--;
    emit(g, "    continuing\n"); /* then the constant: a `continue` must not skip it */
    emit(g, "    add.u32 %s, %s, %s\n", k.s, k.s, rnd(g, 2) ? "%kc1" : kon(g, 1).s);
    if (rnd(g, 4) == 0)
        emit(g, "    break_if %s\n", cond(g).s);
    emit(g, "    end\n");
}

static void stmt(gen *g)
{
    const bool top = !g->loops && !g->ifs;
    const unsigned nest = g->loops + g->ifs;
    unsigned r = rnd(g, 100);
    if (r < 18)
        st_arith(g);
    else if (r < 22)
        st_mul_uniform(g);
    else if (r < 28)
        st_const(g);
    else if (r < 38)
        st_cvt(g);
    else if (r < 45)
        st_select(g);
    else if (r < 62)
        st_load(g);
    else if (r < 72)
        st_store(g);
    else if (r < 80 && nest < 3)
        st_if(g);
    else if (r < 87 && nest < 3 && g->loops < 2)
        st_loop(g);
    else if (r < 94 && top && !g->returned)
        st_shared(g);
    else if (r < 96 && top && g->stmts > 4) {
        emit(g, "    if %s\n    return\n    end\n", cond(g).s);
        g->returned = true;
    } else if (r < 97)
        st_plane(g);
    else if (r < 98)
        st_atomic(g);
    else if (r < 99 && nest < 3)
        st_switch(g);
    else
        st_local(g);
}

static void stmts(gen *g, unsigned n)
{
    for (unsigned i = 0; i < n && g->stmts; i++, g->stmts--)
        stmt(g);
}

/* The kernel of seed `seed` for cubes of `block` units, `total` units in
 * all (a power of two): its text, malloc'ed; g keeps the output slots. */
static char *generate(uint64_t seed, unsigned block, unsigned total, gen *g)
{
    memset(g, 0, sizeof *g);
    g->s = seed * 0x9e3779b97f4a7c15ull + 1;
    g->block = block;
    g->total = total;
    g->stmts = 12 + rnd(g, 30);
    g->cap = 1 << 14;
    g->code = malloc(g->cap);
    if (!g->code)
        abort();
    g->code[0] = 0;
    /* every variable starts from the input, a position or a constant */
    for (int t = 0; t < 4; t++)
        for (unsigned v = 0; v < NVARS; v++) {
            const reg r = var_n(t, v);
            const char *name = r.s;
            switch (rnd(g, 3)) {
            case 0:
                load_input(g, t, name);
                break;
            case 1:
                if (t == F32)
                    emit(g, "    cvt.f32 %s, %%g\n", name);
                else
                    emit(g, "    cvt.%s %s, %%%s\n", tname[t], name, rnd(g, 2) ? "g" : "t");
                break;
            default:
                if (t == F32)
                    emit(g, "    const.f32 %s, %s\n", name, fconst(g));
                else
                    emit(g, "    const.%s %s, %u\n", tname[t], name, rnd(g, 1000));
                break;
            }
        }
    stmts(g, g->stmts);
    /* every variable to a slot of its own */
    for (int t = 0; t < 4; t++)
        for (unsigned v = 0; v < NVARS; v++) {
            unsigned j;
            if (!slot(g, t, &j))
                continue;
            const reg x = tmp(g, U32);
            emit(g, "    mov.u32 %s, %%g\n", x.s);
            store_slot(g, t, j, x, var_n(t, v).s);
        }
    emit(g, "    return\n.end\n");
    /* the header: parameters, registers, the prologue */
    gen h = {.cap = 1 << 12};
    h.code = malloc(h.cap);
    if (!h.code)
        abort();
    emit(&h, ".kernel rk\n.param out32 buffer u32 write\n.param out64 buffer u64 write\n"
             ".param in buffer u32 read\n.shared %u\n.local %u\n", block * 4, NLOCAL * 4);
    emit(&h, ".reg u32 %%t, %%c, %%cd, %%g, %%pp, %%tx, %%ty, %%dx, %%dy, %%zero\n"
             ".reg u32 %%kc1, %%kc2, %%kc3, %%kc4\n"
             ".reg ptr.global %%po32, %%po64, %%pi\n.reg ptr.shared %%sb\n.reg ptr.local %%lb\n");
    for (unsigned i = 0; i < NLOCAL; i++)
        emit(&h, ".reg ptr.local %%lz%u\n", i);
    for (int t = 0; t < 4; t++)
        for (unsigned v = 0; v < NVARS; v++)
            emit(&h, ".reg %s %s\n", tname[t], var_n(t, v).s);
    for (unsigned i = 0; i < g->nt; i++)
        emit(&h, ".reg %s %%q%u\n", tname[g->ttype[i]], i);
    /* t: the unit's index in its cube (cubes may be 2D), g: in the launch */
    emit(&h, "    sreg.u32 %%tx, unit_pos.x\n    sreg.u32 %%ty, unit_pos.y\n"
             "    sreg.u32 %%dx, cube_dim.x\n    sreg.u32 %%dy, cube_dim.y\n"
             "    mul.u32 %%t, %%ty, %%dx\n    add.u32 %%t, %%t, %%tx\n    mul.u32 %%cd, %%dx, %%dy\n"
             "    sreg.u32 %%c, cube_pos.x\n    mul.u32 %%g, %%c, %%cd\n    add.u32 %%g, %%g, %%t\n"
             "    sreg.u32 %%pp, plane_pos\n    param.ptr.global %%po32, out32, 0\n"
             "    param.ptr.global %%po64, out64, 0\n    param.ptr.global %%pi, in, 0\n"
             "    const.ptr.shared %%sb, 0\n    const.ptr.local %%lb, 0\n    const.u32 %%zero, 0\n"
             "    const.u32 %%kc1, 1\n    const.u32 %%kc2, 2\n    const.u32 %%kc3, 3\n"
             "    const.u32 %%kc4, 4\n");
    for (unsigned i = 0; i < NLOCAL; i++)
        emit(&h, "    const.ptr.local %%lz%u, %u\n    st.u32 [%%lz%u], %%zero\n", i, 4 * i, i);
    emit(&h, "%s", g->code);
    free(g->code);
    g->code = NULL;
    return h.code;
}

static uint32_t in_data[NIN];

/* Runs module `mod`'s kernel over `grid` cubes of `block` units, `bx`
 * wide, with fresh outputs; budget 0: the default path. Returns the
 * status; outputs copied to o32, o64. */
static cvm_status run(cvm_module *mod, unsigned grid, unsigned bx, unsigned block, uint64_t budget,
                      uint32_t *o32, uint64_t *o64, cvm_buffer *in, cvm_diag *d)
{
    const size_t n = (size_t)MAX_SLOTS * grid * block;
    cvm_buffer *b32 = kern_buf("out32", n * 4, NULL), *b64 = kern_buf("out64", n * 8, NULL);
    cvm_arg args[3] = {kern_arg_buf(b32), kern_arg_buf(b64), kern_arg_buf(in)};
    cvm_launch_config cfg = kern_cfg(grid, bx);
    cfg.block[1] = block / bx;
    cfg.step_budget = budget;
    const cvm_kernel *k = NULL;
    memset(d, 0, sizeof *d);
    cvm_status st = cvm_kernel_get(mod, "rk", &k, d);
    if (st == CVM_OK)
        st = cvm_launch(kern_stream(), k, &cfg, args, 3, d);
    if (st == CVM_OK)
        st = cvm_stream_sync(kern_stream(), d);
    if (st == CVM_OK && (!kern_read(b32, o32, n * 4) || !kern_read(b64, o64, n * 8)))
        st = CVM_INTERNAL;
    cvm_buffer_free(b32);
    cvm_buffer_free(b64);
    return st;
}

/* One kernel: false (with diag lines) when the two runs differ. */
static bool differ_one(uint64_t seed, cvm_buffer *in, unsigned *faults)
{
    /* {cubes, cube width, cube height}: 1D and 2D cubes of 1 to 8 planes
     * (one plane runs in lockstep too); the generator permutes units by xor,
     * so every launch has a power-of-two count of units */
    static const unsigned shapes[][3] = {{1, 64, 1}, {2, 128, 1}, {4, 64, 1}, {1, 256, 1},
                                         {2, 16, 16}, {4, 8, 16}, {2, 32, 4}, {1, 4, 32},
                                         {4, 32, 1}, {2, 8, 4}};
    const unsigned nshapes = sizeof shapes / sizeof shapes[0];
    const unsigned *sh = shapes[seed % nshapes], grid = sh[0], block = sh[1] * sh[2];
    gen g;
    char *src = generate(seed, block, grid * block, &g);
    if (getenv("DIFFER_PRINT"))
        diag("seed %llu (%u cubes of %ux%u units):\n%s", (unsigned long long)seed, grid, sh[1], sh[2], src);
    cvm_diag d;
    memset(&d, 0, sizeof d);
    cvm_module *mod = kern_load(src, "random kernel", &d);
    if (!mod) {
        diag("seed %llu: the generated kernel does not load:\n%s", (unsigned long long)seed, src);
        free(src);
        return false;
    }
    const size_t n = (size_t)MAX_SLOTS * grid * block;
    uint32_t *a32 = calloc(n, 4), *b32 = calloc(n, 4);
    uint64_t *a64 = calloc(n, 8), *b64 = calloc(n, 8);
    cvm_diag da, db;
    const cvm_status sa = run(mod, grid, sh[1], block, 0, a32, a64, in, &da);
    const cvm_status sb = run(mod, grid, sh[1], block, UINT64_C(1) << 40, b32, b64, in, &db);
    /* both run, or both fault; anything else (a timeout: the kernels are
     * bounded; a refused launch) is a finding */
    bool same = sa == sb && (sa == CVM_OK || sa == CVM_FAULT);
    *faults += sa == CVM_FAULT && same;
    if (!same)
        diag("seed %llu: status %s (default) against %s (plane interpreter): %s / %s",
             (unsigned long long)seed, cvm_status_str(sa), cvm_status_str(sb), da.message, db.message);
    /* a fault stops the launch wherever the planes were: which unit is
     * reported and what was stored by then depend on the order the planes
     * ran in, so faulting in both is all that must agree */
    for (size_t i = 0; same && sa == CVM_OK && i < n; i++) {
        const unsigned slot = (unsigned)(i / (grid * block)), unit = (unsigned)(i % (grid * block));
        if (a32[i] != b32[i]) {
            diag("seed %llu: out32 slot %u unit %u: 0x%08x (default) against 0x%08x", (unsigned long long)seed,
                 slot, unit, a32[i], b32[i]);
            same = false;
        }
        if (a64[i] != b64[i]) {
            diag("seed %llu: out64 slot %u unit %u: 0x%016llx (default) against 0x%016llx",
                 (unsigned long long)seed, slot, unit, (unsigned long long)a64[i], (unsigned long long)b64[i]);
            same = false;
        }
    }
    if (!same)
        diag("the kernel (%u cubes of %ux%u units):\n%s", grid, sh[1], sh[2], src);
    cvm_module_free(mod);
    free(src);
    free(a32), free(b32), free(a64), free(b64);
    return same;
}

int main(void)
{
    if (!kern_open())
        return 1;
    const char *ek = getenv("DIFFER_KERNELS"), *es = getenv("DIFFER_SEED");
    const unsigned count = ek ? (unsigned)strtoul(ek, NULL, 10) : 1000;
    const uint64_t first = es ? strtoull(es, NULL, 10) : 1;
    /* the input: random bits in even elements, floats in [-4, 4) in odd ones */
    uint64_t s = 88172645463325252ull;
    for (unsigned i = 0; i < NIN; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (i & 1) {
            const float f = (float)((int32_t)(s >> 40) % 4096) / 1024.0f;
            memcpy(&in_data[i], &f, 4);
        } else {
            in_data[i] = (uint32_t)(s >> 17);
        }
    }
    cvm_buffer *in = kern_buf("in", sizeof in_data, in_data);
    unsigned bad = 0, faults = 0;
    for (unsigned i = 0; i < count && bad < 3; i++)
        bad += !differ_one(first + i, in, &faults);
    ok(bad == 0, "%u random kernels from seed %llu: the default path and the plane interpreter agree",
       count, (unsigned long long)first);
    /* the generator's reach: some kernels fault (about 1%), most do not
     * (too few kernels to say below a few hundred) */
    ok(count < 500 || (faults > 0 && faults < count / 4), "%u of them fault in both runs", faults);
    cvm_buffer_free(in);
    kern_close();
    return done_testing();
}
