/*
 * interp_lockstep.c - runs the planes of a cube in lockstep: one dispatch
 * per instruction for the whole cube instead of one per plane.
 *
 * The plane interpreter (interp_run.c) pays its dispatch, operand decoding
 * and type switch once per plane and instruction; for a cube of 256 units
 * that is eight times per instruction, and for the memory-bound kernels it
 * costs more than the lane loops themselves. While every plane of a cube is
 * runnable at the same pc, this loop decodes an instruction once and runs
 * its typed lane loop over every plane's registers (the planes' register
 * files lie at a constant stride). Planes keep their own active masks, so
 * divergence inside a plane changes nothing here.
 *
 * Which instructions: the common arithmetic, compares, conversions, moves
 * and the fused chains of decode.c on 4- and 8-byte types (line 1), and
 * plain loads and stores (interp_mem.c, plane by plane). Every other
 * instruction, control flow included, runs through cvm_vm_run_plane in
 * one-step mode for each plane in turn, so its semantics are the plane
 * interpreter's by construction. After such a step the planes either still
 * agree (all runnable at one pc) and lockstep goes on, or they part (a
 * branch some planes took and others did not, a barrier, the end, a
 * fault) and the cube's scheduler (interp.c run_cube) runs them one by one
 * as before, until a barrier brings them together again.
 *
 * Ordering: planes of a cube run concurrently on a GPU and the interpreter
 * has always been free to interleave them between scheduling points; here
 * they interleave per instruction. Kernels with `print` (whose output order
 * between planes would change) do not run in lockstep (decode.c), nor do
 * launches with a step budget or a sequential or random schedule (interp.c
 * plan), so the debugger and the schedule modes see the plane interpreter
 * alone.
 */
#include "interp.h"

/* The lane loops are this file's work (see interp_run.c). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=cheap")
#endif

#include <math.h>
#include <string.h>

#include "ctl.h"
#include "lanes.h"
#include "numerics.h"

#define FULL UINT64_C(0xffffffff)

/* BODY once per plane: Rg is its register file, act its active mask. */
#define PLANES(...)                                                                        \
    do {                                                                                   \
        for (unsigned g_ = 0; g_ < G; g_++) {                                              \
            uint8_t *const Rg = R0 + g_ * stride;                                          \
            const uint64_t act = P[g_].active;                                             \
            __VA_ARGS__;                                                                   \
        }                                                                                  \
    } while (0)
/* BODY for every active lane l of the current plane (straight vector code
 * when all 32 are). */
#define LANES(...)                                                                         \
    do {                                                                                   \
        if (act == FULL) {                                                                 \
            IVDEP for (unsigned l = 0; l < FIXED_W; l++) { __VA_ARGS__ }                   \
        } else {                                                                           \
            for (unsigned l = 0; l < FIXED_W; l++)                                         \
                if (act >> l & 1) { __VA_ARGS__ }                                          \
        }                                                                                  \
    } while (0)
#define SLOT(T, s) ((T *)(void *)(Rg + ((size_t)(s) << rs)))

#define UN(T, EXPR)                                                                        \
    PLANES(T *d = SLOT(T, in->d); const T *a = SLOT(T, in->a);                             \
           LANES(const T x = a[l]; d[l] = (T)(EXPR);))
#define BIN(T, EXPR)                                                                       \
    PLANES(T *d = SLOT(T, in->d); const T *a = SLOT(T, in->a); const T *b = SLOT(T, in->b); \
           LANES(const T x = a[l]; const T y = b[l]; d[l] = (T)(EXPR);))
/* d (type TD) from a (type TA) and b (type TB). */
#define MIX(TD, TA, TB, EXPR)                                                              \
    PLANES(TD *d = SLOT(TD, in->d); const TA *a = SLOT(TA, in->a);                         \
           const TB *b = SLOT(TB, in->b); LANES(d[l] = (TD)(EXPR);))
/* d (type TD) from a (type TA). */
#define CONV(TD, TA, EXPR)                                                                 \
    PLANES(TD *d = SLOT(TD, in->d); const TA *a = SLOT(TA, in->a); LANES(d[l] = (TD)(EXPR);))
#define CMP(T, EXPR)                                                                       \
    PLANES(uint8_t *d = SLOT(uint8_t, in->d); const T *a = SLOT(T, in->a);                 \
           const T *b = SLOT(T, in->b);                                                    \
           LANES(const T x = a[l]; const T y = b[l]; d[l] = (uint8_t)(EXPR);))
#define FILLV(T, v)                                                                        \
    PLANES(T *d = SLOT(T, in->d); const T v_ = (T)(v); LANES(d[l] = v_;))

typedef struct lockstep {
    cvm_vm_exec *x;
    cvm_vm_plane *P;
    unsigned G, rs;
    uint8_t *R0;
    size_t stride;
} lockstep;

/* Integer types by width (wrapping ops), f32 and f64: false for others. */
#define ARITH(EXPR_I, EXPR_F)                                                              \
    switch (in->elem) {                                                                    \
    case CVM_T_I32: case CVM_T_U32: BIN(uint32_t, EXPR_I); return true;                    \
    case CVM_T_I64: case CVM_T_U64: BIN(uint64_t, EXPR_I); return true;                    \
    case CVM_T_F32: BIN(float, EXPR_F); return true;                                       \
    case CVM_T_F64: BIN(double, EXPR_F); return true;                                      \
    default: return false;                                                                 \
    }
#define COMPARE(OP)                                                                        \
    switch (in->ea) {                                                                      \
    case CVM_T_I32: CMP(int32_t, x OP y); return true;                                     \
    case CVM_T_U32: CMP(uint32_t, x OP y); return true;                                    \
    case CVM_T_I64: CMP(int64_t, x OP y); return true;                                     \
    case CVM_T_U64: CMP(uint64_t, x OP y); return true;                                    \
    case CVM_T_F32: CMP(float, x OP y); return true;                                       \
    case CVM_T_F64: CMP(double, x OP y); return true;                                      \
    default: return false;                                                                 \
    }
#define BITWISE(OP)                                                                        \
    switch (in->elem) {                                                                    \
    case CVM_T_BOOL: BIN(uint8_t, x OP y); return true;                                    \
    case CVM_T_I32: case CVM_T_U32: BIN(uint32_t, x OP y); return true;                    \
    case CVM_T_I64: case CVM_T_U64: BIN(uint64_t, x OP y); return true;                    \
    default: return false;                                                                 \
    }

/* Arithmetic, compares and bitwise ops of one element per lane; false
 * when `in` is not one this loop runs itself. */
static bool arith(const lockstep *s, const cvm_vm_dinsn *in)
{
    cvm_vm_plane *const P = s->P;
    const unsigned G = s->G, rs = s->rs;
    uint8_t *const R0 = s->R0;
    const size_t stride = s->stride;
    switch (in->h) {
    case CVM_OP_ADD: ARITH(x + y, x + y)
    case CVM_OP_SUB: ARITH(x - y, x - y)
    case CVM_OP_MUL: ARITH((x + 0u) * y, x * y)
    case CVM_OP_EQ: COMPARE(==)
    case CVM_OP_NE: COMPARE(!=)
    case CVM_OP_LT: COMPARE(<)
    case CVM_OP_LE: COMPARE(<=)
    case CVM_OP_GT: COMPARE(>)
    case CVM_OP_GE: COMPARE(>=)
    case CVM_OP_AND: BITWISE(&)
    case CVM_OP_OR: BITWISE(|)
    case CVM_OP_XOR: BITWISE(^)
    case CVM_OP_MIN:
    case CVM_OP_MAX: {
        const bool max = in->h == CVM_OP_MAX;
        switch (in->elem) {
        case CVM_T_F32:
            if (max)
                PLANES(uint32_t *d = SLOT(uint32_t, in->d); const float *a = SLOT(float, in->a);
                       const float *b = SLOT(float, in->b);
                       const uint32_t *ai = SLOT(uint32_t, in->a), *bi = SLOT(uint32_t, in->b);
                       LANES(uint32_t r_; const float x = a[l], y = b[l];
                             const uint32_t xi = ai[l], yi = bi[l];
                             FMINMAX_F32_BITS(r_, >, yi, xi, x, y, xi, yi); d[l] = r_;));
            else
                PLANES(uint32_t *d = SLOT(uint32_t, in->d); const float *a = SLOT(float, in->a);
                       const float *b = SLOT(float, in->b);
                       const uint32_t *ai = SLOT(uint32_t, in->a), *bi = SLOT(uint32_t, in->b);
                       LANES(uint32_t r_; const float x = a[l], y = b[l];
                             const uint32_t xi = ai[l], yi = bi[l];
                             FMINMAX_F32_BITS(r_, <, xi, yi, x, y, xi, yi); d[l] = r_;));
            return true;
        case CVM_T_I32:
            if (max) BIN(int32_t, x > y ? x : y); else BIN(int32_t, x < y ? x : y);
            return true;
        case CVM_T_U32:
            if (max) BIN(uint32_t, x > y ? x : y); else BIN(uint32_t, x < y ? x : y);
            return true;
        default:
            return false;
        }
    }
    case CVM_OP_FMA:
        switch (in->elem) {
        case CVM_T_F32:
            PLANES(float *d = SLOT(float, in->d); const float *a = SLOT(float, in->a);
                   const float *b = SLOT(float, in->b); const float *c = SLOT(float, in->c);
                   LANES(d[l] = fmaf(a[l], b[l], c[l]);));
            return true;
        default:
            return false;
        }
    case CVM_OP_NOT:
        switch (in->elem) {
        case CVM_T_BOOL: UN(uint8_t, x ^ 1u); return true;
        case CVM_T_I32: case CVM_T_U32: UN(uint32_t, ~x); return true;
        default: return false;
        }
    default:
        return false;
    }
}

/* Moves, constants, parameters, selects, conversions and pointer
 * arithmetic of one element per lane; false when not one of these. */
static bool data(const lockstep *s, const cvm_vm_dinsn *in)
{
    cvm_vm_plane *const P = s->P;
    const unsigned G = s->G, rs = s->rs;
    uint8_t *const R0 = s->R0;
    const size_t stride = s->stride;
    switch (in->h) {
    case CVM_OP_MOV:
        switch (in->esz) {
        case 1: UN(uint8_t, x); return true;
        case 4: UN(uint32_t, x); return true;
        case 8: UN(uint64_t, x); return true;
        default: return false;
        }
    case CVM_OP_CONST:
    case CVM_OP_PARAM: {
        uint64_t v = in->imm;
        if (in->h == CVM_OP_PARAM) {
            const cvm_vm_launch *L = s->x->L;
            v = 0;
            memcpy(&v, L->params + L->param_offset[in->aux] + in->imm, in->esz);
        }
        switch (in->esz) {
        case 1: FILLV(uint8_t, v); return true;
        case 4: FILLV(uint32_t, v); return true;
        case 8: FILLV(uint64_t, v); return true;
        default: return false;
        }
    }
    case CVM_OP_SELECT:
        switch (in->esz) {
        case 4:
            PLANES(uint32_t *d = SLOT(uint32_t, in->d); const uint32_t *a = SLOT(uint32_t, in->a);
                   const uint32_t *b = SLOT(uint32_t, in->b); const uint8_t *c = SLOT(uint8_t, in->c);
                   LANES(d[l] = (c[l] & 1) ? a[l] : b[l];));
            return true;
        case 8:
            PLANES(uint64_t *d = SLOT(uint64_t, in->d); const uint64_t *a = SLOT(uint64_t, in->a);
                   const uint64_t *b = SLOT(uint64_t, in->b); const uint8_t *c = SLOT(uint8_t, in->c);
                   LANES(d[l] = (c[l] & 1) ? a[l] : b[l];));
            return true;
        default:
            return false;
        }
    case CVM_OP_CVT:
        switch (in->k) {
        case CVM_VM_CVT_COPY4: UN(uint32_t, x); return true;
        case CVM_VM_CVT_COPY8: UN(uint64_t, x); return true;
        case CVM_VM_CVT_SEXT32: CONV(int64_t, int32_t, a[l]); return true;
        case CVM_VM_CVT_ZEXT32: CONV(uint64_t, uint32_t, a[l]); return true;
        case CVM_VM_CVT_TRUNC64: CONV(uint32_t, uint64_t, a[l]); return true;
        case CVM_VM_CVT_I32_F32: CONV(float, int32_t, a[l]); return true;
        case CVM_VM_CVT_I32_F64: CONV(double, int32_t, a[l]); return true;
        case CVM_VM_CVT_F32_F64: CONV(double, float, a[l]); return true;
        default: return false;
        }
    case CVM_OP_PTR_ADD: {
        const bool wide = in->eb == CVM_T_I64 || in->eb == CVM_T_U64;
        if (in->elem == CVM_T_PTR_GLOBAL) {
            if (wide)
                MIX(uint64_t, uint64_t, uint64_t, a[l] + b[l]);
            else
                MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l]);
        } else {
            if (wide)
                MIX(uint32_t, uint32_t, uint64_t, a[l] + b[l]);
            else
                MIX(uint32_t, uint32_t, uint32_t, a[l] + b[l]);
        }
        return true;
    }
    default:
        return false;
    }
}

/* Special registers: positions lane by lane, the cube's own values
 * filled; false for the rest. */
static bool sreg(const lockstep *s, const cvm_vm_dinsn *in)
{
    cvm_vm_plane *const P = s->P;
    const unsigned G = s->G, rs = s->rs;
    uint8_t *const R0 = s->R0;
    const size_t stride = s->stride;
    const cvm_vm_exec *x = s->x;
    const unsigned id = in->aux;
    if (in->esz != 4)
        return false;
    if (id - CVM_SREG_CUBE_POS_X < 3u) {
        FILLV(uint32_t, x->cube[id - CVM_SREG_CUBE_POS_X]);
        return true;
    }
    if (id - CVM_SREG_CUBE_DIM_X < 3u) {
        FILLV(uint32_t, x->L->block[id - CVM_SREG_CUBE_DIM_X]);
        return true;
    }
    uint32_t pos[64];
    if (!sreg_positions(x, &P[0], id, pos))
        return false;
    for (unsigned g = 0; g < G; g++) {
        if (g && !sreg_positions(x, &P[g], id, pos))
            return false; /* not reached: the id was one the first plane took */
        uint32_t *d = (uint32_t *)(void *)(R0 + g * stride + ((size_t)in->d << rs));
        const uint64_t act = P[g].active;
        LANES(d[l] = pos[l];);
    }
    return true;
}

/* The fused chains of decode.c (the same computations as interp_run.c's
 * CVM_VM_H_INDEX and CVM_VM_H_ARITH64 handlers). */
static void fused(const lockstep *s, const cvm_vm_dinsn *in)
{
    cvm_vm_plane *const P = s->P;
    const unsigned G = s->G, rs = s->rs;
    uint8_t *const R0 = s->R0;
    const size_t stride = s->stride;
    if (in->h == CVM_VM_H_ARITH64) {
        const bool add = in->c == CVM_OP_ADD;
        switch (in->k) {
        case 1:
            if (add) MIX(uint64_t, int32_t, uint64_t, (uint64_t)(int64_t)a[l] + b[l]);
            else MIX(uint64_t, int32_t, uint64_t, (uint64_t)(int64_t)a[l] * b[l]);
            break;
        case 2:
            if (add) MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l]);
            else MIX(uint64_t, uint64_t, int32_t, a[l] * (uint64_t)(int64_t)b[l]);
            break;
        default:
            if (add) MIX(int64_t, int32_t, int32_t, (int64_t)a[l] + b[l]);
            else MIX(int64_t, int32_t, int32_t, (int64_t)a[l] * b[l]);
            break;
        }
        return;
    }
    /* CVM_VM_H_INDEX: d = a + ext(b) * s */
    const uint64_t sc = in->imm;
    const unsigned sh = in->n;
    if (in->elem != CVM_T_PTR_GLOBAL) {
        const uint32_t s32 = (uint32_t)sc;
        if (in->k & (CVM_VM_IX_SEXT32 | CVM_VM_IX_ZEXT32))
            MIX(uint32_t, uint32_t, uint32_t, a[l] + b[l] * s32);
        else
            MIX(uint32_t, uint32_t, uint64_t, a[l] + (uint32_t)b[l] * s32);
        return;
    }
    switch (in->k) {
    case CVM_VM_IX_I64: MIX(uint64_t, uint64_t, uint64_t, a[l] + b[l] * sc); break;
    case CVM_VM_IX_I64 | CVM_VM_IX_SHIFT: MIX(uint64_t, uint64_t, uint64_t, a[l] + (b[l] << sh)); break;
    case CVM_VM_IX_SEXT32: MIX(uint64_t, uint64_t, int32_t, a[l] + (uint64_t)(int64_t)b[l] * sc); break;
    case CVM_VM_IX_SEXT32 | CVM_VM_IX_SHIFT:
        MIX(uint64_t, uint64_t, int32_t, a[l] + ((uint64_t)(int64_t)b[l] << sh)); break;
    case CVM_VM_IX_ZEXT32: MIX(uint64_t, uint64_t, uint32_t, a[l] + (uint64_t)b[l] * sc); break;
    default: MIX(uint64_t, uint64_t, uint32_t, a[l] + ((uint64_t)b[l] << sh)); break;
    }
}

static void set_pc(const lockstep *s, uint32_t pc)
{
    for (unsigned g = 0; g < s->G; g++)
        s->P[g].pc = pc;
}

/* A plane's slice ended in a fault: what run_cube does with it. */
static bool faulted(cvm_vm_plane *q, int r)
{
    if (r != CVM_VM_R_FAULT && r != CVM_VM_R_STOP)
        return false;
    q->state = CVM_VM_FAULTED;
    return true;
}

/* Loads and stores, plane by plane; false when one faulted (the planes
 * before it have gone past the instruction, the rest have not). */
static bool memory(const lockstep *s, const cvm_vm_dinsn *in, uint32_t pc)
{
    for (unsigned g = 0; g < s->G; g++) {
        cvm_vm_plane *q = &s->P[g];
        if (faulted(q, cvm_vm_mem(s->x, q, in))) {
            for (unsigned h = 0; h < g; h++)
                s->P[h].pc = pc + 1;
            return false;
        }
    }
    return true;
}

/* Every plane is runnable at one pc (then *pc is it). */
static bool agree(const lockstep *s, uint32_t *pc)
{
    for (unsigned g = 0; g < s->G; g++)
        if (s->P[g].state != CVM_VM_RUNNABLE || s->P[g].pc != s->P[0].pc)
            return false;
    *pc = s->P[0].pc;
    return true;
}

/* A plane's next pc from ctl.h: CVM_VM_PC_DONE finishes it. */
static void go(cvm_vm_plane *q, uint32_t t)
{
    if (t == CVM_VM_PC_DONE)
        q->state = CVM_VM_DONE;
    else
        q->pc = t;
}

/* Control flow the planes run here, each with its own masks and frames
 * (ctl.h); false for the rest. *back: a loop went round. */
static bool control(const lockstep *s, const cvm_vm_dinsn *code, const cvm_vm_dinsn *in,
                    uint32_t pc, bool *back)
{
    const cvm_vm_dinsn *orig = s->x->kp->code;
    *back = false;
    switch (in->h) {
    case CVM_VM_H_CMPBR:
        for (unsigned g = 0; g < s->G; g++) {
            cvm_vm_plane *q = &s->P[g];
            const uint64_t act = q->active;
            uint64_t m = cmp_mask(s->x, q, &orig[in->a], act);
            if (in->b != UINT32_MAX) {
                const uint64_t m2 = cmp_mask(s->x, q, &orig[in->b], act);
                m = in->c == CVM_OP_AND ? m & m2 : m | m2;
            }
            go(q, cvm_vm_cmpbr(q, in, orig, act, (in->k ? ~m : m) & act));
        }
        return true;
    case CVM_OP_END:
        for (unsigned g = 0; g < s->G; g++)
            go(&s->P[g], cvm_vm_end(&s->P[g], code, in, pc, back));
        return true;
    case CVM_OP_LOOP:
        for (unsigned g = 0; g < s->G; g++) {
            cvm_vm_plane *q = &s->P[g];
            q->stack[in->aux] = (cvm_vm_frame){.kind = CVM_VM_F_LOOP, .open = pc, .next = in->target};
            q->sp = in->aux + 1;
            q->pc = pc + 1;
        }
        return true;
    case CVM_OP_RETURN:
        for (unsigned g = 0; g < s->G; g++) {
            cvm_vm_plane *q = &s->P[g];
            q->exited |= q->active;
            q->active = 0;
            go(q, cvm_vm_skip(q));
        }
        return true;
    default:
        return false;
    }
}

/* `in` through the plane interpreter, one plane after the other. */
static void one_step(const lockstep *s)
{
    s->x->one_step = true;
    for (unsigned g = 0; g < s->G; g++)
        faulted(&s->P[g], cvm_vm_run_plane(s->x, &s->P[g]));
    s->x->one_step = false;
}

void cvm_vm_run_lockstep(cvm_vm_exec *x)
{
    const cvm_vm_dinsn *const code = x->kp->fast ? x->kp->fast : x->kp->code;
    const lockstep s = {
        .x = x, .P = x->planes, .G = x->nplanes, .rs = x->rshift, .R0 = x->planes[0].regs,
        .stride = (size_t)(x->planes[1].regs - x->planes[0].regs),
    };
    uint32_t pc = s.P[0].pc, backedges = 0;
    for (;;) {
        const cvm_vm_dinsn *in = &code[pc];
        switch (in->h) {
        case CVM_OP_NOP:
            pc++;
            continue;
        case CVM_VM_H_INDEX:
        case CVM_VM_H_ARITH64:
            fused(&s, in);
            pc = in->target;
            continue;
        case CVM_OP_SREG:
            if (!sreg(&s, in))
                break;
            pc++;
            continue;
        case CVM_OP_LD:
        case CVM_OP_ST:
            set_pc(&s, pc);
            if (!cvm_vm_mem_cube(x, in) && !memory(&s, in, pc))
                return;
            pc++;
            continue;
        default:
            if (in->line == 1 && (arith(&s, in) || data(&s, in))) {
                pc++;
                continue;
            }
            break;
        }
        bool back = false;
        uint32_t next;
        set_pc(&s, pc);
        if (!control(&s, code, in, pc, &back))
            one_step(&s);
        if (!agree(&s, &next))
            return;
        /* a quantum of back-edges: let run_cube check the timeout */
        if ((back || next <= pc) && ++backedges == CVM_VM_QUANTUM)
            return;
        pc = next;
    }
}
